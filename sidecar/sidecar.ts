/**
 * The sidecar: the one place that reads the config and wires components (sidecar/registry.ts). Two pipelines, one
 * contract: sources hand records to a sink (analyzed attempts to the Analyzer, recreation observations to the
 * RecreationAnalyzer), and outputs subscribe to both as guarded listeners, so a failing output is counted
 * (`internal_errors_total{kind="publish"}`) and never breaks a pipeline. Every source reports its health through the
 * same hooks (health.ts). Sources are started last and stopped first, so nothing arrives that cannot be published,
 * and everything in flight at shutdown is handed on before outputs stop. In the embedded demo the simulated worlds run
 * on a sped-up clock; the analysis, the live summary and /summary follow it (and say so), while every metric stays in
 * wall-clock time.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { Analyzer } from '../analyzer/analyzer.js';
import { DEFAULT_THRESHOLDS } from '../analyzer/decisions/thresholds.js';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_STUCK_SERIES, DEFAULT_SENTINEL_INTERVAL_SECONDS, type RecreationSettings } from '../analyzer/recreations/config.js';
import { WALL_CLOCK, type Clock, type SourceComponent, type SourceContext, type SourceHooks } from '../collector/component.js';
import type { Timers } from '../collector/kube/informer.js';
import type { Source, SourceKind } from '../collector/records.js';
import type { Address } from '../lib/schema.js';
import {
  INTERNAL_ERROR_KINDS,
  type InternalErrorKind,
  type Output,
  type OutputComponent,
  type OutputContext,
  type GuardedEndpoint,
} from '../outputs/component.js';
import { createMetrics, type MetricSet } from '../outputs/metrics/registry.js';
import type { Config } from './config.js';
import { SourceHealth } from './health.js';
import { LogOnce } from './log-once.js';
import type { RecreationPipeline } from './recreations.js';
import { OUTPUTS, RECREATION_INPUTS, SOURCES } from './registry.js';
import { startHttpServer, type HttpServer } from './server.js';
import { VERSION } from './version.js';

export interface SidecarOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Where the live summary, the sources' notices and the first failure of each kind go. */
  readonly log?: (line: string) => void;
  /** Tests: the exporter to use instead of the one the OTEL_* variables would choose. */
  readonly traceExporter?: SpanExporter;
  /** Tests: the cluster Kubernetes sources talk to instead of their config's, and the timers they schedule with. */
  readonly kubeConfig?: KubeConfig;
  readonly timers?: Timers;
}

export interface Sidecar {
  readonly metricsAddress: Address;
  /** Where the guarded endpoints (/summary, /partial, a fleet's /report) are served, or undefined when nowhere (server.ts says why). */
  readonly guardedAddress: Address | undefined;
  readonly analyzer: Analyzer;
  /** The recreation pipeline, when one runs. */
  readonly recreations: RecreationPipeline | undefined;
  readonly metrics: MetricSet;
  /** One per configured source, in start order. */
  readonly sources: readonly Source[];
  /** The time the pipelines run at: wall clock, or the simulator's virtual clock in the demo. */
  readonly now: () => number;
  stop(): Promise<void>;
}

export class SourceStartError extends Error {
  constructor(
    readonly source: SourceKind,
    cause: unknown,
  ) {
    super(`source ${source} failed to start: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'SourceStartError';
  }
}

/** A source the config turns on: its component and its section. */
interface Planned {
  readonly component: SourceComponent;
  readonly config: unknown;
}

/** The recreation inputs first (in registry order), then the attempt sources: the order they start in. */
function plannedSources(config: Config): Planned[] {
  const planned: Planned[] = [];
  const recreations = config.recreations;
  if (recreations) {
    if (recreations.hyperfleet) planned.push({ component: RECREATION_INPUTS.hyperfleet, config: recreations.hyperfleet });
    if (recreations.maestro) planned.push({ component: RECREATION_INPUTS.maestro, config: recreations.maestro });
    planned.push({ component: RECREATION_INPUTS.objects, config: recreations.objects ?? {} });
  }
  for (const [key, component] of Object.entries(SOURCES)) {
    const section: unknown = config.sources[key as keyof typeof SOURCES];
    if (section !== undefined) planned.push({ component, config: section });
  }
  return planned;
}

/** The recreation analyzer's settings: the config's section, or what a source needs (the demo's adapter world). */
function recreationSettings(config: Config, planned: readonly Planned[]): { settings: RecreationSettings; resourceTypes: string[] } | undefined {
  if (config.recreations) {
    // A collection's resources are measured under their kind, lowercased: `clusters` → `cluster`.
    return { settings: config.recreations, resourceTypes: (config.recreations.hyperfleet?.kinds ?? []).map((c) => c.replace(/s$/, '')) };
  }
  for (const p of planned) {
    const need = p.component.recreations?.(p.config);
    if (!need) continue;
    const settings: RecreationSettings = {
      taskConfig: need.taskConfig,
      ...(need.proposals ? { proposals: need.proposals } : {}),
      sentinelInterval: DEFAULT_SENTINEL_INTERVAL_SECONDS * 1000,
      stuckThresholds: { default: need.stuckThresholdMs },
      maxInFlight: DEFAULT_MAX_IN_FLIGHT,
      maxStuckSeries: DEFAULT_MAX_STUCK_SERIES,
    };
    // The simulated world reports its clusters' Reconciled condition as the HyperFleet API would.
    return { settings, resourceTypes: ['cluster'] };
  }
  return undefined;
}

export async function startSidecar(config: Config, options: SidecarOptions = {}): Promise<Sidecar> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const logOnce = new LogOnce(log);
  const metrics = createMetrics();
  const m = metrics.metrics;
  for (const kind of INTERNAL_ERROR_KINDS) m.reconcile_shadow_internal_errors_total.inc({ kind }, 0);
  const failed = (kind: InternalErrorKind, e: unknown, count = 1): void => {
    m.reconcile_shadow_internal_errors_total.inc({ kind }, count);
    logOnce.error(kind, e);
  };
  const health = new SourceHealth(
    (source, up) => m.reconcile_shadow_source_up.set({ source }, up ? 1 : 0),
    (source, e, reason) => {
      m.reconcile_shadow_internal_errors_total.inc({ kind: 'source' });
      if (reason !== undefined) m.reconcile_shadow_source_failures_total.inc({ source, reason });
      logOnce.error(`source ${source}`, e);
    },
    (source, line) => log(`source ${source}: ${line}`),
  );

  const planned = plannedSources(config);
  const ownClock = planned.map((p) => p.component.clock?.(p.config)).find((c) => c !== undefined);
  const clock: Clock = ownClock ?? (options.timers ? { now: () => options.timers!.now(), speed: 1, simulated: false } : WALL_CLOCK);
  const analyzer = new Analyzer(config.models, (e) => failed('publish', e), config.maxTrackedObjects);
  const wanted = recreationSettings(config, planned);
  // Loaded only when configured: the CEL runtime and the rules. Reading the task config can throw a ValidationError,
  // which stops the start as an invalid config does.
  const recreations = wanted
    ? new (await import('./recreations.js')).RecreationPipeline(
        wanted.settings,
        wanted.resourceTypes,
        (e) => failed('publish', e),
        (r) => analyzer.reject(r),
      )
    : undefined;

  const context: SourceContext = {
    models: config.models,
    env,
    clock,
    watches: recreations?.watches ?? [],
    ...(options.kubeConfig ? { kubeConfig: options.kubeConfig } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
  };
  const peers = config.sources.peers;
  // Loaded only when configured: the partial format and the decisions behind it.
  const fleet = peers ? new (await import('../analyzer/fleet/fleet.js')).FleetState({ keepForMs: peers.keepFor, thresholds: DEFAULT_THRESHOLDS }) : undefined;
  const sinks = { attempts: analyzer, ...(recreations ? { observations: recreations.analyzer } : {}), ...(fleet ? { partials: fleet } : {}) };
  const sources: Source[] = [];
  const hooksOf = new Map<Source, SourceHooks>();
  for (const { component, config: section } of planned) {
    const hooks = health.register(component.kind);
    for (const reason of component.failureReasons ?? []) m.reconcile_shadow_source_failures_total.inc({ source: component.kind, reason }, 0);
    try {
      // A source that cannot even be built (a missing token file, no pod name) fails start naming the source.
      const source = await component.create(section, sinks, hooks, context);
      health.attach(source);
      sources.push(source);
      hooksOf.set(source, hooks);
    } catch (e) {
      throw new SourceStartError(component.kind, e);
    }
  }

  const outputContext: OutputContext = {
    analyzer,
    recreations,
    fleet,
    metrics,
    clock,
    sources: planned.map((p) => ({ kind: p.component.kind, reasons: p.component.reasons })),
    sourceHealth: health,
    version: VERSION,
    env,
    log,
    failed,
    ...(options.traceExporter ? { traceExporter: options.traceExporter } : {}),
  };
  const outputs: Output[] = [];
  for (const [key, component] of Object.entries(OUTPUTS) as [string, OutputComponent][]) {
    const section: unknown = key in config ? config[key as keyof Config] : undefined;
    if (!component.enabled(section, env)) continue;
    const output = await component.create(section, outputContext);
    if (output.attempts) analyzer.listen(output.attempts);
    if (output.recreations) recreations?.analyzer.listen(output.recreations);
    outputs.push(output);
  }
  const stopOutputs = async (): Promise<void> => {
    for (const o of [...outputs].reverse()) await o.stop?.();
  };

  const guarded = new Map<string, GuardedEndpoint>();
  let token: string | undefined;
  for (const e of outputs.flatMap((o) => o.endpoints ?? [])) {
    guarded.set(e.path, e.serve);
    token ??= e.token;
  }
  let ready = false;
  let server: HttpServer;
  try {
    server = await startHttpServer(
      {
        metrics: config.listen.metrics,
        ...(config.listen.summary ? { guarded: config.listen.summary } : {}),
        ...(token === undefined ? {} : { token }),
      },
      {
        metrics: async () => {
          for (const o of outputs) o.refresh?.();
          health.refresh((source, truncated) => m.reconcile_shadow_source_truncated.set({ source }, truncated ? 1 : 0));
          return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
        },
        guarded,
        readiness: () => ({ ready, detail: health.lines() }),
      },
      (endpoint, e) => failed(endpoint, e),
    );
  } catch (e) {
    await stopOutputs();
    throw e;
  }

  const started: Source[] = [];
  const stopSources = async (): Promise<void> => {
    for (const s of [...started].reverse()) {
      health.stopped(s.kind);
      await s.stop().catch((e: unknown) => hooksOf.get(s)?.error(e));
    }
  };
  for (const source of sources) {
    try {
      await source.start();
      started.push(source);
      health.started(source.kind);
    } catch (e) {
      await stopSources();
      await stopOutputs();
      await server.close();
      throw new SourceStartError(source.kind, e);
    }
  }
  ready = true;

  return {
    metricsAddress: server.address,
    guardedAddress: server.guardedAddress,
    analyzer,
    recreations,
    metrics,
    sources,
    now: clock.now,
    async stop() {
      ready = false;
      await stopSources();
      await stopOutputs();
      await server.close();
    },
  };
}
