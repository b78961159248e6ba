/**
 * `traces`: one OpenTelemetry span per analyzed attempt, exported over OTLP/HTTP (exporter.ts). On when the config
 * says so, or, left out, when the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT variables say where to send spans.
 * The OpenTelemetry SDK and its exporters are loaded only then: an idle sidecar without traces does not pay their
 * memory (bench/README.md, "Idle sidecar RSS").
 */
import type { OutputComponent } from '../component.js';

const schema = {
  kind: 'object',
  present: true,
  doc: 'export a span per analyzed attempt over OTLP/HTTP (OTEL_EXPORTER_OTLP_* variables)',
  fields: {
    enabled: { kind: 'boolean', doc: 'default: on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set' },
  },
} as const;

/** Tracing is on only when the standard OTLP endpoint variables say where to send spans. */
export function tracesEnabledByEnv(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

export const traces: OutputComponent<typeof schema> = {
  title: 'a span per analyzed attempt, over OTLP/HTTP',
  schema,
  enabled: (config, env) => config.enabled ?? tracesEnabledByEnv(env),
  async create(_config, ctx) {
    const { exporterFromEnv, startTraceOutput } = await import('./exporter.js');
    const output = startTraceOutput(ctx.traceExporter ?? exporterFromEnv(ctx.env), ctx.version, () =>
      ctx.failed('trace_export', new Error('span export failed')),
    );
    return {
      attempts: output.listener,
      // A failed last export was counted by the exporter; the flush failing with it is the same failure, not counted again.
      stop: () => output.shutdown().catch((e: unknown) => ctx.failed('trace_export', e, 0)),
    };
  },
};
