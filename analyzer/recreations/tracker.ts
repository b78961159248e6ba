/**
 * The recreation life cycle, measured per object (kind/namespace/name):
 *   triggered → deletion (the old object has a deletionTimestamp) → creation (it is gone) →
 *   availability (a new uid with the same name exists) → available (the configured readiness holds): finished.
 * Times come from the objects themselves wherever they carry them (deletionTimestamp, creationTimestamp, condition
 * transition times), so a recreation rebuilt after a restart keeps its true age. Bounded: a finished recreation is
 * handed to the listener and forgotten; in-flight ones are capped and the one started first is evicted (and counted).
 * Pure: every time is passed in.
 */
import { GENERATION_ANNOTATION, objectKey, type ManagedObject, type ObjectEvent } from '../../collector/objects/observation.js';
import type { RecreationTrigger } from './lifecycle-decision.js';
import { predictUnreconciled, type PredictedUnreconciled } from './predicted.js';

export const IN_FLIGHT_PHASES = ['triggered', 'deletion', 'creation', 'availability'] as const;
export type RecreationPhase = (typeof IN_FLIGHT_PHASES)[number];
/** The phases a finished recreation's durations are recorded for (reconcile_shadow_recreation_duration_seconds). */
export const DURATION_PHASES = ['deletion', 'creation', 'availability', 'total'] as const;

/** When a recreated object counts as available. */
export type Readiness =
  /** A status condition of the new object is True (a Job's `Complete`, a Deployment's `Available`). */
  | { readonly kind: 'condition'; readonly type: string }
  /** As soon as the new object exists. */
  | { readonly kind: 'exists' }
  /** When the HyperFleet API reports the cluster `Reconciled=True` after the new object was created. */
  | { readonly kind: 'api' };

export interface TrackerOptions {
  readonly maxInFlight: number;
  readonly stuckThresholdMs: (kind: string) => number;
  readonly sentinelIntervalSeconds: number;
  readonly readiness: (kind: string) => Readiness;
}

export interface InFlightRecreation {
  readonly key: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly clusterId: string;
  readonly trigger: RecreationTrigger;
  /** Null for a recreation rebuilt after its old object was gone. */
  readonly oldUid: string | null;
  readonly triggeredAtMs: number;
  readonly deletionRequestedAtMs?: number;
  readonly goneAtMs?: number;
  readonly newUid?: string;
  readonly newGeneration?: string;
  readonly createdAtMs?: number;
  readonly phase: RecreationPhase;
  /** Started from an object first seen mid-recreation (after a restart): times come from the objects. */
  readonly rebuilt: boolean;
}

export interface FinishedRecreation extends InFlightRecreation {
  readonly newUid: string;
  readonly createdAtMs: number;
  readonly availableAtMs: number;
  /** Null when the phase was not observed (a recreation rebuilt after it). */
  readonly deletionSeconds: number | null;
  readonly creationSeconds: number | null;
  readonly availabilitySeconds: number;
  readonly totalSeconds: number;
  readonly predicted?: PredictedUnreconciled;
  /** The total went over the kind's stuck threshold. */
  readonly stuck: boolean;
}

export interface TrackerListener {
  finished?(r: FinishedRecreation): void;
  evicted?(r: InFlightRecreation): void;
}

export interface StuckRecreation {
  readonly recreation: InFlightRecreation;
  readonly ageSeconds: number;
}

export interface TrackerSnapshot {
  /** kind → phase → count. */
  readonly inFlight: ReadonlyMap<string, ReadonlyMap<RecreationPhase, number>>;
  /** kind → age in seconds of its oldest unfinished recreation. */
  readonly oldestSeconds: ReadonlyMap<string, number>;
  /** Unfinished recreations over their kind's threshold, oldest first. */
  readonly stuck: readonly StuckRecreation[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What starting a recreation reads of the object: its identity, deletion request and generation annotation. */
export type TrackedObject = Pick<ManagedObject, 'kind' | 'namespace' | 'name' | 'uid' | 'deletionTimestampMs' | 'annotations'>;

export interface StartRecreation {
  readonly object: TrackedObject;
  readonly clusterId: string;
  readonly trigger: RecreationTrigger;
  readonly atMs: number;
  readonly rebuilt?: boolean;
}

const seconds = (fromMs: number, toMs: number): number => Math.max(0, toMs - fromMs) / 1000;

export class RecreationTracker {
  private readonly inFlightByKey = new Map<string, Mutable<InFlightRecreation>>();
  /**
   * How many recreations of each cluster wait for the API's Reconciled=True (readiness `api`, phase availability):
   * a cluster with none, nearly all of them, has its Reconciled=True answered without looking at every recreation.
   */
  private readonly awaitingApi = new Map<string, number>();

  constructor(
    private readonly options: TrackerOptions,
    private readonly listener: TrackerListener = {},
  ) {}

  get size(): number {
    return this.inFlightByKey.size;
  }

  has(key: string): boolean {
    return this.inFlightByKey.has(key);
  }

  get(key: string): InFlightRecreation | undefined {
    return this.inFlightByKey.get(key);
  }

  inFlight(): IterableIterator<InFlightRecreation> {
    return this.inFlightByKey.values();
  }

  /** Starts tracking a recreation of `object` unless one is already in flight for it; true when it started. */
  start(s: StartRecreation): boolean {
    const r = this.admit(s, s.object.uid, 'triggered', s.rebuilt ?? false);
    if (!r) return false;
    this.markDeletion(r, s.object);
    return true;
  }

  /**
   * Rebuilds a recreation whose new object already exists but is not available yet (first seen after a restart):
   * the deletion and creation phases were not observed.
   */
  rebuildAvailability(s: StartRecreation & { readonly createdAtMs: number }): boolean {
    const r = this.admit(s, null, 'availability', true);
    if (!r) return false;
    r.newUid = s.object.uid;
    const gen = s.object.annotations[GENERATION_ANNOTATION];
    if (gen !== undefined) r.newGeneration = gen;
    r.createdAtMs = s.createdAtMs;
    return true;
  }

  /** Registers a recreation of this object unless one is in flight, evicting the oldest when the cap is reached. */
  private admit(s: StartRecreation, oldUid: string | null, phase: RecreationPhase, rebuilt: boolean): Mutable<InFlightRecreation> | undefined {
    const key = objectKey(s.object);
    if (this.inFlightByKey.has(key)) return undefined;
    if (this.inFlightByKey.size >= this.options.maxInFlight) this.evictOldest();
    // One literal with every field a recreation always has, so they are all held in the object itself.
    const r: Mutable<InFlightRecreation> = {
      key,
      kind: s.object.kind,
      namespace: s.object.namespace,
      name: s.object.name,
      clusterId: s.clusterId,
      trigger: s.trigger,
      oldUid,
      triggeredAtMs: s.atMs,
      phase,
      rebuilt,
    };
    this.inFlightByKey.set(key, r);
    if (this.awaitsApi(r)) this.countAwaiting(r.clusterId, 1);
    return r;
  }

  /** Moves the in-flight recreation of this object (if any) through its phases. */
  observe(event: ObjectEvent, object: ManagedObject, atMs: number): void {
    const r = this.inFlightByKey.get(objectKey(object));
    if (!r) return;
    // A uid derived from the name (a Maestro ManifestWork's) comes back on the recreated object: once the old one is
    // gone, an object with its uid is the new one.
    if (object.uid === r.oldUid && r.goneAtMs === undefined) {
      if (event === 'DELETED') {
        r.deletionRequestedAtMs ??= object.deletionTimestampMs ?? atMs;
        r.goneAtMs = atMs;
        this.setPhase(r, 'creation');
      } else this.markDeletion(r, object);
      return;
    }
    if (event === 'DELETED') {
      // The new object went away before it was available: wait for the next one.
      if (object.uid === r.newUid) {
        delete r.newUid;
        delete r.createdAtMs;
        delete r.newGeneration;
        this.setPhase(r, 'creation');
      }
      return;
    }
    if (object.uid !== r.newUid) {
      const createdAtMs = object.creationTimestampMs ?? atMs;
      // A new object without a DELETED of the old one seen: it was gone by the time the new one was created.
      r.goneAtMs ??= createdAtMs;
      r.deletionRequestedAtMs ??= r.goneAtMs;
      r.newUid = object.uid;
      r.createdAtMs = createdAtMs;
      const gen = object.annotations[GENERATION_ANNOTATION];
      if (gen !== undefined) r.newGeneration = gen;
      this.setPhase(r, 'availability');
    }
    const readiness = this.options.readiness(r.kind);
    if (readiness.kind === 'exists') return this.finish(r, r.createdAtMs!);
    if (readiness.kind === 'condition') {
      const c = object.conditions.find((x) => x.type === readiness.type && x.status === 'True');
      if (!c) return;
      const t = c.lastTransitionTime === undefined ? NaN : Date.parse(c.lastTransitionTime);
      this.finish(r, Number.isNaN(t) || t < r.createdAtMs! ? atMs : t);
    }
  }

  /** The API reports the cluster reconciled at `atMs`: recreations that wait for it are available. */
  clusterReconciled(clusterId: string, atMs: number): void {
    if (!this.awaitingApi.has(clusterId)) return;
    for (const r of [...this.inFlightByKey.values()]) {
      if (r.clusterId !== clusterId || r.phase !== 'availability' || atMs < r.createdAtMs!) continue;
      if (this.options.readiness(r.kind).kind === 'api') this.finish(r, atMs);
    }
  }

  /** Forgets the recreations of a cluster that no longer exists; returns how many were abandoned. */
  forgetCluster(clusterId: string): number {
    let abandoned = 0;
    for (const r of [...this.inFlightByKey.values()]) {
      if (r.clusterId !== clusterId) continue;
      this.forget(r);
      abandoned++;
    }
    return abandoned;
  }

  snapshot(nowMs: number): TrackerSnapshot {
    const inFlight = new Map<string, Map<RecreationPhase, number>>();
    const oldestSeconds = new Map<string, number>();
    const stuck: StuckRecreation[] = [];
    for (const r of this.inFlightByKey.values()) {
      const phases = inFlight.get(r.kind) ?? new Map<RecreationPhase, number>();
      inFlight.set(r.kind, phases);
      phases.set(r.phase, (phases.get(r.phase) ?? 0) + 1);
      const ageSeconds = seconds(r.triggeredAtMs, nowMs);
      if (ageSeconds > (oldestSeconds.get(r.kind) ?? -1)) oldestSeconds.set(r.kind, ageSeconds);
      if (ageSeconds * 1000 > this.options.stuckThresholdMs(r.kind)) stuck.push({ recreation: r, ageSeconds });
    }
    stuck.sort((a, b) => b.ageSeconds - a.ageSeconds || a.recreation.key.localeCompare(b.recreation.key));
    return { inFlight, oldestSeconds, stuck };
  }

  private markDeletion(r: Mutable<InFlightRecreation>, object: Pick<ManagedObject, 'deletionTimestampMs'>): void {
    if (r.phase === 'triggered' && object.deletionTimestampMs !== undefined) {
      r.deletionRequestedAtMs = object.deletionTimestampMs;
      this.setPhase(r, 'deletion');
    }
  }

  private finish(r: Mutable<InFlightRecreation>, availableAtMs: number): void {
    this.forget(r);
    const createdAtMs = r.createdAtMs!;
    const deletionSeconds = r.goneAtMs !== undefined && r.deletionRequestedAtMs !== undefined ? seconds(r.deletionRequestedAtMs, r.goneAtMs) : null;
    const creationSeconds = r.goneAtMs !== undefined ? seconds(r.goneAtMs, createdAtMs) : null;
    const availabilitySeconds = seconds(createdAtMs, availableAtMs);
    const totalSeconds = seconds(r.triggeredAtMs, availableAtMs);
    const predicted =
      deletionSeconds !== null && creationSeconds !== null
        ? predictUnreconciled(
            { leadSeconds: seconds(r.triggeredAtMs, r.deletionRequestedAtMs!), deletionSeconds, creationSeconds, availabilitySeconds },
            this.options.sentinelIntervalSeconds,
          )
        : undefined;
    this.listener.finished?.({
      ...r,
      newUid: r.newUid!,
      createdAtMs,
      availableAtMs,
      deletionSeconds,
      creationSeconds,
      availabilitySeconds,
      totalSeconds,
      ...(predicted ? { predicted } : {}),
      stuck: totalSeconds * 1000 > this.options.stuckThresholdMs(r.kind),
    });
  }

  private setPhase(r: Mutable<InFlightRecreation>, phase: RecreationPhase): void {
    const awaited = this.awaitsApi(r);
    r.phase = phase;
    const awaits = this.awaitsApi(r);
    if (awaits !== awaited) this.countAwaiting(r.clusterId, awaits ? 1 : -1);
  }

  private forget(r: Mutable<InFlightRecreation>): void {
    this.inFlightByKey.delete(r.key);
    if (this.awaitsApi(r)) this.countAwaiting(r.clusterId, -1);
  }

  private awaitsApi(r: InFlightRecreation): boolean {
    return r.phase === 'availability' && this.options.readiness(r.kind).kind === 'api';
  }

  private countAwaiting(clusterId: string, by: 1 | -1): void {
    const n = (this.awaitingApi.get(clusterId) ?? 0) + by;
    if (n === 0) this.awaitingApi.delete(clusterId);
    else this.awaitingApi.set(clusterId, n);
  }

  /** Evicts the recreation started first (insertion order), in constant time. */
  private evictOldest(): void {
    const oldest = this.inFlightByKey.values().next().value;
    if (!oldest) return;
    this.forget(oldest);
    this.listener.evicted?.(oldest);
  }
}
