/**
 * The `recreations:` section of the sidecar config, and the tracker options it yields. Defaults follow HyperFleet:
 * a 10-minute stuck threshold (the API's reconciliation stuck threshold), a 10-second Sentinel interval, a Job
 * available when `Complete=True`, a Deployment when `Available=True`, anything else as soon as it exists.
 *
 *   recreations:
 *     taskConfig: adapter-task-config.yaml      # the adapter's own task config
 *     env: {NAMESPACE: hyperfleet}              # values for env.* params
 *     kubernetes: {kubeconfig: ~/.kube/config, context: prod, plurals: {Widget: widgets}}
 *     hyperfleetApi: {url: http://hyperfleet-api:8000, intervalSeconds: 15, timeoutSeconds: 5, kinds: [clusters]}
 *     sentinelIntervalSeconds: 10
 *     stuckThresholds: {default: 10m, Job: 15m}
 *     readiness: {Job: Complete, Namespace: exists, ConfigMap: api}   # a condition type, `exists` or `api`
 *     maxInFlight: 10000
 *     maxStuckSeries: 50
 *
 * `RECREATIONS_SECTION` describes it in the sidecar's config schema format (sidecar/config-schema.ts), so the config
 * file validates it with file:line problems like every other section; `recreationsConfig()` then applies defaults.
 */
import type { Readiness, TrackerOptions } from './tracker.js';

export const HYPERFLEET_KINDS = ['clusters', 'nodepools'] as const;
export type HyperFleetKind = (typeof HYPERFLEET_KINDS)[number];

export const DEFAULT_STUCK_THRESHOLD_MS = 10 * 60_000;
export const DEFAULT_SENTINEL_INTERVAL_SECONDS = 10;
export const DEFAULT_MAX_IN_FLIGHT = 10_000;
export const DEFAULT_MAX_STUCK_SERIES = 50;
export const DEFAULT_READINESS: Readonly<Record<string, Readiness>> = {
  Job: { kind: 'condition', type: 'Complete' },
  Deployment: { kind: 'condition', type: 'Available' },
};

/** The section as the sidecar's config schema validates it (structurally a `Field` of kind `object`). */
export const RECREATIONS_SECTION = {
  kind: 'object',
  doc: 'shadow the lifecycle rules of a HyperFleet adapter and track recreations (docs/recreations.md)',
  fields: {
    taskConfig: { kind: 'string', required: true, doc: "the adapter's task config (adapter-task-config.yaml)" },
    env: { kind: 'map', of: { kind: 'string' }, doc: 'values for env.* params' },
    kubernetes: {
      kind: 'object',
      doc: 'where the managed objects are watched (default: in-cluster or $KUBECONFIG)',
      fields: {
        kubeconfig: { kind: 'string' },
        context: { kind: 'string' },
        plurals: { kind: 'map', of: { kind: 'string' }, doc: 'resource plurals for kinds whose plural is not kind+s' },
      },
    },
    hyperfleetApi: {
      kind: 'object',
      doc: 'cluster state; without it the desired generation is learned from hyperfleet.io/generation annotations',
      fields: {
        url: { kind: 'string', required: true, doc: 'base URL, e.g. http://hyperfleet-api:8000' },
        intervalSeconds: { kind: 'number', default: 15, min: 1 },
        timeoutSeconds: { kind: 'number', default: 5, min: 0.1 },
        kinds: { kind: 'list', of: { kind: 'enum', values: HYPERFLEET_KINDS }, default: ['clusters'] },
        tokenFile: { kind: 'string', doc: 'a bearer token for the API, read from this file' },
      },
    },
    sentinelIntervalSeconds: { kind: 'number', default: DEFAULT_SENTINEL_INTERVAL_SECONDS, min: 0.1, doc: 'Sentinel event interval for the predicted non-blocking flow' },
    stuckThresholds: { kind: 'map', of: { kind: 'duration' }, doc: 'per kind (and `default`, 10m)' },
    readiness: { kind: 'map', of: { kind: 'string' }, doc: 'per kind: a condition type, `exists` or `api` (Reconciled=True)' },
    maxInFlight: { kind: 'integer', default: DEFAULT_MAX_IN_FLIGHT, min: 1 },
    maxStuckSeries: { kind: 'integer', default: DEFAULT_MAX_STUCK_SERIES, min: 0 },
  },
} as const;

/** The section after schema validation (durations in milliseconds, defaults applied). */
export interface RecreationsSection {
  readonly taskConfig: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly kubernetes?: { readonly kubeconfig?: string; readonly context?: string; readonly plurals?: Readonly<Record<string, string>> };
  readonly hyperfleetApi?: { readonly url: string; readonly intervalSeconds: number; readonly timeoutSeconds: number; readonly kinds: readonly HyperFleetKind[]; readonly tokenFile?: string };
  readonly sentinelIntervalSeconds: number;
  readonly stuckThresholds?: Readonly<Record<string, number>>;
  readonly readiness?: Readonly<Record<string, string>>;
  readonly maxInFlight: number;
  readonly maxStuckSeries: number;
}

export interface RecreationsConfig extends RecreationsSection {
  readonly tracker: TrackerOptions;
}

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

export function recreationsConfig(section: RecreationsSection): RecreationsConfig {
  return {
    ...section,
    tracker: trackerOptions({
      maxInFlight: section.maxInFlight,
      sentinelIntervalSeconds: section.sentinelIntervalSeconds,
      ...(section.stuckThresholds ? { stuckThresholdsMs: section.stuckThresholds } : {}),
      ...(section.readiness ? { readiness: section.readiness } : {}),
    }),
  };
}
