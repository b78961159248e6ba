/**
 * How a shell block of the docs is checked, line by line, as a reader would type it into a clone:
 * - `reconcile-shadow …` and `node dist/cli/main.js …` run for real in the sandbox (pipes and redirects as written)
 *   and must exit 0;
 * - `make TARGET` must be a target make can plan (`make -n`): the docs never run `make test` inside `make test`;
 * - `curl` to the demo (a document that runs `make run`) fetches from a live embedded-default sidecar; `curl` through
 *   a `kubectl port-forward` must name a port the overlay's sidecar listens on and a path served there;
 * - `kubectl` needs a cluster, so its arguments are checked against what deploy/ ships: `-k` folders render with
 *   `kubectl kustomize`, a patch applies to the operator's Deployment (`kubectl patch --local`), the namespace,
 *   Deployment, Secret, label and ports are the overlay's;
 * - `kustomize edit set image` and `docker build/push` are checked for what they name (no Docker engine here), and the
 *   edit is made in the sandbox's copy of deploy/ so later lines see the image.
 * Anything else fails the test: make it one of these, or mark the block `<!-- not-run: why -->`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse, parseAllDocuments, parseDocument } from 'yaml';
import { runCommand } from '../../cli/run.js';
import { OVERLAYS, type Overlay } from '../../deploy/overlays.js';
import { SIDECAR_CONTAINER, SIDECAR_POD_LABEL } from '../../deploy/sidecar-patch.js';
import { EMBEDDED_DEFAULT } from '../../sidecar/config.js';
import { REPO } from '../support/paths.js';
import type { CodeBlock } from './markdown-blocks.js';
import type { Sandbox } from './sandbox.js';
import { parseLine, shellLines, type Item, type Pipeline, type Word } from './shell.js';

/** Commands that may follow a checked command in a pipe: they only filter what it printed. */
const FILTERS = new Set(['grep', 'head', 'tail', 'jq', 'wc', 'sort', 'less']);
/** Paths each listener of the sidecar serves (sidecar/server.ts). */
const SERVED = { metrics: ['/metrics', '/healthz', '/readyz'], summary: ['/summary'] } as const;

/** The embedded default (what `make run` starts), on free ports, for the docs' `curl` lines. */
export class LiveDemo {
  private started: Promise<string> | undefined;
  private stop: ((signal: string) => void) | undefined;
  private exited: Promise<number> | undefined;

  /** `http://127.0.0.1:PORT` of its metrics listener, starting it on first use. */
  address(): Promise<string> {
    this.started ??= new Promise<string>((resolve, reject) => {
      const dir = mkdtempSync(join(tmpdir(), 'rs-docs-demo-'));
      const config = join(dir, 'embedded-default.yaml');
      writeFileSync(
        config,
        EMBEDDED_DEFAULT.replace('127.0.0.1:9464', '127.0.0.1:0').replace('127.0.0.1:4318', '127.0.0.1:0').replace('127.0.0.1:4317', '127.0.0.1:0'),
      );
      const stderr = new PassThrough();
      let log = '';
      stderr.on('data', (c: Buffer) => {
        log += c.toString();
        const found = /metrics (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(log);
        if (found) resolve(found[1]!);
      });
      this.exited = runCommand(
        ['--config', config],
        { stdout: new PassThrough(), stderr, stdin: new PassThrough() },
        { stopSignal: new Promise((r) => (this.stop = r)), env: {} },
      );
      this.exited.then((code) => reject(new Error(`the demo exited ${code} before listening:\n${log}`)), reject);
    });
    return this.started;
  }

  /** Stops it, if it runs (it would take CPU from the commands of later blocks); a later `address()` starts it again. */
  async close(): Promise<void> {
    this.stop?.('SIGTERM');
    await this.exited;
    this.started = this.stop = this.exited = undefined;
  }
}

interface BlockState {
  cwd: string;
  /** Local port -> the overlay and its sidecar's port, from `kubectl port-forward` earlier in the block. */
  readonly forwards: Map<number, { overlay: Overlay; port: number }>;
  /** Images `docker build` made earlier in the block. */
  readonly built: Set<string>;
}

export interface ShellContext {
  readonly sandbox: Sandbox;
  readonly demo: LiveDemo;
  /** Whether an earlier block of the same document runs `make run` (the demo the `curl` lines talk to). */
  readonly demoRunning: () => boolean;
}

export async function checkShellBlock(block: CodeBlock, ctx: ShellContext): Promise<void> {
  const state: BlockState = { cwd: '.', forwards: new Map(), built: new Set() };
  for (const line of shellLines(block.text)) await checkItems(parseLine(line), state, ctx, `${block.file}:${block.line}: ${line}`, state);
}

async function checkItems(items: readonly Item[], scope: BlockState, ctx: ShellContext, at: string, block: BlockState): Promise<void> {
  for (const item of items) {
    if (item.kind === 'subshell') await checkItems(item.items, { ...scope }, ctx, at, block);
    else await checkPipeline(item, scope, ctx, at, block);
  }
}

async function checkPipeline(p: Pipeline, scope: BlockState, ctx: ShellContext, at: string, block: BlockState): Promise<void> {
  const { sandbox } = ctx;
  const words = (p.commands[0]?.words ?? []).map((w) => sandbox.expand(w.text));
  for (const filter of p.commands.slice(1))
    assert.ok(FILTERS.has(filter.words[0]?.text ?? ''), `${at}: \`${filter.words[0]?.text}\` after a pipe is not a filter the docs test knows`);
  if (words.length > 0 && words.every((w) => /^\w+=/.test(w))) {
    for (const w of words) sandbox.vars.set(w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1));
    return;
  }
  const [command, ...args] = words;
  if (command === 'reconcile-shadow' || (command === 'node' && args[0] === 'dist/cli/main.js')) {
    const ran = await sandbox.run(p.source, scope.cwd);
    assert.equal(ran.code, 0, `${at}\nexited ${ran.code}:\n${ran.stderr.slice(-2000)}`);
  } else if (command === 'make') {
    for (const target of args) execFileSync('make', ['-n', target], { cwd: REPO, stdio: 'pipe' });
  } else if (command === 'cd') {
    scope.cwd = join(scope.cwd, args[0] ?? '.');
    assert.ok(existsSync(join(sandbox.dir, scope.cwd)), `${at}: no folder ${scope.cwd}`);
  } else if (command === 'curl') await checkCurl(p, args, block, ctx, at);
  else if (command === 'kubectl') checkKubectl(p.commands[0]!.words, args, block, sandbox, at);
  else if (command === 'kustomize') checkKustomizeEdit(args, scope, sandbox, at);
  else if (command === 'docker') checkDocker(args, scope, block, sandbox, at);
  else assert.fail(`${at}: \`${command}\` is a command the docs test does not know: make the block runnable or mark it <!-- not-run: why -->`);
}

async function checkCurl(p: Pipeline, args: readonly string[], block: BlockState, ctx: ShellContext, at: string): Promise<void> {
  const url = args.find((a) => /^(https?:\/\/)?127\.0\.0\.1:\d+\//.test(a));
  assert.ok(url, `${at}: curl to no loopback address`);
  const { port, path } = /127\.0\.0\.1:(?<port>\d+)(?<path>\/[^\s?]*)/.exec(url)!.groups as { port: string; path: string };
  const forward = block.forwards.get(Number(port));
  if (forward) {
    const config = forward.overlay.config() as { listen: { metrics: string; summary?: string } };
    const listener = (Object.entries(config.listen) as [keyof typeof SERVED, string][]).find(([, address]) => address.endsWith(`:${forward.port}`));
    assert.ok(listener, `${at}: the ${forward.overlay.dir} sidecar listens on no port ${forward.port} (${JSON.stringify(config.listen)})`);
    assert.ok(
      (SERVED[listener[0]] as readonly string[]).includes(path),
      `${at}: ${path} is not served on the ${listener[0]} listener (${SERVED[listener[0]].join(', ')})`,
    );
    return;
  }
  assert.ok(port === '9464' && ctx.demoRunning(), `${at}: curl to 127.0.0.1:${port}, which nothing in the docs before it opened`);
  const base = await ctx.demo.address();
  const ran = await ctx.sandbox.run(p.source.replaceAll('127.0.0.1:9464', base.replace('http://', '')), '.', { pipefail: false });
  assert.equal(ran.code, 0, `${at}\nexited ${ran.code}: ${ran.stderr}`);
  assert.ok(ran.stdout.trim() !== '', `${at}: printed nothing`);
}

/** `-n NS` / `--namespace NS`, the first words that are not flags, and the flags' values. */
function kubectlArgs(args: readonly string[]): { namespace?: string; positional: string[]; flags: Map<string, string> } {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('-')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(0, eq), a.slice(eq + 1));
      else flags.set(a, args[++i] ?? '');
    } else positional.push(a);
  }
  const namespace = flags.get('-n') ?? flags.get('--namespace');
  return { ...(namespace === undefined ? {} : { namespace }), positional, flags };
}

function overlayFor(namespace: string | undefined, deployment: string, at: string): Overlay {
  const overlay = OVERLAYS.find((o) => o.target.namespace === namespace && o.target.deployment === deployment);
  assert.ok(
    overlay,
    `${at}: Deployment ${namespace}/${deployment} is no overlay's target (${OVERLAYS.map((o) => `${o.target.namespace}/${o.target.deployment}`).join(', ')})`,
  );
  return overlay;
}

const render = (sandbox: Sandbox, dir: string): string => execFileSync('kubectl', ['kustomize', join(sandbox.dir, dir)], { encoding: 'utf8', stdio: 'pipe' });

function checkKubectl(raw: readonly Word[], args: readonly string[], block: BlockState, sandbox: Sandbox, at: string): void {
  const { namespace, positional, flags } = kubectlArgs(args);
  const [verb, ...rest] = positional;
  const folder = flags.get('-k');
  if ((verb === 'apply' || verb === 'delete') && folder !== undefined) {
    render(sandbox, folder);
    return;
  }
  const deploymentNamed = (): Overlay => {
    const name = rest[0] === 'deployment' ? rest[1] : rest[0]?.replace(/^deployment\//, '');
    return overlayFor(namespace, name ?? '', at);
  };
  if (verb === 'patch') {
    const overlay = deploymentNamed();
    const fixture = join(REPO, 'test/deploy/fixtures', overlay.dir === 'hypershift' ? 'hypershift-operator.yaml' : `${overlay.dir}.yaml`);
    const file = flags.get('--patch-file');
    const inline = raw.find((w) => w.substitutions.length > 0)?.substitutions[0];
    let patch: string;
    if (file !== undefined) patch = readFileSync(join(sandbox.dir, file), 'utf8');
    else {
      const rendered = /^kubectl kustomize (\S+)$/.exec(inline ?? '');
      assert.ok(rendered, `${at}: --patch takes no $(kubectl kustomize <folder>)`);
      patch = render(sandbox, rendered[1]!);
    }
    const patched = parse(
      execFileSync('kubectl', ['patch', '--local', '-f', fixture, '--type', flags.get('--type') ?? 'strategic', '--patch', patch, '-o', 'yaml'], {
        encoding: 'utf8',
        stdio: 'pipe',
      }),
    ) as {
      spec: { template: { spec: { containers: { name: string; image: string }[] } } };
    };
    const sidecar = patched.spec.template.spec.containers.find((c) => c.name === SIDECAR_CONTAINER);
    if (file?.endsWith('remove-patch.yaml')) return;
    assert.ok(sidecar, `${at}: the patch adds no ${SIDECAR_CONTAINER} container`);
    const image = sandbox.vars.get('IMAGE');
    if (image !== undefined) assert.equal(sidecar.image, image, `${at}: the sidecar runs ${sidecar.image}, not the $IMAGE built above`);
    return;
  }
  if (verb === 'rollout') {
    overlayFor(namespace, (rest[1] ?? '').replace(/^deployment\//, ''), at);
    return;
  }
  if (verb === 'port-forward') {
    const overlay = overlayFor(namespace, (rest[0] ?? '').replace(/^deployment\//, ''), at);
    const [local, remote] = (rest[1] ?? '').split(':').map(Number) as [number, number];
    block.forwards.set(local, { overlay, port: remote ?? local });
    return;
  }
  if (verb === 'get' && rest[0] === 'pods') {
    assert.ok(
      OVERLAYS.some((o) => o.target.namespace === namespace),
      `${at}: namespace ${namespace} is no overlay's`,
    );
    const [key, value] = (flags.get('-l') ?? '').split('=');
    assert.equal(SIDECAR_POD_LABEL[key as keyof typeof SIDECAR_POD_LABEL], value, `${at}: -l ${key}=${value} is not the label the patch puts on the pods`);
    return;
  }
  if (verb === 'get' && rest[0] === 'secret') {
    const overlay = OVERLAYS.find((o) => o.target.namespace === namespace);
    assert.ok(overlay, `${at}: namespace ${namespace} is no overlay's`);
    const secrets = parseAllDocuments(render(sandbox, join('deploy', 'overlays', overlay.dir))).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string } },
    );
    assert.ok(
      secrets.some((o) => o.kind === 'Secret' && o.metadata.name === rest[1]),
      `${at}: the ${overlay.dir} overlay creates no Secret ${rest[1]}`,
    );
    return;
  }
  assert.fail(`${at}: a kubectl use the docs test does not know (${verb}): teach test/docs/shell-checks.ts, or mark the block <!-- not-run: why -->`);
}

/** `kustomize edit set image NAME=REF` in a folder of the sandbox: what kustomize does, made there. */
function checkKustomizeEdit(args: readonly string[], scope: BlockState, sandbox: Sandbox, at: string): void {
  assert.deepEqual(args.slice(0, 3), ['edit', 'set', 'image'], `${at}: only \`kustomize edit set image\` is known`);
  const [name, ref] = [args[3]!.slice(0, args[3]!.indexOf('=')), args[3]!.slice(args[3]!.indexOf('=') + 1)];
  const file = join(sandbox.dir, scope.cwd, 'kustomization.yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const images = (doc.toJS() as { images?: { name: string }[] }).images ?? [];
  assert.ok(
    images.some((i) => i.name === name),
    `${at}: ${scope.cwd}/kustomization.yaml has no images: entry for ${name}`,
  );
  const colon = ref.lastIndexOf(':');
  const [newName, newTag] = colon > ref.lastIndexOf('/') ? [ref.slice(0, colon), ref.slice(colon + 1)] : [ref, undefined];
  doc.set('images', [...images.filter((i) => i.name !== name), { name, newName, ...(newTag === undefined ? {} : { newTag }) }]);
  writeFileSync(file, doc.toString());
}

/** `docker build -t REF CONTEXT` (the context has the Dockerfile) and `docker push REF` (built above). */
function checkDocker(args: readonly string[], scope: BlockState, block: BlockState, sandbox: Sandbox, at: string): void {
  const reference = /^[a-z0-9.-]+(:\d+)?(\/[a-z0-9._-]+)+:[\w.-]+$/;
  if (args[0] === 'build') {
    const tag = args[args.indexOf('-t') + 1] ?? '';
    assert.match(tag, reference, `${at}: ${tag} is not an image reference with a registry and a tag`);
    assert.ok(existsSync(join(sandbox.dir, scope.cwd, args.at(-1) ?? '', 'Dockerfile')), `${at}: no Dockerfile in the build context`);
    block.built.add(tag);
    return;
  }
  assert.equal(args[0], 'push', `${at}: only docker build and push are known`);
  assert.ok(block.built.has(args[1] ?? ''), `${at}: pushes ${args[1]}, which no docker build above made`);
}
