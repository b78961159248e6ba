/**
 * The sidecar: sources feed one analyzer; the analyzer feeds metrics, traces and the report; an HTTP server serves
 * them. Sources are started last and stopped first, so nothing arrives that cannot be published, and everything
 * in flight at shutdown is handed on before traces are flushed.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { createMetrics, type MetricSet } from '../analyzer/metrics/registry.js';
import { MetricsPublisher, type InternalErrorKind } from '../analyzer/publish/metrics.js';
import { exporterFromEnv, startTraceOutput, tracesEnabledByEnv, type TraceOutput } from '../analyzer/publish/traces.js';
import type { RecordSink, Source } from '../collector/records.js';
import type { RecreationService } from '../analyzer/recreations/live.js';
import type { ShadowConfig } from './config.js';
import type { Address } from './config-schema.js';
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

export interface Sidecar {
  readonly metricsAddress: Address;
  readonly analyzer: ShadowAnalyzer;
  readonly metrics: MetricSet;
  readonly sources: readonly Source[];
  /** The time the analysis runs at: wall clock, or the simulator's virtual clock in the demo. */
  readonly now: () => number;
  stop(): Promise<void>;
}


/**
 * The recreation shadow: live from the config's `recreations` section, or, in the embedded demo, a simulated adapter
 * world on the same virtual clock as the simulated fleet.
 */
async function recreationService(
  config: ShadowConfig,
  simulator: SimulatorSource | undefined,
  metrics: MetricSet,
  sink: RecordSink,
  up: (input: 'objects' | 'hyperfleet', up: boolean) => void,
  logOnce: LogOnce,
): Promise<RecreationService | undefined> {
  if (!config.recreations && !(simulator && config.sources.simulator?.recreations)) return undefined;
  // Loaded only when used: the live service brings @kubernetes/client-node with it.
  const { RecreationService } = await import('../analyzer/recreations/live.js');
  if (config.recreations) {
    return RecreationService.live(config.recreations, {
      metrics: metrics.metrics,
      rejected: (r) => sink.reject(r),
      inputState: (input, isUp) => up(input === 'kubernetes' ? 'objects' : 'hyperfleet', isUp),
      inputError: (input, e) => logOnce.error(`source ${input}`, e),
    });
  }
  if (simulator && config.sources.simulator?.recreations) {
    return RecreationService.simulated({ metrics: metrics.metrics, speed: config.sources.simulator.speed, tickMs: 200, world: { startMs: simulator.now() } });
  }
  return undefined;
}

export async function startSidecar(config: ShadowConfig, options: SidecarOptions = {}): Promise<Sidecar> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const logOnce = new LogOnce(log);
  const metrics = createMetrics();
  const internalError = (kind: InternalErrorKind, e: unknown): void => {
    metrics.metrics.reconcile_shadow_internal_errors_total.inc({ kind });
    logOnce.error(kind, e);
  };

  const analyzer = new ShadowAnalyzer(config.models, (e) => internalError('publish', e), config.maxTrackedObjects);
  const simulator = config.sources.simulator ? new SimulatorSource(config.models, { ...config.sources.simulator, tickMs: 200 }, analyzer) : undefined;
  const now = simulator ? simulator.now : Date.now;
  const publisher = new MetricsPublisher(metrics.metrics, analyzer.shadows, now, { version: VERSION });
  analyzer.listen(publisher);

  let traces: TraceOutput | undefined;
  if (config.traces.enabled ?? tracesEnabledByEnv(env)) {
    traces = startTraceOutput(options.traceExporter ?? exporterFromEnv(env), VERSION, () => internalError('trace_export', new Error('span export failed')));
    analyzer.listen(traces.listener);
  }

  const recreations = await recreationService(config, simulator, metrics, analyzer, (input, up) => metrics.metrics.reconcile_shadow_source_up.set({ source: input }, up ? 1 : 0), logOnce);
  const sources: Source[] = [
    ...(simulator ? [simulator] : []),
    ...(recreations?.sources ?? []),
    ...(await configuredSources(config, analyzer, {
      up: (source, up) => metrics.metrics.reconcile_shadow_source_up.set({ source }, up ? 1 : 0),
      error: (source, e) => logOnce.error(`source ${source}`, e),
      info: (source, line) => log(`source ${source}: ${line}`),
    }, env)),
  ];

  let ready = false;
  const server: HttpServer = await startHttpServer(
    config.listen.metrics,
    {
      metrics: async () => {
        publisher.refresh();
        recreations?.refresh();
        return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
      },
      report: () => analyzer.report(),
      ready: () => ready,
    },
    (e) => internalError('report', e),
  );

  const started: Source[] = [];
  const stopAll = async (): Promise<void> => {
    for (const s of [...started].reverse()) await s.stop().catch((e: unknown) => internalError('source', e));
  };
  for (const source of sources) {
    try {
      await source.start();
      started.push(source);
    } catch (e) {
      await stopAll();
      await traces?.shutdown();
      await server.close();
      throw new SourceStartError(source.kind, e);
    }
  }
  ready = true;

  let summaryTimer: NodeJS.Timeout | undefined;
  if (config.summary.enabled) {
    const previous = new Map<string, number>();
    summaryTimer = setInterval(() => log(liveSummary(analyzer.report(), previous, config.summary.intervalMs / 1000, { lines: recreations ? [recreations.summaryLine()] : [] })), config.summary.intervalMs);
    summaryTimer.unref();
  }

  return {
    metricsAddress: server.address,
    analyzer,
    metrics,
    sources,
    now,
    async stop() {
      ready = false;
      clearInterval(summaryTimer);
      await stopAll();
      await traces?.shutdown().catch((e: unknown) => internalError('trace_export', e));
      await server.close();
    },
  };
}
