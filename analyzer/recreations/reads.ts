/**
 * What a task config reads of its inputs, found by walking it: of each resource's objects (`resources.<name>` in
 * the lifecycle rules) and of the cluster's API state (`checkClusterState`, the params and preconditions whose
 * `api_call` reads the cluster, event fields, `<param>.field` paths, captures, structured conditions and the
 * manifest's generation template). The recreation analyzer keeps only these parts of each input (read-set.ts).
 *
 * An expression reads a value through chains of field selections from a name (`a.b`, `a.?b`, `a["b"]`). A chain
 * whose value is used in any way is read whole; one only tested for presence (`has(a.b)`, `a.?b.hasValue()`) is
 * read for that alone. Anything else (an index that is not a literal string, a macro over it, a function of it)
 * uses the value the chain stops at, so that value is read whole. Names a macro binds are taken for context names,
 * which can only keep more than needed, never less.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { children } from './cel.js';
import { ReadSet } from './read-set.js';
import { GoTemplate } from './go-template.js';
import { manifestText } from './manifest-render.js';
import type { ExpressionSpec, ResourceSpec, TaskConfig } from './task-config.js';

const NESTED_MANIFESTS = ['spec', 'workload', 'manifests'];
const NESTED_STATUSES = ['status', 'resourceStatus', 'manifests'];

/** A chain of field selections from a name. */
interface Access {
  readonly root: string;
  readonly path: readonly string[];
}

export interface InputReads {
  /** What is read of the HyperFleet resource (cluster or nodepool) the context is built for. */
  readonly cluster: ReadSet;
  /** Per resource name: what the lifecycle rules read of its object. */
  readonly objects: ReadonlyMap<string, ReadSet>;
}

/** The name the cluster's state has in every context, whether or not a precondition calls the API for it. */
export const CLUSTER_STATE = 'checkClusterState';
/** An API call the recreation analyzer answers, live, from the cluster's state: the cluster's or nodepool's own resource, nothing under it. */
export const RESOURCE_URL = /\/(clusters|nodepools)\/\{\{[^}]*\}\}\/?$/;

/**
 * What the config reads of its inputs. `astOf` gives the compiled form of an expression (undefined for one that did
 * not compile); `resources` are the names of the resources that are shadowed.
 */
export function taskConfigReads(
  config: TaskConfig,
  resources: readonly string[],
  astOf: (spec: ExpressionSpec | undefined) => ASTNode | undefined,
): InputReads {
  const cluster = new ReadSet();
  const objects = new Map(resources.map((name) => [name, new ReadSet()]));

  // Names that hold the cluster's state itself in the context; reading `<name>.x` reads the state's `x`.
  const stateNames = new Set([CLUSTER_STATE]);
  for (const p of config.params) if (p.source.kind === 'api_call' && RESOURCE_URL.test(p.source.call.url.text)) stateNames.add(p.name);
  for (const pre of config.preconditions) if (pre.apiCall && RESOURCE_URL.test(pre.apiCall.url.text)) stateNames.add(pre.name);
  const readContext = (path: readonly string[], whole: boolean): void => {
    const [root, ...rest] = path;
    if (root !== undefined && stateNames.has(root)) cluster.add(rest, whole);
  };
  const readExpression = (spec: ExpressionSpec | undefined, read: (a: Access, whole: boolean) => void): void => {
    const ast = astOf(spec);
    if (ast) visitReads(ast, read);
  };
  const inContext = (a: Access, whole: boolean): void => readContext([a.root, ...a.path], whole);

  for (const p of config.params) {
    const s = p.source;
    // A param's own value is kept whole: it is part of the context, and its `type` converts all of it.
    if (s.kind === 'string') readContext(s.value.split('.'), true);
    if (s.kind === 'expression') readExpression(s.expression, inContext);
  }
  for (const pre of config.preconditions) {
    // Captures read their precondition's result: the state itself when it calls the cluster's API.
    const scopeIsState = stateNames.has(pre.name);
    for (const cap of pre.captures) {
      if (!scopeIsState) continue;
      if (cap.field !== undefined) cluster.add(cap.field.split('.'), true);
      else readExpression(cap.expression, (a, whole) => cluster.add([a.root, ...a.path], whole));
    }
    // Read whole even for `exists`: it is false for an empty string, list or map (criteria/evaluator.go evaluateExists).
    for (const c of pre.conditions) readContext(fieldPath(c.field), true);
    readExpression(pre.expression, inContext);
  }
  // A nested discovery is found among its resource's manifests and enriched from their status
  // (manifest/generation.go DiscoverNestedManifest, EnrichWithResourceStatus): reading it reads both lists whole.
  const nestedIn = new Map<string, string>();
  for (const r of config.resources) for (const nd of r.nestedDiscoveries) if (!nestedIn.has(nd.name)) nestedIn.set(nd.name, r.name);
  const readObject = (name: string, rest: readonly string[], whole: boolean): void => {
    const own = objects.get(name);
    if (own) return own.add(rest, whole);
    const parent = nestedIn.get(name);
    const reads = parent === undefined ? undefined : objects.get(parent);
    reads?.add(NESTED_MANIFESTS, true);
    reads?.add(NESTED_STATUSES, true);
  };
  for (const r of config.resources) {
    for (const path of manifestReads(r)) readContext(path, true);
    for (const rule of [r.createWhen, r.deleteWhen, r.recreateWhen]) {
      readExpression(rule, (a, whole) => {
        if (a.root !== 'resources') return inContext(a, whole);
        const [name, ...rest] = a.path;
        if (name === undefined) for (const reads of objects.values()) reads.add([], whole);
        else readObject(name, rest, whole);
      });
    }
  }
  return { cluster, objects };
}

/** A condition's field as a path of names (`{.a.b}`, `.a.b`, `a.b`); a JSONPath filter or index stops it. */
function fieldPath(field: string): string[] {
  const p = field
    .trim()
    .replace(/^\{|\}$/g, '')
    .replace(/^\$?\./, '');
  const out: string[] = [];
  for (const part of p.split('.')) {
    const name = /^[A-Za-z0-9_-]+/.exec(part)?.[0];
    if (!name) break;
    out.push(name);
    if (name !== part) break;
  }
  return out;
}

/** The param paths a resource's templates read: its manifest's, its discovery's and its Maestro target's. */
function manifestReads(r: ResourceSpec): (readonly string[])[] {
  const text = manifestText(r);
  const templates: (GoTemplate | undefined)[] = [r.discovery.namespace, r.discovery.byName, r.targetCluster, ...(r.discovery.labelSelector ?? []).flat()];
  for (const nd of r.nestedDiscoveries) templates.push(nd.discovery.namespace, nd.discovery.byName, ...(nd.discovery.labelSelector ?? []).flat());
  const paths = templates.flatMap((t) => t?.paths ?? []);
  if (text === undefined) return paths;
  try {
    // A template that reads the data whole (`{{ . }}`, or a path under `with`/`range`) is read as a whole.
    const t = GoTemplate.parse(text);
    return [...paths, ...t.paths, ...(t.readsWhole ? [[]] : [])];
  } catch {
    return paths;
  }
}

/** Calls `read` for every chain of field selections in the expression, as described above. */
export function visitReads(n: ASTNode, read: (a: Access, whole: boolean) => void): void {
  const access = accessOf(n);
  if (access) return read(access, true);
  const presence = presenceTested(n);
  if (presence) return read(presence, false);
  for (const c of children(n)) visitReads(c, read);
}

/** The chain tested by `has(a.b)` or `a.?b.hasValue()`. */
function presenceTested(n: ASTNode): Access | undefined {
  if (n.op === 'call' && n.args[0] === 'has' && n.args[1].length === 1) return accessOf(n.args[1][0]!);
  if (n.op === 'rcall' && n.args[0] === 'hasValue' && n.args[2].length === 0 && (n.args[1].op === '.?' || n.args[1].op === '[?]')) return accessOf(n.args[1]);
  return undefined;
}

function accessOf(n: ASTNode): Access | undefined {
  let key: string;
  switch (n.op) {
    case 'id':
      return { root: n.args, path: [] };
    case '.':
    case '.?':
      key = n.args[1];
      break;
    case '[]':
    case '[?]': {
      const index = n.args[1];
      if (index.op !== 'value' || typeof index.args !== 'string') return undefined;
      key = index.args;
      break;
    }
    default:
      return undefined;
  }
  const target = accessOf(n.args[0]);
  return target && { root: target.root, path: [...target.path, key] };
}
