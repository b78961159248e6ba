/**
 * A task config made ready to shadow: every CEL expression compiled once (all broken ones reported together, as the
 * adapter's validator does), the resources the sidecar can watch, and how an object is tied back to its resource and
 * cluster (discovery templates matched backwards). Events are decided by adapter-event.ts; inputs (objects and the
 * cluster's state) are seen by the rules as their projection onto what the config reads of them (reads.ts).
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { MANIFESTWORK_API_VERSION, MANIFESTWORK_KIND } from '../../collector/objects/manifestwork.js';
import type { ManagedObject, ObjectWatch } from '../../collector/objects/observation.js';
import { ValidationError } from '../../lib/validation-error.js';
import { CelCompileError, type CelRuntime, type CompiledExpression, type EvalResult } from './cel.js';
import { NO_ADAPTER_CONFIG, type CompiledAdapterConfig } from './adapter-config.js';
import type { GoTemplate } from './go-template.js';
import { projectInput, type ReadSet } from './read-set.js';
import { taskConfigReads } from './reads.js';
import type { ExpressionSpec, ResourceSpec, TaskConfig } from './task-config.js';

export type { CompiledExpression } from './cel.js';

/**
 * A resource the recreation analyzer decides live, tied to clusters by its discovery: with the Kubernetes transport, an object of
 * its manifest's kind; with the Maestro transport, the ManifestWork the adapter's Maestro client applies in its
 * consumer's namespace (maestroclient/client.go ApplyResource), found by name within that consumer (GetResource),
 * as the dry-run path finds it (adapter-event.ts discover).
 */
export interface CompiledResource {
  readonly spec: ResourceSpec;
  readonly name: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** A generation change recreates the object (`recreate_on_change`) or a proposed `recreate.when` rule may. */
  readonly recreates: boolean;
  /** What the rules read of its objects. */
  readonly reads: ReadSet;
}

export interface LifecycleRules {
  readonly createWhen?: CompiledExpression;
  readonly deleteWhen?: CompiledExpression;
  readonly recreateWhen?: CompiledExpression;
}

export interface CompileOptions {
  /** Values for `env.*` (the adapter's environment). */
  readonly env?: Readonly<Record<string, string>>;
  /** The adapter's deployment config: `adapter.*`, `config.*` and the API base URL. */
  readonly adapterConfig?: CompiledAdapterConfig;
}

export class CompiledTaskConfig {
  private constructor(
    readonly config: TaskConfig,
    readonly runtime: CelRuntime,
    readonly env: Readonly<Record<string, string>>,
    readonly adapterConfig: CompiledAdapterConfig,
    readonly resources: readonly CompiledResource[],
    /** The param holding `event.id`: how objects are tied to clusters. */
    readonly idParam: string | undefined,
    private readonly expressions: ReadonlyMap<string, CompiledExpression>,
    readonly notices: readonly string[],
    /** What the config reads of a cluster's state. */
    private readonly clusterReads: ReadSet,
  ) {}

  static compile(config: TaskConfig, runtime: CelRuntime, options: CompileOptions = {}): CompiledTaskConfig {
    const problems: string[] = [];
    const notices = [...config.notices];
    const asts = new Map<ExpressionSpec, ASTNode>();
    const expressions = new Map<string, CompiledExpression>();
    const compile = (key: string, spec: ExpressionSpec | undefined): void => {
      if (!spec) return;
      try {
        const compiled = runtime.compile(spec);
        asts.set(spec, compiled.ast);
        expressions.set(key, compiled);
      } catch (e) {
        if (!(e instanceof CelCompileError)) throw e;
        problems.push(e.message);
      }
    };
    for (const p of config.params) if (p.source.kind === 'expression') compile(`param/${p.name}`, p.source.expression);
    for (const pre of config.preconditions) {
      for (const cap of pre.captures) compile(`capture/${pre.name}/${cap.name}`, cap.expression);
      compile(`gate/${pre.name}`, pre.expression);
    }
    for (const r of config.resources) {
      compile(`create/${r.name}`, r.createWhen);
      compile(`delete/${r.name}`, r.deleteWhen);
      compile(`recreate/${r.name}`, r.recreateWhen);
    }
    if (problems.length > 0) throw new ValidationError('adapter task config', problems);

    const idParam = config.params.find((p) => p.source.kind === 'string' && p.source.value === 'event.id')?.name;
    const shadowed: ResourceSpec[] = [];
    for (const spec of config.resources) {
      const why = unwatchable(spec, idParam);
      if (why) notices.push(`${spec.where} resource "${spec.name}": ${why}; decided from dry-run inputs only, not watched live`);
      else shadowed.push(spec);
    }
    const reads = taskConfigReads(
      config,
      shadowed.map((r) => r.name),
      (spec) => (spec ? asts.get(spec) : undefined),
    );
    const resources = shadowed.map((spec): CompiledResource => ({
      spec,
      name: spec.name,
      apiVersion: spec.apiVersion!,
      kind: spec.kind!,
      recreates: spec.recreateOnChange || spec.recreateWhen !== undefined,
      reads: reads.objects.get(spec.name)!,
    }));
    return new CompiledTaskConfig(
      config,
      runtime,
      options.env ?? {},
      options.adapterConfig ?? NO_ADAPTER_CONFIG,
      resources,
      idParam,
      expressions,
      notices,
      reads.cluster,
    );
  }

  paramRule(param: string): CompiledExpression {
    return this.expressions.get(`param/${param}`)!;
  }

  captureRule(precondition: string, capture: string): CompiledExpression {
    return this.expressions.get(`capture/${precondition}/${capture}`)!;
  }

  gateRule(precondition: string): CompiledExpression {
    return this.expressions.get(`gate/${precondition}`)!;
  }

  lifecycleRules(resource: string): LifecycleRules {
    const createWhen = this.expressions.get(`create/${resource}`);
    const deleteWhen = this.expressions.get(`delete/${resource}`);
    const recreateWhen = this.expressions.get(`recreate/${resource}`);
    return { ...(createWhen ? { createWhen } : {}), ...(deleteWhen ? { deleteWhen } : {}), ...(recreateWhen ? { recreateWhen } : {}) };
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

  /** What the live source must list and watch: per resource, its kind, static namespace and label selector. */
  watchTargets(): ObjectWatch[] {
    const seen = new Map<string, ObjectWatch>();
    // ManifestWorks are not in the local cluster: the Maestro source reads them from the Maestro server.
    for (const r of this.resources) {
      if (r.spec.transport !== 'kubernetes') continue;
      const ns = r.spec.discovery.namespace;
      const labels = (r.spec.discovery.labelSelector ?? []).map(([k, t]) => (t.isStatic ? `${k.text}=${t.text}` : k.text));
      const target: ObjectWatch = {
        apiVersion: r.apiVersion,
        kind: r.kind,
        ...(ns?.isStatic && ns.text !== '*' ? { namespace: ns.text } : {}),
        ...(labels.length > 0 ? { labelSelector: labels.join(',') } : {}),
      };
      seen.set(JSON.stringify(target), target);
    }
    return [...seen.values()];
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

function unwatchable(spec: ResourceSpec, idParam: string | undefined): string | undefined {
  if (!spec.kind || !spec.apiVersion) return 'the manifest kind is unknown';
  if (spec.transport === 'maestro' && (spec.kind !== MANIFESTWORK_KIND || spec.apiVersion !== MANIFESTWORK_API_VERSION)) {
    return `the Maestro transport applies a ${MANIFESTWORK_API_VERSION} ${MANIFESTWORK_KIND}, and its manifest is a ${spec.apiVersion} ${spec.kind}`;
  }
  if (!idParam) return 'no param takes event.id, so objects cannot be tied to clusters';
  const templates = [namespaceTemplate(spec), spec.discovery.byName, ...(spec.discovery.labelSelector ?? []).map(([, v]) => v)];
  if (!templates.some((t) => t?.params.includes(idParam))) return `its discovery does not use {{ .${idParam} }}, so its objects cannot be tied to a cluster`;
  if (!templates.every((t) => !t || t.matchable)) return 'its discovery templates are not plain {{ .name }} substitutions, so they cannot be matched backwards';
  return undefined;
}

/** Where its objects are: the discovery's namespace, or for a ManifestWork its consumer (the Maestro target cluster). */
function namespaceTemplate(spec: ResourceSpec): GoTemplate | undefined {
  return spec.transport === 'maestro' ? spec.targetCluster : spec.discovery.namespace;
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
  const namespace = namespaceTemplate(spec);
  if (namespace?.text !== '*' && !take(namespace, o.namespace)) return undefined;
  if (!take(d.byName, o.name)) return undefined;
  for (const [key, t] of d.labelSelector ?? []) if (!take(t, o.labels[key.text])) return undefined;
  return captured;
}
