/**
 * The recreation analyzer's settings in the `recreations:` section of the sidecar config, and the tracker options they
 * yield. Defaults follow HyperFleet: a 10-minute stuck threshold (the API's reconciliation stuck threshold), a
 * 10-second Sentinel interval, a Job available when `Complete=True`, a Deployment and a ManifestWork (its work agent's
 * report) when `Available=True`, anything else as soon as it exists.
 *
 *   recreations:
 *     taskConfig: adapter-task-config.yaml      # the adapter's own task config, unchanged
 *     adapterConfig: adapter-config.yaml        # its deployment config (optional)
 *     proposals: recreation-proposals.yaml      # proposed rules (optional)
 *     env: {NAMESPACE: hyperfleet}              # values for env.* params
 *     sentinelInterval: 10s
 *     stuckThresholds: {default: 10m, Job: 15m}
 *     readiness: {Job: Complete, Namespace: exists, ConfigMap: api}   # a condition type, `exists` or `api`
 *     maxInFlight: 10000
 *     maxStuckSeries: 50
 *
 * Where the inputs are (`objects`, `hyperfleet`, `maestro`) is the input components' own config (collector/objects,
 * collector/hyperfleet, collector/maestro); sidecar/config.ts puts the section together.
 */
import type { Infer } from '../../lib/schema.js';
import type { Readiness, TrackerOptions } from './tracker.js';

export const DEFAULT_STUCK_THRESHOLD_MS = 10 * 60_000;
export const DEFAULT_SENTINEL_INTERVAL_SECONDS = 10;
export const DEFAULT_MAX_IN_FLIGHT = 10_000;
export const DEFAULT_MAX_STUCK_SERIES = 50;
export const DEFAULT_READINESS: Readonly<Record<string, Readiness>> = {
  Job: { kind: 'condition', type: 'Complete' },
  Deployment: { kind: 'condition', type: 'Available' },
  ManifestWork: { kind: 'condition', type: 'Available' },
};

/** The recreation analyzer's own keys of the section, in the config schema's format (lib/schema.ts). */
export const RECREATION_SETTINGS = {
  taskConfig: { kind: 'string', required: true, doc: "the adapter's task config (adapter-task-config.yaml), unchanged" },
  adapterConfig: { kind: 'string', doc: "the adapter's deployment config (adapter-config.yaml): adapter name, config.*, API base URL" },
  proposals: { kind: 'string', doc: 'proposed rules (lifecycle.recreate.when per resource), beside the unchanged task config' },
  env: { kind: 'map', of: { kind: 'string' }, doc: 'values for env.* params' },
  sentinelInterval: {
    kind: 'duration',
    default: `${DEFAULT_SENTINEL_INTERVAL_SECONDS}s`,
    min: '100ms',
    doc: 'Sentinel event interval for the predicted non-blocking flow',
  },
  stuckThresholds: { kind: 'map', of: { kind: 'duration' }, doc: 'per kind, and `default` (10m) for the others' },
  readiness: { kind: 'map', of: { kind: 'string' }, doc: 'per kind: a condition type, `exists` or `api` (Reconciled=True)' },
  maxInFlight: { kind: 'integer', default: DEFAULT_MAX_IN_FLIGHT, min: 1, unit: 'recreations', doc: 'past it the one started first is evicted' },
  maxStuckSeries: { kind: 'integer', default: DEFAULT_MAX_STUCK_SERIES, min: 0, unit: 'series', doc: 'stuck recreations with a series of their own' },
} as const;

/** The settings once validated (durations in milliseconds). */
export type RecreationSettings = Infer<{ readonly kind: 'object'; readonly fields: typeof RECREATION_SETTINGS }>;

export interface TrackerSettings {
  readonly maxInFlight?: number;
  readonly sentinelIntervalSeconds?: number;
  /** Per kind; the key `default` sets the threshold of every other kind. */
  readonly stuckThresholdsMs?: Readonly<Record<string, number>>;
  /** Per kind: a condition type, `exists` or `api`. */
  readonly readiness?: Readonly<Record<string, string>>;
}

export function readinessOf(spec: string): Readiness {
  return spec === 'exists' || spec === 'api' ? { kind: spec } : { kind: 'condition', type: spec };
}

export function trackerOptions(s: TrackerSettings = {}): TrackerOptions {
  const thresholds = s.stuckThresholdsMs ?? {};
  const fallback = thresholds.default ?? DEFAULT_STUCK_THRESHOLD_MS;
  const readiness = new Map(Object.entries(s.readiness ?? {}).map(([kind, spec]) => [kind, readinessOf(spec)]));
  return {
    maxInFlight: s.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    sentinelIntervalSeconds: s.sentinelIntervalSeconds ?? DEFAULT_SENTINEL_INTERVAL_SECONDS,
    stuckThresholdMs: (kind) => thresholds[kind] ?? fallback,
    readiness: (kind) => readiness.get(kind) ?? DEFAULT_READINESS[kind] ?? { kind: 'exists' },
  };
}

/** The tracker options of validated settings. */
export function trackerOptionsOf(s: RecreationSettings): TrackerOptions {
  return trackerOptions({
    maxInFlight: s.maxInFlight,
    sentinelIntervalSeconds: s.sentinelInterval / 1000,
    ...(s.stuckThresholds ? { stuckThresholdsMs: s.stuckThresholds } : {}),
    ...(s.readiness ? { readiness: s.readiness } : {}),
  });
}
