/**
 * One OpenTelemetry span per analyzed attempt (`shadow.attempt`), with a child span for each step of the projected
 * loop. Error status only on real observed failures; predicted outcomes are attributes, never errors. A span link
 * points at the operator's own trace when the attempt came over OTLP. Export runs in the background (batch
 * processor); a failed export is counted and never blocks or changes analysis.
 */
import { context, SpanStatusCode, trace, type Link, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { AnalysisListener } from '../../analyzer/analyzer.js';
import { ERROR, OUTCOME_NAME } from '../../analyzer/compiled-model.js';
import type { AttemptAnalysis } from '../../analyzer/engine.js';
import type { ControllerAnalyzer } from '../../analyzer/controller-analyzer.js';

/** Counts failed exports, then hands the result on, so the batch processor's own handling is unchanged. */
class CountingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly onFailure: () => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.onFailure();
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The exporter the standard variables ask for: http/protobuf (the OTLP default) or http/json. */
export function exporterFromEnv(env: NodeJS.ProcessEnv): SpanExporter {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  // The exporters read process.env themselves; the URL is passed so the environment the sidecar was given is the one used.
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/$/, '');
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined);
  const config = url ? { url } : {};
  return protocol === 'http/json' ? new JsonExporter(config) : new ProtoExporter(config);
}

export interface TraceOutput {
  readonly listener: TracePublisher;
  shutdown(): Promise<void>;
}

export function startTraceOutput(exporter: SpanExporter, version: string, onExportFailure: () => void): TraceOutput {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'reconcile-shadow', [ATTR_SERVICE_VERSION]: version }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new CountingExporter(exporter, onExportFailure), maxQueueSize: 8192 })],
  });
  return { listener: new TracePublisher(provider.getTracer('reconcile-shadow', version)), shutdown: () => provider.shutdown() };
}

export class TracePublisher implements AnalysisListener {
  constructor(private readonly tracer: Tracer) {}

  attempt(controller: ControllerAnalyzer, a: AttemptAnalysis): void {
    const cm = controller.cm;
    const r = a.record;
    const projected = r.loop === 'sequential' ? 'phased' : 'sequential';
    const run = projected === 'phased' ? a.phased : a.sequential;
    const names = (ops: readonly number[]): string[] => ops.map((op) => cm.ops[op]!);
    const links: Link[] = r.origin.traceId && r.origin.spanId ? [{ context: { traceId: r.origin.traceId, spanId: r.origin.spanId, traceFlags: 1 } }] : [];
    const end = r.timeMs + r.operations.reduce((sum, op) => sum + (op.durationSeconds ?? 0) * 1000, 0);
    const root = this.tracer.startSpan('shadow.attempt', {
      startTime: r.timeMs,
      links,
      attributes: {
        'reconcile.controller': r.controller,
        'reconcile.object': r.object,
        'reconcile.observed_loop': r.loop,
        'reconcile.projected_loop': projected,
        'reconcile.diverged': a.diverged,
        'reconcile.unblocked': names(a.unblocked),
        ...(a.structural.length > 0 ? { 'reconcile.structural': names(a.structural) } : {}),
        'reconcile.newly_blocked': names(a.newlyBlocked),
        'reconcile.source': r.origin.source,
        ...(r.generation === undefined ? {} : { 'reconcile.generation': r.generation }),
      },
    });
    const ctx = trace.setSpan(context.active(), root);
    const order =
      projected === 'phased'
        ? cm.ops
            .map((_, i) => i)
            .filter((i) => cm.phasedPosition[i]! >= 0)
            .sort((x, y) => cm.phasedPosition[x]! - cm.phasedPosition[y]!)
        : cm.sequentialOrder;
    for (const op of order) {
      if (run.ran[op] !== 1) continue;
      const observed = a.observed[op] === 1;
      const group = cm.groupOf[op]! >= 0 ? cm.groups[cm.groupOf[op]!]!.name : undefined;
      const span = this.tracer.startSpan(
        cm.ops[op]!,
        {
          startTime: r.timeMs,
          attributes: { 'reconcile.outcome': OUTCOME_NAME[a.outcomes[op]!], 'reconcile.predicted': !observed, ...(group ? { 'reconcile.group': group } : {}) },
        },
        ctx,
      );
      if (observed && a.outcomes[op] === ERROR) {
        const message = r.operations.find((o) => o.name === cm.ops[op])?.error ?? 'error';
        span.setStatus({ code: SpanStatusCode.ERROR, message });
      }
      span.end(end);
    }
    root.end(end);
  }
}
