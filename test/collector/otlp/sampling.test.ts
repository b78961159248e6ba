/**
 * Sampled traces: spans carrying OpenTelemetry's consistent-probability sampling threshold (tracestate `ot=th:…`) are
 * weighted by their adjusted count, 2^56 / (2^56 - T), and the summary says its figures are estimates. The spans are
 * the real OTel JS SDK's: a root started under a remote parent whose tracestate holds the threshold, as a
 * consistent-probability sampler upstream of the operator leaves it; the SDK copies it to every span of the trace.
 */
import { deepStrictEqual, strictEqual } from 'node:assert';
import { join } from 'node:path';
import { ROOT_CONTEXT, SpanStatusCode, TraceFlags, createTraceState, trace, type HrTime, type Tracer } from '@opentelemetry/api';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { SAMPLED_ESTIMATE } from '../../../analyzer/summary/summary-state.js';
import { OtlpReceiver } from '../../../collector/otlp/internal/receiver.js';
import { adjustedCount, samplingThreshold } from '../../../collector/otlp/internal/sampling.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { MetricsPublisher } from '../../../outputs/metrics/publisher.js';
import { loadModelFile } from '../../../sidecar/files.js';
import { SOURCES } from '../../../sidecar/registry.js';
import { REPO } from '../../support/paths.js';
import { parsePrometheusText, valueOf } from '../../support/prometheus-text.js';
import { CollectingSink, otlpExporter, tracerProvider, type Encoding } from './helpers.js';

const T0 = BigInt(Date.UTC(2026, 10, 1)) * 1_000_000n;
const at = (ms: number): HrTime => {
  const ns = T0 + BigInt(ms) * 1_000_000n;
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
};

/** One attempt of the example database operator, in a trace whose tracestate is `tracestate` (none: not sampled). */
function attempt(tracer: Tracer, ms: number, object: string, tracestate: string | undefined, fail: boolean): void {
  const parent =
    tracestate === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, {
          traceId: (ms + 1).toString(16).padStart(32, 'a'),
          spanId: 'bbbbbbbbbbbbbbbb',
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
          traceState: createTraceState(tracestate),
        });
  const root = tracer.startSpan(
    'reconcile',
    {
      startTime: at(ms),
      attributes: { 'reconcile.controller': 'postgrescluster', 'reconcile.object': object, 'reconcile.model': 'sequential', 'reconcile.operation_count': 2 },
    },
    parent,
  );
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  tracer.startSpan('FetchCluster', { startTime: at(ms + 1) }, ctx).end(at(ms + 2));
  const secrets = tracer.startSpan('EnsureSecrets', { startTime: at(ms + 2) }, ctx);
  if (fail) secrets.setStatus({ code: SpanStatusCode.ERROR, message: 'failed to reconcile credentials secret db/creds: forbidden' });
  secrets.end(at(ms + 3));
  root.end(at(ms + 4));
}

describe('otlp/sampling: consistent-probability sampled traces are weighted by their adjusted count', () => {
  it("reads th from the tracestate's ot entry, as the OTel spec writes it, and its adjusted count", () => {
    deepStrictEqual(
      ['ot=th:0', 'ot=th:8', 'ot=th:c;rv:9b8233f7e3a151', 'vendor=x,ot=rv:0123;th:e', 'ot=th:fd70a3d70a3d71'].map((ts) => [
        samplingThreshold(ts),
        adjustedCount(samplingThreshold(ts)!),
      ]),
      [
        ['0', 1],
        ['8', 2],
        ['c', 4],
        ['e', 8],
        // 1 %: 2^56 - T = 0x28f5c28f5c28f, exactly, so the count is 100 to a double's precision
        ['fd70a3d70a3d71', 2 ** 56 / 0x28f5c28f5c28f],
      ],
    );
    // no threshold, or one that is not 1-14 lowercase hex digits: not sampled (the count is unknown, not guessed)
    deepStrictEqual(['', 'vendor=x', 'ot=rv:0123', 'ot=th:', 'ot=th:XYZ', 'ot=th:123456789abcdef'].map(samplingThreshold), [
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  for (const encoding of ['protobuf', 'json'] as Encoding[]) {
    it(`weights what the ${encoding} exporter sends, in the metrics and the summary, which says its figures are estimates`, async () => {
      const sink = new CollectingSink();
      const receiver = new OtlpReceiver({ port: 0 }, sink);
      await receiver.start();
      const provider = tracerProvider(otlpExporter(encoding, `http://127.0.0.1:${receiver.address().port}/v1/traces`));
      try {
        const tracer = provider.getTracer('operator');
        attempt(tracer, 0, 'db/a', 'ot=th:c;rv:9b8233f7e3a151', true); // kept at 1/4: stands for 4
        attempt(tracer, 10, 'db/b', 'ot=th:8', false); // 1/2: 2
        attempt(tracer, 20, 'db/c', undefined, false); // not sampled: 1
        await provider.forceFlush();
        await sink.until('three attempts', () => sink.attempts.length === 3);
      } finally {
        await provider.shutdown();
        await receiver.stop();
      }
      const byObject = new Map(sink.attempts.map((a) => [a.object, a.origin.adjustedCount]));
      deepStrictEqual([...byObject].sort(), [
        ['db/a', 4],
        ['db/b', 2],
        ['db/c', undefined],
      ]);
      const analyzer = new Analyzer([loadModelFile(join(REPO, 'examples/database-operator/model.yaml'))]);
      const { registry, metrics } = createMetrics();
      const publisher = new MetricsPublisher(metrics, analyzer.controllers, Date.now, { version: 'test', sources: [SOURCES.otlp] });
      analyzer.listen(publisher);
      for (const a of [...sink.attempts].sort((x, y) => x.timeMs - y.timeMs)) analyzer.attempt(a);
      publisher.refresh();
      const samples = parsePrometheusText(await registry.metrics());
      deepStrictEqual(
        [
          valueOf(samples, 'reconcile_shadow_attempts_total'),
          valueOf(samples, 'reconcile_shadow_attempts_total', { diverged: 'true' }),
          valueOf(samples, 'reconcile_shadow_operation_observed_total', { operation: 'EnsureSecrets', outcome: 'error' }),
        ],
        [7, 4, 4],
      );
      const [summary] = analyzer.summary().controllers;
      deepStrictEqual(summary!.attempts, {
        total: 7,
        byObservedLoop: { sequential: 7, phased: 0 },
        bySource: { otlp: 7 },
        diverged: 4,
        divergenceRate: 4 / 7,
        structural: 0,
        partial: 0,
        sampled: 2,
        estimate: SAMPLED_ESTIMATE,
      });
      const op = (name: string): { observed: number; outcomes: unknown; unblocked: number } => {
        const o = summary!.operations.find((x) => x.name === name)!;
        return { observed: o.observed, outcomes: o.outcomes, unblocked: o.unblocked };
      };
      deepStrictEqual(op('EnsureSecrets'), { observed: 7, outcomes: { ok: 3, error: 4, stop: 0, skip: 0 }, unblocked: 0 });
      strictEqual(
        summary!.operations.filter((o) => o.unblocked > 0).every((o) => o.unblocked === 4),
        true,
      );
    });
  }
});
