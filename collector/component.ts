/**
 * A source as a component, in the style of the OpenTelemetry Collector's factories. Each source is one folder
 * (collector/<kind>/, or simulator/ for the simulated worlds) with a `component.ts` holding its config schema (the
 * config's type is derived from it, defaults included), the bounded reasons it can reject input under, and
 * `create(config, sinks, hooks, context)`. A component.ts loads nothing heavy: `create` imports the source itself,
 * so a source that is not configured costs no memory. sidecar/registry.ts lists them; the sidecar alone reads the
 * config and calls `create`.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConfigOf, Field } from '../lib/schema.js';
import type { ReconcileModel } from '../model/types.js';
import type { Timers } from './kube/informer.js';
import type { ObjectWatch, ObservationSink } from './objects/observation.js';
import type { PartialSink } from './peers/sink.js';
import type { RecordSink, RejectReason, Source, SourceKind } from './records.js';

/**
 * What a source tells the sidecar besides records, the same for every source (sidecar/health.ts turns it into
 * `reconcile_shadow_source_up`, `reconcile_shadow_internal_errors_total{kind="source"}` and /readyz).
 */
export interface SourceHooks {
  /** The source, or one part of it (`part`: one watch of several), connected (`true`) or lost its connection. */
  state(up: boolean, part?: unknown): void;
  /**
   * A failure the source recovers from on its own (it retries): counted, the first one logged; with `reason` (one of
   * the component's `failureReasons`) also counted under `reconcile_shadow_source_failures_total`.
   */
  error(error: unknown, reason?: string): void;
  /**
   * What the operator should know: at start (e.g. which loop the operator runs, and how the source knows), and when
   * the source's view of its input changes in a way they must act on (a fleet no longer read whole in one poll).
   */
  info(line: string): void;
}

/**
 * Where a source hands its records: analyzed attempts, recreation observations when a recreation analyzer runs, and
 * peers' partial summaries when the fleet runs.
 */
export interface Sinks {
  readonly attempts: RecordSink;
  readonly observations?: ObservationSink;
  readonly partials?: PartialSink;
}

/** The time a pipeline runs on: the wall clock, or a simulated world's sped-up clock. */
export interface Clock {
  readonly now: () => number;
  /** Clock seconds per wall-clock second (1 for the wall clock). */
  readonly speed: number;
  /** A simulated world's time, not the fleet's: reports say so. */
  readonly simulated: boolean;
}

export const WALL_CLOCK: Clock = { now: Date.now, speed: 1, simulated: false };

/** What a source may need from the sidecar beyond its own config. */
export interface SourceContext {
  /** The configured models; a source that reads one controller's output names its model in its config. */
  readonly models: readonly ReconcileModel[];
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  /** The kinds the recreation analyzer's task config discovers: what the objects source watches. */
  readonly watches: readonly ObjectWatch[];
  /** Tests: the cluster Kubernetes sources talk to, instead of the one their config names. */
  readonly kubeConfig?: KubeConfig;
  /** Tests: timers Kubernetes and HyperFleet sources schedule with. */
  readonly timers?: Timers;
}

/** The recreation analyzer a source needs when the config has no `recreations` section (the demo's adapter world). */
export interface RecreationNeed {
  readonly taskConfig: string;
  /** The proposed rules beside the task config. */
  readonly proposals?: string;
  readonly stuckThresholdMs: number;
}

/** Reports a problem with the source's section: `path` is relative to it. */
export type Fail = (path: readonly (string | number)[], message: string) => void;

/** `C`, the validated config, is derived from the schema `F`; a component of any schema (the registry's lists) takes `unknown`. */
export interface SourceComponent<F extends Field = Field, C = ConfigOf<F>> {
  readonly kind: SourceKind;
  /** One line for the config reference and the README's list of sources. */
  readonly title: string;
  readonly schema: F;
  /** Every reason the source rejects input under: its `records_dropped_total` series exist from the first scrape. */
  readonly reasons: readonly RejectReason[];
  /** Every reason its retried failures are counted under (`error(e, reason)`): their series exist from the first scrape. */
  readonly failureReasons?: readonly string[];
  /** A source whose world runs on a clock of its own (the simulator): the analysis runs on it too. */
  clock?(config: C): Clock;
  recreations?(config: C): RecreationNeed | undefined;
  /** What the schema cannot say (e.g. exactly one input; a model that is configured), checked with the config. */
  check?(config: C, fail: Fail, models: readonly ReconcileModel[]): void;
  create(config: C, sinks: Sinks, hooks: SourceHooks, context: SourceContext): Promise<Source>;
}

/**
 * For sources that read one controller's output: the model their config names must be configured, and with several
 * models configured it must be named.
 */
export function checkModelName(name: string | undefined, models: readonly ReconcileModel[], fail: Fail): void {
  if (name !== undefined && !models.some((m) => m.name === name))
    fail(['model'], `"${name}" is not one of the configured models (${models.map((m) => m.name).join(', ')})`);
  if (name === undefined && models.length > 1) fail(['model'], 'required when more than one model is configured');
}

/** The model a checked config names, or the only one. */
export function modelNamed(name: string | undefined, models: readonly ReconcileModel[]): ReconcileModel {
  const model = models.find((m) => m.name === name) ?? models[0];
  if (!model) throw new Error('no model is configured');
  return model;
}
