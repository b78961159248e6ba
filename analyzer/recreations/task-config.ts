/**
 * Reads a HyperFleet adapter task config (`params`, `preconditions`, `resources[]`, `post`) as the adapter does,
 * keeping what the shadow needs: how params are sourced, the precondition gates, and per resource its kind,
 * discovery, generation annotation, `recreate_on_change` and `lifecycle.create/delete/recreate.when` rules.
 * It is someone else's file: parts the shadow does not use are ignored with a notice naming file:line (YamlSource's
 * notices), and only what the adapter itself would refuse (no name, no discovery, a lifecycle gate without an
 * expression) fails the load, with a ValidationError like every file people write.
 * Pure: manifest refs are read through the `readRef` callback.
 */
import { parseDocument } from 'yaml';
import { ValidationError } from '../../lib/validation-error.js';
import { YamlSource, type FieldPath } from '../../lib/yaml-source.js';
import { GoTemplate, TemplateError } from './go-template.js';
import { isRecord } from '../../lib/is-record.js';

/** Where a CEL expression sits, so a compile error can point at the file line and column of the caret. */
export interface ExpressionSpec {
  readonly source: string;
  /** e.g. `resource "job" lifecycle.recreate.when.expression`. */
  readonly owner: string;
  readonly file: string;
  /** File line and column of the expression's first character. */
  readonly line: number;
  readonly column: number;
  /** Block scalars (`|`) keep the expression's own line breaks, so its lines map one to one onto file lines. */
  readonly block: boolean;
}

export type ParamSource =
  | { readonly kind: 'event'; readonly field: string }
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'path'; readonly path: readonly string[] }
  | { readonly kind: 'expression'; readonly expression: ExpressionSpec }
  | { readonly kind: 'api_call'; readonly url?: string }
  | { readonly kind: 'unsupported'; readonly what: string };

export type ParamType = 'string' | 'int' | 'float' | 'bool';

export interface ParamSpec {
  readonly name: string;
  readonly source: ParamSource;
  readonly type?: ParamType;
  readonly default?: unknown;
}

export const CONDITION_OPERATORS = ['equals', 'notEquals', 'in', 'notIn', 'contains', 'greaterThan', 'lessThan', 'exists'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface StructuredCondition {
  readonly field: string;
  readonly operator: ConditionOperator;
  readonly value?: unknown;
}

export interface CaptureSpec {
  readonly name: string;
  readonly field?: string;
  readonly expression?: ExpressionSpec;
}

export interface PreconditionSpec {
  readonly name: string;
  /** The URL of its `api_call`, when it has one (the shadow answers cluster and nodepool GETs from the API state). */
  readonly apiCallUrl?: string;
  readonly captures: readonly CaptureSpec[];
  readonly conditions: readonly StructuredCondition[];
  readonly expression?: ExpressionSpec;
}

export interface DiscoverySpec {
  readonly namespace?: GoTemplate;
  readonly byName?: GoTemplate;
  readonly labelSelector?: Readonly<Record<string, GoTemplate>>;
}

export interface ResourceSpec {
  readonly name: string;
  /** `file:line` of the resource, for messages. */
  readonly where: string;
  readonly transport: string;
  readonly apiVersion?: string;
  readonly kind?: string;
  /** The manifest's `hyperfleet.io/generation` annotation template: the generation the adapter applies. */
  readonly generationAnnotation?: GoTemplate;
  readonly discovery: DiscoverySpec;
  readonly recreateOnChange: boolean;
  readonly createWhen?: ExpressionSpec;
  readonly deleteWhen?: ExpressionSpec;
  readonly recreateWhen?: ExpressionSpec;
}

export interface TaskConfig {
  readonly file: string;
  readonly params: readonly ParamSpec[];
  readonly preconditions: readonly PreconditionSpec[];
  readonly resources: readonly ResourceSpec[];
  /** Parts ignored or only partly understood, each naming file:line. */
  readonly notices: readonly string[];
}

type Path = FieldPath;

/** The task config being read: problems (fatal) and notices (ignored parts) go to `src`, each naming `file:line field`. */
interface TaskConfigDoc {
  readonly src: YamlSource;
  /** The text's lines, to place a CEL expression's first character for compile errors. */
  readonly lines: readonly string[];
}

/** Notices every key of `value` that is not in `known`: the adapter's file may say more than the shadow reads. */
function ignoreUnknownKeys(src: YamlSource, path: Path, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) if (!known.includes(key)) src.notice([...path, key], 'not used by the shadow; ignored');
}

function celExpression(r: TaskConfigDoc, path: Path, value: unknown, owner: string): ExpressionSpec | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    r.src.fail(path, 'required non-empty CEL expression');
    return undefined;
  }
  const keyLine = r.src.lineOf(path);
  const text = r.lines[keyLine - 1] ?? '';
  const file = r.src.file;
  // A block scalar (`key: |`) starts on the next line, at its indentation, and keeps its line breaks.
  if (/:\s*[|>][-+0-9]*\s*(#.*)?$/.test(text)) {
    const first = r.lines[keyLine] ?? '';
    return { source: value, owner, file, line: keyLine + 1, column: (/^ */.exec(first)?.[0].length ?? 0) + 1, block: true };
  }
  const at = text.indexOf(value.split('\n')[0]!);
  return { source: value, owner, file, line: keyLine, column: at >= 0 ? at + 1 : 1, block: false };
}

function template(src: YamlSource, path: Path, value: unknown): GoTemplate | undefined {
  if (typeof value !== 'string') {
    src.fail(path, `must be a string, got ${JSON.stringify(value)}`);
    return undefined;
  }
  try {
    return GoTemplate.parse(value);
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    src.fail(path, e.message);
    return undefined;
  }
}

/** Reads a manifest `ref` file; undefined when it cannot be read. */
export type RefReader = (ref: string) => string | undefined;

export function parseTaskConfig(text: string, file: string, readRef: RefReader = () => undefined): TaskConfig {
  const src = new YamlSource(text, file);
  if (src.problems.length > 0) throw new ValidationError('adapter task config', src.problems);
  const raw = src.value;
  if (!isRecord(raw)) throw new ValidationError('adapter task config', [`${file}:1 (document): a task config is a YAML mapping`]);
  const r: TaskConfigDoc = { src, lines: text.split('\n') };

  // The older format wraps the task in `spec:` under an AdapterTaskConfig header.
  let root: Path = [];
  let body = raw;
  if (isRecord(raw.spec) && raw.resources === undefined) {
    r.src.notice(['spec'], 'older AdapterTaskConfig layout: reading params, preconditions and resources under spec');
    ignoreUnknownKeys(r.src, [], raw, ['apiVersion', 'kind', 'metadata', 'spec']);
    root = ['spec'];
    body = raw.spec;
  }
  ignoreUnknownKeys(r.src, root, body, ['params', 'preconditions', 'resources', 'post']);

  const params = readParams(r, [...root, 'params'], body.params);
  const preconditions = readPreconditions(r, [...root, 'preconditions'], body.preconditions);
  const resources = readResources(r, [...root, 'resources'], body.resources, readRef);
  if (src.problems.length > 0) throw new ValidationError('adapter task config', src.problems);
  return { file, params, preconditions, resources, notices: src.notices };
}

function list(r: TaskConfigDoc, path: Path, value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  r.src.fail(path, 'must be a list');
  return [];
}

function readParams(r: TaskConfigDoc, path: Path, value: unknown): ParamSpec[] {
  const out: ParamSpec[] = [];
  list(r, path, value).forEach((item, i) => {
    const at = [...path, i];
    if (!isRecord(item) || typeof item.name !== 'string' || item.name === '') return r.src.fail(at, 'a param needs a name');
    ignoreUnknownKeys(r.src, at, item, ['name', 'source', 'type', 'default', 'required', 'description']);
    const source = readParamSource(r, [...at, 'source'], item.source, item.name);
    let type: ParamType | undefined;
    if (item.type !== undefined) {
      const t = typeof item.type === 'string' ? item.type : '';
      type = t === 'int' || t === 'int64' ? 'int' : t === 'float' || t === 'float64' ? 'float' : t === 'bool' ? 'bool' : t === 'string' ? 'string' : undefined;
      if (type === undefined) r.src.notice([...at, 'type'], `unknown type ${JSON.stringify(item.type)}; the value is used as it comes`);
    }
    out.push({ name: item.name, source, ...(type ? { type } : {}), ...(item.default === undefined ? {} : { default: item.default }) });
  });
  return out;
}

function readParamSource(r: TaskConfigDoc, at: Path, source: unknown, name: string): ParamSource {
  if (typeof source === 'string') {
    const [head, ...rest] = source.split('.');
    if (head === 'event' && rest.length > 0) return { kind: 'event', field: rest.join('.') };
    if (head === 'env' && rest.length === 1 && rest[0]) return { kind: 'env', name: rest[0] };
    if (head !== undefined && head !== '' && head !== 'config' && rest.length > 0) return { kind: 'path', path: [head, ...rest] };
    r.src.notice(at, `param source ${JSON.stringify(source)} is not available to the shadow; "${name}" stays unset unless it has a default`);
    return { kind: 'unsupported', what: source };
  }
  if (isRecord(source)) {
    if (source.expression !== undefined) {
      const expression = celExpression(r, [...at, 'expression'], source.expression, `param "${name}" source.expression`);
      return expression ? { kind: 'expression', expression } : { kind: 'unsupported', what: 'expression' };
    }
    if (isRecord(source.api_call)) {
      const url = typeof source.api_call.url === 'string' ? source.api_call.url : undefined;
      return { kind: 'api_call', ...(url ? { url } : {}) };
    }
    r.src.notice(at, `param source ${Object.keys(source).join(', ') || '{}'} is not available to the shadow; "${name}" stays unset unless it has a default`);
    return { kind: 'unsupported', what: Object.keys(source).join(',') };
  }
  r.src.fail(at, 'a param needs a source (event.*, env.*, expression, api_call)');
  return { kind: 'unsupported', what: 'none' };
}

function readPreconditions(r: TaskConfigDoc, path: Path, value: unknown): PreconditionSpec[] {
  const out: PreconditionSpec[] = [];
  list(r, path, value).forEach((item, i) => {
    const at = [...path, i];
    if (!isRecord(item) || typeof item.name !== 'string' || item.name === '') return r.src.fail(at, 'a precondition needs a name');
    const name = item.name;
    ignoreUnknownKeys(r.src, at, item, ['name', 'api_call', 'capture', 'conditions', 'expression', 'description']);
    const apiCallUrl = isRecord(item.api_call) && typeof item.api_call.url === 'string' ? item.api_call.url : undefined;
    const captures: CaptureSpec[] = [];
    list(r, [...at, 'capture'], item.capture).forEach((c, j) => {
      const cat = [...at, 'capture', j];
      if (!isRecord(c) || typeof c.name !== 'string' || c.name === '') return r.src.fail(cat, 'a capture needs a name');
      ignoreUnknownKeys(r.src, cat, c, ['name', 'field', 'expression']);
      if (typeof c.field === 'string') return captures.push({ name: c.name, field: c.field });
      const expression = celExpression(r, [...cat, 'expression'], c.expression, `precondition "${name}" capture "${c.name}"`);
      if (expression) captures.push({ name: c.name, expression });
    });
    const conditions: StructuredCondition[] = [];
    list(r, [...at, 'conditions'], item.conditions).forEach((c, j) => {
      const cat = [...at, 'conditions', j];
      if (!isRecord(c) || typeof c.field !== 'string') return r.src.fail(cat, 'a condition needs a field');
      const op = c.operator;
      if (typeof op !== 'string' || !(CONDITION_OPERATORS as readonly string[]).includes(op)) {
        return r.src.fail([...cat, 'operator'], `must be one of ${CONDITION_OPERATORS.join(', ')}, got ${JSON.stringify(op)}`);
      }
      conditions.push({ field: c.field, operator: op as ConditionOperator, ...(c.value === undefined ? {} : { value: c.value }) });
    });
    const expression = item.expression === undefined ? undefined : celExpression(r, [...at, 'expression'], item.expression, `precondition "${name}" expression`);
    out.push({ name, ...(apiCallUrl ? { apiCallUrl } : {}), captures, conditions, ...(expression ? { expression } : {}) });
  });
  return out;
}

function readResources(r: TaskConfigDoc, path: Path, value: unknown, readRef: RefReader): ResourceSpec[] {
  const out: ResourceSpec[] = [];
  const names = new Set<string>();
  list(r, path, value).forEach((item, i) => {
    const at = [...path, i];
    if (!isRecord(item) || typeof item.name !== 'string' || item.name === '') return r.src.fail(at, 'a resource needs a name');
    const name = item.name;
    if (names.has(name)) return r.src.fail([...at, 'name'], `duplicate resource "${name}"`);
    names.add(name);
    ignoreUnknownKeys(r.src, at, item, ['name', 'transport', 'manifest', 'discovery', 'nested_discoveries', 'lifecycle', 'recreate_on_change']);
    if (item.nested_discoveries !== undefined) r.src.notice([...at, 'nested_discoveries'], 'sub-resources inside a ManifestWork are not watched');
    const transport = isRecord(item.transport) && typeof item.transport.client === 'string' ? item.transport.client : 'kubernetes';
    if (transport !== 'kubernetes') r.src.notice([...at, 'transport'], `transport "${transport}": the shadow watches Kubernetes objects only, so "${name}" is not shadowed`);

    const manifest = readManifest(r, [...at, 'manifest'], item.manifest, readRef);
    const discovery = readDiscovery(r, [...at, 'discovery'], item.discovery, name);
    let recreateOnChange = false;
    if (item.recreate_on_change !== undefined) {
      if (typeof item.recreate_on_change === 'boolean') recreateOnChange = item.recreate_on_change;
      else r.src.fail([...at, 'recreate_on_change'], `must be true or false, got ${JSON.stringify(item.recreate_on_change)}`);
    }
    const rules = readLifecycle(r, [...at, 'lifecycle'], item.lifecycle, name);
    if (discovery) out.push({ name, where: `${r.src.file}:${r.src.lineOf(at)}`, transport, ...manifest, discovery, recreateOnChange, ...rules });
  });
  return out;
}

function readManifest(
  r: TaskConfigDoc,
  at: Path,
  value: unknown,
  readRef: RefReader,
): { apiVersion?: string; kind?: string; generationAnnotation?: GoTemplate } {
  let manifest = value;
  let mpath = at;
  if (isRecord(value) && typeof value.ref === 'string') {
    const text = readRef(value.ref);
    const parsed = text === undefined ? undefined : (parseDocument(text).toJS() as unknown);
    if (!isRecord(parsed)) {
      r.src.notice([...at, 'ref'], `manifest ${value.ref} could not be read; the resource's kind and generation annotation are unknown`);
      return {};
    }
    manifest = parsed;
    mpath = [...at, 'ref'];
  }
  if (!isRecord(manifest)) {
    r.src.notice(at, 'no manifest; the resource kind is unknown');
    return {};
  }
  const metadata = isRecord(manifest.metadata) ? manifest.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const annotation = annotations['hyperfleet.io/generation'];
  const generationAnnotation = annotation === undefined ? undefined : template(r.src, [...mpath, 'metadata', 'annotations', 'hyperfleet.io/generation'], typeof annotation === 'number' ? String(annotation) : annotation);
  return {
    ...(typeof manifest.apiVersion === 'string' ? { apiVersion: manifest.apiVersion } : {}),
    ...(typeof manifest.kind === 'string' ? { kind: manifest.kind } : {}),
    ...(generationAnnotation ? { generationAnnotation } : {}),
  };
}

function readDiscovery(r: TaskConfigDoc, at: Path, value: unknown, resource: string): DiscoverySpec | undefined {
  if (!isRecord(value)) {
    r.src.fail(at, `resource "${resource}" needs a discovery (by_name or by_selectors), as the adapter requires`);
    return undefined;
  }
  ignoreUnknownKeys(r.src, at, value, ['namespace', 'by_name', 'by_selectors']);
  const namespace = value.namespace === undefined || value.namespace === '' || value.namespace === '*' ? undefined : template(r.src, [...at, 'namespace'], value.namespace);
  const byName = value.by_name === undefined ? undefined : template(r.src, [...at, 'by_name'], value.by_name);
  let labelSelector: Record<string, GoTemplate> | undefined;
  if (value.by_selectors !== undefined) {
    const sel = value.by_selectors;
    if (!isRecord(sel) || !isRecord(sel.label_selector)) r.src.fail([...at, 'by_selectors'], 'needs label_selector: {key: value}');
    else {
      ignoreUnknownKeys(r.src, [...at, 'by_selectors'], sel, ['label_selector']);
      labelSelector = {};
      for (const [k, v] of Object.entries(sel.label_selector)) {
        const t = template(r.src, [...at, 'by_selectors', 'label_selector', k], String(v));
        if (t) labelSelector[k] = t;
      }
    }
  }
  if (value.by_name === undefined && value.by_selectors === undefined) r.src.fail(at, `resource "${resource}" needs by_name or by_selectors`);
  if (!byName && !labelSelector) return undefined;
  return { ...(namespace ? { namespace } : {}), ...(byName ? { byName } : {}), ...(labelSelector ? { labelSelector } : {}) };
}

function readLifecycle(
  r: TaskConfigDoc,
  at: Path,
  value: unknown,
  resource: string,
): { createWhen?: ExpressionSpec; deleteWhen?: ExpressionSpec; recreateWhen?: ExpressionSpec } {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    r.src.fail(at, 'must be a mapping of create, delete, recreate');
    return {};
  }
  ignoreUnknownKeys(r.src, at, value, ['create', 'delete', 'recreate']);
  const gate = (key: 'create' | 'delete' | 'recreate'): ExpressionSpec | undefined => {
    const g = value[key];
    if (g === undefined) return undefined;
    const gat = [...at, key];
    if (!isRecord(g) || !isRecord(g.when)) {
      r.src.fail(gat, `lifecycle.${key} needs when.expression`);
      return undefined;
    }
    ignoreUnknownKeys(r.src, gat, g, key === 'delete' ? ['when', 'propagationPolicy'] : ['when']);
    ignoreUnknownKeys(r.src, [...gat, 'when'], g.when, ['expression']);
    return celExpression(r, [...gat, 'when', 'expression'], g.when.expression, `resource "${resource}" lifecycle.${key}.when.expression`);
  };
  const createWhen = gate('create');
  const deleteWhen = gate('delete');
  const recreateWhen = gate('recreate');
  return { ...(createWhen ? { createWhen } : {}), ...(deleteWhen ? { deleteWhen } : {}), ...(recreateWhen ? { recreateWhen } : {}) };
}
