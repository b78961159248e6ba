/**
 * OTLP ingest: spans/s from request body to updated metrics (decode → queue → assemble attempts → both loops →
 * metrics), for bodies the real OTel exporters sent (captured once from a local HTTP server), against decoding the
 * same bodies alone: protobufjs for protobuf, JSON.parse of the body's UTF-8 text (toString included) for JSON. The
 * path is the receiver's, without HTTP: the decoded batch goes through the receiver's span queue to the assembler,
 * set up as `run` sets it up (it knows the model's operations).
 */
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Analyzer } from '../analyzer/analyzer.js';
import { createMetrics } from '../outputs/metrics/registry.js';
import { MetricsPublisher } from '../outputs/metrics/publisher.js';
import { DEFAULT_SPAN_ASSEMBLER_OPTIONS, SpanAssembler } from '../collector/otlp/internal/assembler.js';
import { decodeTraceBatch } from '../collector/otlp/internal/decode.js';
import { emitAttempt } from '../collector/otlp/internal/emit.js';
import { otlpTypes } from '../collector/otlp/internal/proto.js';
import { SpanQueue } from '../collector/otlp/internal/queue.js';
import { DEFAULT_LIMITS } from '../collector/otlp/internal/receiver.js';
import type { Scheduler } from '../collector/otlp/internal/scheduler.js';
import { captureExportedBodies } from '../test/support/exporter-bodies.js';
import { fleetDay, HYPERSHIFT } from './data.js';
import { atLeast, throughputSideBySide, type BenchResult } from './harness.js';

const ATTEMPTS = 3000;

/** Timers never fire during a pass; flush() at the end of the pass hands on whatever is still pending. */
const still: Scheduler = { now: () => 0, setTimer: () => ({ cancel: () => undefined }), defer: (run) => run() };

function ingest(bodies: readonly Buffer[], encoding: 'protobuf' | 'json'): () => void {
  return () => {
    const { metrics } = createMetrics();
    const analyzer = new Analyzer([HYPERSHIFT]);
    analyzer.listen(new MetricsPublisher(metrics, analyzer.controllers, () => 0, { version: 'bench' }));
    const knownOperations = new Set(HYPERSHIFT.operations.map((op) => op.name));
    const assembler = new SpanAssembler(
      { ...DEFAULT_SPAN_ASSEMBLER_OPTIONS, maxPendingAttempts: 1_000_000, maxPendingSpans: 10_000_000, knownOperations },
      analyzer,
      still,
    );
    const queue = new SpanQueue(
      Infinity,
      Infinity,
      1_000,
      { span: (batch, i, where) => assembler.addFrom(batch, i, where), reject: (r) => analyzer.reject(r) },
      still,
    );
    for (const body of bodies) {
      const { batch } = decodeTraceBatch(body, encoding, DEFAULT_LIMITS);
      analyzer.received('otlp', batch.length);
      queue.push(batch, 'bench');
    }
    assembler.flush();
    if (analyzer.summary().controllers[0]!.attempts.total !== ATTEMPTS) throw new Error('not every attempt was assembled');
  };
}

export async function benchOtlp(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const encoding of ['protobuf', 'json'] as const) {
    const bodies = await captureExportedBodies(
      (url) => (encoding === 'protobuf' ? new ProtoExporter({ url, concurrencyLimit: 10_000 }) : new JsonExporter({ url, concurrencyLimit: 10_000 })),
      (tracer) => {
        for (const record of fleetDay().slice(0, ATTEMPTS)) emitAttempt(tracer, record);
      },
      { scope: 'bench' },
    );
    const spans = bodies.reduce((n, b) => n + decodeTraceBatch(b, encoding, DEFAULT_LIMITS).batch.length, 0);
    const request = otlpTypes().request;
    let decoded = 0;
    const [figure, baseline] = await throughputSideBySide(spans, ingest(bodies, encoding), () => {
      for (const body of bodies)
        decoded += encoding === 'protobuf' ? (request.decode(body) === null ? 0 : 1) : (JSON.parse(body.toString('utf8')) as unknown) === null ? 0 : 1;
    });
    if (decoded === 0) throw new Error('nothing decoded');
    const bytes = bodies.reduce((n, b) => n + b.length, 0);
    results.push(
      atLeast(
        `OTLP ${encoding} ingest`,
        'spans/s',
        figure,
        baseline,
        0.6,
        `${spans} spans in ${bodies.length} bodies (${(bytes / 2 ** 20).toFixed(1)} MiB) from the real exporter`,
      ),
    );
  }
  return results;
}
