/**
 * Reads a HyperFleet adapter task config exactly as the adapter decodes it (hyperfleet-adapter
 * internal/configloader/viper_loader.go loadTaskConfig: yaml.v3 with KnownFields(true) into the structs of
 * configloader/types.go; then validator.go ValidateStructure/ValidateSemantic): a key the adapter's structs do not
 * have is refused with the adapter's own reason (`field x not found in type configloader.Resource`), and so is what
 * its validator refuses (names, discovery, transport, condition values, lifecycle gates, CEL that does not parse).
 * `params[].source` mappings are decoded through a fresh yaml node decoder upstream, so they are not strict.
 * There is no `lifecycle.recreate` in the adapter: proposed rules come from reconcile-shadow's own proposals file
 * (proposals.ts). Pure: manifest refs are read through the `readRef` callback.
 */
import { ValidationError } from '../../lib/validation-error.js';
import { YamlSource, type FieldPath } from '../../lib/yaml-source.js';
import { GoTemplate, TemplateError } from './go-template.js';
import { isRecord } from '../../lib/is-record.js';

/** Where a CEL expression sits, so a compile error can point at the file line and column of the caret. */
export interface ExpressionSpec {
  readonly source: string;
  /** e.g. `resource "job" lifecycle.delete.when.expression`. */
  readonly owner: string;
  readonly file: string;
  /** File line and column of the expression's first character. */
  readonly line: number;
  readonly column: number;
  /** Block scalars (`|`) keep the expression's own line breaks, so its lines map one to one onto file lines. */
  readonly block: boolean;
}

export interface ApiCallSpec {
  readonly method: string;
  readonly url: GoTemplate;
}

/**
 * A param's source as executor/param_extractor.go extractParam reads it: a string (`env.X`, `event.x.y`,
 * `config.x`, `<param>.x` or else an event path), an API call, a CEL expression or a file.
 */
export type ParamSource =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'expression'; readonly expression: ExpressionSpec }
  | { readonly kind: 'api_call'; readonly call: ApiCallSpec }
  | { readonly kind: 'file'; readonly path: string; readonly trim: boolean }
  | { readonly kind: 'none' };

export interface ParamSpec {
  readonly name: string;
  readonly source: ParamSource;
  /** As written (`string`, `int`, `int64`, `float`, `float64`, `bool`); pkg/utils/convert.go ConvertToType applies it. */
  readonly type?: string;
  readonly default?: unknown;
  readonly required: boolean;
}

export const CONDITION_OPERATORS = ['equals', 'notEquals', 'in', 'notIn', 'contains', 'greaterThan', 'lessThan', 'exists'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface StructuredCondition {
  readonly field: string;
  readonly operator: ConditionOperator;
  /** `value` or `values` (configloader/types.go Condition.UnmarshalYAML). */
  readonly value?: unknown;
}

export interface CaptureSpec {
  readonly name: string;
  readonly field?: string;
  readonly expression?: ExpressionSpec;
  readonly default?: unknown;
}

export interface PreconditionSpec {
  readonly name: string;
  readonly apiCall?: ApiCallSpec;
  readonly captures: readonly CaptureSpec[];
  readonly conditions: readonly StructuredCondition[];
  readonly expression?: ExpressionSpec;
}

export interface DiscoverySpec {
  readonly namespace?: GoTemplate;
  readonly byName?: GoTemplate;
  readonly labelSelector?: ReadonlyArray<readonly [GoTemplate, GoTemplate]>;
}

/** A manifest as the adapter renders it: a mapping serialized back to YAML, or a ref file's raw text. */
export type ManifestSpec =
  { readonly kind: 'map'; readonly value: Record<string, unknown> } | { readonly kind: 'text'; readonly text: string; readonly ref: string };

export interface ResourceSpec {
  readonly name: string;
  /** `file:line` of the resource, for messages. */
  readonly where: string;
  readonly transport: 'kubernetes' | 'maestro';
  readonly targetCluster?: GoTemplate;
  readonly manifest?: ManifestSpec;
  /** From the manifest (for a text manifest, its `apiVersion:`/`kind:` lines, as manifest/gvk.go ExtractGVKFromString). */
  readonly apiVersion?: string;
  readonly kind?: string;
  /** The manifest's `hyperfleet.io/generation` annotation template: the generation the adapter applies. */
  readonly generationAnnotation?: GoTemplate;
  readonly discovery: DiscoverySpec;
  readonly nestedDiscoveries: readonly { readonly name: string; readonly discovery: DiscoverySpec }[];
  readonly recreateOnChange: boolean;
  readonly createWhen?: ExpressionSpec;
  readonly deleteWhen?: ExpressionSpec;
  readonly propagationPolicy?: string;
  /** A proposed rule, from reconcile-shadow's proposals file: never from the adapter's task config. */
  readonly recreateWhen?: ExpressionSpec;
}

export interface TaskConfig {
  readonly file: string;
  readonly params: readonly ParamSpec[];
  readonly preconditions: readonly PreconditionSpec[];
  readonly resources: readonly ResourceSpec[];
  /** Parts read but not used by the recreation analyzer (post actions), each naming file:line. */
  readonly notices: readonly string[];
}

type Path = FieldPath;

export interface TaskConfigDoc {
  readonly src: YamlSource;
  readonly lines: readonly string[];
}

/** The keys of each configloader struct (yaml tags, inline structs flattened). */
const STRUCTS = {
  AdapterTaskConfig: ['post', 'params', 'preconditions', 'resources'],
  Parameter: ['default', 'name', 'source', 'type', 'description', 'required'],
  Precondition: ['api_call', 'log', 'name', 'expression', 'capture', 'conditions'],
  APICall: ['method', 'url', 'timeout', 'retry_backoff', 'body', 'headers', 'retry_attempts'],
  Header: ['name', 'value'],
  LogAction: ['message', 'level'],
  CaptureField: ['default', 'name', 'field', 'expression'],
  conditionRaw: ['value', 'values', 'field', 'operator'],
  Resource: ['name', 'transport', 'manifest', 'discovery', 'lifecycle', 'nested_discoveries', 'recreate_on_change'],
  TransportConfig: ['maestro', 'client'],
  MaestroTransportConfig: ['target_cluster'],
  ResourceLifecycle: ['delete', 'create'],
  LifecycleDelete: ['when', 'propagationPolicy'],
  LifecycleCreate: ['when'],
  LifecycleWhen: ['expression'],
  NestedDiscovery: ['discovery', 'name'],
  DiscoveryConfig: ['by_selectors', 'namespace', 'by_name'],
  SelectorConfig: ['label_selector'],
  PostConfig: ['payloads', 'post_actions'],
  Payload: ['build', 'when', 'name', 'build_ref'],
  PostAction: ['api_call', 'log', 'name', 'when'],
  PostActionWhen: ['expression'],
} as const;
type StructName = keyof typeof STRUCTS;

/** yaml.v3 KnownFields: every key the struct does not have is an error, reported at its line. */
function strict(r: TaskConfigDoc, path: Path, value: unknown, type: StructName): value is Record<string, unknown> {
  if (value === undefined || value === null) return false;
  if (!isRecord(value)) {
    r.src.fail(path, `cannot unmarshal ${Array.isArray(value) ? '!!seq' : '!!str'} into configloader.${type}`);
    return false;
  }
  const known: readonly string[] = STRUCTS[type];
  for (const key of Object.keys(value)) if (!known.includes(key)) r.src.fail([...path, key], `field ${key} not found in type configloader.${type}`);
  return true;
}

function list(r: TaskConfigDoc, path: Path, value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  r.src.fail(path, 'cannot unmarshal into a list');
  return [];
}

function str(r: TaskConfigDoc, path: Path, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  r.src.fail(path, `cannot unmarshal ${JSON.stringify(value)} into string`);
  return undefined;
}

export function celExpression(r: TaskConfigDoc, path: Path, value: unknown, owner: string): ExpressionSpec | undefined {
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
  const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  if (typeof text !== 'string') {
    src.fail(path, `must be a string, got ${JSON.stringify(value)}`);
    return undefined;
  }
  try {
    return GoTemplate.parse(text);
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    src.fail(path, `failed to parse template: ${e.message}`);
    return undefined;
  }
}

/** Reads a manifest `ref` file (resolved against the task config's directory); an error message when it cannot. */
export type RefReader = (ref: string) => { text: string } | { error: string };

export function parseTaskConfig(
  text: string,
  file: string,
  readRef: RefReader = (ref) => ({ error: `referenced file ${JSON.stringify(ref)} cannot be read` }),
): TaskConfig {
  const src = new YamlSource(text, file);
  if (src.problems.length > 0) throw new ValidationError('adapter task config', src.problems);
  const raw = src.value;
  if (!isRecord(raw)) throw new ValidationError('adapter task config', [`${file}:1 (document): a task config is a YAML mapping`]);
  const r: TaskConfigDoc = { src, lines: text.split('\n') };
  strict(r, [], raw, 'AdapterTaskConfig');

  const params = readParams(r, ['params'], raw.params);
  const preconditions = readPreconditions(r, ['preconditions'], raw.preconditions);
  const resources = readResources(r, ['resources'], raw.resources, readRef);
  readPost(r, ['post'], raw.post);
  checkTemplateVariables(r, raw, params, preconditions);
  if (src.problems.length > 0) throw new ValidationError('adapter task config', src.problems);
  return { file, params, preconditions, resources, notices: src.notices };
}

function readApiCall(r: TaskConfigDoc, at: Path, value: unknown, strictKeys: boolean): ApiCallSpec | undefined {
  if (strictKeys ? !strict(r, at, value, 'APICall') : !isRecord(value)) return undefined;
  const v = value as Record<string, unknown>;
  const method = str(r, [...at, 'method'], v.method) ?? '';
  if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method))
    r.src.fail([...at, 'method'], `must be one of GET POST PUT PATCH DELETE, got ${JSON.stringify(method)}`);
  const url = template(r.src, [...at, 'url'], v.url ?? '');
  if (!str(r, [...at, 'url'], v.url)) r.src.fail([...at, 'url'], 'url is required');
  for (const [j, h] of list(r, [...at, 'headers'], v.headers).entries()) if (strictKeys) strict(r, [...at, 'headers', j], h, 'Header');
  return url ? { method, url } : undefined;
}

function readParams(r: TaskConfigDoc, path: Path, value: unknown): ParamSpec[] {
  const out: ParamSpec[] = [];
  list(r, path, value).forEach((item, i) => {
    const at = [...path, i];
    if (!strict(r, at, item, 'Parameter')) return;
    const name = str(r, [...at, 'name'], item.name);
    if (!name) return r.src.fail([...at, 'name'], 'name is required');
    const source = readParamSource(r, [...at, 'source'], item.source, name);
    const type = str(r, [...at, 'type'], item.type);
    if (type !== undefined && type !== '' && !['string', 'int', 'int64', 'float', 'float64', 'bool'].includes(type))
      r.src.notice([...at, 'type'], `type ${JSON.stringify(type)} is not one the adapter converts to; it fails at run time`);
    const required = item.required === true;
    if (item.required !== undefined && typeof item.required !== 'boolean') r.src.fail([...at, 'required'], 'must be true or false');
    out.push({ name, source, ...(type ? { type } : {}), ...(item.default === undefined || item.default === null ? {} : { default: item.default }), required });
  });
  return out;
}

function readParamSource(r: TaskConfigDoc, at: Path, source: unknown, name: string): ParamSource {
  if (source === undefined || source === null) {
    r.src.fail(at, 'source is required');
    return { kind: 'none' };
  }
  if (typeof source === 'string' || typeof source === 'number' || typeof source === 'boolean') return { kind: 'string', value: String(source) };
  if (!isRecord(source)) {
    r.src.fail(at, 'source: expected string or mapping');
    return { kind: 'none' };
  }
  const set = ['api_call', 'expression', 'file'].filter((k) => source[k] !== undefined && source[k] !== null);
  if (set.length > 1) r.src.fail(at, "source: only one of 'api_call', 'expression', or 'file' may be set");
  if (source.api_call !== undefined && source.api_call !== null) {
    const call = readApiCall(r, [...at, 'api_call'], source.api_call, false);
    return call ? { kind: 'api_call', call } : { kind: 'none' };
  }
  if (source.expression !== undefined && source.expression !== null) {
    if (typeof source.expression === 'string' && source.expression.trim() === '') {
      r.src.fail([...at, 'expression'], 'source: expression must not be empty');
      return { kind: 'none' };
    }
    const expression = celExpression(r, [...at, 'expression'], source.expression, `param "${name}" source.expression`);
    return expression ? { kind: 'expression', expression } : { kind: 'none' };
  }
  if (isRecord(source.file)) {
    const path = str(r, [...at, 'file', 'path'], source.file.path);
    if (!path) r.src.fail([...at, 'file', 'path'], 'path is required for file source');
    return { kind: 'file', path: path ?? '', trim: source.file.trim !== false };
  }
  r.src.fail(at, "source: mapping must contain one of 'api_call', 'expression', or 'file'");
  return { kind: 'none' };
}

function readPreconditions(r: TaskConfigDoc, path: Path, value: unknown): PreconditionSpec[] {
  const out: PreconditionSpec[] = [];
  list(r, path, value).forEach((item, i) => {
    const at = [...path, i];
    if (!strict(r, at, item, 'Precondition')) return;
    const name = str(r, [...at, 'name'], item.name);
    if (!name) return r.src.fail([...at, 'name'], 'name is required');
    resourceName(r, [...at, 'name'], name);
    strict(r, [...at, 'log'], item.log, 'LogAction');
    const apiCall = item.api_call === undefined || item.api_call === null ? undefined : readApiCall(r, [...at, 'api_call'], item.api_call, true);
    const captures: CaptureSpec[] = [];
    list(r, [...at, 'capture'], item.capture).forEach((c, j) => {
      const cat = [...at, 'capture', j];
      if (!strict(r, cat, c, 'CaptureField')) return;
      const cname = str(r, [...cat, 'name'], c.name);
      if (!cname) return r.src.fail([...cat, 'name'], 'name is required');
      const field = str(r, [...cat, 'field'], c.field);
      const hasExpr = typeof c.expression === 'string' && c.expression.trim() !== '';
      if (field && hasExpr) return r.src.fail(cat, 'field and expression are mutually exclusive');
      if (!field && !hasExpr) return r.src.fail(cat, 'one of field or expression is required');
      const dflt = c.default === undefined || c.default === null ? {} : { default: c.default };
      if (field) return captures.push({ name: cname, field, ...dflt });
      const expression = celExpression(r, [...cat, 'expression'], c.expression, `precondition "${name}" capture "${cname}"`);
      if (expression) captures.push({ name: cname, expression, ...dflt });
    });
    const conditions: StructuredCondition[] = [];
    list(r, [...at, 'conditions'], item.conditions).forEach((c, j) => {
      const cat = [...at, 'conditions', j];
      if (!strict(r, cat, c, 'conditionRaw')) return;
      const op = str(r, [...cat, 'operator'], c.operator);
      if (!op || !(CONDITION_OPERATORS as readonly string[]).includes(op)) {
        return r.src.fail([...cat, 'operator'], `invalid operator ${JSON.stringify(op ?? '')} (supported: ${CONDITION_OPERATORS.join(', ')})`);
      }
      const hasValue = c.value !== undefined && c.value !== null;
      const hasValues = c.values !== undefined && c.values !== null;
      if (hasValue && hasValues) return r.src.fail(cat, "condition has both 'value' and 'values' keys; use only one");
      const v = hasValues ? c.values : hasValue ? c.value : undefined;
      if (op === 'exists' && v !== undefined) r.src.fail(cat, `value/values should not be set for operator "${op}"`);
      if (op !== 'exists' && v === undefined) r.src.fail(cat, `value is required for operator "${op}"`);
      if ((op === 'in' || op === 'notIn') && v !== undefined && !Array.isArray(v)) r.src.fail(cat, `value must be a list for operator "${op}"`);
      conditions.push({ field: str(r, [...cat, 'field'], c.field) ?? '', operator: op as ConditionOperator, ...(v === undefined ? {} : { value: v }) });
    });
    const expression =
      item.expression === undefined || item.expression === ''
        ? undefined
        : celExpression(r, [...at, 'expression'], item.expression, `precondition "${name}" expression`);
    if (!apiCall && conditions.length === 0 && !expression) r.src.fail(at, 'a precondition needs api_call, conditions or expression');
    out.push({ name, ...(apiCall ? { apiCall } : {}), captures, conditions, ...(expression ? { expression } : {}) });
  });
  return out;
}

function readPost(r: TaskConfigDoc, at: Path, value: unknown): void {
  if (!strict(r, at, value, 'PostConfig')) return;
  list(r, [...at, 'payloads'], value.payloads).forEach((p, i) => {
    if (strict(r, [...at, 'payloads', i], p, 'Payload')) strict(r, [...at, 'payloads', i, 'when'], p.when, 'PostActionWhen');
  });
  list(r, [...at, 'post_actions'], value.post_actions).forEach((p, i) => {
    const pat = [...at, 'post_actions', i];
    if (!strict(r, pat, p, 'PostAction')) return;
    strict(r, [...pat, 'when'], p.when, 'PostActionWhen');
    strict(r, [...pat, 'log'], p.log, 'LogAction');
    if (p.api_call !== undefined) readApiCall(r, [...pat, 'api_call'], p.api_call, true);
  });
}

/** configloader/struct_validator.go resourceNamePattern: resource, nested discovery and precondition names. */
const RESOURCE_NAME = /^[a-z][a-zA-Z0-9_]*$/;

function resourceName(r: TaskConfigDoc, at: Path, name: string): void {
  if (!RESOURCE_NAME.test(name))
    r.src.fail(at, `${JSON.stringify(name)}: must start with lowercase letter and contain only letters, numbers, underscores (no hyphens)`);
}

/** validator.go templateVarRegex: the `{{ .name }}` references its semantic validation checks. */
const TEMPLATE_VAR = /\{\{\s*\.([a-zA-Z_][a-zA-Z0-9_.]*)\s*(?:\|[^}]*)?\}\}/g;
const BUILTIN_VARIABLES = ['adapter', 'config', 'env', 'event', 'now', 'date'];

/** validator.go validateTemplateVariables: a `{{ .x }}` naming no param, capture, payload or builtin is refused. */
function checkTemplateVariables(
  r: TaskConfigDoc,
  raw: Record<string, unknown>,
  params: readonly ParamSpec[],
  preconditions: readonly PreconditionSpec[],
): void {
  const defined = new Set<string>([...BUILTIN_VARIABLES, ...params.map((p) => p.name), ...preconditions.flatMap((p) => p.captures.map((c) => c.name))]);
  const post = isRecord(raw.post) ? raw.post : {};
  for (const p of Array.isArray(post.payloads) ? post.payloads : []) if (isRecord(p) && typeof p.name === 'string') defined.add(p.name);
  const resources = Array.isArray(raw.resources) ? raw.resources : [];
  for (const res of resources) if (isRecord(res) && typeof res.name === 'string') defined.add(`resources.${res.name}`);
  const isDefined = (v: string): boolean => {
    const parts = v.split('.');
    return defined.has(v) || defined.has(parts[0]!) || (parts[0] === 'resources' && parts.length > 1 && defined.has(`resources.${parts[1]}`));
  };
  const check = (path: Path, text: unknown): void => {
    if (typeof text !== 'string') return;
    for (const m of text.matchAll(TEMPLATE_VAR)) if (!isDefined(m[1]!)) r.src.fail(path, `undefined template variable ${JSON.stringify(m[1])}`);
  };
  const walk = (path: Path, v: unknown): void => {
    if (typeof v === 'string') check(path, v);
    else if (Array.isArray(v)) v.forEach((x, i) => walk([...path, i], x));
    else if (isRecord(v))
      for (const [k, x] of Object.entries(v)) {
        check([...path, k], k);
        walk([...path, k], x);
      }
  };
  const pres = Array.isArray(raw.preconditions) ? raw.preconditions : [];
  pres.forEach((p, i) => {
    if (isRecord(p) && isRecord(p.api_call)) {
      check(['preconditions', i, 'api_call', 'url'], p.api_call.url);
      check(['preconditions', i, 'api_call', 'body'], p.api_call.body);
    }
  });
  resources.forEach((res, i) => {
    if (!isRecord(res)) return;
    if (isRecord(res.manifest) && !(typeof res.manifest.ref === 'string' && Object.keys(res.manifest).length === 1))
      walk(['resources', i, 'manifest'], res.manifest);
    const discoveries: [Path, unknown][] = [[['resources', i, 'discovery'], res.discovery]];
    if (Array.isArray(res.nested_discoveries))
      res.nested_discoveries.forEach((nd, j) =>
        discoveries.push([['resources', i, 'nested_discoveries', j, 'discovery'], isRecord(nd) ? nd.discovery : undefined]),
      );
    for (const [path, d] of discoveries) {
      if (!isRecord(d)) continue;
      check([...path, 'namespace'], d.namespace);
      check([...path, 'by_name'], d.by_name);
      if (isRecord(d.by_selectors) && isRecord(d.by_selectors.label_selector))
        for (const [k, v] of Object.entries(d.by_selectors.label_selector)) check([...path, 'by_selectors', 'label_selector', k], v);
    }
  });
}

function readResources(r: TaskConfigDoc, path: Path, value: unknown, readRef: RefReader): ResourceSpec[] {
  const out: ResourceSpec[] = [];
  const names = new Set<string>();
  list(r, path, value).forEach((item, i) => {
    const at = [...path, i];
    if (!strict(r, at, item, 'Resource')) return;
    const name = str(r, [...at, 'name'], item.name);
    if (!name) return r.src.fail([...at, 'name'], 'name is required');
    resourceName(r, [...at, 'name'], name);
    if (names.has(name)) return r.src.fail([...at, 'name'], `duplicate resource "${name}"`);
    names.add(name);

    let transport: 'kubernetes' | 'maestro' = 'kubernetes';
    let targetCluster: GoTemplate | undefined;
    if (strict(r, [...at, 'transport'], item.transport, 'TransportConfig')) {
      const t = item.transport;
      const client = str(r, [...at, 'transport', 'client'], t.client);
      if (client !== 'kubernetes' && client !== 'maestro')
        r.src.fail([...at, 'transport', 'client'], `unsupported transport client ${JSON.stringify(client ?? '')} (supported: kubernetes, maestro)`);
      else transport = client;
      if (transport === 'maestro') {
        if (!strict(r, [...at, 'transport', 'maestro'], t.maestro, 'MaestroTransportConfig'))
          r.src.fail([...at, 'transport'], 'maestro transport config is required when client is "maestro"');
        else {
          const tc = t.maestro.target_cluster;
          if (!tc) r.src.fail([...at, 'transport', 'maestro', 'target_cluster'], 'target_cluster is required for maestro transport');
          else targetCluster = template(r.src, [...at, 'transport', 'maestro', 'target_cluster'], tc);
        }
      }
    }

    const manifest = readManifest(r, [...at, 'manifest'], item.manifest, readRef, transport);
    const discovery = readDiscovery(r, [...at, 'discovery'], item.discovery, `resource "${name}"`);
    const nestedDiscoveries: { name: string; discovery: DiscoverySpec }[] = [];
    list(r, [...at, 'nested_discoveries'], item.nested_discoveries).forEach((nd, j) => {
      const nat = [...at, 'nested_discoveries', j];
      if (!strict(r, nat, nd, 'NestedDiscovery')) return;
      const nname = str(r, [...nat, 'name'], nd.name);
      if (!nname) return r.src.fail([...nat, 'name'], 'name is required');
      resourceName(r, [...nat, 'name'], nname);
      const d = readDiscovery(r, [...nat, 'discovery'], nd.discovery, `nested discovery "${nname}"`);
      if (d) nestedDiscoveries.push({ name: nname, discovery: d });
    });
    let recreateOnChange = false;
    if (item.recreate_on_change !== undefined && item.recreate_on_change !== null) {
      if (typeof item.recreate_on_change === 'boolean') recreateOnChange = item.recreate_on_change;
      else r.src.fail([...at, 'recreate_on_change'], `cannot unmarshal ${JSON.stringify(item.recreate_on_change)} into bool`);
    }
    const rules = readLifecycle(r, [...at, 'lifecycle'], item.lifecycle, name);
    if (!discovery) return;
    out.push({
      name,
      where: `${r.src.file}:${r.src.lineOf(at)}`,
      transport,
      ...(targetCluster ? { targetCluster } : {}),
      ...manifest,
      discovery,
      nestedDiscoveries,
      recreateOnChange,
      ...rules,
    });
  });
  return out;
}

function readManifest(
  r: TaskConfigDoc,
  at: Path,
  value: unknown,
  readRef: RefReader,
  transport: string,
): Pick<ResourceSpec, 'manifest' | 'apiVersion' | 'kind' | 'generationAnnotation'> {
  if (value === undefined || value === null) {
    r.src.fail(at, `manifest is required for ${transport} transport`);
    return {};
  }
  if (isRecord(value) && value.ref !== undefined && Object.keys(value).length === 1) {
    if (typeof value.ref !== 'string' || value.ref === '') {
      r.src.fail([...at, 'ref'], 'manifest ref cannot be empty');
      return {};
    }
    const read = readRef(value.ref);
    if ('error' in read) {
      r.src.fail([...at, 'ref'], read.error);
      return {};
    }
    return { manifest: { kind: 'text', text: read.text, ref: value.ref }, ...identityOfText(read.text) };
  }
  if (typeof value === 'string') return { manifest: { kind: 'text', text: value, ref: '' }, ...identityOfText(value) };
  if (!isRecord(value)) {
    r.src.fail(at, 'unsupported manifest type');
    return {};
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const annotation = annotations['hyperfleet.io/generation'];
  const generationAnnotation =
    annotation === undefined ? undefined : template(r.src, [...at, 'metadata', 'annotations', 'hyperfleet.io/generation'], annotation);
  return {
    manifest: { kind: 'map', value },
    ...(typeof value.apiVersion === 'string' ? { apiVersion: value.apiVersion } : {}),
    ...(typeof value.kind === 'string' ? { kind: value.kind } : {}),
    ...(generationAnnotation ? { generationAnnotation } : {}),
  };
}

/** apiVersion and kind of a text manifest from its top-level lines (manifest/gvk.go ExtractGVKFromString). */
function identityOfText(text: string): Pick<ResourceSpec, 'apiVersion' | 'kind' | 'generationAnnotation'> {
  const line = (key: string): string | undefined => new RegExp(`^${key}:\\s*["']?([^"'\\s#]+)["']?`, 'm').exec(text)?.[1];
  const apiVersion = line('apiVersion');
  const kind = line('kind');
  const gen = /^\s+hyperfleet\.io\/generation:\s*["']?(.*?)["']?\s*$/m.exec(text)?.[1];
  let generationAnnotation: GoTemplate | undefined;
  try {
    generationAnnotation = gen === undefined ? undefined : GoTemplate.parse(gen);
  } catch {
    generationAnnotation = undefined;
  }
  return { ...(apiVersion ? { apiVersion } : {}), ...(kind ? { kind } : {}), ...(generationAnnotation ? { generationAnnotation } : {}) };
}

function readDiscovery(r: TaskConfigDoc, at: Path, value: unknown, owner: string): DiscoverySpec | undefined {
  if (!strict(r, at, value, 'DiscoveryConfig')) {
    r.src.fail(at, `${owner}: discovery is required`);
    return undefined;
  }
  const namespace =
    value.namespace === undefined || value.namespace === null || value.namespace === '' ? undefined : template(r.src, [...at, 'namespace'], value.namespace);
  const hasName = value.by_name !== undefined && value.by_name !== null && value.by_name !== '';
  const hasSel = value.by_selectors !== undefined && value.by_selectors !== null;
  if (hasName && hasSel) r.src.fail(at, `${owner}: by_name and by_selectors are mutually exclusive`);
  if (!hasName && !hasSel) r.src.fail(at, `${owner}: one of by_name or by_selectors is required`);
  const byName = hasName ? template(r.src, [...at, 'by_name'], value.by_name) : undefined;
  let labelSelector: [GoTemplate, GoTemplate][] | undefined;
  if (hasSel && strict(r, [...at, 'by_selectors'], value.by_selectors, 'SelectorConfig')) {
    const sel = value.by_selectors.label_selector;
    if (!isRecord(sel) || Object.keys(sel).length === 0)
      r.src.fail([...at, 'by_selectors', 'label_selector'], 'label_selector is required (at least one label)');
    else {
      labelSelector = [];
      for (const [k, v] of Object.entries(sel)) {
        const kt = template(r.src, [...at, 'by_selectors', 'label_selector'], k);
        const vt = template(r.src, [...at, 'by_selectors', 'label_selector', k], v);
        if (kt && vt) labelSelector.push([kt, vt]);
      }
    }
  }
  if (!byName && !labelSelector) return undefined;
  return { ...(namespace ? { namespace } : {}), ...(byName ? { byName } : {}), ...(labelSelector ? { labelSelector } : {}) };
}

function readLifecycle(r: TaskConfigDoc, at: Path, value: unknown, resource: string): Pick<ResourceSpec, 'createWhen' | 'deleteWhen' | 'propagationPolicy'> {
  if (!strict(r, at, value, 'ResourceLifecycle')) return {};
  const gate = (key: 'create' | 'delete'): ExpressionSpec | undefined => {
    const g = value[key];
    const gat = [...at, key];
    if (!strict(r, gat, g, key === 'delete' ? 'LifecycleDelete' : 'LifecycleCreate')) return undefined;
    const when = g.when;
    const hasWhen = strict(r, [...gat, 'when'], when, 'LifecycleWhen');
    const expr = hasWhen ? when.expression : undefined;
    if (typeof expr !== 'string' || expr === '') {
      r.src.fail(
        [...gat, 'when', 'expression'],
        key === 'create'
          ? 'lifecycle.create.when.expression is required when lifecycle.create is configured'
          : 'lifecycle.delete.when.expression is required: without it the resource will never be deleted',
      );
      return undefined;
    }
    return celExpression(r, [...gat, 'when', 'expression'], expr, `resource "${resource}" lifecycle.${key}.when.expression`);
  };
  const createWhen = gate('create');
  const deleteWhen = gate('delete');
  const del = value.delete;
  const policy = isRecord(del) ? str(r, [...at, 'delete', 'propagationPolicy'], del.propagationPolicy) : undefined;
  if (policy !== undefined && policy !== '' && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
    r.src.fail([...at, 'delete', 'propagationPolicy'], `invalid propagationPolicy ${JSON.stringify(policy)}: must be one of Background, Foreground, Orphan`);
  }
  return { ...(createWhen ? { createWhen } : {}), ...(deleteWhen ? { deleteWhen } : {}), ...(policy ? { propagationPolicy: policy } : {}) };
}
