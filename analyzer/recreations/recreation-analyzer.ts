/**
 * The recreation analyzer, which shadows an adapter's lifecycle rules: consumes observations (managed objects and
 * HyperFleet resources, from a journal, informers, the API poller or the simulator), keeps the world the adapter
 * would see, evaluates the lifecycle rules of every resource of a cluster on each change (never acting), and feeds
 * the recreation tracker and the unreconciled-period tracker. A `recreate` decision starts tracking the object's
 * recreation at the time of the change that produced it (for `recreate_on_change`, the cluster observation that
 * first carries the new generation).
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
import type { EvalResult } from './cel.js';
import { executeEvent, type ApiAnswer, type KubeObject, type ObjectQuery, type ObjectWorld, type RuleError } from './adapter-event.js';
import type { LifecycleDecision, LifecycleDecisionKind } from './lifecycle-decision.js';
import type { CompiledResource, CompiledTaskConfig } from './rules.js';
import {
  RecreationTracker,
  type FinishedRecreation,
  type InFlightRecreation,
  type TrackedObject,
  type TrackerOptions,
  type TrackerSnapshot,
} from './tracker.js';
import { UnreconciledTracker, type UnreconciledPeriod } from './unreconciled.js';

export interface RecreationListener {
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
  readonly reason: RuleError['reason'];
  readonly message: string;
  count: number;
}

export interface RecreationStats {
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
  readonly labels: Readonly<Record<string, string>>;
  /** Kubernetes keeps an object with finalizers after a delete (deletionTimestamp set) until they are done. */
  readonly hasFinalizers: boolean;
  readonly creationTimestampMs: number | undefined;
  /** Only the generation annotation: the apply decision and the tracker read no other. */
  readonly annotations: Readonly<Record<string, string>>;
  /** `resources.<name>` for its rules: the object projected onto what they read. */
  readonly input: EvalResult;
}

/** A cluster (or nodepool), as an event needs it, and the objects made for it. */
interface ClusterEntry {
  readonly id: string;
  kind: string;
  generation: number;
  /** From the API or a journal cluster line; otherwise inferred from annotations. */
  known: boolean;
  /** Since when the API reports it Reconciled=False (a recreation rebuilt after a restart was triggered then). */
  reconciledFalseSinceMs: number | undefined;
  /** Its state as the rules see it, projected once per observation: the API's answer for its own URL. */
  state: EvalResult;
  /** Its objects, of every resource, in the order first seen (an array of exactly their number: usually one). */
  objects: StoredObject[];
}

export class RecreationAnalyzer implements ObservationSink {
  readonly stats: RecreationStats = {
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
  private readonly byName: ReadonlyMap<string, CompiledResource>;
  private lastTimeMs = 0;

  private readonly listeners: Listeners<RecreationListener>;

  /**
   * @param listener the first of the outputs (more with `listen`).
   * @param failed an output threw: it is reported here, and neither the analyzer nor another output is affected.
   */
  constructor(
    readonly compiled: CompiledTaskConfig,
    readonly trackerOptions: TrackerOptions,
    listener?: RecreationListener,
    failed: (error: unknown) => void = (e) => {
      throw e;
    },
  ) {
    this.listeners = new Listeners(failed);
    this.byName = new Map(compiled.resources.map((r) => [r.name, r]));
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

  listen(listener: RecreationListener): void {
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
        this.started(
          entry,
          this.tracker.start({
            object: stored,
            clusterId: entry.id,
            trigger: resource.spec.recreateOnChange ? 'recreate_on_change' : 'rule',
            atMs: object.deletionTimestampMs,
          }),
        );
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

  /** One adapter event for the cluster, now: every resource in config order, as the adapter would decide them. */
  private evaluate(entry: ClusterEntry, atMs: number): void {
    for (const { stored, decision } of this.decide(entry, atMs)) {
      this.count(decision);
      this.listeners.emit('decision', decision, atMs);
      if (decision.decision === 'recreate' && stored) {
        this.started(entry, this.tracker.start({ object: stored, clusterId: entry.id, trigger: decision.trigger!, atMs }));
      }
    }
  }

  /** The event's decisions of the watched resources, each with the object it is about. */
  private decide(entry: ClusterEntry, atMs: number): { resource: CompiledResource; stored: StoredObject | undefined; decision: LifecycleDecision }[] {
    const outcome = executeEvent(this.compiled, {
      event: { id: entry.id, kind: entry.kind, generation: entry.generation },
      env: this.compiled.env,
      adapterConfig: this.compiled.adapterConfig,
      api: (method, url) => this.answer(entry, method, url),
      objects: this.world(entry),
      nowMs: atMs,
    });
    const out: { resource: CompiledResource; stored: StoredObject | undefined; decision: LifecycleDecision }[] = [];
    for (const o of outcome.resources) {
      const resource = this.byName.get(o.resource.name);
      if (!resource) continue;
      const mine = entry.objects.filter((s) => s.resource.name === resource.name);
      const stored = (o.target && mine.find((s) => s.name === o.target!.name && s.namespace === o.target!.namespace)) || newest(mine);
      const broken = mine.find((s) => !s.input.ok);
      const decision: LifecycleDecision =
        broken && !broken.input.ok
          ? {
              resource,
              decision: 'error',
              reason: 'resources input',
              conflict: false,
              error: { rule: 'resources input', reason: broken.input.reason, message: broken.input.message },
              ruleErrors: [],
            }
          : {
              resource,
              decision: o.decision,
              reason: o.reason,
              conflict: o.conflict,
              ...(o.trigger ? { trigger: o.trigger } : {}),
              ...(o.decision === 'error' && o.errors.length > 0 ? { error: o.errors[o.errors.length - 1]! } : {}),
              ruleErrors: o.decision === 'error' ? o.errors.slice(0, -1) : o.errors,
            };
      out.push({ resource, stored, decision });
    }
    return out;
  }

  /**
   * The HyperFleet API as the recreation analyzer can answer it: the resource's own URL from the state it holds (an API call
   * answers only its own URL); anything else is not answered, as an unreachable API would be.
   */
  private answer(entry: ClusterEntry, method: string, url: string): ApiAnswer {
    const path = url.split('?')[0]!.replace(/\/$/, '');
    const own = path.endsWith(`/clusters/${entry.id}`) || path.endsWith(`/nodepools/${entry.id}`);
    if (method !== 'GET' || !own) return { error: "not answered: the recreation analyzer holds only the resource's own state" };
    if (!entry.state.ok) return { error: `${entry.state.reason}: ${entry.state.message}` };
    return { status: 200, body: entry.state.value };
  }

  /** The cluster's objects as the adapter's discovery and apply read them. */
  private world(entry: ClusterEntry): ObjectWorld {
    const same = (s: StoredObject, q: ObjectQuery): boolean => s.resource.kind === q.kind && s.resource.apiVersion === q.apiVersion;
    return {
      get: (q) => {
        const s = entry.objects.find((o) => same(o, q) && o.namespace === q.namespace && o.name === q.name);
        return s && kubeObject(s);
      },
      list: (q) =>
        entry.objects
          .filter((o) => same(o, q) && (q.namespace === '' || o.namespace === q.namespace) && Object.entries(q.labels).every(([k, v]) => o.labels[k] === v))
          .map(kubeObject),
    };
  }

  /** Picks up a recreation already under way when the object is first seen (the sidecar restarted). */
  private rebuild(resource: CompiledResource, entry: ClusterEntry, object: ManagedObject, stored: StoredObject): void {
    if (!resource.recreates) return;
    const falseSince = entry.reconciledFalseSinceMs;
    const decided = (): LifecycleDecision | undefined =>
      this.decide(entry, object.deletionTimestampMs ?? object.creationTimestampMs ?? 0).find((d) => d.resource === resource && d.stored === stored)?.decision;
    if (object.deletionTimestampMs !== undefined) {
      const d = decided();
      if (d?.decision !== 'recreate') return;
      const atMs = falseSince !== undefined && falseSince <= object.deletionTimestampMs ? falseSince : object.deletionTimestampMs;
      this.started(entry, this.tracker.start({ object: stored, clusterId: entry.id, trigger: d.trigger!, atMs, rebuilt: true }));
      return;
    }
    const created = object.creationTimestampMs;
    if (falseSince === undefined || created === undefined || created < falseSince || entry.generation <= 1) return;
    // At the cluster's current generation: the apply would skip it.
    if (decided()?.decision !== 'skip') return;
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
    const entry: ClusterEntry = { id, kind: 'Cluster', generation: 0, known: false, reconciledFalseSinceMs: undefined, state: EMPTY_STATE, objects: [] };
    this.clusters.set(entry.id, entry);
    return entry;
  }

  /** The state of a cluster known only from its objects: its id and the newest generation they carry. */
  private infer(entry: ClusterEntry, generation: number): ClusterEntry {
    const state = this.compiled.clusterInput({ id: entry.id, kind: 'Cluster', generation });
    return this.update(entry, { id: entry.id, kind: 'Cluster', generation }, false, state);
  }

  /** A new state for the cluster. */
  private update(entry: ClusterEntry, cluster: { id: string; kind: string; generation: number }, known: boolean, state: EvalResult): ClusterEntry {
    entry.kind = cluster.kind;
    entry.generation = cluster.generation;
    entry.known = known;
    entry.reconciledFalseSinceMs = undefined;
    entry.state = state;
    return entry;
  }

  /** What is kept of the object: its identity, times, generation annotation and the projection its rules read. */
  private store(resource: CompiledResource, object: ManagedObject): StoredObject {
    return {
      resource,
      kind: resource.kind,
      labels: object.labels,
      hasFinalizers:
        Array.isArray((object.raw.metadata as { finalizers?: unknown } | undefined)?.finalizers) &&
        (object.raw.metadata as { finalizers: unknown[] }).finalizers.length > 0,
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
    for (const e of d.error ? [...d.ruleErrors, d.error] : d.ruleErrors) {
      const id = `${d.resource.name}\u0000${e.rule}\u0000${e.reason}`;
      const example = this.stats.ruleErrors.get(id);
      if (example) example.count++;
      else if (this.stats.ruleErrors.size < MAX_ERROR_EXAMPLES)
        this.stats.ruleErrors.set(id, { resource: d.resource.name, rule: e.rule, reason: e.reason, message: e.message, count: 1 });
    }
  }
}

/** Of a resource's objects, the one a recreation is about when the event names none: the most recently created. */
function newest(objects: readonly StoredObject[]): StoredObject | undefined {
  let best: StoredObject | undefined;
  for (const s of objects) if (!best || (s.creationTimestampMs ?? 0) > (best.creationTimestampMs ?? 0)) best = s;
  return best;
}

/** A stored object as the adapter's client returns it: its identity, generation annotation and the parts its rules read. */
function kubeObject(s: StoredObject): KubeObject {
  const input = s.input.ok && typeof s.input.value === 'object' && s.input.value !== null ? (s.input.value as Record<string, unknown>) : {};
  const meta = typeof input.metadata === 'object' && input.metadata !== null ? (input.metadata as Record<string, unknown>) : {};
  const annotations = typeof meta.annotations === 'object' && meta.annotations !== null ? (meta.annotations as Record<string, unknown>) : {};
  return {
    ...input,
    apiVersion: s.resource.apiVersion,
    kind: s.resource.kind,
    metadata: {
      ...meta,
      name: s.name,
      namespace: s.namespace,
      uid: s.uid,
      labels: s.labels,
      annotations: { ...annotations, ...s.annotations },
      ...(s.deletionTimestampMs !== undefined ? { deletionTimestamp: new Date(s.deletionTimestampMs).toISOString() } : {}),
      ...(s.hasFinalizers ? { finalizers: ['(kept)'] } : {}),
    },
  };
}
