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
 * What it keeps is compact, never the objects as received: per cluster its identity, its state projected onto what
 * the rules read, and per object its identity, times, generation annotation and the projection its rules read,
 * each computed once per observation (strings shared with the cluster's entry where they are the same).
 * Pure: times come from the observations.
 */
import type { Rejection, RejectReason } from '../../collector/records.js';
import {
  GENERATION_ANNOTATION,
  objectKey,
  type ClusterObservation,
  type ManagedObject,
  type ObjectObservation,
  type Observation,
  type ObservationSink,
} from '../../collector/objects/observation.js';
import { Listeners } from '../../lib/listeners.js';
import type { EvalErrorReason, EvalResult } from './cel.js';
import { decideLifecycle, type LifecycleDecision, type LifecycleDecisionKind } from './lifecycle-decision.js';
import type { ClusterContext, ClusterIdentity, CompiledResource, CompiledTaskConfig } from './rules.js';
import { RecreationTracker, type FinishedRecreation, type InFlightRecreation, type TrackedObject, type TrackerOptions, type TrackerSnapshot } from './tracker.js';
import { UnreconciledTracker, type UnreconciledPeriod } from './unreconciled.js';

export interface ShadowListener {
  decision?(d: LifecycleDecision, atMs: number): void;
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
  readonly decisions: Map<string, Map<LifecycleDecisionKind | 'conflict', number>>;
  readonly ruleErrors: Map<string, RuleErrorExample>;
  recreationsStarted: number;
  recreationsFinished: number;
  recreationsEvicted: number;
  /** In flight when their cluster was hard-deleted. */
  recreationsAbandoned: number;
}

const MAX_ERROR_EXAMPLES = 50;

/**
 * `{"hyperfleet.io/generation": value}` maps are shared by every object at that generation, up to this many values
 * (then each object has its own).
 */
const MAX_SHARED_ANNOTATIONS = 1024;
const NO_ANNOTATIONS: Readonly<Record<string, string>> = Object.freeze({});
/** A new entry's state until its first is set (at once). */
const EMPTY_STATE: EvalResult = Object.freeze({ ok: true, value: Object.freeze({}) });

/** What is kept of an object between its events. */
interface StoredObject extends TrackedObject {
  readonly resource: CompiledResource;
  readonly creationTimestampMs: number | undefined;
  /** Only the generation annotation: the apply decision and the tracker read no other. */
  readonly annotations: Readonly<Record<string, string>>;
  /** `resources.<name>` for its rules: the object projected onto what they read. */
  readonly input: EvalResult;
}

/** A cluster (or nodepool), as a context needs it, and the objects made for it. */
interface ClusterEntry extends ClusterIdentity {
  readonly id: string;
  kind: string;
  generation: number;
  /** From the API or a journal cluster line; otherwise inferred from annotations. */
  known: boolean;
  /** Since when the API reports it Reconciled=False (a recreation rebuilt after a restart was triggered then). */
  reconciledFalseSinceMs: number | undefined;
  /** Its state as the rules see it, projected once per observation; the context is built from it when first needed. */
  state: EvalResult;
  ctx: ClusterContext | undefined;
  /** Its objects, of every resource, in the order first seen (an array of exactly their number: usually one). */
  objects: StoredObject[];
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
  private readonly generationAnnotations = new Map<string, Readonly<Record<string, string>>>();
  private lastTimeMs = 0;

  private readonly listeners: Listeners<ShadowListener>;

  /**
   * @param listener the first of the outputs (more with `listen`).
   * @param failed an output threw: it is reported here, and neither the shadow nor another output is affected.
   */
  constructor(
    readonly compiled: CompiledTaskConfig,
    readonly trackerOptions: TrackerOptions,
    listener?: ShadowListener,
    failed: (error: unknown) => void = (e) => {
      throw e;
    },
  ) {
    this.listeners = new Listeners(failed);
    if (listener) this.listeners.add(listener);
    this.tracker = new RecreationTracker(trackerOptions, {
      finished: (r) => {
        this.stats.recreationsFinished++;
        this.listeners.emit('finished', r);
      },
      evicted: (r) => {
        this.stats.recreationsEvicted++;
        this.listeners.emit('evicted', r);
      },
    });
    this.unreconciled = new UnreconciledTracker((p) => this.listeners.emit('unreconciled', p));
  }

  listen(listener: ShadowListener): void {
    this.listeners.add(listener);
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
    this.listeners.emit('rejected', r);
  }

  private observeObject(o: ObjectObservation): void {
    const match = this.compiled.match(o.object);
    if (!match) {
      this.stats.objectsIgnored++;
      return;
    }
    const { resource } = match;
    const object = o.object;
    const entry = this.cluster(match.clusterId, object);
    const index = entry.objects.findIndex((s) => s.uid === object.uid && s.resource.name === resource.name);
    const isNew = index === -1;
    const stored = o.event === 'DELETED' ? undefined : this.store(resource, object);
    if (!stored) {
      if (!isNew) entry.objects.splice(index, 1);
    } else if (isNew) entry.objects = entry.objects.concat(stored);
    else entry.objects[index] = stored;
    const key = objectKey(object);

    if (stored && !this.tracker.has(key)) {
      if (!entry.known && resource.recreates && object.deletionTimestampMs !== undefined) {
        this.started(entry, this.tracker.start({ object: stored, clusterId: entry.id, trigger: resource.spec.recreateOnChange ? 'recreate_on_change' : 'rule', atMs: object.deletionTimestampMs }));
      } else if (isNew && entry.known) this.rebuild(resource, entry, object, stored);
    }
    this.tracker.observe(o.event, object, o.timeMs);
    this.evaluate(entry, o.timeMs);
    if (!stored && !entry.known && entry.objects.length === 0) this.clusters.delete(entry.id);
  }

  private observeCluster(o: ClusterObservation): void {
    const r = o.cluster;
    const entry = this.clusters.get(r.id);
    if (o.gone) {
      this.unreconciled.gone(r.id, o.timeMs);
      this.stats.recreationsAbandoned += this.tracker.forgetCluster(r.id);
      // Its objects may still be there (a deletion held by a finalizer): they go on without its state.
      if (entry?.objects.length) this.infer(entry, 0);
      else this.clusters.delete(r.id);
      return;
    }
    const reconciled = r.conditions.find((c) => c.type === 'Reconciled');
    const state = this.compiled.clusterInput(r.raw);
    const updated = this.update(entry ?? this.newEntry(r.id), r, true, state);
    updated.reconciledFalseSinceMs = reconciled?.status === 'False' ? reconciled.lastTransitionTimeMs : undefined;
    this.unreconciled.observe(r, o.timeMs);
    if (reconciled?.status === 'True') this.tracker.clusterReconciled(r.id, reconciled.lastTransitionTimeMs ?? o.timeMs);
    this.evaluate(updated, o.timeMs);
  }

  /** Every resource of the cluster, in config order, as the adapter would decide them now. */
  private evaluate(entry: ClusterEntry, atMs: number): void {
    const ctx = (entry.ctx ??= this.compiled.contextOf(entry, entry.state));
    const current = new Map<string, StoredObject>();
    const resources: Record<string, unknown> = {};
    for (const resource of this.compiled.resources) {
      const stored = newest(entry.objects, resource.name);
      if (!stored) continue;
      current.set(resource.name, stored);
      if (stored.input.ok) resources[resource.name] = stored.input.value;
    }
    for (const resource of this.compiled.resources) {
      const stored = current.get(resource.name);
      const d: LifecycleDecision =
        stored && !stored.input.ok
          ? { resource, decision: 'error', conflict: false, error: { rule: 'resources input', reason: stored.input.reason, message: stored.input.message } }
          : decideLifecycle({ resource, ctx, resources, ...(stored ? { object: stored } : {}), desiredGeneration: this.compiled.desiredGeneration(resource, ctx) });
      this.count(d);
      this.listeners.emit('decision', d, atMs);
      if (d.decision === 'recreate' && stored) {
        this.started(entry, this.tracker.start({ object: stored, clusterId: entry.id, trigger: d.trigger!, atMs }));
      }
    }
  }

  /** Picks up a recreation already under way when the object is first seen (the sidecar restarted). */
  private rebuild(resource: CompiledResource, entry: ClusterEntry, object: ManagedObject, stored: StoredObject): void {
    if (!resource.recreates) return;
    const falseSince = entry.reconciledFalseSinceMs;
    if (object.deletionTimestampMs !== undefined) {
      const ctx = (entry.ctx ??= this.compiled.contextOf(entry, entry.state));
      const d = decideLifecycle({
        resource,
        ctx,
        resources: stored.input.ok ? { [resource.name]: stored.input.value } : {},
        object: stored,
        desiredGeneration: this.compiled.desiredGeneration(resource, ctx),
      });
      if (d.decision !== 'recreate') return;
      const atMs = falseSince !== undefined && falseSince <= object.deletionTimestampMs ? falseSince : object.deletionTimestampMs;
      this.started(entry, this.tracker.start({ object: stored, clusterId: entry.id, trigger: d.trigger!, atMs, rebuilt: true }));
      return;
    }
    const created = object.creationTimestampMs;
    if (falseSince === undefined || created === undefined || created < falseSince || entry.generation <= 1) return;
    const ctx = (entry.ctx ??= this.compiled.contextOf(entry, entry.state));
    if (object.annotations[GENERATION_ANNOTATION] !== this.compiled.desiredGeneration(resource, ctx)) return;
    const readiness = this.trackerOptions.readiness(object.kind);
    if (readiness.kind === 'exists') return;
    if (readiness.kind === 'condition' && object.conditions.some((c) => c.type === readiness.type && c.status === 'True')) return;
    const trigger = resource.spec.recreateOnChange ? 'recreate_on_change' : 'rule';
    this.started(entry, this.tracker.rebuildAvailability({ object: stored, clusterId: entry.id, trigger, atMs: falseSince, createdAtMs: created }));
  }

  private started(entry: ClusterEntry, started: boolean): void {
    if (!started) return;
    this.stats.recreationsStarted++;
    this.unreconciled.recreationTriggered(entry.id);
  }

  /** The cluster's entry; without HyperFleet state, one inferred from the newest generation annotation seen. */
  private cluster(clusterId: string, object: ManagedObject): ClusterEntry {
    const generation = Number.parseInt(object.annotations[GENERATION_ANNOTATION] ?? '', 10);
    const entry = this.clusters.get(clusterId) ?? this.infer(this.newEntry(clusterId), 0);
    if (!entry.known && Number.isInteger(generation) && generation > entry.generation) this.infer(entry, generation);
    return entry;
  }

  /** A new entry, whose state the caller sets next. */
  private newEntry(id: string): ClusterEntry {
    const entry: ClusterEntry = { id, kind: 'Cluster', generation: 0, known: false, reconciledFalseSinceMs: undefined, state: EMPTY_STATE, ctx: undefined, objects: [] };
    this.clusters.set(entry.id, entry);
    return entry;
  }

  /** The state of a cluster known only from its objects: its id and the newest generation they carry. */
  private infer(entry: ClusterEntry, generation: number): ClusterEntry {
    const state = this.compiled.clusterInput({ id: entry.id, kind: 'Cluster', generation });
    return this.update(entry, { id: entry.id, kind: 'Cluster', generation }, false, state);
  }

  /** A new state for the cluster: its context is built again when next needed. */
  private update(entry: ClusterEntry, cluster: ClusterIdentity, known: boolean, state: EvalResult): ClusterEntry {
    entry.kind = cluster.kind;
    entry.generation = cluster.generation;
    entry.known = known;
    entry.reconciledFalseSinceMs = undefined;
    entry.state = state;
    entry.ctx = undefined;
    return entry;
  }

  /** What is kept of the object: its identity, times, generation annotation and the projection its rules read. */
  private store(resource: CompiledResource, object: ManagedObject): StoredObject {
    return {
      resource,
      kind: resource.kind,
      namespace: object.namespace,
      name: object.name,
      uid: object.uid,
      creationTimestampMs: object.creationTimestampMs,
      deletionTimestampMs: object.deletionTimestampMs,
      annotations: this.generationAnnotation(object.annotations[GENERATION_ANNOTATION]),
      input: this.compiled.objectInput(resource, object.raw),
    };
  }

  private generationAnnotation(value: string | undefined): Readonly<Record<string, string>> {
    if (value === undefined) return NO_ANNOTATIONS;
    const shared = this.generationAnnotations.get(value);
    if (shared) return shared;
    const annotations = Object.freeze({ [GENERATION_ANNOTATION]: value });
    if (this.generationAnnotations.size < MAX_SHARED_ANNOTATIONS) this.generationAnnotations.set(value, annotations);
    return annotations;
  }

  private count(d: LifecycleDecision): void {
    const kind = d.resource.kind;
    let byDecision = this.stats.decisions.get(kind);
    if (!byDecision) this.stats.decisions.set(kind, (byDecision = new Map<LifecycleDecisionKind | 'conflict', number>()));
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

/** The object the adapter's discovery would pick when several match: the most recently created. */
function newest(objects: readonly StoredObject[], resource: string): StoredObject | undefined {
  let best: StoredObject | undefined;
  for (const s of objects) if (s.resource.name === resource && (!best || (s.creationTimestampMs ?? 0) > (best.creationTimestampMs ?? 0))) best = s;
  return best;
}
