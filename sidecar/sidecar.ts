/**
 * The sidecar: sources feed one analyzer; the analyzer feeds metrics, traces and the report; an HTTP server serves
 * them. Sources are started last and stopped first, so nothing arrives that cannot be published, and everything
 * in flight at shutdown is handed on before traces are flushed. Every source reports its health the same way
 * (health.ts). In the embedded demo the simulated worlds run on a sped-up clock; the analysis, the live summary and
 * /report follow it (and say so), while every metric stays in wall-clock time.
 */
import { readFileSync } from 'node:fs';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { createMetrics, type MetricSet } from '../analyzer/metrics/registry.js';
import { INTERNAL_ERROR_KINDS, MetricsPublisher, type InternalErrorKind } from '../analyzer/publish/metrics.js';
import { exporterFromEnv, startTraceOutput, tracesEnabledByEnv, type TraceOutput } from '../analyzer/publish/traces.js';
import type { ShadowReport } from '../analyzer/report/summary.js';
import { JournalSource } from '../collector/journal-source.js';
import type { RecordSink, Source, SourceKind } from '../collector/records.js';
import type { RecreationService } from '../analyzer/recreations/live.js';
import type { ShadowConfig } from './config.js';
import type { Address } from './config-schema.js';
import { SourceHealth } from './health.js';
import { liveSummary } from './live-summary.js';
import { LogOnce } from './log-once.js';
import { startHttpServer, type HttpServer } from './server.js';
import { SimulatorSource } from './simulator-source.js';
import { configuredSources, SourceStartError } from './sources.js';

export { SourceStartError } from './sources.js';
import { VERSION } from './version.js';

export interface SidecarOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Where the live summary and the first failure of each kind go. */
  readonly log?: (line: string) => void;
  /** Overrides the exporter the OTEL_* variables would choose (tests). */
  readonly traceExporter?: SpanExporter;
}

/** The clock the analysis runs on, when it is not the wall clock: the demo's simulated worlds. */
export interface SimulatedClock {
  /** Simulated seconds per wall-clock second. */
  readonly speed: number;
}

export interface Sidecar {
  readonly metricsAddress: Address;
  /** Where /report is served, or undefined when nowhere (server.ts says why). */
  readonly reportAddress: Address | undefined;
  readonly analyzer: ShadowAnalyzer;
  readonly metrics: MetricSet;
  /** One per configured source, in start order. */
  readonly sources: readonly Source[];
  /** The time the analysis runs at: wall clock, or the simulator's virtual clock in the demo. */
  readonly now: () => number;
  stop(): Promise<void>;
}

/** What GET /report serves: the report, and in the demo a word that its times are simulated. */
type ServedReport = ShadowReport & { readonly clock?: { readonly simulated: true; readonly speed: number; readonly note: string } };

/** Several inputs started and stopped as one source (the simulated fleet and the adapter world beside it). */
function together(kind: SourceKind, parts: readonly Source[]): Source {
  return {
    kind,
    async start() {
      for (const p of parts) await p.start();
    },
    async stop() {
      for (const p of [...parts].reverse()) await p.stop();
    },
  };
}

const MINUTE = 60_000;

/**
 * The embedded demo's adapter world: clusters change every 6 simulated minutes on average and 40 % of the Job
 * deletions are held by a finalizer, and a recreation counts as stuck after 3 simulated minutes, so a recreation in
 * flight, a finished one and a stuck one all show within the demo's first 15 s (15 simulated minutes at 60×).
 */
const DEMO_ADAPTER_WORLD = { meanChangeMs: 6 * MINUTE, holdProbability: 0.4 };
const DEMO_STUCK_THRESHOLD_MS = 3 * MINUTE;

/**
 * The recreation shadow: live from the config's `recreations` section, or, in the embedded demo, a simulated adapter
 * world on the same virtual clock as the simulated fleet.
 */
async function recreationService(config: ShadowConfig, simulator: SimulatorSource | undefined, metrics: MetricSet, sink: RecordSink, health: SourceHealth): Promise<RecreationService | undefined> {
  if (!config.recreations && !(simulator && config.sources.simulator?.recreations)) return undefined;
  // Loaded only when used: the live service brings @kubernetes/client-node with it.
  const { RecreationService } = await import('../analyzer/recreations/live.js');
  if (config.recreations) {
    const kindOf = (input: 'kubernetes' | 'hyperfleet'): SourceKind => (input === 'kubernetes' ? 'objects' : 'hyperfleet');
    return RecreationService.live(config.recreations, {
      metrics: metrics.metrics,
      rejected: (r) => sink.reject(r),
      inputState: (input, up, part) => health.state(kindOf(input), up, part),
      inputError: (input, e) => health.error(kindOf(input), e),
    });
  }
  if (simulator && config.sources.simulator?.recreations) {
    return RecreationService.simulated({
      metrics: metrics.metrics,
      speed: config.sources.simulator.speed,
      tickMs: 200,
      world: { ...DEMO_ADAPTER_WORLD, startMs: simulator.now() },
      stuckThresholdMs: DEMO_STUCK_THRESHOLD_MS,
    });
  }
  return undefined;
}

/**
 * The /report bearer token from its file, without the trailing newline editors leave. A problem names the key and
 * the file, and carries a code so `run` reports it as a start failure.
 */
function readToken(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw Object.assign(new Error(`report.bearerTokenFile: ${(e as Error).message}`), { code: (e as NodeJS.ErrnoException).code });
  }
  if (token === '') throw Object.assign(new Error(`report.bearerTokenFile: ${path} is empty`), { code: 'EINVAL' });
  return token;
}

export async function startSidecar(config: ShadowConfig, options: SidecarOptions = {}): Promise<Sidecar> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const logOnce = new LogOnce(log);
  const reportToken = config.report.bearerTokenFile === undefined ? undefined : readToken(config.report.bearerTokenFile);
  const metrics = createMetrics();
  const m = metrics.metrics;
  for (const kind of INTERNAL_ERROR_KINDS) m.reconcile_shadow_internal_errors_total.inc({ kind }, 0);
  const internalError = (kind: InternalErrorKind, e: unknown): void => {
    m.reconcile_shadow_internal_errors_total.inc({ kind });
    logOnce.error(kind, e);
  };
  const health = new SourceHealth(
    (source, up) => m.reconcile_shadow_source_up.set({ source }, up ? 1 : 0),
    (source, e, count) => {
      m.reconcile_shadow_internal_errors_total.inc({ kind: 'source' }, count);
      logOnce.error(`source ${source}`, e);
    },
  );

  const analyzer = new ShadowAnalyzer(config.models, (e) => internalError('publish', e), config.maxTrackedObjects);
  const simulated = config.sources.simulator;
  const simulator = simulated ? new SimulatorSource(config.models, { ...simulated, tickMs: 200 }, analyzer) : undefined;
  const simulatedClock: SimulatedClock | undefined = simulated ? { speed: simulated.speed } : undefined;
  const now = simulator ? simulator.now : Date.now;

  let traces: TraceOutput | undefined;
  if (config.traces.enabled ?? tracesEnabledByEnv(env)) {
    traces = startTraceOutput(options.traceExporter ?? exporterFromEnv(env), VERSION, () => internalError('trace_export', new Error('span export failed')));
  }

  const recreations = await recreationService(config, simulator, metrics, analyzer, health);
  const sources: Source[] = [
    ...(simulator ? [together('simulator', [simulator, ...(recreations && !config.recreations ? recreations.sources : [])])] : []),
    ...(config.recreations ? (recreations?.sources ?? []) : []),
    ...(await configuredSources(config, analyzer, { up: (source, up) => health.state(source, up), error: (source, e) => health.error(source, e), info: (source, line) => log(`source ${source}: ${line}`) }, env)),
  ];
  for (const source of sources) health.track(source);

  const publisher = new MetricsPublisher(m, analyzer.shadows, now, { version: VERSION, sources: sources.map((s) => s.kind), speed: simulatedClock?.speed ?? 1 });
  analyzer.listen(publisher);
  if (traces) analyzer.listen(traces.listener);

  const report = (): ServedReport => {
    const r = analyzer.report();
    if (!simulatedClock) return r;
    const note = `times and windows are simulated fleet time, running ${simulatedClock.speed}× wall-clock speed; /metrics is in wall-clock time`;
    return { ...r, clock: { simulated: true, speed: simulatedClock.speed, note } };
  };

  let ready = false;
  const server: HttpServer = await startHttpServer(
    { metrics: config.listen.metrics, ...(config.listen.report ? { report: config.listen.report } : {}), ...(reportToken === undefined ? {} : { reportToken }) },
    {
      metrics: async () => {
        publisher.refresh();
        recreations?.refresh();
        health.refresh();
        return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
      },
      report,
      readiness: () => ({ ready, detail: health.lines() }),
    },
    (endpoint, e) => internalError(endpoint, e),
  );

  const started: Source[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of [...started].reverse()) {
      health.stopped(s.kind);
      await s.stop().catch((e: unknown) => health.error(s.kind, e));
    }
  };
  for (const source of sources) {
    try {
      await source.start();
      started.push(source);
      health.started(source.kind);
    } catch (e) {
      await stopAll();
      await traces?.shutdown();
      await server.close();
      throw new SourceStartError(source.kind, e);
    }
    // A journal that cannot be read to its end: counted and logged, and the source is down.
    if (source instanceof JournalSource) source.done.catch((e: unknown) => health.error('journal', e));
  }
  ready = true;

  let summaryTimer: NodeJS.Timeout | undefined;
  if (config.summary.enabled) {
    const previous = new Map<string, number>();
    let first = true;
    summaryTimer = setInterval(() => {
      const lines = recreations ? [recreations.summaryLine()] : [];
      log(liveSummary(analyzer.report(), previous, config.summary.intervalMs / 1000, { lines, ...(first && simulatedClock ? { header: clockLine(simulatedClock) } : {}) }));
      first = false;
    }, config.summary.intervalMs);
    summaryTimer.unref();
  }

  return {
    metricsAddress: server.address,
    reportAddress: server.reportAddress,
    analyzer,
    metrics,
    sources,
    now,
    async stop() {
      ready = false;
      clearInterval(summaryTimer);
      await stopAll();
      // A failed last export was counted by the exporter; the flush failing with it is the same failure.
      await traces?.shutdown().catch((e: unknown) => logOnce.error('trace_export', e));
      await server.close();
    },
  };
}

/** The first live summary's word on time in the demo. */
export function clockLine(clock: SimulatedClock): string {
  return `simulated clock: ${clock.speed}× wall-clock speed (a simulated minute every ${formatSeconds(60 / clock.speed)}); this summary and /report are in simulated time, /metrics in wall-clock time`;
}

const formatSeconds = (s: number): string => (s >= 1 ? `${Number(s.toFixed(1))} s` : `${Math.round(s * 1000)} ms`);
