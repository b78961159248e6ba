/**
 * Where one Markdown file's shell blocks run, as a reader would run them from a clone: a temporary folder that looks
 * like the repository (its folders linked, deploy/ copied so `kustomize edit` changes the copy), with `dist/` the
 * sources compiled to JavaScript (as `make build` makes it, without the type check), `reconcile-shadow` on the PATH as
 * npm installs it, and the files a reader brings (an operator log, a journal, a model) real ones from test/fixtures.
 * Blocks of one file share it in document order, so a journal one block writes is there for the next.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { compiledCli } from '../reliability/compiled-sidecar.js';
import { REPO } from '../support/paths.js';

/** Folders of the repository the docs' commands read, linked into the sandbox. */
const LINKED = ['examples', 'model', 'alerts', 'dashboards', 'Dockerfile', 'package.json'];

/**
 * Files the docs name that a reader brings: each is a real capture or journal from test/fixtures (their READMEs say
 * where they come from).
 */
const BROUGHT: Readonly<Record<string, () => Buffer>> = {
  // controller-runtime's real zap logger (test/fixtures/logs/real/README.md)
  'operator.log': () => gunzipSync(readFileSync(join(REPO, 'test/fixtures/logs/real/phased.operator.log.gz'))),
  'operator.log.gz': () => readFileSync(join(REPO, 'test/fixtures/logs/real/phased.operator.log.gz')),
  // the engine's contract case: a HyperShift fleet on the phased loop
  'attempts.jsonl': () => readFileSync(join(REPO, 'test/fixtures/contract/world-phased.journal.jsonl')),
  // a model of one's own: the built-in one, as a file
  'model.yaml': () => readFileSync(join(REPO, 'model/builtin/hypershift-hostedcluster.yaml')),
  // a thresholds file as docs/decisions.md describes it
  'thresholds.yaml': () => Buffer.from('minAttempts: 50\nminObjects: 3\n'),
};

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export class Sandbox {
  readonly dir: string;
  /** Shell variables the blocks set (`IMAGE=...`), exported to what runs. */
  readonly vars = new Map<string, string>();

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'rs-docs-'));
    for (const name of LINKED) symlinkSync(join(REPO, name), join(this.dir, name));
    cpSync(join(REPO, 'deploy'), join(this.dir, 'deploy'), { recursive: true });
    symlinkSync(dirname(dirname(compiledCli())), join(this.dir, 'dist'));
    // The installed command, as npm's bin link runs it.
    mkdirSync(join(this.dir, '.bin'));
    writeFileSync(join(this.dir, '.bin', 'reconcile-shadow'), `#!/bin/sh\nexec node ${join(this.dir, 'dist', 'cli', 'main.js')} "$@"\n`, { mode: 0o755 });
    for (const [name, content] of Object.entries(BROUGHT)) writeFileSync(join(this.dir, name), content());
  }

  /** `text` with the block's variables expanded (`$IMAGE`, `${IMAGE}`). */
  expand(text: string): string {
    return text.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => this.vars.get(name) ?? whole);
  }

  /**
   * Runs a command line with bash in the sandbox (cwd relative to it). With `pipefail` (the default) a pipeline fails
   * when any of its commands does; without it, as the shell's default, when its last does (`curl … | head` ends
   * curl early on purpose).
   */
  run(line: string, cwd = '.', { pipefail = true, timeoutMs = 120_000 } = {}): Promise<Ran> {
    const env = { ...process.env, ...Object.fromEntries(this.vars), PATH: `${join(this.dir, '.bin')}:${process.env.PATH ?? ''}` };
    return new Promise((resolve, reject) => {
      const child = spawn('bash', [...(pipefail ? ['-o', 'pipefail'] : []), '-c', line], { cwd: join(this.dir, cwd), env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
      });
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
