/**
 * OTLP/gRPC against the receiver: the real OTel JS gRPC exporter (@opentelemetry/exporter-trace-otlp-grpc), plain and
 * gzip, and a raw grpc-js client for what an exporter never sends (bytes that are not OTLP, a missing token, a message
 * past the limit, a full queue). Every bad call gets a gRPC status, never a hang, and is counted under the reason
 * the same fault has over OTLP/HTTP (collector/otlp/internal/intake.ts), so received = analyzed + dropped holds here too.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import grpc from '@grpc/grpc-js';
import { emitAttempt } from '../../../collector/otlp/internal/emit.js';
import { EXPORT_PATH, TRACE_SERVICE } from '../../../collector/otlp/internal/grpc.js';
import { otlpTypes } from '../../../collector/otlp/internal/proto.js';
import { OtlpReceiver, type OtlpReceiverOptions } from '../../../collector/otlp/internal/receiver.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { captureExportedBodies } from '../../support/exporter-bodies.js';
import { CollectingSink, ManualScheduler, capture, exportSpans, otlpExporter, tracerProvider, type ExporterConfig } from './helpers.js';
import { until } from '../../support/until.js';

const GZIP = 'gzip' as ExporterConfig['compression'];
const WHERE = new RegExp(`^gRPC ${EXPORT_PATH.replaceAll('.', '\\.')} #\\d+ from 127\\.0\\.0\\.1:\\d+$`);

function attempt(time: string, object: string, operations: AttemptRecord['operations']): AttemptRecord {
  return { time, timeMs: Date.parse(time), controller: 'hostedcluster', object, generation: 3, loop: 'sequential', operations, origin: { source: 'journal' } };
}

/** Two attempts, five spans. */
const ATTEMPTS: readonly AttemptRecord[] = [
  attempt('2026-11-01T00:00:05Z', 'clusters/hc-1', [
    { name: 'A', outcome: 'ok', durationSeconds: 0.25 },
    { name: 'B', outcome: 'error', error: 'failed in B: boom', durationSeconds: 0.5 },
  ]),
  attempt('2026-11-01T00:00:06Z', 'clusters/hc-2', [{ name: 'A', outcome: 'stop', durationSeconds: 0.125 }]),
];

const passThrough = (b: Buffer): Buffer => b;
const RawClient = grpc.makeGenericClientConstructor(
  {
    Export: {
      path: EXPORT_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: passThrough,
      requestDeserialize: passThrough,
      responseSerialize: passThrough,
      responseDeserialize: passThrough,
    },
  },
  TRACE_SERVICE,
);

interface RawAnswer {
  readonly code: grpc.status;
  readonly details: string;
  readonly response?: Buffer;
  readonly trailers?: grpc.Metadata;
}

/** One Export call with `message` as the request bytes. */
function rawExport(port: number, message: Buffer, metadata = new grpc.Metadata(), options: grpc.ClientOptions = {}): Promise<RawAnswer> {
  const client = new RawClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options);
  return new Promise((resolve) => {
    const call = (
      client as unknown as { Export: (m: Buffer, md: grpc.Metadata, cb: (e: grpc.ServiceError | null, r?: Buffer) => void) => grpc.ClientUnaryCall }
    ).Export(message, metadata, (e, response) => {
      client.close();
      resolve(e ? { code: e.code, details: e.details, trailers: e.metadata } : { code: grpc.status.OK, details: '', ...(response ? { response } : {}) });
    });
    void call;
  });
}

/** The spans of `attempts` as one ExportTraceServiceRequest, exactly as the real OTLP proto exporter sends it. */
async function requestBytes(attempts: readonly AttemptRecord[]): Promise<Buffer> {
  const bodies = await captureExportedBodies(
    (url) => otlpExporter('protobuf', url),
    (tracer) => attempts.forEach((a) => emitAttempt(tracer, a)),
    { scope: 'operator', batchSize: 100_000 },
  );
  strictEqual(bodies.length, 1);
  return bodies[0]!;
}

describe('otlp/grpc: OTLP/gRPC TraceService/Export into the same intake', function () {
  let receiver: OtlpReceiver | undefined;
  let sink: CollectingSink;
  const providers: { shutdown(): Promise<void> }[] = [];

  async function start(options: OtlpReceiverOptions = {}, clock = new ManualScheduler()): Promise<number> {
    sink = new CollectingSink();
    receiver = new OtlpReceiver({ port: 0, grpc: { port: 0 }, ...options }, sink, clock);
    await receiver.start();
    return receiver.grpcAddress().port;
  }

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((p) => p.shutdown()));
    await receiver?.stop();
    receiver = undefined;
    strictEqual(sink.receivedCount, sink.accountedFor, 'received = analyzed + dropped, in spans and refused requests');
  });

  for (const compression of ['none', 'gzip'] as const) {
    it(`assembles the attempts the real OTel gRPC exporter sends (${compression})`, async () => {
      const port = await start();
      const exporter = new GrpcTraceExporter({ url: `http://127.0.0.1:${port}`, ...(compression === 'gzip' ? { compression: GZIP } : {}) });
      const provider = tracerProvider(exporter);
      providers.push(provider);
      for (const a of ATTEMPTS) emitAttempt(provider.getTracer('operator'), a);
      await provider.forceFlush();
      await sink.until('two attempts', () => sink.attempts.length === 2);
      deepStrictEqual(
        sink.attempts.map((a) => ({ ...a, origin: { ...a.origin, traceId: 'hex', spanId: 'hex' } })),
        ATTEMPTS.map((a) => ({ ...a, origin: { source: 'otlp', traceId: 'hex', spanId: 'hex', incomplete: false } })),
      );
      deepStrictEqual(sink.receivedCalls, [5]);
      deepStrictEqual(sink.rejections, []);
    });
  }

  it('reports rejected spans in partial_success, as over HTTP', async () => {
    const port = await start({ limits: { maxSpansPerRequest: 3 } });
    const answer = await rawExport(port, await requestBytes(ATTEMPTS));
    strictEqual(answer.code, grpc.status.OK);
    const response = otlpTypes().response.toObject(otlpTypes().response.decode(answer.response!), { longs: Number }) as {
      partialSuccess?: { rejectedSpans: number; errorMessage: string };
    };
    deepStrictEqual(response.partialSuccess, {
      rejectedSpans: 2,
      errorMessage: '2 span(s) rejected (2 too_many_spans); first: spans 4-5 of 5: over the limit of 3 spans per request',
    });
    await until('the kept spans assembled', () => receiver!.queuedSpans === 0);
    deepStrictEqual(sink.reasons(), ['too_many_spans', 'too_many_spans']);
  });

  it('answers INVALID_ARGUMENT to bytes that are not an ExportTraceServiceRequest, counted as undecodable_body', async () => {
    const port = await start();
    const answer = await rawExport(port, Buffer.from('not protobuf at all'));
    strictEqual(answer.code, grpc.status.INVALID_ARGUMENT);
    ok(answer.details.startsWith('not a protobuf ExportTraceServiceRequest: '), answer.details);
    await until('the refusal counted', () => sink.rejections.length === 1);
    deepStrictEqual(sink.receivedCalls, [1]);
    deepStrictEqual(sink.reasons(), ['undecodable_body']);
    ok(WHERE.test(sink.rejections[0]!.where), sink.rejections[0]!.where);
  });

  it('requires the bearer token when one is configured: UNAUTHENTICATED without it, accepted with it', async () => {
    const port = await start({ bearerToken: 's3cret' });
    const body = await requestBytes(ATTEMPTS);
    const without = await rawExport(port, body);
    deepStrictEqual([without.code, without.details], [grpc.status.UNAUTHENTICATED, 'missing or wrong bearer token']);
    const wrong = new grpc.Metadata();
    wrong.set('authorization', 'Bearer nope');
    strictEqual((await rawExport(port, body, wrong)).code, grpc.status.UNAUTHENTICATED);
    const right = new grpc.Metadata();
    right.set('authorization', 'Bearer s3cret');
    strictEqual((await rawExport(port, body, right)).code, grpc.status.OK);
    await sink.until('two attempts', () => sink.attempts.length === 2);
    deepStrictEqual(sink.reasons(), ['unauthorized', 'unauthorized']);
  });

  it('answers RESOURCE_EXHAUSTED past the message limit (grpc-js refuses it) and counts it as body_too_large', async () => {
    const port = await start({ limits: { maxBodyBytes: 1024 } });
    const answer = await rawExport(port, Buffer.alloc(2048, 0x0a));
    strictEqual(answer.code, grpc.status.RESOURCE_EXHAUSTED);
    await until('the refusal counted', () => sink.rejections.length === 1);
    deepStrictEqual(sink.reasons(), ['body_too_large']);
    strictEqual(sink.rejections[0]!.message, `RESOURCE_EXHAUSTED: ${answer.details}`);
  });

  it('refuses a gzip message that inflates past the limit (grpc-js stops inflating there), counted as decompressed_too_large', async () => {
    const port = await start({ limits: { maxDecompressedBytes: 4096 } });
    // the client compresses what it sends: 64 KiB of zeros is a few hundred bytes on the wire
    const gzip = { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip };
    const inflated = await rawExport(port, Buffer.alloc(64 * 1024), new grpc.Metadata(), gzip);
    strictEqual(inflated.code, grpc.status.RESOURCE_EXHAUSTED);
    await until('the refusal counted', () => sink.rejections.length === 1);
    deepStrictEqual(sink.reasons(), ['decompressed_too_large']);
  });

  it('answers RESOURCE_EXHAUSTED with a RetryInfo while the queue is full, and never queues past it', async () => {
    const clock = new ManualScheduler();
    clock.hold(); // the queue does not drain
    const port = await start({ limits: { maxQueuedSpans: 5 }, retryAfterSeconds: 3 }, clock);
    const body = await requestBytes(ATTEMPTS);
    strictEqual((await rawExport(port, body)).code, grpc.status.OK);
    const refused = await rawExport(port, body);
    strictEqual(refused.code, grpc.status.RESOURCE_EXHAUSTED);
    strictEqual(refused.details, 'the queue holds 5 spans (limit 5): retry later');
    const details = refused.trailers?.get('grpc-status-details-bin')[0];
    ok(Buffer.isBuffer(details), 'grpc-status-details-bin');
    const t = otlpTypes();
    const status = t.rpcStatus.toObject(t.rpcStatus.decode(details), { longs: Number }) as {
      code: number;
      message: string;
      details: { typeUrl: string; value: Uint8Array }[];
    };
    deepStrictEqual(
      [status.code, status.message, status.details.map((d) => d.typeUrl)],
      [grpc.status.RESOURCE_EXHAUSTED, refused.details, ['type.googleapis.com/google.rpc.RetryInfo']],
    );
    deepStrictEqual(t.retryInfo.toObject(t.retryInfo.decode(status.details[0]!.value), { longs: Number }), { retryDelay: { seconds: 3 } });
    strictEqual(receiver!.queuedSpans, 5);
    clock.release();
    await sink.until('two attempts', () => sink.attempts.length === 2);
    deepStrictEqual(sink.reasons(), ['queue_full']);
    deepStrictEqual(sink.receivedCalls, [5, 1]);
  });

  it('answers UNAVAILABLE to a call made while it stops, never a hang', async () => {
    const port = await start();
    const body = await requestBytes(ATTEMPTS);
    const client = new RawClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    // a connection that is open before the receiver stops, carrying a call that arrives while it stops
    await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 5_000, (e) => (e ? reject(e) : resolve())));
    const stopped = receiver!.stop();
    const answer = await new Promise<RawAnswer>((resolve) =>
      (client as unknown as { Export: (m: Buffer, cb: (e: grpc.ServiceError | null) => void) => void }).Export(body, (e) =>
        resolve(e ? { code: e.code, details: e.details } : { code: grpc.status.OK, details: '' }),
      ),
    );
    client.close();
    await stopped;
    // refused by the receiver (counted as shutdown) or, once its listener is gone, by the transport (never reached it)
    strictEqual(answer.code, grpc.status.UNAVAILABLE);
  });

  it('the real exporter reports a refusal as a failed export with the gRPC code', async () => {
    const port = await start({ bearerToken: 's3cret' });
    const { spans, provider } = capture();
    for (const a of ATTEMPTS) emitAttempt(provider.getTracer('operator'), a);
    const outcome = await exportSpans(new GrpcTraceExporter({ url: `http://127.0.0.1:${port}` }), spans());
    strictEqual(outcome.code, 1);
    strictEqual(outcome.error?.code, grpc.status.UNAUTHENTICATED);
    await until('the refusal counted', () => sink.rejections.length === 1);
    deepStrictEqual(sink.reasons(), ['unauthorized']);
  });
});
