/**
 * A task config made ready to shadow: every CEL expression compiled once (all broken ones reported together), the
 * resources the sidecar can watch, how an object is tied back to its resource and cluster (discovery templates
 * matched backwards), and the evaluation context the adapter would build for a cluster: params in order, then the
 * preconditions with their captures and gates. `checkClusterState` and every `api_call` that reads the cluster or
 * nodepool are answered from the HyperFleet state the shadow holds; other API calls stay unset. Inputs (objects and
 * the cluster's state) are seen by the rules as their projection onto what the config reads of them (reads.ts).
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import type { HyperFleetResource, ManagedObject, ObjectWatch } from '../../collector/objects/observation.js';
import { ValidationError } from '../../lib/validation-error.js';
import { CelCompileError, toCelValue, type CelRuntime, type CompiledExpression, type EvalErrorReason, type EvalResult } from './cel.js';
import { valueText, type GoTemplate } from './go-template.js';
import { projectInput, type ReadSet } from './projection.js';
import { CLUSTER_STATE, RESOURCE_URL, taskConfigReads } from './reads.js';
import type { ExpressionSpec, ParamSpec, PreconditionSpec, ResourceSpec, StructuredCondition, TaskConfig } from './task-config.js';

export interface CompiledResource {
  readonly spec: ResourceSpec;
  readonly name: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly createWhen?: CompiledExpression;
  readonly deleteWhen?: CompiledExpression;
  readonly recreateWhen?: CompiledExpression;
  /** A generation change recreates the object (`recreate_on_change`) or a `recreate.when` rule may. */
  readonly recreates: boolean;
  /** What the lifecycle rules read of its objects. */
  readonly reads: ReadSet;
}

/** A rule that could not be evaluated: which one, and why under a bounded reason. */
export interface RuleError {
  readonly rule: string;
  readonly reason: EvalErrorReason;
  readonly message: string;
}

/** What a context needs of the HyperFleet resource besides its state. */
export type ClusterIdentity = Pick<HyperFleetResource, 'id' | 'kind' | 'generation'>;

export interface ClusterContext {
  readonly cluster: ClusterIdentity;
  /** Params, precondition results and captures, as CEL values. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Preconditions not met: the adapter skips the resources phase. */
  readonly preconditionsMet: boolean;
  /** A param or precondition failed: the adapter fails the event, so every decision is an error. */
  readonly error?: RuleError;
}

export interface CompileOptions {
  /** Values for `env.*` params. */
  readonly env?: Readonly<Record<string, string>>;
}

export class CompiledTaskConfig {
  private constructor(
    readonly config: TaskConfig,
    private readonly runtime: CelRuntime,
    readonly resources: readonly CompiledResource[],
    /** The param holding `event.id`: how objects are tied to clusters. */
    readonly idParam: string | undefined,
    private readonly paramExpressions: ReadonlyMap<string, CompiledExpression>,
    private readonly captureExpressions: ReadonlyMap<string, CompiledExpression>,
    private readonly gateExpressions: ReadonlyMap<string, CompiledExpression>,
    readonly notices: readonly string[],
    private readonly env: Readonly<Record<string, string>>,
    /** What the config reads of a cluster's state. */
    private readonly clusterReads: ReadSet,
  ) {}

  static compile(config: TaskConfig, runtime: CelRuntime, options: CompileOptions = {}): CompiledTaskConfig {
    const problems: string[] = [];
    const notices = [...config.notices];
    const asts = new Map<ExpressionSpec, ASTNode>();
    const compile = (spec: ExpressionSpec | undefined): CompiledExpression | undefined => {
      if (!spec) return undefined;
      try {
        const compiled = runtime.compile(spec);
        asts.set(spec, compiled.ast);
        if (compiled.unsupported) notices.push(`${spec.file}:${spec.line} ${spec.owner}: ${compiled.unsupported}; every evaluation counts as an error`);
        return compiled;
      } catch (e) {
        if (!(e instanceof CelCompileError)) throw e;
        problems.push(e.message);
        return undefined;
      }
    };

    const paramExpressions = new Map<string, CompiledExpression>();
    for (const p of config.params) {
      if (p.source.kind === 'expression') {
        const c = compile(p.source.expression);
        if (c) paramExpressions.set(p.name, c);
      }
      if (p.source.kind === 'api_call' && !(p.source.url && RESOURCE_URL.test(p.source.url))) {
        notices.push(`${config.file}: param "${p.name}" calls an API the shadow does not answer; it stays unset unless it has a default`);
      }
    }
    const captureExpressions = new Map<string, CompiledExpression>();
    const gateExpressions = new Map<string, CompiledExpression>();
    for (const pre of config.preconditions) {
      for (const cap of pre.captures) {
        const c = compile(cap.expression);
        if (c) captureExpressions.set(`${pre.name}/${cap.name}`, c);
      }
      const g = compile(pre.expression);
      if (g) gateExpressions.set(pre.name, g);
    }

    const idParam = config.params.find((p) => p.source.kind === 'event' && p.source.field === 'id')?.name;
    if (!idParam) notices.push(`${config.file}: no param takes event.id, so objects cannot be tied to clusters; nothing is shadowed`);
    const shadowed: { spec: ResourceSpec; rules: Pick<CompiledResource, 'createWhen' | 'deleteWhen' | 'recreateWhen'> }[] = [];
    for (const spec of config.resources) {
      const rules = { createWhen: compile(spec.createWhen), deleteWhen: compile(spec.deleteWhen), recreateWhen: compile(spec.recreateWhen) };
      const why = unshadowable(spec, idParam);
      if (why) notices.push(`${spec.where} resource "${spec.name}": ${why}; not shadowed`);
      else shadowed.push({ spec, rules });
    }
    if (problems.length > 0) throw new ValidationError('adapter task config', problems);
    const reads = taskConfigReads(config, shadowed.map((r) => r.spec.name), (spec) => (spec ? asts.get(spec) : undefined));
    const resources = shadowed.map(({ spec, rules }): CompiledResource => ({
      spec,
      name: spec.name,
      apiVersion: spec.apiVersion!,
      kind: spec.kind!,
      ...(rules.createWhen ? { createWhen: rules.createWhen } : {}),
      ...(rules.deleteWhen ? { deleteWhen: rules.deleteWhen } : {}),
      ...(rules.recreateWhen ? { recreateWhen: rules.recreateWhen } : {}),
      recreates: spec.recreateOnChange || spec.recreateWhen !== undefined,
      reads: reads.objects.get(spec.name)!,
    }));
    return new CompiledTaskConfig(config, runtime, resources, idParam, paramExpressions, captureExpressions, gateExpressions, notices, options.env ?? {}, reads.cluster);
  }

  /** The resource an object belongs to and the cluster it was made for, or undefined when it is not managed. */
  match(o: ManagedObject): { resource: CompiledResource; clusterId: string } | undefined {
    for (const resource of this.resources) {
      if (resource.kind !== o.kind || resource.apiVersion !== o.apiVersion) continue;
      const captured = matchDiscovery(resource.spec, o);
      const clusterId = captured && this.idParam ? captured[this.idParam] : undefined;
      if (clusterId !== undefined) return { resource, clusterId };
    }
    return undefined;
  }

  /** The adapter's evaluation context for one cluster (params, then preconditions), at the runtime's `now()`. */
  clusterContext(cluster: HyperFleetResource): ClusterContext {
    return this.contextOf(cluster, this.clusterInput(cluster.raw));
  }

  /** The context for a cluster whose state was projected once (`clusterInput`) and kept. */
  contextOf(cluster: ClusterIdentity, input: EvalResult): ClusterContext {
    const values: Record<string, unknown> = {};
    const fail = (rule: string, reason: EvalErrorReason, message: string): ClusterContext => ({ cluster, values, preconditionsMet: false, error: { rule, reason, message } });
    if (!input.ok) return fail(CLUSTER_STATE, input.reason, input.message);
    const state = input.value as Record<string, unknown>;
    values[CLUSTER_STATE] = state;
    for (const p of this.config.params) {
      const got = this.paramValue(p, cluster, state, values);
      if (got && 'error' in got) return fail(`param ${p.name}`, got.error.reason, got.error.message);
      const value = got?.value ?? p.default;
      if (value === undefined) delete values[p.name];
      else values[p.name] = convert(typeof value === 'number' ? toCelValue(value, 0) : value, p.type);
    }
    let met = true;
    for (const pre of this.config.preconditions) {
      const outcome = this.precondition(pre, state, values);
      if (outcome !== true && outcome !== false) return fail(outcome.rule, outcome.reason, outcome.message);
      met &&= outcome;
    }
    return { cluster, values, preconditionsMet: met };
  }

  /** The generation the adapter would stamp on the resource for this cluster (its manifest annotation). */
  desiredGeneration(resource: CompiledResource, ctx: ClusterContext): string {
    return resource.spec.generationAnnotation?.render(ctx.values) ?? String(ctx.cluster.generation);
  }

  /** What the live source must list and watch: per resource, its kind, static namespace and label selector. */
  watchTargets(): ObjectWatch[] {
    const seen = new Map<string, ObjectWatch>();
    for (const r of this.resources) {
      const ns = r.spec.discovery.namespace;
      const labels = Object.entries(r.spec.discovery.labelSelector ?? {}).map(([k, t]) => (t.isStatic ? `${k}=${t.text}` : k));
      const target: ObjectWatch = {
        apiVersion: r.apiVersion,
        kind: r.kind,
        ...(ns?.isStatic ? { namespace: ns.text } : {}),
        ...(labels.length > 0 ? { labelSelector: labels.join(',') } : {}),
      };
      seen.set(JSON.stringify(target), target);
    }
    return [...seen.values()];
  }

  private paramValue(
    p: ParamSpec,
    cluster: ClusterIdentity,
    state: Record<string, unknown>,
    values: Record<string, unknown>,
  ): { value: unknown } | { error: RuleError } | undefined {
    const s = p.source;
    switch (s.kind) {
      case 'event':
        if (s.field === 'id') return { value: cluster.id };
        if (s.field === 'generation') return { value: cluster.generation };
        if (s.field === 'kind') return { value: cluster.kind };
        return { value: dig(state, s.field.split('.')) };
      case 'env':
        return { value: this.env[s.name] };
      case 'path':
        return { value: dig(values, s.path) };
      case 'api_call':
        return s.url && RESOURCE_URL.test(s.url) ? { value: state } : undefined;
      case 'expression': {
        const compiled = this.paramExpressions.get(p.name)!;
        const r = compiled.evaluate(values);
        return r.ok ? { value: r.value } : { error: { rule: `param ${p.name}`, reason: r.reason, message: r.message } };
      }
      case 'unsupported':
        return undefined;
    }
  }

  private precondition(pre: PreconditionSpec, state: Record<string, unknown>, values: Record<string, unknown>): boolean | RuleError {
    if (pre.apiCallUrl && RESOURCE_URL.test(pre.apiCallUrl)) values[pre.name] = state;
    const scope = (values[pre.name] ?? {}) as Record<string, unknown>;
    for (const cap of pre.captures) {
      if (cap.field !== undefined) {
        const v = dig(scope, cap.field.split('.'));
        if (v === undefined) delete values[cap.name];
        else values[cap.name] = v;
        continue;
      }
      const r = this.captureExpressions.get(`${pre.name}/${cap.name}`)!.evaluate(scope);
      if (!r.ok) return { rule: `precondition ${pre.name} capture ${cap.name}`, reason: r.reason, message: r.message };
      values[cap.name] = r.value;
    }
    if (!pre.conditions.every((c) => holds(c, values))) return false;
    const gate = this.gateExpressions.get(pre.name);
    if (!gate) return true;
    const r = gate.evaluate(values);
    if (!r.ok) return { rule: `precondition ${pre.name}`, reason: r.reason, message: r.message };
    if (typeof r.value !== 'boolean') return { rule: `precondition ${pre.name}`, reason: 'not_bool', message: `returned ${typeof r.value}, not bool` };
    return r.value;
  }

  /** Sets what `now()` returns in every rule: the time of the observation being evaluated. */
  setNow(ms: number): void {
    this.runtime.nowMs = ms;
  }

  /** A cluster's state (the API resource as received) as the rules see it: the parts they read. */
  clusterInput(raw: unknown): EvalResult {
    return projectInput(raw, this.clusterReads, this.runtime.limits.maxInputListElements);
  }

  /** An object of `resource` (as received) as its rules see it under `resources.<name>`: the parts they read. */
  objectInput(resource: CompiledResource, raw: unknown): EvalResult {
    return projectInput(raw, resource.reads, this.runtime.limits.maxInputListElements);
  }
}

function unshadowable(spec: ResourceSpec, idParam: string | undefined): string | undefined {
  if (spec.transport !== 'kubernetes') return `transport ${spec.transport}`;
  if (!spec.kind || !spec.apiVersion) return 'the manifest kind is unknown';
  if (!idParam) return 'no event.id param';
  const templates = [spec.discovery.namespace, spec.discovery.byName, ...Object.values(spec.discovery.labelSelector ?? {})];
  if (!templates.some((t) => t?.params.includes(idParam))) return `its discovery does not use {{ .${idParam} }}, so its objects cannot be tied to a cluster`;
  return undefined;
}

function matchDiscovery(spec: ResourceSpec, o: ManagedObject): Record<string, string> | undefined {
  const captured: Record<string, string> = {};
  const take = (t: GoTemplate | undefined, text: string | undefined): boolean => {
    if (!t) return true;
    if (text === undefined) return false;
    const m = t.match(text);
    if (!m) return false;
    for (const [k, v] of Object.entries(m)) {
      if (captured[k] !== undefined && captured[k] !== v) return false;
      captured[k] = v;
    }
    return true;
  };
  const d = spec.discovery;
  if (!take(d.namespace, o.namespace) || !take(d.byName, o.name)) return undefined;
  for (const [key, t] of Object.entries(d.labelSelector ?? {})) if (!take(t, o.labels[key])) return undefined;
  return captured;
}

function dig(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const key of path) v = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** A param's declared type, applied as the adapter does (strings parsed, floats truncated to int). */
function convert(value: unknown, type: ParamSpec['type']): unknown {
  if (value === undefined || type === undefined) return value;
  switch (type) {
    case 'string':
      return valueText(value);
    case 'int': {
      const n = typeof value === 'bigint' ? value : Number(value);
      return typeof n === 'bigint' ? n : Number.isFinite(n) ? BigInt(Math.trunc(n)) : value;
    }
    case 'float':
      return Number(value);
    case 'bool':
      return typeof value === 'boolean' ? value : ['true', 'yes', 'on', '1'].includes(valueText(value).toLowerCase());
  }
}

function holds(c: StructuredCondition, values: Record<string, unknown>): boolean {
  const v = dig(values, c.field.split('.'));
  const norm = (x: unknown): unknown => (typeof x === 'bigint' ? Number(x) : x);
  const actual = norm(v);
  const expected = norm(c.value);
  switch (c.operator) {
    case 'exists':
      return v !== undefined;
    case 'equals':
      return actual === expected;
    case 'notEquals':
      return actual !== expected;
    case 'in':
      return Array.isArray(c.value) && c.value.map(norm).includes(actual);
    case 'notIn':
      return Array.isArray(c.value) && !c.value.map(norm).includes(actual);
    case 'contains':
      return (typeof actual === 'string' && typeof expected === 'string' && actual.includes(expected)) || (Array.isArray(v) && v.map(norm).includes(expected));
    case 'greaterThan':
      return typeof actual === 'number' && typeof expected === 'number' && actual > expected;
    case 'lessThan':
      return typeof actual === 'number' && typeof expected === 'number' && actual < expected;
  }
}
