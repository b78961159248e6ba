/**
 * Observation records for the recreation analyzer: what a managed Kubernetes object looked like at an event
 * (from a journal line, an informer or the simulator), and what a HyperFleet resource (cluster or nodepool)
 * looked like in the API. One shape per concept, shared by every source; the analyzer never knows more
 * about where a record came from than `source`.
 */
import type { Rejection, RejectReason, SourceKind } from '../records.js';
import { isRecord } from '../../lib/is-record.js';

export const OBJECT_EVENTS = ['ADDED', 'MODIFIED', 'DELETED'] as const;
export type ObjectEvent = (typeof OBJECT_EVENTS)[number];

/** The sources that hand observations on: a journal, the objects watch, the HyperFleet API, Maestro, the simulator. */
export type ObservationSource = Extract<SourceKind, 'journal' | 'objects' | 'hyperfleet' | 'maestro' | 'simulator'>;

/** A status condition as Kubernetes objects carry it (`status.conditions[]`). */
export interface ObjectCondition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
}

/** The parts of a Kubernetes object the tracker reads, next to the whole object the rules read. */
export interface ManagedObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** Empty for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly creationTimestampMs?: number;
  readonly deletionTimestampMs?: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly conditions: readonly ObjectCondition[];
  /** The object exactly as received; CEL rules see this. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface ObjectObservation {
  readonly type: 'object';
  readonly time: string;
  readonly timeMs: number;
  readonly event: ObjectEvent;
  readonly object: ManagedObject;
  readonly source: ObservationSource;
}

/** A condition of a HyperFleet resource (`Reconciled`, `LastKnownReconciled`, one per required adapter). */
export interface ResourceCondition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTimeMs?: number;
  readonly observedGeneration?: number;
}

/** A HyperFleet API resource: a Cluster, or a NodePool (the journal calls both "cluster"). */
export interface HyperFleetResource {
  readonly id: string;
  readonly kind: string;
  readonly generation: number;
  readonly deletedTimeMs?: number;
  readonly conditions: readonly ResourceCondition[];
  /** The resource exactly as received; rules see it as `checkClusterState` and through captures. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface ClusterObservation {
  readonly type: 'cluster';
  readonly time: string;
  readonly timeMs: number;
  readonly cluster: HyperFleetResource;
  /** The API no longer has the resource (hard-deleted). */
  readonly gone?: boolean;
  readonly source: ObservationSource;
}

export type Observation = ObjectObservation | ClusterObservation;

/** What to list and watch: a kind, in one namespace or all, with the static part of the discovery's labels. */
export interface ObjectWatch {
  readonly apiVersion: string;
  readonly kind: string;
  /** Undefined: all namespaces (or a cluster-scoped kind). */
  readonly namespace?: string;
  /** Kubernetes label selector syntax. */
  readonly labelSelector?: string;
}

/** Where observation sources hand their records. */
export interface ObservationSink {
  observe(observation: Observation): void;
  reject(rejection: Rejection): void;
}

export const GENERATION_ANNOTATION = 'hyperfleet.io/generation';

/** A value that cannot become an observation; carries the bounded reason it is counted under. */
export class ObservationProblem extends Error {
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message);
  }
}

function problem(reason: RejectReason, message: string): never {
  throw new ObservationProblem(reason, message);
}

function timestampMs(value: unknown, field: string, reason: RejectReason): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) problem(reason, `${field}: ${JSON.stringify(value)} is not an RFC 3339 time`);
  return ms;
}

function stringMap(value: unknown, field: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) problem('invalid_object', `${field}: must be a map of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') problem('invalid_object', `${field}.${k}: must be a string`);
    out[k] = v;
  }
  return out;
}

/** Validates a Kubernetes object (from any source) into a ManagedObject. */
export function toManagedObject(value: unknown): ManagedObject {
  if (!isRecord(value)) problem('invalid_object', 'object: must be a Kubernetes object');
  const { apiVersion, kind, metadata, status } = value;
  if (typeof apiVersion !== 'string' || apiVersion === '') problem('invalid_object', 'object.apiVersion: required string');
  if (typeof kind !== 'string' || kind === '') problem('invalid_object', 'object.kind: required string');
  if (!isRecord(metadata)) problem('invalid_object', 'object.metadata: required map');
  const { name, namespace, uid } = metadata;
  if (typeof name !== 'string' || name === '') problem('invalid_object', 'object.metadata.name: required string');
  if (typeof uid !== 'string' || uid === '') problem('invalid_object', 'object.metadata.uid: required string');
  if (namespace !== undefined && typeof namespace !== 'string') problem('invalid_object', 'object.metadata.namespace: must be a string');
  const creationTimestampMs = timestampMs(metadata.creationTimestamp, 'object.metadata.creationTimestamp', 'invalid_object');
  const deletionTimestampMs = timestampMs(metadata.deletionTimestamp, 'object.metadata.deletionTimestamp', 'invalid_object');
  const conditions: ObjectCondition[] = [];
  const rawConditions = isRecord(status) ? status.conditions : undefined;
  if (Array.isArray(rawConditions)) {
    for (const c of rawConditions) {
      if (!isRecord(c) || typeof c.type !== 'string' || typeof c.status !== 'string') continue;
      conditions.push({ type: c.type, status: c.status, ...(typeof c.lastTransitionTime === 'string' ? { lastTransitionTime: c.lastTransitionTime } : {}) });
    }
  }
  return {
    apiVersion,
    kind,
    namespace: namespace ?? '',
    name,
    uid,
    ...(creationTimestampMs === undefined ? {} : { creationTimestampMs }),
    ...(deletionTimestampMs === undefined ? {} : { deletionTimestampMs }),
    labels: stringMap(metadata.labels, 'object.metadata.labels'),
    annotations: stringMap(metadata.annotations, 'object.metadata.annotations'),
    conditions,
    raw: value,
  };
}

/** Validates a HyperFleet resource as the API returns it (`GET /api/hyperfleet/v1/clusters/{id}`). */
export function toHyperFleetResource(value: unknown, defaultKind = 'Cluster'): HyperFleetResource {
  if (!isRecord(value)) problem('invalid_record', 'cluster: must be an object');
  const { id, kind, generation, deleted_time: deletedTime, status } = value;
  if (typeof id !== 'string' || id === '') problem('invalid_record', 'cluster.id: required string');
  if (kind !== undefined && (typeof kind !== 'string' || kind === '')) problem('invalid_record', 'cluster.kind: must be a non-empty string');
  if (typeof generation !== 'number' || !Number.isInteger(generation) || generation < 0) {
    problem('invalid_record', `cluster.generation: must be a non-negative integer, got ${JSON.stringify(generation)}`);
  }
  const deletedTimeMs = timestampMs(deletedTime, 'cluster.deleted_time', 'invalid_record');
  const conditions: ResourceCondition[] = [];
  if (status !== undefined && status !== null) {
    if (!isRecord(status)) problem('invalid_record', 'cluster.status: must be an object');
    const list = status.conditions ?? [];
    if (!Array.isArray(list)) problem('invalid_record', 'cluster.status.conditions: must be a list');
    list.forEach((c: unknown, i) => {
      const at = `cluster.status.conditions[${i}]`;
      if (!isRecord(c) || typeof c.type !== 'string' || typeof c.status !== 'string') problem('invalid_record', `${at}: needs type and status strings`);
      const lastTransitionTimeMs = timestampMs(c.last_transition_time, `${at}.last_transition_time`, 'invalid_record');
      const observed = c.observed_generation;
      conditions.push({
        type: c.type,
        status: c.status,
        ...(lastTransitionTimeMs === undefined ? {} : { lastTransitionTimeMs }),
        ...(typeof observed === 'number' && Number.isInteger(observed) ? { observedGeneration: observed } : {}),
      });
    });
  }
  return {
    id,
    kind: typeof kind === 'string' ? kind : defaultKind,
    generation,
    ...(deletedTimeMs === undefined ? {} : { deletedTimeMs }),
    conditions,
    raw: value,
  };
}

/**
 * Key of a managed object by identity that survives recreation: kind, namespace and name. Joined rather than
 * concatenated: a join is one flat string, where `+` builds a tree of pieces, and the tracker keeps these keys.
 */
export function objectKey(o: Pick<ManagedObject, 'kind' | 'namespace' | 'name'>): string {
  return [o.kind, o.namespace, o.name].join('/');
}
