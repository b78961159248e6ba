/**
 * An output as a component, the other half of the registry (sources are collector/component.ts): what the sidecar
 * does with what its two pipelines produce. Each output is one folder under outputs/ with a `component.ts`: its
 * config section's schema (if it has one; the type is derived from it), whether the config turns it on, and
 * `create(config, context)`. What it returns subscribes it: listeners the sidecar adds to the pipelines (each
 * guarded, so a failing output is counted and never breaks a pipeline or another output), the HTTP endpoint it
 * serves, what it sets before each scrape, and how it stops. sidecar/registry.ts lists them.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { AnalysisListener, Analyzer } from '../analyzer/analyzer.js';
import type { FleetState } from '../analyzer/fleet/fleet.js';
import type { RecreationAnalyzer, RecreationListener } from '../analyzer/recreations/recreation-analyzer.js';
import type { Clock } from '../collector/component.js';
import type { RejectReason, SourceKind } from '../collector/records.js';
import type { ConfigOf, Field } from '../lib/schema.js';
import type { MetricSet } from './metrics/registry.js';

/** Bounded kinds of failure inside the sidecar (reconcile_shadow_internal_errors_total{kind}). */
export const INTERNAL_ERROR_KINDS = ['publish', 'trace_export', 'source', 'metrics', 'summary'] as const;
export type InternalErrorKind = (typeof INTERNAL_ERROR_KINDS)[number];

/** The recreation pipeline, as outputs see it: the recreation analyzer, what it tracks, and the clock it runs on. */
export interface RecreationPipelineView {
  readonly analyzer: RecreationAnalyzer;
  /** The resource kinds of the task config: their series exist from the first scrape. */
  readonly kinds: readonly string[];
  /** HyperFleet resource types whose Reconciled=False periods are measured (`cluster`, `nodepool`). */
  readonly resourceTypes: readonly string[];
  readonly stuckThresholdMs: (kind: string) => number;
  readonly maxStuckSeries: number;
}

/** A configured source, as outputs see it. */
export interface SourceView {
  readonly kind: SourceKind;
  readonly reasons: readonly RejectReason[];
}

export interface OutputContext {
  /** The attempt pipeline: its summary, and the controllers it analyzes. */
  readonly analyzer: Analyzer;
  readonly recreations: RecreationPipelineView | undefined;
  /** The peers' partials, merged and decided, when sources.peers is configured. */
  readonly fleet: FleetState | undefined;
  /** The registry of every metric the sidecar exports. */
  readonly metrics: MetricSet;
  /** The clock the pipelines run on (a simulated world's in the demo). */
  readonly clock: Clock;
  readonly sources: readonly SourceView[];
  /** Whether a source is connected now, and its last failure. */
  readonly sourceHealth: { isUp(kind: SourceKind): boolean; lastError(kind: SourceKind): string | undefined };
  readonly version: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
  /**
   * A failure inside the sidecar: counted under its kind (`count` failures; 0 for one already counted elsewhere), and
   * the first of each kind logged.
   */
  readonly failed: (kind: InternalErrorKind, error: unknown, count?: number) => void;
  /** Tests: the trace exporter to use instead of the one the OTEL_* variables choose. */
  readonly traceExporter?: SpanExporter;
}

/** What a guarded endpoint answers. */
export interface Served {
  readonly contentType: string;
  readonly body: string;
}

/** A guarded endpoint's answer to one request: `format` is the request's `?format=`, if any. */
export type GuardedEndpoint = (request: { readonly format: string | undefined }) => Served | Promise<Served>;

/**
 * A guarded endpoint as an output serves it (/summary, /partial, the fleet's /report); the sidecar's server decides on
 * which listener (sidecar/server.ts). Of two outputs serving one path, the later in the registry's order answers it.
 */
export interface OutputEndpoint {
  readonly path: '/summary' | '/partial' | '/report';
  readonly serve: GuardedEndpoint;
  /** When set, every guarded endpoint requires `Authorization: Bearer <token>`. */
  readonly token?: string;
}

/** A JSON body, as /summary and /partial send it. */
export function servedJson(value: unknown): Served {
  return { contentType: 'application/json', body: JSON.stringify(value, null, 2) + '\n' };
}

export interface Output {
  readonly attempts?: AnalysisListener;
  readonly recreations?: RecreationListener;
  readonly endpoints?: readonly OutputEndpoint[];
  /** Before each scrape: gauges that depend on the time of the scrape. */
  refresh?(): void;
  stop?(): Promise<void>;
}

/** `C`, the validated config, is derived from the schema `F`; an output of any schema (the registry's lists) takes `unknown`. */
export interface OutputComponent<F extends Field | undefined = Field | undefined, C = ConfigOf<F>> {
  /** One line for the README's list of outputs. */
  readonly title: string;
  /** Its config section (the top-level key it is registered under), or undefined when it has none. */
  readonly schema: F;
  enabled(config: C, env: NodeJS.ProcessEnv): boolean;
  create(config: C, context: OutputContext): Promise<Output>;
}
