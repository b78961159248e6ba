/**
 * The recreation shadow: consumes observations (managed objects and HyperFleet resources, from a journal, informers,
 * the API poller or the simulator), keeps the world the adapter would see, evaluates the lifecycle rules of every
 * resource of a cluster on each change (never acting), and feeds the recreation tracker and the unreconciled-period
 * tracker. A `recreate` decision starts tracking the object's recreation at the time of the change that produced it
 * (for `recreate_on_change`, the cluster observation that first carries the new generation).
 *
 * Without HyperFleet state for a cluster, its desired generation is the newest `hyperfleet.io/generation` annotation
 * seen, and a deletion requested on a resource that recreates is taken as the trigger (at its deletionTimestamp).
 * An object first seen mid-recreation (after a restart) is rebuilt from its own timestamps: in deletion, triggered at
 * the cluster's Reconciled=False transition (or its deletionTimestamp); or, new and not yet available, created at its
 * creationTimestamp after that transition.
 * Pure: times come from the observations.
 */
import type { Rejection, RejectReason } from '../../collector/records.js';
import {
  GENERATION_ANNOTATION,
  objectKey,
  type ClusterObservation,
  type HyperFleetResource,
  type ManagedObject,
  type ObjectObservation,
  type Observation,
  type ObservationSink,
} from '../../collector/objects/observation.js';
import type { EvalErrorReason, EvalResult } from './cel.js';
import { decide, type Decision, type DecisionKind } from './decisions.js';
import type { ClusterContext, CompiledResource, CompiledTaskConfig } from './rules.js';
import { RecreationTracker, type FinishedRecreation, type InFlightRecreation, type TrackerOptions, type TrackerSnapshot } from './tracker.js';
import { UnreconciledTracker, type UnreconciledPeriod } from './unreconciled.js';

export interface ShadowListener {
  decision?(d: Decision, atMs: number): void;
  finished?(r: FinishedRecreation): void;
  evicted?(r: InFlightRecreation): void;
  unreconciled?(p: UnreconciledPeriod): void;
  rejected?(r: Rejection): void;
}

/** A rule error as the summary shows it: first message per resource, rule and reason. */
export interface RuleErrorExample {
  readonly resource: string;
  readonly rule: string;
  readonly reason: EvalErrorReason;
  readonly message: string;
  count: number;
}

export interface ShadowStats {
  observations: number;
  /** Objects no resource of the task config discovers. */
  objectsIgnored: number;
  readonly rejected: Map<RejectReason, number>;
  /** Resource kind → decision (and `conflict`) → count. */
  readonly decisions: Map<string, Map<DecisionKind | 'conflict', number>>;
  readonly ruleErrors: Map<string, RuleErrorExample>;
  recreationsStarted: number;
  recreationsFinished: number;
  recreationsEvicted: number;
  /** In flight when their cluster was hard-deleted. */
  recreationsAbandoned: number;
}

const MAX_ERROR_EXAMPLES = 50;

interface StoredObject {
  readonly object: ManagedObject;
  readonly input: EvalResult;
}

interface ClusterEntry {
  resource: HyperFleetResource;
  /** From the API or a journal cluster line; otherwise inferred from annotations. */
  readonly known: boolean;
  ctx?: ClusterContext;
}

export class RecreationShadow implements ObservationSink {
  readonly stats: ShadowStats = {
    observations: 0,
    objectsIgnored: 0,
    rejected: new Map(),
    decisions: new Map(),
    ruleErrors: new Map(),
    recreationsStarted: 0,
    recreationsFinished: 0,
    recreationsEvicted: 0,
    recreationsAbandoned: 0,
  };
  private readonly tracker: RecreationTracker;
  private readonly unreconciled: UnreconciledTracker;
  private readonly clusters = new Map<string, ClusterEntry>();
  /** clusterId → resource name → uid → object. */
  private readonly objects = new Map<string, Map<string, Map<string, StoredObject>>>();
  private lastTimeMs = 0;

  constructor(
    readonly compiled: CompiledTaskConfig,
    readonly trackerOptions: TrackerOptions,
    private readonly listener: ShadowListener = {},
  ) {
    this.tracker = new RecreationTracker(trackerOptions, {
      finished: (r) => {
        this.stats.recreationsFinished++;
        listener.finished?.(r);
      },
      evicted: (r) => {
        this.stats.recreationsEvicted++;
        listener.evicted?.(r);
      },
    });
    this.unreconciled = new UnreconciledTracker((p) => listener.unreconciled?.(p));
  }

  /** The newest observation time seen: "now" for a replayed journal. */
  get lastObservationMs(): number {
    return this.lastTimeMs;
  }

  inFlight(): IterableIterator<InFlightRecreation> {
    return this.tracker.inFlight();
  }

  snapshot(nowMs: number): TrackerSnapshot {
    return this.tracker.snapshot(nowMs);
  }

  observe(o: Observation): void {
    this.stats.observations++;
    this.lastTimeMs = Math.max(this.lastTimeMs, o.timeMs);
    this.compiled.setNow(o.timeMs);
    if (o.type === 'object') this.observeObject(o);
    else this.observeCluster(o);
  }

  reject(r: Rejection): void {
    this.stats.rejected.set(r.reason, (this.stats.rejected.get(r.reason) ?? 0) + 1);
    this.listener.rejected?.(r);
  }

  private observeObject(o: ObjectObservation): void {
    const match = this.compiled.match(o.object);
    if (!match) {
      this.stats.objectsIgnored++;
      return;
    }
    const { resource, clusterId } = match;
    const object = o.object;
    const isNew = !this.objects.get(clusterId)?.get(resource.name)?.has(object.uid);
    if (o.event === 'DELETED') this.removeObject(clusterId, resource.name, object.uid);
    else this.putObject(clusterId, resource.name, { object, input: this.compiled.toInput(object.raw) });
    const entry = this.cluster(clusterId, object);
    const key = objectKey(object);

    if (o.event !== 'DELETED' && !this.tracker.has(key)) {
      if (!entry.known && resource.recreates && object.deletionTimestampMs !== undefined) {
        this.started(clusterId, this.tracker.start({ object, clusterId, trigger: resource.spec.recreateOnChange ? 'recreate_on_change' : 'rule', atMs: object.deletionTimestampMs }));
      } else if (isNew && entry.known) this.rebuild(resource, clusterId, entry, object);
    }
    this.tracker.observe(o.event, object, o.timeMs);
    this.evaluate(clusterId, o.timeMs);
    if (o.event === 'DELETED' && !entry.known && !this.objects.has(clusterId)) this.clusters.delete(clusterId);
  }

  private observeCluster(o: ClusterObservation): void {
    const r = o.cluster;
    if (o.gone) {
      this.unreconciled.gone(r.id, o.timeMs);
      this.stats.recreationsAbandoned += this.tracker.forgetCluster(r.id);
      this.clusters.delete(r.id);
      return;
    }
    this.clusters.set(r.id, { resource: r, known: true });
    this.unreconciled.observe(r, o.timeMs);
    const reconciled = r.conditions.find((c) => c.type === 'Reconciled');
    if (reconciled?.status === 'True') this.tracker.clusterReconciled(r.id, reconciled.lastTransitionTimeMs ?? o.timeMs);
    this.evaluate(r.id, o.timeMs);
  }

  /** Every resource of the cluster, in config order, as the adapter would decide them now. */
  private evaluate(clusterId: string, atMs: number): void {
    const entry = this.clusters.get(clusterId);
    if (!entry) return;
    const ctx = (entry.ctx ??= this.compiled.clusterContext(entry.resource));
    const byResource = this.objects.get(clusterId);
    const current = new Map<string, StoredObject>();
    const resources: Record<string, unknown> = {};
    for (const resource of this.compiled.resources) {
      const stored = newest(byResource?.get(resource.name));
      if (!stored) continue;
      current.set(resource.name, stored);
      if (stored.input.ok) resources[resource.name] = stored.input.value;
    }
    for (const resource of this.compiled.resources) {
      const stored = current.get(resource.name);
      const d: Decision =
        stored && !stored.input.ok
          ? { resource, decision: 'error', conflict: false, error: { rule: 'resources input', reason: stored.input.reason, message: stored.input.message } }
          : decide({ resource, ctx, resources, ...(stored ? { object: stored.object } : {}), desiredGeneration: this.compiled.desiredGeneration(resource, ctx) });
      this.count(d);
      this.listener.decision?.(d, atMs);
      if (d.decision === 'recreate' && stored) {
        this.started(clusterId, this.tracker.start({ object: stored.object, clusterId, trigger: d.trigger!, atMs }));
      }
    }
  }

  /** Picks up a recreation already under way when the object is first seen (the sidecar restarted). */
  private rebuild(resource: CompiledResource, clusterId: string, entry: ClusterEntry, object: ManagedObject): void {
    if (!resource.recreates) return;
    const reconciled = entry.resource.conditions.find((c) => c.type === 'Reconciled');
    const falseSince = reconciled?.status === 'False' ? reconciled.lastTransitionTimeMs : undefined;
    if (object.deletionTimestampMs !== undefined) {
      const ctx = (entry.ctx ??= this.compiled.clusterContext(entry.resource));
      const input = this.compiled.toInput(object.raw);
      const d = decide({
        resource,
        ctx,
        resources: input.ok ? { [resource.name]: input.value } : {},
        object,
        desiredGeneration: this.compiled.desiredGeneration(resource, ctx),
      });
      if (d.decision !== 'recreate') return;
      const atMs = falseSince !== undefined && falseSince <= object.deletionTimestampMs ? falseSince : object.deletionTimestampMs;
      this.started(clusterId, this.tracker.start({ object, clusterId, trigger: d.trigger!, atMs, rebuilt: true }));
      return;
    }
    const created = object.creationTimestampMs;
    if (falseSince === undefined || created === undefined || created < falseSince || entry.resource.generation <= 1) return;
    const ctx = (entry.ctx ??= this.compiled.clusterContext(entry.resource));
    if (object.annotations[GENERATION_ANNOTATION] !== this.compiled.desiredGeneration(resource, ctx)) return;
    const readiness = this.trackerOptions.readiness(object.kind);
    if (readiness.kind === 'exists') return;
    if (readiness.kind === 'condition' && object.conditions.some((c) => c.type === readiness.type && c.status === 'True')) return;
    const trigger = resource.spec.recreateOnChange ? 'recreate_on_change' : 'rule';
    this.started(clusterId, this.tracker.rebuildAvailability({ object, clusterId, trigger, atMs: falseSince, createdAtMs: created }));
  }

  private started(clusterId: string, started: boolean): void {
    if (!started) return;
    this.stats.recreationsStarted++;
    this.unreconciled.recreationTriggered(clusterId);
  }

  /** The cluster's entry; without HyperFleet state, one inferred from the newest generation annotation seen. */
  private cluster(clusterId: string, object: ManagedObject): ClusterEntry {
    const generation = Number.parseInt(object.annotations[GENERATION_ANNOTATION] ?? '', 10);
    let entry = this.clusters.get(clusterId);
    if (!entry) {
      entry = { resource: inferredCluster(clusterId, 0), known: false };
      this.clusters.set(clusterId, entry);
    }
    if (!entry.known && Number.isInteger(generation) && generation > entry.resource.generation) {
      entry.resource = inferredCluster(clusterId, generation);
      delete entry.ctx;
    }
    return entry;
  }

  private putObject(clusterId: string, resource: string, stored: StoredObject): void {
    let byResource = this.objects.get(clusterId);
    if (!byResource) this.objects.set(clusterId, (byResource = new Map<string, Map<string, StoredObject>>()));
    let byUid = byResource.get(resource);
    if (!byUid) byResource.set(resource, (byUid = new Map<string, StoredObject>()));
    byUid.set(stored.object.uid, stored);
  }

  /** Removes a deleted object and its now-empty parents, so memory follows the live objects. */
  private removeObject(clusterId: string, resource: string, uid: string): void {
    const byResource = this.objects.get(clusterId);
    const byUid = byResource?.get(resource);
    if (!byResource || !byUid) return;
    byUid.delete(uid);
    if (byUid.size === 0) byResource.delete(resource);
    if (byResource.size === 0) this.objects.delete(clusterId);
  }

  private count(d: Decision): void {
    const kind = d.resource.kind;
    let byDecision = this.stats.decisions.get(kind);
    if (!byDecision) this.stats.decisions.set(kind, (byDecision = new Map<DecisionKind | 'conflict', number>()));
    byDecision.set(d.decision, (byDecision.get(d.decision) ?? 0) + 1);
    if (d.conflict) byDecision.set('conflict', (byDecision.get('conflict') ?? 0) + 1);
    if (!d.error) return;
    const id = `${d.resource.name}\u0000${d.error.rule}\u0000${d.error.reason}`;
    const example = this.stats.ruleErrors.get(id);
    if (example) example.count++;
    else if (this.stats.ruleErrors.size < MAX_ERROR_EXAMPLES) {
      this.stats.ruleErrors.set(id, { resource: d.resource.name, rule: d.error.rule, reason: d.error.reason, message: d.error.message, count: 1 });
    }
  }
}

function inferredCluster(id: string, generation: number): HyperFleetResource {
  return { id, kind: 'Cluster', generation, conditions: [], raw: { id, kind: 'Cluster', generation } };
}

/** The object the adapter's discovery would pick when several match: the most recently created. */
function newest(byUid: ReadonlyMap<string, StoredObject> | undefined): StoredObject | undefined {
  let best: StoredObject | undefined;
  for (const s of byUid?.values() ?? []) if (!best || (s.object.creationTimestampMs ?? 0) > (best.object.creationTimestampMs ?? 0)) best = s;
  return best;
}
