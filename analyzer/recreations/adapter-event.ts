/**
 * One adapter event, decided as hyperfleet-adapter's executor would run it, without acting
 * (internal/executor/executor.go Execute): params (param_extractor.go extractConfigParams), preconditions in order
 * until the first not met (precondition_executor.go ExecuteAll), then the resources in order
 * (resource_executor.go ExecuteAll): pre-discovery when any resource has a lifecycle, per resource
 * `lifecycle.create.when` (only while absent) before `lifecycle.delete.when`, the generation-aware apply
 * (k8sclient/apply.go ApplyManifest, manifest/generation.go CompareGenerations) and a rediscovery after each apply or
 * delete, so later resources see the effect. Effects are kept in an overlay over the objects given, never applied.
 *
 * CEL follows EvaluateSafe: an evaluation error is "not matched" and recorded on the decision; only a parse error
 * fails (and that is refused when the config loads). A proposed `lifecycle.recreate.when` (proposals.ts) is tried
 * after `delete.when` is false and before the apply: true means delete now and let the next event create it.
 */
import { celMatched, toCelValue, type EvalErrorReason, type EvalResult } from './cel.js';
import { extractField, FieldPathError, nestedValue } from './field-path.js';
import { goText, type GoTemplate } from './go-template.js';
import type { CompiledAdapterConfig } from './adapter-config.js';
import type { CompiledExpression, CompiledTaskConfig } from './rules.js';
import type { ApiCallSpec, DiscoverySpec, ParamSpec, PreconditionSpec, ResourceSpec, StructuredCondition } from './task-config.js';
import { renderManifest } from './manifest-render.js';
import { nestedManifests } from '../../collector/objects/manifestwork.js';

export const GENERATION = 'hyperfleet.io/generation';

/** A Kubernetes object or ManifestWork as JSON. */
export type KubeObject = Record<string, unknown>;

export interface ObjectQuery {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  /** For the Maestro transport: the consumer (target cluster) the ManifestWork is for. */
  readonly target?: string;
}

/** The objects as they are before the event: the cluster's (or a Maestro consumer's), read-only. */
export interface ObjectWorld {
  get(q: ObjectQuery & { readonly name: string }): KubeObject | undefined;
  list(q: ObjectQuery & { readonly labels: Readonly<Record<string, string>> }): KubeObject[];
}

export type ApiAnswer = { readonly status: number; readonly body: unknown } | { readonly error: string };

export interface EventInputs {
  /** The CloudEvent's `data`: what the task config sees as `event.*`. */
  readonly event: Readonly<Record<string, unknown>>;
  /** `env.*`. */
  readonly env: Readonly<Record<string, string>>;
  readonly adapterConfig: CompiledAdapterConfig;
  /** Answers a HyperFleet API request (the URL as the adapter's client sends it: base URL prepended). */
  readonly api: (method: string, url: string) => ApiAnswer;
  readonly objects: ObjectWorld;
  /** `source.file` params. */
  readonly readFile?: (path: string) => string | undefined;
  /** For CEL `now()` and template `now`. */
  readonly nowMs: number;
}

export type EventDecision = 'create' | 'update' | 'skip' | 'delete' | 'recreate' | 'error';

/** A rule whose evaluation failed (taken as not matched), or the failure that stopped the resource or event. */
export interface RuleError {
  readonly rule: string;
  readonly reason: EvalErrorReason | 'template' | 'api_call' | 'param' | 'condition' | 'discovery' | 'manifest';
  readonly message: string;
}

export interface ResourceOutcome {
  readonly resource: ResourceSpec;
  readonly decision: EventDecision;
  /** Why, in the adapter's words where it has them (`generation 5 unchanged`, `lifecycle.create.when condition evaluated to false`). */
  readonly reason: string;
  readonly trigger?: 'rule' | 'recreate_on_change';
  /** lifecycle.delete.when and the proposed recreate.when were both matched (delete wins). */
  readonly conflict: boolean;
  /** The object the decision is about (rendered manifest or discovered object). */
  readonly target?: { readonly kind: string; readonly namespace: string; readonly name: string };
  /** The object as it was before the event (pre-discovery or the apply's GET), when it existed. */
  readonly before?: KubeObject;
  /** Rule evaluations that failed and counted as not matched, and the failure of an `error` decision. */
  readonly errors: readonly RuleError[];
  /**
   * What upstream's dry run (internal/dryrun/recording_transport_client.go ApplyResource) would report: its
   * in-memory client says `update` for any object it holds, without comparing generations.
   */
  readonly dryRun?: string;
}

export interface EventOutcome {
  readonly status: 'success' | 'failed';
  /** Set when the event failed: the phase and the error, as executor.go records them. */
  readonly failure?: { readonly phase: 'param_extraction' | 'preconditions' | 'resources'; readonly error: RuleError };
  /** Set when the resources phase was skipped: a precondition not met, the resource not found, or a failure. */
  readonly skipped?: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly preconditions: readonly { readonly name: string; readonly matched: boolean; readonly errors: readonly RuleError[] }[];
  readonly resources: readonly ResourceOutcome[];
  /** What `resources.*` holds at the end of the event: the resources found and their nested discoveries. */
  readonly discovered: readonly string[];
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

class StepFailure extends Error {
  constructor(readonly error: RuleError) {
    super(error.message);
  }
}

function meta(o: KubeObject): Record<string, unknown> {
  return isMap(o.metadata) ? o.metadata : {};
}
export function objectName(o: KubeObject): string {
  return typeof meta(o).name === 'string' ? (meta(o).name as string) : '';
}
export function objectNamespace(o: KubeObject): string {
  return typeof meta(o).namespace === 'string' ? (meta(o).namespace as string) : '';
}
function labelsOf(o: KubeObject): Record<string, unknown> {
  return isMap(meta(o).labels) ? (meta(o).labels as Record<string, unknown>) : {};
}

/** manifest/generation.go GetGenerationFromUnstructured: the annotation as an int64, 0 when missing or not a number. */
export function generationOf(o: KubeObject | undefined): bigint {
  if (!o) return 0n;
  const a = meta(o).annotations;
  const g = isMap(a) ? a[GENERATION] : undefined;
  return typeof g === 'string' && /^[-+]?\d+$/.test(g) && BigInt(g) <= 9223372036854775807n && BigInt(g) >= -9223372036854775808n ? BigInt(g) : 0n;
}

/** manifest/generation.go GetLatestGenerationFromList: the highest generation, ties by name. */
export function latestGeneration(items: readonly KubeObject[]): KubeObject | undefined {
  let best: KubeObject | undefined;
  for (const o of items) {
    if (!best) {
      best = o;
      continue;
    }
    const g = generationOf(o);
    const b = generationOf(best);
    if (g > b || (g === b && objectName(o) < objectName(best))) best = o;
  }
  return best;
}

export function matchesLabels(o: KubeObject, labels: Readonly<Record<string, string>>): boolean {
  const have = labelsOf(o);
  return Object.entries(labels).every(([k, v]) => have[k] === v);
}

function splitApiVersion(v: string): { group: string; version: string } {
  const i = v.indexOf('/');
  return i === -1 ? { group: '', version: v } : { group: v.slice(0, i), version: v.slice(i + 1) };
}

function sameKind(o: KubeObject, apiVersion: string, kind: string): boolean {
  const a = splitApiVersion(typeof o.apiVersion === 'string' ? o.apiVersion : '');
  const b = splitApiVersion(apiVersion);
  return o.kind === kind && a.group === b.group && a.version === b.version;
}

/** The objects as the event changes them: what was applied or deleted, over the world as it was. */
class Overlay {
  private readonly changed = new Map<string, KubeObject | null>();
  constructor(private readonly world: ObjectWorld) {}

  private static key(q: ObjectQuery, name: string): string {
    const { group, version } = splitApiVersion(q.apiVersion);
    return [q.target ?? '', group, version, q.kind, q.namespace, name].join('/');
  }

  get(q: ObjectQuery & { name: string }): KubeObject | undefined {
    const k = Overlay.key(q, q.name);
    if (this.changed.has(k)) return this.changed.get(k) ?? undefined;
    return this.world.get(q);
  }

  list(q: ObjectQuery & { labels: Readonly<Record<string, string>> }): KubeObject[] {
    const out = new Map<string, KubeObject>();
    for (const o of this.world.list(q)) out.set(Overlay.key({ ...q, namespace: objectNamespace(o) }, objectName(o)), o);
    for (const [k, o] of this.changed) {
      if (!k.startsWith(`${q.target ?? ''}/`)) continue;
      if (o === null) out.delete(k);
      else if (sameKind(o, q.apiVersion, q.kind) && (q.namespace === '' || objectNamespace(o) === q.namespace) && matchesLabels(o, q.labels)) out.set(k, o);
    }
    return [...out.values()];
  }

  set(q: ObjectQuery, name: string, o: KubeObject | null): void {
    this.changed.set(Overlay.key(q, name), o);
  }
}

/** The variables every CEL rule sees (executor/types.go GetCELVariables), as CEL values. */
interface Context {
  params: Record<string, unknown>;
  resources: Record<string, unknown>;
  adapter: Record<string, unknown>;
}

/** The deployment config as CEL sees it, converted once per config rather than per event. */
const celConfigs = new WeakMap<CompiledAdapterConfig, unknown>();
function celConfig(c: CompiledAdapterConfig): unknown {
  let v = celConfigs.get(c);
  if (v === undefined) celConfigs.set(c, (v = toCelValue(c.configMap, Number.MAX_SAFE_INTEGER) ?? {}));
  return v;
}

export function executeEvent(compiled: CompiledTaskConfig, inputs: EventInputs): EventOutcome {
  return new EventRun(compiled, inputs).run();
}

class EventRun {
  private readonly ctx: Context;
  private readonly overlay: Overlay;
  private readonly limit: number;
  private readonly preconditionResults: { name: string; matched: boolean; errors: RuleError[] }[] = [];

  constructor(
    private readonly compiled: CompiledTaskConfig,
    private readonly inputs: EventInputs,
  ) {
    this.limit = compiled.runtime.limits.maxInputListElements;
    this.overlay = new Overlay(inputs.objects);
    const adapter = inputs.adapterConfig.adapter;
    // executor/param_extractor.go addAdapterParams: adapter, config, env and event are params before any other.
    this.ctx = {
      params: {
        adapter: this.cel({ name: adapter.name, version: adapter.version }),
        config: celConfig(inputs.adapterConfig),
        env: { ...inputs.env },
        event: this.cel(inputs.event),
      },
      resources: {},
      adapter: { executionStatus: '', resourcesSkipped: false, skipReason: '', errorReason: '', errorMessage: '' },
    };
    compiled.setNow(inputs.nowMs);
  }

  private cel(v: unknown): unknown {
    return toCelValue(v, Number.MAX_SAFE_INTEGER);
  }

  private variables(): Record<string, unknown> {
    return { ...this.ctx.params, adapter: this.ctx.adapter, resources: this.ctx.resources, event: this.ctx.params.event, env: this.ctx.params.env };
  }

  private evaluate(rule: CompiledExpression, vars: Record<string, unknown>): EvalResult {
    return rule.evaluate(vars);
  }

  private render(t: GoTemplate, what: string): string {
    const r = t.renderResult(this.ctx.params, () => new Date(this.inputs.nowMs));
    if (!r.ok) throw new StepFailure({ rule: what, reason: 'template', message: r.message });
    return r.text;
  }

  run(): EventOutcome {
    const failed = (phase: 'param_extraction' | 'preconditions', error: RuleError): EventOutcome => ({
      status: 'failed',
      failure: { phase, error },
      skipped: phase === 'param_extraction' ? 'ParameterExtractionFailed' : 'PreconditionFailed',
      params: this.ctx.params,
      preconditions: this.preconditionResults,
      discovered: [],
      resources: this.compiled.config.resources.map((resource) => ({
        resource,
        decision: 'error',
        reason: `${phase === 'param_extraction' ? 'parameter extraction' : 'precondition evaluation'} failed: ${error.message}`,
        conflict: false,
        errors: [error],
      })),
    });
    const skipped = (why: string): EventOutcome => ({
      status: 'success',
      skipped: why,
      params: this.ctx.params,
      preconditions: this.preconditionResults,
      discovered: [],
      resources: this.compiled.config.resources.map((resource) => ({
        resource,
        decision: 'skip',
        reason: `resources skipped: ${why}`,
        conflict: false,
        errors: [],
      })),
    });

    for (const p of this.compiled.config.params) {
      const error = this.param(p);
      if (error) return failed('param_extraction', error);
    }
    for (const pre of this.compiled.config.preconditions) {
      let outcome: boolean | 'not_found';
      try {
        outcome = this.precondition(pre);
      } catch (e) {
        if (!(e instanceof StepFailure)) throw e;
        return failed('preconditions', e.error);
      }
      if (outcome === 'not_found') return skipped('ResourceNotFound');
      if (!outcome) return skipped(`precondition '${pre.name}' not met`);
    }
    return this.resources();
  }

  // ---- params (executor/param_extractor.go) ----

  private param(p: ParamSpec): RuleError | undefined {
    const got = this.extract(p);
    const fallback = (): undefined => {
      if (p.default !== undefined) this.ctx.params[p.name] = this.cel(p.default);
      return undefined;
    };
    if ('error' in got)
      return p.required ? { rule: `param ${p.name}`, reason: 'param', message: `failed to extract required parameter '${p.name}': ${got.error}` } : fallback();
    let value = got.value;
    if ((value === undefined || value === null || value === '') && p.default !== undefined) value = this.cel(p.default);
    if (value !== undefined && value !== null && p.type && (p.source.kind === 'string' || p.source.kind === 'file')) {
      const converted = convertParamType(value, p.type);
      if ('error' in converted) {
        return p.required
          ? { rule: `param ${p.name}`, reason: 'param', message: `failed to convert parameter '${p.name}' to type '${p.type}': ${converted.error}` }
          : fallback();
      }
      value = converted.value;
    }
    if (value !== undefined && value !== null) this.ctx.params[p.name] = value;
    return undefined;
  }

  private extract(p: ParamSpec): { value: unknown } | { error: string } {
    const s = p.source;
    switch (s.kind) {
      case 'string': {
        const v = s.value;
        if (v.startsWith('env.'))
          return v.slice(4) in this.inputs.env ? { value: this.inputs.env[v.slice(4)] } : { error: `environment variable ${v.slice(4)} not set` };
        if (v.startsWith('event.')) return nestedValue(this.ctx.params.event, v.slice(6));
        if (v.startsWith('config.')) return nestedValue(this.cel(this.inputs.adapterConfig.configMapFull), v.slice(7));
        if (v === '') return { value: p.default };
        const [head, rest] = [v.split('.')[0]!, v.includes('.') ? v.slice(v.indexOf('.') + 1) : undefined];
        if (head in this.ctx.params && !['adapter', 'config', 'env', 'event'].includes(head)) {
          const base = this.ctx.params[head];
          if (rest === undefined) return { value: base };
          if (!isMap(base)) return { error: `param "${head}" is not a map, cannot derive "${v}" from it` };
          return nestedValue(base, rest);
        }
        return nestedValue(this.ctx.params.event, v);
      }
      case 'api_call': {
        const r = this.apiCall(s.call, `param ${p.name}`);
        if ('error' in r) return { error: r.error.message };
        return isMap(r.body) ? { value: this.cel(r.body) } : { error: `param "${p.name}": failed to parse API response as JSON object` };
      }
      case 'expression': {
        const rule = this.compiled.paramRule(p.name);
        const r = this.evaluate(rule, this.variables());
        return r.ok ? { value: r.value } : { error: `param "${p.name}": CEL expression error: ${r.message}` };
      }
      case 'file': {
        const text = this.inputs.readFile?.(s.path);
        if (text === undefined) return { error: `param "${p.name}": opening "${s.path}": not readable` };
        const content = s.trim ? text.trim() : text;
        if (p.required && content.trim() === '') return { error: `param "${p.name}": file "${s.path}" is empty` };
        return { value: content };
      }
      case 'none':
        return { value: p.default };
    }
  }

  /** executor/utils.go ExecuteAPICall + ValidateAPIResponse: the rendered URL with the base path, a 2xx answer. */
  private apiCall(call: ApiCallSpec, owner: string): { body: unknown } | { error: RuleError; notFound: boolean } {
    let rendered: string;
    try {
      rendered = this.render(call.url, `${owner} api_call.url`);
    } catch (e) {
      if (!(e instanceof StepFailure)) throw e;
      return { error: e.error, notFound: false };
    }
    const url = this.inputs.adapterConfig.apiUrl(rendered);
    const answer = this.inputs.api(call.method, url);
    if ('error' in answer) return { error: { rule: owner, reason: 'api_call', message: `${call.method} ${url}: ${answer.error}` }, notFound: false };
    if (answer.status < 200 || answer.status > 299) {
      return { error: { rule: owner, reason: 'api_call', message: `${call.method} ${url} returned ${answer.status}` }, notFound: answer.status === 404 };
    }
    return { body: answer.body };
  }

  // ---- preconditions (executor/precondition_executor.go) ----

  private precondition(pre: PreconditionSpec): boolean | 'not_found' {
    const errors: RuleError[] = [];
    const record = (matched: boolean): boolean => {
      this.preconditionResults.push({ name: pre.name, matched, errors });
      return matched;
    };
    if (pre.apiCall) {
      const r = this.apiCall(pre.apiCall, `precondition ${pre.name}`);
      if ('error' in r) {
        if (r.notFound) {
          record(false);
          return 'not_found';
        }
        throw new StepFailure(r.error);
      }
      if (!isMap(r.body))
        throw new StepFailure({ rule: `precondition ${pre.name}`, reason: 'api_call', message: 'failed to parse API response as a JSON object' });
      const response = this.cel(r.body) as Record<string, unknown>;
      this.ctx.params[pre.name] = response;
      // Captures see the response's fields and the response itself under the precondition's name.
      const captureVars = { ...response, [pre.name]: response };
      for (const cap of pre.captures) {
        let value: unknown;
        if (cap.field !== undefined) {
          let got;
          try {
            got = extractField(captureVars, cap.field);
          } catch (e) {
            if (!(e instanceof FieldPathError)) throw e;
            throw new StepFailure({
              rule: `precondition ${pre.name} capture ${cap.name}`,
              reason: 'condition',
              message: `field extraction failed: ${e.message}`,
            });
          }
          value = got.value;
          if (got.missing !== undefined) {
            if (cap.default !== undefined) value = this.cel(cap.default);
            else
              errors.push({
                rule: `precondition ${pre.name} capture ${cap.name}`,
                reason: 'no_such_key',
                message: `failed to capture '${cap.name}': ${got.missing}`,
              });
          }
        } else {
          const res = this.evaluate(this.compiled.captureRule(pre.name, cap.name), captureVars);
          if (!res.ok) errors.push({ rule: `precondition ${pre.name} capture ${cap.name}`, reason: res.reason, message: res.message });
          value = res.ok ? res.value : undefined;
        }
        // A capture that failed is there with a nil value (precondition_executor.go executePrecondition).
        this.ctx.params[cap.name] = value === undefined ? null : value;
      }
    }
    if (pre.conditions.length > 0) {
      const vars = this.variables();
      let all = true;
      for (const c of pre.conditions) {
        let field;
        try {
          field = extractField(vars, c.field);
        } catch (e) {
          if (!(e instanceof FieldPathError)) throw e;
          throw new StepFailure({ rule: `precondition ${pre.name} condition ${c.field}`, reason: 'condition', message: e.message });
        }
        const held = holds(c, field.value);
        if (typeof held === 'string') throw new StepFailure({ rule: `precondition ${pre.name} condition ${c.field}`, reason: 'condition', message: held });
        if (!held) all = false;
      }
      return record(all);
    }
    if (pre.expression) {
      const r = this.evaluate(this.compiled.gateRule(pre.name), this.variables());
      if (!r.ok) errors.push({ rule: `precondition ${pre.name}`, reason: r.reason, message: r.message });
      return record(celMatched(r));
    }
    return record(true);
  }

  // ---- resources (executor/resource_executor.go) ----

  private resources(): EventOutcome {
    const out: ResourceOutcome[] = [];
    const resources = this.compiled.config.resources;
    let failure: RuleError | undefined;
    if (resources.some((r) => r.createWhen || r.deleteWhen || r.recreateWhen)) {
      for (const r of resources) {
        try {
          const found = this.discover(r);
          if (found) this.store(r, found);
        } catch (e) {
          if (!(e instanceof StepFailure)) throw e;
          failure = { ...e.error, message: `pre-discovery failed: ${e.error.message}` };
          break;
        }
      }
    }
    for (const r of resources) {
      if (failure) {
        out.push({ resource: r, decision: 'error', reason: `not processed: ${failure.rule}: ${failure.message}`, conflict: false, errors: [failure] });
        continue;
      }
      const outcome = this.resource(r);
      out.push(outcome);
      // Apply failures stop the event; delete failures do not (resource_executor.go ExecuteAll).
      if (outcome.decision === 'error' && !outcome.reason.startsWith('delete: ')) failure = outcome.errors[outcome.errors.length - 1];
    }
    const failedOne = out.find((o) => o.decision === 'error');
    return {
      status: failedOne ? 'failed' : 'success',
      ...(failedOne ? { failure: { phase: 'resources' as const, error: failedOne.errors[failedOne.errors.length - 1]! } } : {}),
      params: this.ctx.params,
      preconditions: this.preconditionResults,
      resources: out,
      discovered: Object.keys(this.ctx.resources).filter((k) => this.ctx.resources[k] !== undefined),
    };
  }

  private gate(rule: CompiledExpression, name: string, errors: RuleError[]): boolean {
    const r = this.evaluate(rule, this.variables());
    if (!r.ok) errors.push({ rule: name, reason: r.reason, message: r.message });
    return celMatched(r);
  }

  private resource(r: ResourceSpec): ResourceOutcome {
    const errors: RuleError[] = [];
    const rules = this.compiled.lifecycleRules(r.name);
    const base = { resource: r, conflict: false, errors };
    const before = this.ctx.resources[r.name] as KubeObject | undefined;
    const fail = (e: StepFailure, prefix = ''): ResourceOutcome => {
      errors.push(e.error);
      return { ...base, decision: 'error', reason: `${prefix}${e.error.rule}: ${e.error.message}` };
    };
    try {
      const target = r.transport === 'maestro' && r.targetCluster ? this.render(r.targetCluster, 'transport.maestro.target_cluster') : undefined;
      if (rules.createWhen && before === undefined) {
        if (!this.gate(rules.createWhen, 'lifecycle.create.when', errors)) {
          this.ctx.adapter.resourcesSkipped = true;
          if (this.ctx.adapter.skipReason === '') this.ctx.adapter.skipReason = `${r.name}: lifecycle.create.when condition evaluated to false`;
          return { ...base, decision: 'skip', reason: 'lifecycle.create.when condition evaluated to false' };
        }
      }
      // A failure on the delete path does not stop the event (resource_executor.go ExecuteAll goes on after it).
      const deleting = (why: string): ResourceOutcome => {
        try {
          return this.deleteResource(r, target, errors, why);
        } catch (e) {
          if (!(e instanceof StepFailure)) throw e;
          return fail(e, 'delete: ');
        }
      };
      if (rules.deleteWhen && this.gate(rules.deleteWhen, 'lifecycle.delete.when', errors)) {
        const conflict = rules.recreateWhen !== undefined && this.gate(rules.recreateWhen, 'lifecycle.recreate.when (proposal)', []);
        return { ...deleting('lifecycle.delete.when evaluated to true'), conflict };
      }
      if (rules.recreateWhen && this.gate(rules.recreateWhen, 'lifecycle.recreate.when (proposal)', errors)) {
        const d = deleting('lifecycle.recreate.when (proposal) evaluated to true: deleted now, created by the next event');
        return d.decision === 'delete' && d.before ? { ...d, decision: 'recreate', trigger: 'rule' } : d;
      }
      return this.apply(r, target, errors);
    } catch (e) {
      if (!(e instanceof StepFailure)) throw e;
      return fail(e);
    }
  }

  private apply(r: ResourceSpec, target: string | undefined, errors: RuleError[]): ResourceOutcome {
    const rendered = renderManifest(r, this.ctx.params, () => new Date(this.inputs.nowMs));
    if ('error' in rendered) throw new StepFailure({ rule: 'manifest', reason: 'manifest', message: `failed to render manifest: ${rendered.error}` });
    let m = rendered.object;
    // The Maestro client puts the ManifestWork in its consumer's namespace (maestroclient/client.go ApplyResource).
    if (r.transport === 'maestro' && target) m = { ...m, metadata: { ...meta(m), namespace: target } };
    const q = { apiVersion: text(m.apiVersion), kind: text(m.kind), namespace: objectNamespace(m), ...(target ? { target } : {}) };
    const name = objectName(m);
    const desired = generationOf(m);
    // The apply's own GET, by the rendered manifest's name (k8sclient/apply.go ApplyResource).
    const existing = this.overlay.get({ ...q, name });
    const targetId = { kind: q.kind, namespace: q.namespace, name };
    let decision: EventDecision;
    let reason: string;
    if (!existing) {
      decision = 'create';
      reason = 'resource not found';
    } else if (generationOf(existing) === desired) {
      decision = 'skip';
      reason = `generation ${desired} unchanged`;
    } else {
      // recreate_on_change is the Kubernetes client's (k8sclient/apply.go); the Maestro client only updates.
      const recreate = r.recreateOnChange && r.transport === 'kubernetes';
      decision = recreate ? 'recreate' : 'update';
      reason = `generation changed ${generationOf(existing)}->${desired}${recreate ? ', recreateOnChange=true' : ''}`;
    }
    const dryRun = existing ? (r.recreateOnChange ? 'recreate' : 'update') : 'create';
    // What the object is after the apply: the manifest over what was there (status kept), or unchanged on skip.
    if (decision !== 'skip')
      this.overlay.set(q, name, existing && decision === 'update' ? { ...existing, ...m, ...(existing.status ? { status: existing.status } : {}) } : m);
    const outcome: ResourceOutcome = {
      resource: r,
      decision,
      reason,
      ...(decision === 'recreate' ? { trigger: 'recreate_on_change' as const } : {}),
      conflict: false,
      target: targetId,
      ...(existing ? { before: existing } : {}),
      errors,
      dryRun,
    };
    const found = this.discover(r, target);
    if (!found) throw new StepFailure({ rule: 'discovery', reason: 'discovery', message: `failed to discover resource after apply: ${q.kind} not found` });
    this.store(r, found, true);
    return outcome;
  }

  /** executeResourceDelete: discover; absent is done; else delete and rediscover (gone, or still there while finalizers or Maestro run). */
  private deleteResource(r: ResourceSpec, target: string | undefined, errors: RuleError[], why: string): ResourceOutcome {
    const found = this.discover(r, target);
    if (!found) {
      this.ctx.resources[r.name] = undefined;
      delete this.ctx.resources[r.name];
      return { resource: r, decision: 'delete', reason: 'resource already deleted or never existed', conflict: false, errors, dryRun: 'delete' };
    }
    const q = { apiVersion: text(found.apiVersion), kind: text(found.kind), namespace: objectNamespace(found), ...(target ? { target } : {}) };
    const name = objectName(found);
    const finalizers = meta(found).finalizers;
    // Kubernetes deletes an object without finalizers at once; Maestro deletes its ManifestWork asynchronously.
    const lingers = r.transport === 'maestro' || (Array.isArray(finalizers) && finalizers.length > 0);
    this.overlay.set(q, name, lingers ? { ...found, metadata: { ...meta(found), deletionTimestamp: new Date(this.inputs.nowMs).toISOString() } } : null);
    const after = this.discover(r, target);
    if (after) this.store(r, after);
    else delete this.ctx.resources[r.name];
    return {
      resource: r,
      decision: 'delete',
      reason: why,
      conflict: false,
      target: { kind: q.kind, namespace: q.namespace, name },
      before: found,
      errors,
      dryRun: 'delete',
    };
  }

  /** The resource in the context; after an apply, its nested discoveries too (a name taken already is an error). */
  private store(r: ResourceSpec, found: KubeObject, nested = false): void {
    this.ctx.resources[r.name] = this.cel(found);
    if (!nested) return;
    for (const nd of r.nestedDiscoveries) {
      if (nd.name === r.name) continue;
      const match = this.nested(found, nd.discovery);
      if (!match) continue;
      if (nd.name in this.ctx.resources)
        throw new StepFailure({
          rule: 'nested_discoveries',
          reason: 'discovery',
          message: `nested discovery key collision: "${nd.name}" already exists in context`,
        });
      this.ctx.resources[nd.name] = this.cel(match);
    }
  }

  /** manifest/generation.go DiscoverNestedManifest + EnrichWithResourceStatus, the latest generation of the matches. */
  private nested(parent: KubeObject, d: DiscoverySpec): KubeObject | undefined {
    const namespace = d.namespace ? this.render(d.namespace, 'nested discovery namespace') : '';
    const byName = d.byName ? this.render(d.byName, 'nested discovery by_name') : '';
    return latestGeneration(nestedManifests(parent, { ...(namespace ? { namespace } : {}), ...(byName ? { byName } : {}), labels: this.renderLabels(d) }));
  }

  private renderLabels(d: DiscoverySpec): Record<string, string> {
    const labels: Record<string, string> = {};
    for (const [k, v] of d.labelSelector ?? []) labels[this.render(k, 'label selector key')] = this.render(v, 'label selector value');
    return labels;
  }

  /** discoverResource: by name (the manifest's kind) or by labels (the latest generation of the matches). */
  private discover(r: ResourceSpec, target?: string): KubeObject | undefined {
    const t = target ?? (r.transport === 'maestro' && r.targetCluster ? this.render(r.targetCluster, 'transport.maestro.target_cluster') : undefined);
    const namespace = r.discovery.namespace ? this.render(r.discovery.namespace, 'discovery.namespace') : '';
    const q = { apiVersion: r.apiVersion ?? '', kind: r.kind ?? '', namespace: namespace === '*' ? '' : namespace, ...(t ? { target: t } : {}) };
    // A ManifestWork is found by name within its consumer (maestroclient/client.go GetResource).
    if (r.discovery.byName)
      return this.overlay.get({
        ...q,
        ...(t && r.transport === 'maestro' ? { namespace: t } : {}),
        name: this.render(r.discovery.byName, 'discovery.by_name'),
      });
    return latestGeneration(this.overlay.list({ ...q, labels: this.renderLabels(r.discovery) }));
  }
}

/** criteria/evaluator.go EvaluateCondition: true, false, or why it cannot be evaluated (the precondition fails). */
export function holds(c: StructuredCondition, field: unknown): boolean | string {
  const v = field === null ? undefined : field;
  const norm = (x: unknown): unknown => (typeof x === 'bigint' ? Number(x) : x);
  const same = (a: unknown, b: unknown): boolean =>
    a === undefined || a === null
      ? b === undefined || b === null
      : JSON.stringify(norm(a), (_k, x: unknown) => norm(x)) === JSON.stringify(norm(b), (_k, x: unknown) => norm(x));
  switch (c.operator) {
    case 'exists':
      if (v === undefined) return false;
      if (typeof v === 'string') return v !== '';
      if (Array.isArray(v)) return v.length > 0;
      if (isMap(v)) return Object.keys(v).length > 0;
      return true;
    case 'equals':
      return same(v, c.value);
    case 'notEquals':
      return !same(v, c.value);
    case 'in':
    case 'notIn': {
      if (!Array.isArray(c.value)) return 'expected list to be a slice or array';
      const found = c.value.some((x) => v !== undefined && same(v, x));
      return c.operator === 'in' ? found : !found;
    }
    case 'contains':
      if (v === undefined) return 'fieldValue cannot be nil';
      if (c.value === undefined || c.value === null) return 'needle cannot be nil';
      if (typeof v === 'string') return typeof c.value === 'string' ? v.includes(c.value) : 'needle must be a string when field is a string';
      if (Array.isArray(v)) return v.some((x) => same(x, c.value));
      if (isMap(v)) return goText(c.value) in v;
      return 'contains operator requires string, slice, array, or map field type';
    case 'greaterThan':
    case 'lessThan': {
      const a = norm(v);
      const b = norm(c.value);
      if (typeof a !== 'number') return `failed to convert field value to number: cannot convert ${v === undefined ? '<nil>' : typeof v} to float64`;
      if (typeof b !== 'number') return 'failed to convert comparison value to number';
      return c.operator === 'greaterThan' ? a > b : a < b;
    }
  }
}

/** pkg/utils/convert.go ConvertToType. */
export function convertParamType(value: unknown, type: string): { value: unknown } | { error: string } {
  switch (type) {
    case 'string':
      return { value: typeof value === 'number' && !Number.isInteger(value) ? String(value) : goText(value) };
    case 'int':
    case 'int64': {
      if (typeof value === 'bigint') return { value };
      if (typeof value === 'number') return { value: BigInt(Math.trunc(value)) };
      if (typeof value === 'boolean') return { value: value ? 1n : 0n };
      if (typeof value === 'string') {
        if (/^[-+]?\d+$/.test(value)) return { value: BigInt(value) };
        const f = Number(value);
        return value.trim() !== '' && Number.isFinite(f) ? { value: BigInt(Math.trunc(f)) } : { error: `cannot convert string '${value}' to int` };
      }
      return { error: `cannot convert ${typeof value} to int` };
    }
    case 'float':
    case 'float64': {
      if (typeof value === 'number') return { value };
      if (typeof value === 'bigint') return { value: Number(value) };
      if (typeof value === 'boolean') return { value: value ? 1 : 0 };
      if (typeof value === 'string') {
        const f = Number(value);
        return value.trim() !== '' && !Number.isNaN(f) ? { value: f } : { error: `cannot convert string '${value}' to float` };
      }
      return { error: `cannot convert ${typeof value} to float` };
    }
    case 'bool': {
      if (typeof value === 'boolean') return { value };
      if (typeof value === 'number' || typeof value === 'bigint') return { value: Number(value) !== 0 };
      if (typeof value === 'string') {
        if (value === '') return { value: false };
        if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return { value: true };
        if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return { value: false };
        const l = value.toLowerCase();
        if (['yes', 'y', 'on', '1'].includes(l)) return { value: true };
        if (['no', 'n', 'off', '0'].includes(l)) return { value: false };
        return { error: `cannot convert string '${value}' to bool` };
      }
      return { error: `cannot convert ${typeof value} to bool` };
    }
    default:
      return { error: `unsupported type: ${type} (supported: string, int, int64, float, float64, bool)` };
  }
}
