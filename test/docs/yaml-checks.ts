/**
 * How a YAML block of the docs is checked: by what it is, through the code that reads that kind of file. A block says
 * what it is by its `kind:`, or by a comment before it when it is part of a file:
 *
 *   <!-- doc-check: ShadowConfig -->                              the top level of a config, without apiVersion/kind
 *   <!-- doc-check: ShadowConfig at sources.logs -->              a config section, loaded at that place
 *   (both in a config that runs the built-in model, unless the block names `models:` itself)
 *   <!-- doc-check: excerpt of model/builtin/x.yaml at spec -->   every key, item and value is in that file there
 *   <!-- doc-check: thresholds -->                                a `report --thresholds` file
 *   <!-- doc-check: kustomization -->                             a user's kustomization (`<this repo>` = a clone)
 *
 * Kubernetes objects (RBAC) are rendered by `kubectl kustomize`, and a role the overlays also ship must grant no rule
 * they do not.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { loadThresholds } from '../../cli/report-command.js';
import { OVERLAYS } from '../../deploy/overlays.js';
import { SIDECAR_CONTAINER } from '../../deploy/sidecar-patch.js';
import { isRecord } from '../../lib/is-record.js';
import { parseModel } from '../../model/load.js';
import { parseConfig } from '../../sidecar/config.js';
import { REPO } from '../support/paths.js';
import type { CodeBlock } from './markdown-blocks.js';
import type { Sandbox } from './sandbox.js';

const where = (b: CodeBlock): string => `${b.file}:${b.line}`;

export async function checkYamlBlock(block: CodeBlock, sandbox: Sandbox): Promise<void> {
  const what = block.marker?.kind === 'doc-check' ? block.marker.what : undefined;
  if (what === undefined) return checkWholeDocument(block, sandbox);
  let m: RegExpExecArray | null;
  if ((m = /^ShadowConfig(?: at ([\w.]+))?$/.exec(what))) return loads(block, configText(block, m[1]));
  if ((m = /^excerpt of (\S+)(?: at ([\w.]+))?$/.exec(what))) return checkExcerpt(block, m[1]!, m[2]);
  if (what === 'thresholds') return checkThresholds(block, sandbox);
  if (what === 'kustomization') return checkKustomization(block, sandbox);
  assert.fail(`${where(block)}: unknown doc-check "${what}" (ShadowConfig [at path], excerpt of <file> [at path], thresholds, kustomization)`);
}

/** A config in the docs loads; a problem names the doc's file and line. */
function loads(block: CodeBlock, text: string): void {
  parseConfig(text, block.file);
}

function checkWholeDocument(block: CodeBlock, sandbox: Sandbox): void {
  const value: unknown = parse(block.text);
  const kind = isRecord(value) ? value.kind : undefined;
  if (kind === 'ShadowConfig') return loads(block, atFileLines(block, block.text));
  if (kind === 'ReconcileModel') return void parseModel(atFileLines(block, block.text), block.file);
  if (isRecord(value) && typeof value.apiVersion === 'string' && typeof kind === 'string') return checkManifest(block, value, sandbox);
  assert.fail(
    `${where(block)}: a YAML block that says neither its kind nor what it is part of: add <!-- doc-check: ... --> before it (see test/docs/yaml-checks.ts), or <!-- not-run: why -->`,
  );
}

/**
 * `text` preceded by blank lines so that the block's first line is at its line in the Markdown file (after `header`,
 * which stands in the lines just above it): the loaders' `file:line field: message` then point into the doc.
 */
function atFileLines(block: CodeBlock, text: string, header = ''): string {
  const headerLines = header === '' ? 0 : header.split('\n').length - 1;
  return `${'\n'.repeat(Math.max(0, block.line - headerLines))}${header}${text}`;
}

/** A config section as a whole config: the block indented under `at` (e.g. sources.logs), apiVersion and kind added. */
function configText(block: CodeBlock, at: string | undefined): string {
  const path = at === undefined ? [] : at.split('.');
  const indent = '  '.repeat(path.length);
  // A section is part of a config that runs a model: the built-in one, unless the block names its own.
  const models = path.length === 0 && /^models:/m.test(block.text) ? [] : ['models: [hypershift-hostedcluster]'];
  const header = ['apiVersion: reconcile-shadow/v1', 'kind: ShadowConfig', ...models, ...path.map((key, i) => `${'  '.repeat(i)}${key}:`)].join('\n') + '\n';
  const body = block.text
    .split('\n')
    .map((l) => (l === '' ? l : indent + l))
    .join('\n');
  return atFileLines(block, body, header);
}

/** Every key, list item and value of `part` is in `whole` (list items: each matches some item there). */
function excerptProblems(part: unknown, whole: unknown, path: string): string[] {
  if (Array.isArray(part)) {
    if (!Array.isArray(whole)) return [`${path}: a list here, not in the file`];
    return part.flatMap((item, i) =>
      whole.some((w) => excerptProblems(item, w, '').length === 0) ? [] : [`${path}[${i}]: ${JSON.stringify(item)} is in no item of the file's list`],
    );
  }
  if (isRecord(part)) {
    if (!isRecord(whole)) return [`${path}: a mapping here, not in the file`];
    return Object.entries(part).flatMap(([k, v]) => (k in whole ? excerptProblems(v, whole[k], `${path}.${k}`) : [`${path}.${k}: not in the file`]));
  }
  return part === whole ? [] : [`${path}: ${JSON.stringify(part)} here, ${JSON.stringify(whole)} in the file`];
}

function checkExcerpt(block: CodeBlock, file: string, at: string | undefined): void {
  let whole: unknown = parse(readFileSync(join(REPO, file), 'utf8'));
  for (const key of at === undefined ? [] : at.split('.')) whole = isRecord(whole) ? whole[key] : undefined;
  assert.deepEqual(excerptProblems(parse(block.text), whole, at ?? ''), [], `${where(block)}: not an excerpt of ${file}${at === undefined ? '' : ` at ${at}`}`);
}

async function checkThresholds(block: CodeBlock, sandbox: Sandbox): Promise<void> {
  const file = join(sandbox.dir, `thresholds-${block.line}.yaml`);
  writeFileSync(file, block.text);
  await loadThresholds(file);
}

/** The README's "your kustomization.yaml": the operator's Deployment (a fixture), the overlay and the component. */
function checkKustomization(block: CodeBlock, sandbox: Sandbox): void {
  const dir = join(sandbox.dir, `kustomization-${block.line}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'kustomization.yaml'), block.text.replaceAll('<this repo>', '..'));
  const resources = (parse(block.text) as { resources?: string[] }).resources ?? [];
  const overlay = OVERLAYS.find((o) => resources.some((r) => r.endsWith(`deploy/overlays/${o.dir}`)));
  assert.ok(overlay, `${where(block)}: includes none of the overlays`);
  for (const file of resources.filter((r) => !r.includes('<this repo>')))
    copyFileSync(join(REPO, 'test/deploy/fixtures', `${overlay.dir === 'hypershift' ? 'hypershift-operator' : overlay.dir}.yaml`), join(dir, file));
  const objects = parseAllDocuments(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe' })).map(
    (d) => d.toJS() as { kind: string; metadata: { name: string }; spec?: { template?: { spec?: { containers?: { name: string }[] } } } },
  );
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === overlay.target.deployment);
  assert.ok(
    deployment?.spec?.template?.spec?.containers?.some((c) => c.name === SIDECAR_CONTAINER),
    `${where(block)}: the rendered Deployment has no ${SIDECAR_CONTAINER} container`,
  );
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
}

/** A Kubernetes object: `kubectl kustomize` renders it; a role the overlays ship under the same name grants every rule shown. */
function checkManifest(block: CodeBlock, value: Record<string, unknown>, sandbox: Sandbox): void {
  const dir = join(sandbox.dir, `manifest-${block.line}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'object.yaml'), block.text);
  writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [object.yaml]\n');
  execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe' });
  if (value.kind !== 'Role' && value.kind !== 'ClusterRole') return;
  const name = (value.metadata as { name: string }).name;
  const shipped = OVERLAYS.flatMap((o) =>
    parseAllDocuments(execFileSync('kubectl', ['kustomize', join(sandbox.dir, 'deploy', 'overlays', o.dir)], { encoding: 'utf8', stdio: 'pipe' })).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string }; rules?: Rule[] },
    ),
  ).filter((o) => o.kind === value.kind && o.metadata.name === name);
  if (shipped.length === 0) return;
  const grants = (rule: Rule): boolean =>
    shipped.some((role) =>
      (role.rules ?? []).some((r) =>
        ['apiGroups', 'resources', 'verbs'].every((k) => (rule[k as keyof Rule] ?? []).every((x) => (r[k as keyof Rule] ?? []).includes(x))),
      ),
    );
  const rules = (value.rules ?? []) as Rule[];
  assert.deepEqual(
    rules.filter((r) => !grants(r)),
    [],
    `${where(block)}: rules of ${String(value.kind)}/${name} that deploy/ does not grant`,
  );
}
