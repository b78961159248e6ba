/**
 * The command as a user installs it: `npm pack` (its prepack builds dist/), `npm install -g` of the tarball into a
 * prefix of its own, then the installed `reconcile-shadow` (a symlink into the package, as every npm bin is) runs
 * `--help`, `--version` and an `analyze` of the packaged example. Dependencies come from npm's cache when `npm ci`
 * already filled it, else from the registry.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isEntryPoint } from '../../cli/entry-point.js';
import { REPO } from '../support/paths.js';
import { runCli } from '../support/run-command.js';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const NPM_ENV = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

function run(command: string, args: readonly string[], cwd: string, timeoutMs = 180_000): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: NPM_ENV, timeout: timeoutMs });
  if (result.error) throw result.error;
  return result;
}

function succeed(command: string, args: readonly string[], cwd: string): string {
  const result = run(command, args, cwd);
  assert.equal(result.status, 0, `${command} ${args.join(' ')} exited ${String(result.status)}:\n${result.stderr}`);
  return result.stdout;
}

interface PackedFile {
  readonly path: string;
}

describe('reconcile-shadow installed from npm pack', function () {
  this.timeout(300_000);
  let dir: string;
  let files: string[];
  let bin: string;
  let installed: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rs-install-'));
    const packed = JSON.parse(succeed('npm', ['pack', '--json', '--pack-destination', dir], REPO)) as { filename: string; files: PackedFile[] }[];
    files = packed[0]!.files.map((f) => f.path);
    const prefix = join(dir, 'prefix');
    succeed('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', join(dir, packed[0]!.filename)], dir);
    bin = join(prefix, 'bin', 'reconcile-shadow');
    installed = join(prefix, 'lib', 'node_modules', 'reconcile-shadow');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('packs the compiled command and what it reads at run time, and no sources or tests', () => {
    for (const path of [
      'dist/cli/main.js',
      'model/builtin/hypershift-hostedcluster.yaml',
      'collector/otlp/otlp_trace.proto',
      'examples/adapter-task-config.yaml',
      'examples/database-operator/model.yaml',
      'package.json',
      'README.md',
    ]) {
      assert.ok(files.includes(path), `${path} in the tarball`);
    }
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') || f.endsWith('.map') || f.startsWith('test/') || f.startsWith('dist/test/')),
      [],
    );
  });

  it('installs a bin that is a symlink, and it prints the help', () => {
    assert.ok(lstatSync(bin).isSymbolicLink());
    const help = run(bin, ['--help'], dir);
    assert.deepEqual([help.status, help.stderr], [0, '']);
    assert.match(help.stdout, /^reconcile-shadow <command> \[flags\]\n/);
    const analyzeHelp = run(bin, ['analyze', '-h'], dir);
    assert.deepEqual(
      [analyzeHelp.status, analyzeHelp.stdout.split('\n')[0]],
      [0, 'reconcile-shadow analyze: replay a journal (or an operator log) through both loops and count what the phased loop would change'],
    );
  });

  it('--version is the package version', () => {
    const version = run(bin, ['--version'], dir);
    assert.deepEqual([version.status, version.stdout], [0, `reconcile-shadow ${VERSION}\n`]);
  });

  it('analyzes the packaged example exactly as the sources do', async () => {
    const args = ['analyze', '--model', 'examples/database-operator/model.yaml', '--journal', 'examples/database-operator/journal.jsonl', '--format', 'json'];
    const fromInstall = run(bin, args, installed);
    assert.deepEqual([fromInstall.status, fromInstall.stderr], [0, '']);
    const fromSource = await runCli(args.map((a) => (a.startsWith('examples/') ? join(REPO, a) : a)));
    assert.deepEqual(JSON.parse(fromInstall.stdout), JSON.parse(fromSource.stdout));
  });
});

describe('cli/entry-point: the main-module check follows symlinks', () => {
  it('is true for the file itself and for a symlink to it, false for another file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-entry-'));
    try {
      const main = join(REPO, 'cli', 'main.ts');
      const link = join(dir, 'reconcile-shadow');
      symlinkSync(main, link);
      const url = new URL(`file://${main}`).href;
      assert.deepEqual(
        [
          isEntryPoint(url, main),
          isEntryPoint(url, link),
          isEntryPoint(url, join(REPO, 'cli', 'io.ts')),
          isEntryPoint(url, join(dir, 'missing')),
          isEntryPoint(url, undefined),
        ],
        [true, true, false, false, false],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
