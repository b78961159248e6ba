/**
 * The receiver's memory and time bounds one by one, in-process: what the load and hostile-body scenarios showed was
 * missing (a decoded object tree per request, per-span problems past the span limit, span counts without byte
 * counts, an eviction that walked V8's deleted hash slots, junk attempts blocking the pending store).
 */
import { deepStrictEqual, strictEqual, ok } from 'node:assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { SpanAssembler, DEFAULT_SPAN_ASSEMBLER_OPTIONS } from '../../collector/otlp/internal/assembler.js';
import { decodeTraceRequest } from '../../collector/otlp/internal/decode.js';
import { DEFAULT_LIMITS, OtlpReceiver } from '../../collector/otlp/internal/receiver.js';
import { realScheduler } from '../../collector/otlp/internal/scheduler.js';
import { heldBytes, type OtlpSpan } from '../../collector/otlp/internal/span.js';
import { CollectingSink, ManualScheduler } from '../collector/otlp/helpers.js';
import { denseAttributes, emptySpans, fatOrphans, jsonEmptySpans } from './hostile-bodies.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const hex16 = (n: number): string => n.toString(16).padStart(16, '0');

function span(spanId: string, parentSpanId: string, attributes: Record<string, string | bigint> = {}, name = 'A'): OtlpSpan {
  return {
    traceId: TRACE,
    spanId,
    parentSpanId,
    name,
    startNs: 1n,
    endNs: 2n,
    statusCode: 0,
    statusMessage: '',
    attributes: new Map(Object.entries(attributes)),
  };
}

const root = (id: number, operations: number): OtlpSpan =>
  span(
    hex16(id),
    '',
    { 'reconcile.controller': 'c', 'reconcile.object': 'ns/o', 'reconcile.model': 'phased', 'reconcile.operation_count': BigInt(operations) },
    'reconcile',
  );

describe('reliability: the OTLP receiver within its memory and time bounds', () => {
  it('decodes a body of the most protobuf messages its size allows without building them: only reconcile.* values become objects', () => {
    const { body } = denseAttributes(DEFAULT_LIMITS.maxDecompressedBytes, DEFAULT_LIMITS.maxSpansPerRequest, DEFAULT_LIMITS.maxAttributesPerSpan);
    const { spans, problems } = decodeTraceRequest(gunzipSync(body), 'protobuf', DEFAULT_LIMITS);
    strictEqual(problems.length, 0);
    strictEqual(spans.length, 3134);
    strictEqual(spans.filter((s) => s.attributes.size > 0).length, 0);
  });

  it('rejects spans past the per-request limit with one problem standing for all of them', () => {
    const raw = gunzipSync(emptySpans(64 * 1024).body);
    const { spans, problems } = decodeTraceRequest(raw, 'protobuf', { ...DEFAULT_LIMITS, maxSpansPerRequest: 3 });
    strictEqual(spans.length, 0);
    deepStrictEqual(problems.slice(3), [{ reason: 'too_many_spans', message: 'spans 4-32760 of 32760: over the limit of 3 spans per request', count: 32757 }]);
  });

  it('refuses an OTLP/JSON body denser in objects than OTLP/JSON can be, before parsing it', () => {
    const raw = gunzipSync(jsonEmptySpans(64 * 1024).body);
    let refused: Error | undefined;
    try {
      decodeTraceRequest(raw, 'json', DEFAULT_LIMITS);
    } catch (e) {
      refused = e as Error;
    }
    const containers = raw.toString().match(/[{[]/g)!.length;
    strictEqual(refused?.message, `${containers} JSON objects and arrays in ${raw.length} bytes: denser than OTLP/JSON can be (one per 8 bytes at most)`);
  });

  it('answers 413 to a request of more than twice the span limit, counting every span in slices of the event loop', async () => {
    const sink = new CollectingSink();
    const clock = new ManualScheduler();
    const receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, limits: { maxSpansPerRequest: 100 }, drainSliceSpans: 500 }, sink, clock);
    await receiver.start();
    try {
      clock.hold(); // one slice per release
      const res = await fetch(`http://127.0.0.1:${receiver.address().port}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
        body: emptySpans(4096).body,
      });
      strictEqual(res.status, 413);
      deepStrictEqual(sink.receivedCalls, [2040]);
      strictEqual(receiver.queuedSpans, 2040);
      strictEqual(sink.rejections.length, 0);
      clock.release();
      await sink.until('every span counted', () => sink.rejections.length === 2040);
      deepStrictEqual(
        [...new Set(sink.rejections.map((r) => `${r.reason}: ${r.message}`))],
        ['too_many_spans: 2040 spans: more than twice the limit of 100 spans per request'],
      );
      strictEqual(receiver.queuedSpans, 0);
    } finally {
      clock.release();
      await receiver.stop();
    }
  });

  it('counts the bytes of queued spans: large spans fill the queue by bytes, and the next request gets 429', async () => {
    const sink = new CollectingSink();
    const clock = new ManualScheduler();
    clock.hold(); // the queue does not drain
    const fat = fatOrphans(64 * 1024, 1024);
    const receiver = new OtlpReceiver({ host: '127.0.0.1', port: 0, limits: { maxQueuedBytes: 100 * 1024 } }, sink, clock);
    await receiver.start();
    try {
      const post = (): Promise<number> =>
        fetch(`http://127.0.0.1:${receiver.address().port}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
          body: fat.body,
        }).then((r) => r.status);
      deepStrictEqual([await post(), await post()], [200, 429]);
      ok(receiver.queuedSpans < 100, `${receiver.queuedSpans} spans queued`);
      strictEqual(sink.rejections.at(-1)?.reason, 'queue_full');
    } finally {
      clock.release();
      await receiver.stop();
    }
  });

  it('makes room in the pending store by handing on its oldest attempts, so attempts that never complete cannot block new ones', () => {
    const sink = new CollectingSink();
    const child = (id: number, parent: number): OtlpSpan => span(hex16(id), hex16(parent));
    // room for exactly one whole attempt of a root and 8 operations
    const asm = new SpanAssembler(
      { ...DEFAULT_SPAN_ASSEMBLER_OPTIONS, maxPendingBytes: heldBytes(root(1, 8)) + 8 * heldBytes(child(1, 1)) },
      sink,
      new ManualScheduler(),
    );
    // attempts that will never complete: a root still waiting for its second child, and four children without a root
    asm.add(root(100, 2), 'r');
    asm.add(child(101, 100), 'r');
    for (let i = 0; i < 4; i++) asm.add(child(200 + i, 300 + i), 'r');
    // then whole attempts, each filling the store
    for (let a = 1; a <= 3; a++) {
      asm.add(root(1000 * a, 8), 'r');
      for (let op = 1; op <= 8; op++) asm.add(child(1000 * a + op, 1000 * a), 'r');
    }
    deepStrictEqual(
      sink.attempts.map((a) => [a.origin.spanId, a.operations.length, a.origin.incomplete]),
      [[hex16(100), 1, true], ...[1, 2, 3].map((a) => [hex16(1000 * a), 8, false])],
    );
    deepStrictEqual(sink.reasons(), ['pending_limit', 'pending_limit', 'pending_limit', 'pending_limit']);
    strictEqual(sink.accountedFor, 2 + 4 + 3 * 9);
    strictEqual(asm.pendingSpans, 0);
  });

  it('lets go of an attempt the moment it is handed on, even while an older one still waits for its spans', async () => {
    // a full collection on demand: V8 exposes gc() once its flag is set
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const sink = new CollectingSink();
    const asm = new SpanAssembler(DEFAULT_SPAN_ASSEMBLER_OPTIONS, sink, realScheduler);
    // the oldest attempt waits (maxWaitMs) for a second operation that never comes
    asm.add(root(1, 2), 'r');
    asm.add(span(hex16(2), hex16(1)), 'r');
    const handedOn = ((): WeakRef<OtlpSpan> => {
      const operation = span(hex16(11), hex16(10));
      asm.add(root(10, 1), 'r');
      asm.add(operation, 'r');
      return new WeakRef(operation);
    })();
    strictEqual(sink.attempts.length, 1);
    // a WeakRef keeps its target alive until the current job ends
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    strictEqual(handedOn.deref(), undefined, 'the handed-on attempt is still held');
    asm.flush();
  });

  it('forgets old span ids in constant time: spans cost no more once the memory of ids is full', () => {
    const sink = new CollectingSink();
    const memory = 60_000;
    const asm = new SpanAssembler({ ...DEFAULT_SPAN_ASSEMBLER_OPTIONS, recentSpanMemory: memory }, sink, new ManualScheduler());
    let id = 0;
    /** Milliseconds to hand on `spans` spans, as attempts of a root and two operations. */
    const run = (spans: number): number => {
      const started = performance.now();
      for (let i = 0; i < spans / 3; i++) {
        const r = (id += 10);
        asm.add(root(r, 2), 'r');
        asm.add(span(hex16(r + 1), hex16(r)), 'r');
        asm.add(span(hex16(r + 2), hex16(r), {}, 'B'), 'r');
      }
      return performance.now() - started;
    };
    const filling = run(memory);
    const evicting = run(memory);
    strictEqual(sink.attempts.length, (2 * memory) / 3);
    // evicting through a Set's own iteration order walked V8's deleted slots: 20-400 times slower per span
    ok(evicting < 3 * filling, `filling the memory took ${Math.round(filling)} ms, running with it full ${Math.round(evicting)} ms`);
  });
});
