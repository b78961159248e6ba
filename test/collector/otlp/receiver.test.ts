import { deepStrictEqual, match, ok, rejects, strictEqual } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { createConnection, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { diag, DiagLogLevel, ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import { emitAttempt } from '../../../collector/otlp/internal/emit.js';
import { otlpTypes } from '../../../collector/otlp/internal/proto.js';
import { DEFAULT_LIMITS, OtlpReceiver, type OtlpReceiverOptions } from '../../../collector/otlp/internal/receiver.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { CollectingSink, ManualScheduler, capture, exportSpans, otlpExporter, tracerProvider, type Encoding, type ExporterConfig } from './helpers.js';
import { until } from '../../support/until.js';

const WHERE = /^POST \/v1\/traces #\d+ from 127\.0\.0\.1:\d+$/;
const GZIP = 'gzip' as ExporterConfig['compression'];
const FIXTURES = join(import.meta.dirname, 'fixtures');

function journal(
  time: string,
  object: string,
  generation: number | undefined,
  loop: 'sequential' | 'phased',
  operations: AttemptRecord['operations'],
): AttemptRecord {
  return {
    time,
    timeMs: Date.parse(time),
    controller: 'hostedcluster',
    object,
    loop,
    operations,
    origin: { source: 'journal' },
    ...(generation === undefined ? {} : { generation }),
  };
}

/** Three attempts, eight spans: an error with a message, stop/skip, an error without one, a time only `reconcile.time` can echo, no operations. */
const ATTEMPTS: readonly AttemptRecord[] = [
  journal('2026-11-01T00:00:05.339362Z', 'clusters/hc-1', 2, 'sequential', [
    { name: 'A', outcome: 'ok', durationSeconds: 0.25 },
    { name: 'B', outcome: 'error', error: 'failed in B: boom', durationSeconds: 0.5 },
  ]),
  journal('2026-11-01T00:00:06.500000Z', 'clusters/hc-2', 7, 'phased', [
    { name: 'A', outcome: 'skip' },
    { name: 'B', outcome: 'stop' },
    { name: 'C', outcome: 'error' },
  ]),
  journal('2026-11-01T00:01:00Z', 'clusters/hc-1', undefined, 'phased', []),
];

/** What the receiver makes of an emitted attempt: durations always known (0 when the journal had none). */
function asReceived(a: AttemptRecord, incomplete = false): AttemptRecord {
  return {
    ...a,
    operations: a.operations.map((o) => ({ ...o, durationSeconds: o.durationSeconds ?? 0 })),
    origin: { source: 'otlp', traceId: 'hex', spanId: 'hex', incomplete },
  };
}

/** Checks the ids are real OTLP ids, then blanks them for comparison. */
function idsChecked(records: readonly AttemptRecord[]): AttemptRecord[] {
  return records.map((r) => {
    match(r.origin.traceId ?? '', /^[0-9a-f]{32}$/);
    match(r.origin.spanId ?? '', /^[0-9a-f]{16}$/);
    return { ...r, origin: { ...r.origin, traceId: 'hex', spanId: 'hex' } };
  });
}

function byTime(records: readonly AttemptRecord[]): AttemptRecord[] {
  return [...records].sort((a, b) => a.timeMs - b.timeMs);
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

async function post(url: string, body: Uint8Array | string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('otlp/receiver: the real OTel SDK exporters against the receiver', function () {
  let receiver: OtlpReceiver | undefined;
  let sink: CollectingSink;
  let clock: ManualScheduler;
  const providers: { shutdown(): Promise<void> }[] = [];

  async function start(options: OtlpReceiverOptions = {}, scheme = 'http'): Promise<string> {
    sink = new CollectingSink();
    clock = new ManualScheduler();
    receiver = new OtlpReceiver({ port: 0, ...options }, sink, clock);
    await receiver.start();
    return `${scheme}://127.0.0.1:${receiver.address().port}/v1/traces`;
  }

  function operatorTracer(
    encoding: Encoding,
    url: string,
    config: ExporterConfig = {},
    opts: { batchSize?: number; simple?: boolean } = {},
  ): { tracer: Tracer; flush: () => Promise<void> } {
    const provider = tracerProvider(otlpExporter(encoding, url, config), opts);
    providers.push(provider);
    return { tracer: provider.getTracer('operator'), flush: () => provider.forceFlush() };
  }

  /** Waits until every span that arrived has been assembled (or refused). */
  async function assembled(requests: number): Promise<void> {
    await until(`${requests} requests handled and assembled`, () => sink.receivedCalls.length === requests && receiver!.queuedSpans === 0);
  }

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((p) => p.shutdown()));
    await receiver?.stop();
    receiver = undefined;
    strictEqual(sink.receivedCount, sink.accountedFor, 'received = analyzed + dropped, in spans and refused requests');
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    for (const compression of ['none', 'gzip'] as const) {
      it(`assembles the attempts the ${encoding} exporter sends (${compression})`, async () => {
        const url = await start();
        const { tracer, flush } = operatorTracer(encoding, url, compression === 'gzip' ? { compression: GZIP } : {});
        for (const a of ATTEMPTS) emitAttempt(tracer, a);
        await flush();
        await sink.until('three attempts', () => sink.attempts.length === 3);
        deepStrictEqual(
          idsChecked(sink.attempts),
          ATTEMPTS.map((a) => asReceived(a)),
        );
        deepStrictEqual(sink.receivedCalls, [8]);
        deepStrictEqual(sink.rejections, []);
      });
    }
  }

  it('assembles attempts split over several concurrent requests', async () => {
    const url = await start();
    const { tracer, flush } = operatorTracer('protobuf', url, {}, { batchSize: 3 });
    for (const a of ATTEMPTS) emitAttempt(tracer, a);
    await flush();
    await sink.until('three attempts', () => sink.attempts.length === 3);
    deepStrictEqual(
      byTime(idsChecked(sink.attempts)),
      ATTEMPTS.map((a) => asReceived(a)),
    );
    deepStrictEqual([...sink.receivedCalls].sort(), [2, 3, 3]);
  });

  it('assembles an attempt whose root arrives first and whose children come later, out of order', async () => {
    const url = await start();
    const { tracer, flush } = operatorTracer('json', url, {}, { simple: true });
    const attributes = {
      'reconcile.controller': 'hostedcluster',
      'reconcile.object': 'clusters/hc-3',
      'reconcile.model': 'phased',
      'reconcile.operation_count': 2,
    };
    const root = tracer.startSpan('reconcile', { root: true, startTime: [1793491205, 0], attributes });
    const a = tracer.startSpan('A', { startTime: [1793491205, 1000] }, trace.setSpan(ROOT_CONTEXT, root));
    const b = tracer.startSpan('B', { startTime: [1793491205, 2000] }, trace.setSpan(ROOT_CONTEXT, root));
    root.end([1793491206, 0]);
    await flush();
    b.end([1793491205, 3000]);
    await flush();
    await assembled(2);
    strictEqual(receiver!.pendingAttempts, 1);
    strictEqual(sink.attempts.length, 0);
    a.end([1793491205, 1500]);
    await flush();
    await sink.until('the attempt', () => sink.attempts.length === 1);
    deepStrictEqual(idsChecked(sink.attempts), [
      asReceived(
        journal('2026-11-01T00:00:05Z', 'clusters/hc-3', undefined, 'phased', [
          { name: 'A', outcome: 'ok', durationSeconds: 0.0000005 },
          { name: 'B', outcome: 'ok', durationSeconds: 0.000001 },
        ]),
      ),
    ]);
    deepStrictEqual(sink.receivedCalls, [1, 1, 1]);
  });

  it('analyzes an attempt that misses children after the max wait, marked incomplete', async () => {
    const url = await start({ assembly: { maxWaitMs: 30_000 } });
    const { tracer, flush } = operatorTracer('protobuf', url);
    const attributes = {
      'reconcile.controller': 'hostedcluster',
      'reconcile.object': 'clusters/hc-1',
      'reconcile.model': 'sequential',
      'reconcile.operation_count': 2,
    };
    const root = tracer.startSpan('reconcile', { root: true, startTime: [1793491300, 0], attributes });
    tracer.startSpan('A', { startTime: [1793491300, 10] }, trace.setSpan(ROOT_CONTEXT, root)).end([1793491300, 20]);
    root.end([1793491301, 0]); // the second child never comes
    await flush();
    await assembled(1);
    strictEqual(receiver!.pendingAttempts, 1);
    clock.advance(29_999);
    strictEqual(sink.attempts.length, 0);
    clock.advance(1);
    deepStrictEqual(idsChecked(sink.attempts), [
      asReceived(journal('2026-11-01T00:01:40Z', 'clusters/hc-1', undefined, 'sequential', [{ name: 'A', outcome: 'ok', durationSeconds: 1e-8 }]), true),
    ]);
  });

  it('drops children whose root never arrives as orphan_span after the max wait', async () => {
    const url = await start();
    const { tracer, flush } = operatorTracer('json', url);
    const root = tracer.startSpan('reconcile', { root: true, attributes: { 'reconcile.controller': 'hostedcluster' } });
    const parent = trace.setSpan(ROOT_CONTEXT, root);
    tracer.startSpan('A', {}, parent).end();
    tracer.startSpan('B', {}, parent).end();
    await flush(); // the root never ends, so it is never exported
    await assembled(1);
    clock.advance(30_000);
    deepStrictEqual(sink.reasons(), ['orphan_span', 'orphan_span']);
    for (const r of sink.rejections) {
      match(r.where, WHERE);
      match(r.message, /^span [0-9a-f]{16} \("[AB]"\) in trace [0-9a-f]{32}: its root span \([0-9a-f]{16}\) did not arrive within 30000 ms$/);
    }
  });

  it('answers 400 to an undecodable body, in the encoding of the request', async () => {
    const url = await start();
    const proto = await post(url, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), { 'content-type': 'application/x-protobuf' });
    strictEqual(proto.status, 400);
    strictEqual(proto.headers.get('content-type'), 'application/x-protobuf');
    const { rpcStatus } = otlpTypes();
    const status = rpcStatus.toObject(rpcStatus.decode(proto.body)) as { code: number; message: string };
    strictEqual(status.code, 3);
    match(status.message, /^not a protobuf ExportTraceServiceRequest: /);
    const json = await post(url, '{"resourceSpans":[', { 'content-type': 'application/json' });
    strictEqual(json.status, 400);
    strictEqual(json.headers.get('content-type'), 'application/json');
    const body = JSON.parse(json.body.toString()) as { code: number; message: string };
    strictEqual(body.code, 3);
    match(body.message, /^not JSON: /);
    const notGzip = await post(url, '{}', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    strictEqual(notGzip.status, 400);
    strictEqual(notGzip.body.toString(), '{"code":3,"message":"content-encoding gzip: incorrect header check"}');
    deepStrictEqual(sink.reasons(), ['undecodable_body', 'undecodable_body', 'undecodable_body']);
    deepStrictEqual(
      sink.rejections.map((r) => r.message),
      [status.message, body.message, 'content-encoding gzip: incorrect header check'],
    );
    match(sink.rejections[0]!.where, /^POST \/v1\/traces #1 from 127\.0\.0\.1:\d+$/);
    match(sink.rejections[2]!.where, /^POST \/v1\/traces #3 from 127\.0\.0\.1:\d+$/);
    deepStrictEqual(sink.receivedCalls, [1, 1, 1]);
  });

  it('answers 413 past the body limit, streamed as the exporter sends it or declared in content-length', async () => {
    const url = await start({ limits: { maxBodyBytes: 2_000 } });
    const { provider, spans } = capture();
    providers.push(provider);
    const tracer = provider.getTracer('operator');
    for (let i = 0; i < 40; i++) tracer.startSpan(`op-${i}`).end();
    const exported = await exportSpans(otlpExporter('json', url), spans());
    strictEqual(exported.code, 1);
    strictEqual(exported.error?.code, 413);
    strictEqual(exported.error?.data, '{"code":3,"message":"the body exceeds the limit of 2000 bytes"}');
    const declared = await post(url, Buffer.alloc(3_000, 0x20), { 'content-type': 'application/json' });
    strictEqual(declared.status, 413);
    strictEqual(declared.headers.get('connection'), 'close');
    strictEqual(declared.body.toString(), '{"code":3,"message":"content-length 3000 exceeds the limit of 2000 bytes"}');
    deepStrictEqual(sink.reasons(), ['body_too_large', 'body_too_large']);
  });

  it('refuses a gzip bomb while inflating it: 1 GiB from 1 MiB on the wire, stopped at the 1 MiB limit', async () => {
    const url = await start({ limits: { maxDecompressedBytes: 1024 * 1024 } });
    // gzip members may be concatenated: 64 copies of 16 MiB of spaces, each about 16 KiB compressed
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20));
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
    ok(bomb.length < 2 * 1024 * 1024, `${bomb.length} bytes on the wire`);
    const answer = await post(url, bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    strictEqual(answer.status, 413);
    strictEqual(answer.body.toString(), '{"code":3,"message":"the body inflates past the limit of 1048576 bytes"}');
    deepStrictEqual(sink.reasons(), ['decompressed_too_large']);
  });

  it('answers 415 to a content type or content encoding OTLP does not define', async () => {
    const url = await start();
    const text = await post(url, 'hello', { 'content-type': 'text/plain' });
    strictEqual(text.status, 415);
    strictEqual(text.body.toString(), '{"code":3,"message":"content-type \\"text/plain\\": send application/x-protobuf or application/json"}');
    const brotli = await post(url, '{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    strictEqual(brotli.status, 415);
    strictEqual(brotli.body.toString(), '{"code":3,"message":"content-encoding \\"br\\": send gzip or none"}');
    deepStrictEqual(sink.reasons(), ['unsupported_media_type', 'unsupported_media_type']);
  });

  it('answers 429 with Retry-After while the queue is full, and never queues past it', async () => {
    const url = await start({ limits: { maxQueuedSpans: 0 }, retryAfterSeconds: 7 });
    const answer = await post(url, '{}', { 'content-type': 'application/json' });
    strictEqual(answer.status, 429);
    strictEqual(answer.headers.get('retry-after'), '7');
    strictEqual(answer.body.toString(), '{"code":8,"message":"the queue holds 0 spans (limit 0): retry later"}');
    deepStrictEqual(sink.reasons(), ['queue_full']);
    match(sink.rejections[0]!.where, WHERE);
  });

  it('answers 429 to a request that would overfill the queue, counted as one request', async () => {
    const url = await start({ limits: { maxQueuedSpans: 2 } });
    clock.hold();
    const oneSpan = await post(url, otlpJson(1), { 'content-type': 'application/json' });
    strictEqual(oneSpan.status, 200);
    const twoSpans = await post(url, otlpJson(2), { 'content-type': 'application/json' });
    strictEqual(twoSpans.status, 429);
    strictEqual(twoSpans.body.toString(), '{"code":8,"message":"the queue holds 1 spans and this request has 2 (limit 2): retry later"}');
    clock.release();
    await until('the queue to drain', () => receiver!.queuedSpans === 0);
    deepStrictEqual(sink.reasons(), ['queue_full', 'orphan_span']);
    deepStrictEqual(sink.receivedCalls, [1, 1]);
  });

  it('takes bodies into one byte budget as they arrive: past it a request gets 429, at the door or while it is read', async () => {
    const url = await start({ limits: { maxBufferedBodyBytes: 64 } });
    const port = receiver!.address().port;
    const open = openRequest(port);
    open.request.write(`{${' '.repeat(59)}`);
    await until('60 bytes held', () => receiver!.bufferedBodyBytes === 60);
    const declared = await post(url, '{"resourceSpans":[]}', { 'content-type': 'application/json' });
    strictEqual(declared.status, 429);
    strictEqual(declared.headers.get('retry-after'), '1');
    strictEqual(declared.body.toString(), '{"code":8,"message":"bodies being read hold 60 bytes (limit 64) and this one is 20: retry later"}');
    const streamed = openRequest(port);
    streamed.request.write(`{${' '.repeat(9)}`);
    deepStrictEqual(await streamed.answer, {
      status: 429,
      retryAfter: '1',
      body: '{"code":8,"message":"bodies being read hold 60 bytes (limit 64): retry later"}',
    });
    open.request.end('}');
    strictEqual((await open.answer).status, 200);
    strictEqual(receiver!.bufferedBodyBytes, 0);
    deepStrictEqual(sink.reasons(), ['queue_full', 'queue_full']);
    deepStrictEqual(sink.receivedCalls, [1, 1, 0]);
  });

  it('holds a plain body to the wire limit only and a gzip body to both, each at its boundary', async () => {
    const url = await start({ limits: { maxBodyBytes: 3_000, maxDecompressedBytes: 2_000 } });
    const json = (bytes: number): Buffer => Buffer.from(`{"resourceSpans":[]${' '.repeat(bytes - 20)}}`);
    const send = async (body: Buffer, gzip: boolean): Promise<[number, string]> => {
      const a = await post(url, gzip ? gzipSync(body) : body, { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      return [a.status, a.body.toString()];
    };
    strictEqual(json(3_000).length, 3_000);
    deepStrictEqual(await send(json(2_500), false), [200, '{}']);
    deepStrictEqual(await send(json(3_000), false), [200, '{}']);
    deepStrictEqual(await send(json(3_001), false), [413, '{"code":3,"message":"content-length 3001 exceeds the limit of 3000 bytes"}']);
    deepStrictEqual(await send(json(2_000), true), [200, '{}']);
    deepStrictEqual(await send(json(2_001), true), [413, '{"code":3,"message":"the body inflates past the limit of 2000 bytes"}']);
    const incompressible = gzipSync(randomBytes(3_100), { level: 0 });
    const wire = await post(url, incompressible, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    deepStrictEqual(
      [wire.status, wire.body.toString()],
      [413, `{"code":3,"message":"content-length ${incompressible.length} exceeds the limit of 3000 bytes"}`],
    );
    deepStrictEqual(sink.reasons(), ['body_too_large', 'decompressed_too_large', 'body_too_large']);
  });

  it('at the documented defaults too: 4 MiB on the wire for a plain body, 4 MiB inflated for a gzip one', async () => {
    const url = await start();
    const { maxBodyBytes, maxDecompressedBytes } = DEFAULT_LIMITS;
    deepStrictEqual([maxBodyBytes, maxDecompressedBytes], [4 * 1024 * 1024, 4 * 1024 * 1024]);
    const json = (bytes: number): Buffer => Buffer.from(`{"resourceSpans":[]${' '.repeat(bytes - 20)}}`);
    const status = async (body: Buffer, gzip: boolean): Promise<number> =>
      (await post(url, gzip ? gzipSync(body) : body, { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) })).status;
    deepStrictEqual(
      [
        await status(json(maxBodyBytes), false),
        await status(json(maxBodyBytes + 1), false),
        await status(json(maxDecompressedBytes), true),
        await status(json(maxDecompressedBytes + 1), true),
      ],
      [200, 413, 200, 413],
    );
    deepStrictEqual(sink.reasons(), ['body_too_large', 'decompressed_too_large']);
  });

  it('refuses a protobuf request holding a string that is not UTF-8, counting every span it holds', async () => {
    const url = await start();
    const { request } = otlpTypes();
    const spans = Array.from({ length: 20 }, (_, i) => ({ traceId: Buffer.alloc(16, 7), spanId: Buffer.alloc(8, i + 1), name: i === 3 ? 'B?d' : 'ok' }));
    const body = Buffer.from(request.encode(request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish());
    body[body.indexOf('B?d') + 1] = 0xff;
    const answer = await post(url, body, { 'content-type': 'application/x-protobuf' });
    strictEqual(answer.status, 400);
    const status = otlpTypes().rpcStatus.decode(answer.body) as unknown as { message: string };
    match(
      status.message,
      /^not a protobuf ExportTraceServiceRequest: resource_spans\[0\]\.scope_spans\[0\]\.spans\[3\]: a string field at offset \d+ is not valid UTF-8$/,
    );
    await assembled(1);
    deepStrictEqual(sink.receivedCalls, [20]);
    deepStrictEqual(
      sink.rejections.map((r) => [r.reason, r.message]),
      Array.from({ length: 20 }, () => ['undecodable_body', status.message]),
    );
  });

  it('the exporter honours 429 + Retry-After and its retry gets through once the queue drains', async () => {
    const url = await start({ limits: { maxQueuedSpans: 1 }, retryAfterSeconds: 1 });
    clock.hold(); // the queue does not drain until released
    const { tracer, flush } = operatorTracer('json', url);
    emitAttempt(tracer, ATTEMPTS[2]!); // one span: fills the queue
    await flush();
    strictEqual(receiver!.queuedSpans, 1);
    const second = operatorTracer('protobuf', url);
    emitAttempt(second.tracer, { ...ATTEMPTS[2]!, object: 'clusters/hc-9' });
    const retried = second.flush();
    await sink.until('the 429', () => sink.reasons().includes('queue_full'));
    clock.release();
    await retried;
    await sink.until('both attempts', () => sink.attempts.length === 2);
    deepStrictEqual(
      sink.attempts.map((a) => a.object),
      ['clusters/hc-1', 'clusters/hc-9'],
    );
    deepStrictEqual(sink.receivedCalls, [1, 1, 1]);
  });

  it('requires the bearer token when one is configured: 401 without it, accepted with it', async () => {
    const url = await start({ bearerToken: 's3cret' });
    const { provider, spans } = capture();
    providers.push(provider);
    provider
      .getTracer('operator')
      .startSpan('reconcile', { attributes: { 'reconcile.controller': 'hostedcluster', 'reconcile.operation_count': 0 } })
      .end();
    const without = await exportSpans(otlpExporter('protobuf', url), spans());
    strictEqual(without.code, 1);
    strictEqual(without.error?.code, 401);
    const wrong = await post(url, '{}', { 'content-type': 'application/json', authorization: 'Bearer s3cre' });
    strictEqual(wrong.status, 401);
    strictEqual(wrong.headers.get('www-authenticate'), 'Bearer');
    strictEqual(wrong.body.toString(), '{"code":16,"message":"missing or wrong bearer token"}');
    const withToken = await exportSpans(otlpExporter('protobuf', url, { headers: { Authorization: 'Bearer s3cret' } }), spans());
    strictEqual(withToken.code, 0);
    await assembled(3);
    deepStrictEqual(sink.reasons().slice(0, 2), ['unauthorized', 'unauthorized']);
    deepStrictEqual(
      sink.rejections.slice(0, 2).map((r) => r.message),
      ['missing or wrong bearer token', 'missing or wrong bearer token'],
    );
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`reports rejected spans in partial_success, which the ${encoding} exporter reads`, async () => {
      const url = await start({ limits: { maxAttributesPerSpan: 4 } });
      const warnings: string[] = [];
      const log = (...args: unknown[]): void => void warnings.push(args.join(' '));
      diag.setLogger({ error: log, warn: log, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
      try {
        const { tracer, flush } = operatorTracer(encoding, url);
        const attributes = {
          'reconcile.controller': 'hostedcluster',
          'reconcile.object': 'clusters/hc-1',
          'reconcile.model': 'phased',
          'reconcile.operation_count': 0,
        };
        tracer.startSpan('reconcile', { root: true, startTime: [1793491205, 0], attributes }).end();
        tracer.startSpan('reconcile', { root: true, startTime: [1793491206, 0], attributes: { ...attributes, 'reconcile.generation': 1 } }).end();
        await flush();
      } finally {
        diag.disable();
      }
      const at = encoding === 'json' ? 'resourceSpans[0].scopeSpans[0].spans[1]' : 'resource_spans[0].scope_spans[0].spans[1]';
      const message = `1 span(s) rejected (1 too_many_attributes); first: ${at}: attributes: 5 exceeds the limit of 4 per span`;
      const rejected = encoding === 'json' ? '"1"' : '1';
      deepStrictEqual(warnings, [`Received Partial Success response: {"rejectedSpans":${rejected},"errorMessage":${JSON.stringify(message)}}`]);
      await sink.until('the accepted attempt', () => sink.attempts.length === 1);
      deepStrictEqual(
        sink.rejections.map((r) => [r.reason, r.message]),
        [['too_many_attributes', `${at}: attributes: 5 exceeds the limit of 4 per span`]],
      );
      deepStrictEqual(sink.receivedCalls, [2]);
    });
  }

  it('answers 404 and 405 off the traces endpoint, without counting them as trace input', async () => {
    const url = await start();
    const metrics = await post(url.replace('/v1/traces', '/v1/metrics'), '{}', { 'content-type': 'application/json' });
    strictEqual(metrics.status, 404);
    strictEqual(metrics.body.toString(), '{"code":5,"message":"no such path: OTLP traces go to POST /v1/traces"}');
    const get = await fetch(url);
    strictEqual(get.status, 405);
    strictEqual(get.headers.get('allow'), 'POST');
    strictEqual(await get.text(), '{"code":12,"message":"GET is not allowed: use POST"}');
    strictEqual(sink.receivedCount, 0);
  });

  it('serves TLS and, with requestCert, accepts only clients with a certificate from the CA (mTLS)', async () => {
    const pem = (name: string): Buffer => readFileSync(join(FIXTURES, name));
    const url = await start({ tls: { cert: pem('server.pem'), key: pem('server-key.pem'), ca: pem('ca.pem'), requestCert: true } }, 'https');
    const { provider, spans } = capture();
    providers.push(provider);
    provider
      .getTracer('operator')
      .startSpan('reconcile', {
        attributes: {
          'reconcile.controller': 'hostedcluster',
          'reconcile.object': 'clusters/hc-1',
          'reconcile.model': 'phased',
          'reconcile.operation_count': 0,
        },
      })
      .end();
    const client = await exportSpans(
      otlpExporter('protobuf', url, { httpAgentOptions: { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client-key.pem') } }),
      spans(),
    );
    strictEqual(client.code, 0);
    await sink.until('the attempt', () => sink.attempts.length === 1);
    const anonymous = await exportSpans(otlpExporter('protobuf', url, { httpAgentOptions: { ca: pem('ca.pem') }, timeoutMillis: 3_000 }), spans());
    strictEqual(anonymous.code, 1);
    strictEqual(anonymous.error?.code, 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    const untrusted = await exportSpans(otlpExporter('protobuf', url, { timeoutMillis: 3_000 }), spans());
    strictEqual(untrusted.code, 1);
    strictEqual(untrusted.error?.code, 'SELF_SIGNED_CERT_IN_CHAIN');
    deepStrictEqual(sink.receivedCalls, [1]);
  });

  it('stops: hands on pending attempts as incomplete, then accepts no more connections', async () => {
    const url = await start();
    const { tracer, flush } = operatorTracer('json', url);
    const root = tracer.startSpan('reconcile', {
      root: true,
      startTime: [1793491205, 0],
      attributes: { 'reconcile.controller': 'hostedcluster', 'reconcile.object': 'clusters/hc-1', 'reconcile.model': 'phased', 'reconcile.operation_count': 5 },
    });
    tracer.startSpan('A', { startTime: [1793491205, 5] }, trace.setSpan(ROOT_CONTEXT, root)).end([1793491205, 10]);
    root.end([1793491205, 20]);
    await flush();
    await assembled(1);
    await receiver!.stop();
    deepStrictEqual(
      sink.attempts.map((a) => [a.operations.map((o) => o.name), a.origin.incomplete]),
      [[['A'], true]],
    );
    await rejects(fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }), /fetch failed/);
  });

  it('stops: bodies that end within the grace are taken, later requests and bodies still open after it get 503, all counted before stop resolves; unfinished headers are closed', async () => {
    await start({ shutdownGraceMs: 2_000 });
    const port = receiver!.address().port;
    const finishing = openRequest(port);
    const stalled = openRequest(port);
    finishing.request.write('{"resourceSpans":');
    stalled.request.write('{"resourceSpans":');
    // a connection whose request's headers are not complete yet when the receiver stops
    const late = connect(port);
    late.socket.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
    // and one whose headers never complete: closed when the grace ends, not counted (no request arrived)
    const unfinished = connect(port);
    unfinished.socket.write('POST /v1/tr');
    await until('both bodies being read', () => receiver!.requestsInFlight === 2);
    const stopped = receiver!.stop();
    finishing.request.end('[]}');
    strictEqual((await finishing.answer).status, 200);
    late.socket.write('Content-Length: 2\r\n\r\n{}');
    match(
      await late.answer,
      /^HTTP\/1\.1 503 Service Unavailable\r\n[^]*connection: close\r\n[^]*\r\n\r\n\{"code":14,"message":"the receiver is stopping"\}$/i,
    );
    clock.advance(2_000);
    await stopped;
    // counted before stop resolved: nothing is left to arrive later
    deepStrictEqual(
      sink.rejections.map((r) => [r.reason, r.message]),
      [
        ['shutdown', 'the receiver is stopping'],
        ['shutdown', 'the receiver stopped: the body did not end within the 2000 ms grace'],
      ],
    );
    deepStrictEqual(sink.receivedCalls, [0, 1, 1]);
    const cut = await stalled.answer;
    deepStrictEqual([cut.status, cut.retryAfter], [503, '1']);
    strictEqual(await unfinished.answer, '');
  });
});

/** An OTLP/JSON request with `n` spans that belong to no attempt (each is refused as orphan_span once assembled). */
function otlpJson(n: number): string {
  const spans = Array.from({ length: n }, (_, i) => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: `00000000000000${i + 10}`, name: `span-${i}` }));
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
}

/** A raw TCP connection to the receiver; `answer` is everything it sent back until it closed the connection. */
function connect(port: number): { socket: Socket; answer: Promise<string> } {
  const socket = createConnection(port, '127.0.0.1');
  const answer = new Promise<string>((resolve, reject) => {
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  return { socket, answer };
}

/** A chunked POST whose body the test writes piece by piece. */
function openRequest(port: number): { request: ClientRequest; answer: Promise<{ status: number; retryAfter: string | undefined; body: string }> } {
  const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/traces', headers: { 'content-type': 'application/json' } });
  const answer = new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
  });
  request.flushHeaders();
  return { request, answer };
}
