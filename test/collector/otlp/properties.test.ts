/**
 * Generated hostile input (fast-check): bodies that decode must come back as spans or counted problems, anything
 * else as UndecodableBody, never another exception; and whatever spans arrive, in whatever order and timing, each
 * ends in exactly one attempt or one rejection. `FUZZ_RUNS` raises the number of cases (e.g. for `make fuzz`).
 */
import { strictEqual } from 'node:assert';
import fc from 'fast-check';
import { SpanAssembler, DEFAULT_SPAN_ASSEMBLER_OPTIONS } from '../../../collector/otlp/internal/assembler.js';
import { decodeTraceRequest } from '../../../collector/otlp/internal/decode.js';
import { otlpTypes } from '../../../collector/otlp/internal/proto.js';
import { UndecodableBody, type DecodeLimits, type OtlpSpan } from '../../../collector/otlp/internal/span.js';
import { CollectingSink, ManualScheduler } from './helpers.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const LIMITS: DecodeLimits = { maxSpansPerRequest: 50, maxAttributesPerSpan: 16, maxStringLength: 256 };

/** Decodes, and checks the only exception is UndecodableBody; returns how many spans the body held, or -1. */
function decodeOrRefuse(body: Uint8Array, encoding: 'json' | 'protobuf'): number {
  try {
    const { spans, problems } = decodeTraceRequest(body, encoding, LIMITS);
    return spans.length + problems.length;
  } catch (e) {
    if (e instanceof UndecodableBody) return -1;
    throw e;
  }
}

/** Small arbitrary JSON-ish values, for fields that should hold something else. */
const junk = fc.anything({ maxDepth: 2, maxKeys: 3 });
const hex = (bytes: number): fc.Arbitrary<string> => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const anyValue = fc.oneof(
  fc.record({ stringValue: fc.oneof(fc.string(), fc.integer()) }),
  fc.record({ intValue: fc.oneof(fc.integer(), fc.bigInt().map(String), fc.double(), fc.string()) }),
  fc.record({ boolValue: fc.oneof(fc.boolean(), fc.string()) }),
  fc.record({ doubleValue: fc.oneof(fc.double(), fc.string()) }),
  junk,
);
const jsonSpan = fc.record(
  {
    traceId: fc.oneof(hex(16), fc.string(), fc.integer()),
    spanId: fc.oneof(hex(8), hex(4), fc.string()),
    parentSpanId: fc.oneof(hex(8), fc.constant(''), junk),
    name: fc.oneof(fc.string(), junk),
    startTimeUnixNano: fc.oneof(fc.bigInt({ min: -10n, max: 1n << 70n }).map(String), fc.integer(), junk),
    endTimeUnixNano: fc.oneof(fc.bigInt({ min: 0n, max: 1n << 64n }).map(String), fc.double()),
    attributes: fc.oneof(
      fc.array(fc.record({ key: fc.oneof(fc.constantFrom('reconcile.controller', 'reconcile.generation', 'x'), fc.string()), value: anyValue })),
      junk,
    ),
    status: fc.oneof(fc.record({ code: fc.oneof(fc.integer(), fc.string()), message: fc.oneof(fc.string(), junk) }), junk),
  },
  { requiredKeys: [] },
);
const jsonBody = fc.oneof(
  fc.record({
    resourceSpans: fc.array(fc.record({ scopeSpans: fc.array(fc.record({ spans: fc.array(jsonSpan, { maxLength: 60 }) }), { maxLength: 2 }) }), {
      maxLength: 2,
    }),
  }),
  fc.record({ resourceSpans: junk }),
  junk,
);

describe('otlp properties: hostile bodies and arrival orders', () => {
  it('decodes or refuses any OTLP/JSON-shaped value, text and byte string, never throwing anything else', () => {
    fc.assert(
      fc.property(jsonBody, (value) => {
        const n = decodeOrRefuse(Buffer.from(JSON.stringify(value) ?? 'undefined'), 'json');
        strictEqual(n >= -1, true);
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        decodeOrRefuse(bytes, 'json');
        decodeOrRefuse(bytes, 'protobuf');
      }),
      { numRuns: RUNS },
    );
  });

  it('decodes or refuses truncated and corrupted protobuf requests, never throwing anything else', () => {
    const { request } = otlpTypes();
    const span = {
      traceId: Buffer.alloc(16, 7),
      spanId: Buffer.alloc(8, 9),
      name: 'SSHKeySync',
      startTimeUnixNano: '1795960237660220127',
      endTimeUnixNano: '1795960238000000001',
      attributes: [{ key: 'reconcile.controller', value: { stringValue: 'hostedcluster' } }],
      status: { code: 2, message: 'boom' },
    };
    const valid = request.encode(request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [span, span, span] }] }] })).finish();
    strictEqual(decodeOrRefuse(valid, 'protobuf'), 3);
    fc.assert(
      fc.property(fc.nat(valid.length), fc.array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }), (cut, flips) => {
        const body = Buffer.from(valid.subarray(0, cut));
        for (const [at, byte] of flips) if (at < body.length) body[at] = byte;
        decodeOrRefuse(body, 'protobuf');
      }),
      { numRuns: RUNS },
    );
  });

  it('accounts for every span exactly once, whatever arrives in whatever order and timing', () => {
    const ids = ['00000000000000a1', '00000000000000a2', '00000000000000a3'];
    const arrival = fc.oneof(
      fc.record({
        kind: fc.constant('root' as const),
        id: fc.constantFrom(...ids),
        count: fc.option(fc.nat(4), { nil: undefined }),
        model: fc.constantFrom('phased', 'sequential', 'other'),
      }),
      fc.record({
        kind: fc.constant('child' as const),
        id: fc.constantFrom('b1', 'b2', 'b3', 'b4', 'b5'),
        parent: fc.constantFrom(...ids, '00000000000000ff'),
        error: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(arrival, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (arrivals, maxPending) => {
        const sink = new CollectingSink();
        const clock = new ManualScheduler();
        const asm = new SpanAssembler({ ...DEFAULT_SPAN_ASSEMBLER_OPTIONS, maxPendingAttempts: maxPending, recentSpanMemory: 4 }, sink, clock);
        let added = 0;
        for (const a of arrivals) {
          if (a.kind === 'tick') {
            clock.advance(a.ms);
            continue;
          }
          added++;
          asm.add(a.kind === 'root' ? rootSpan(a.id, a.count, a.model) : childSpan(a.id, a.parent, a.error), 'fuzz');
          strictEqual(sink.accountedFor + asm.pendingSpans, added);
        }
        asm.flush();
        strictEqual(sink.accountedFor, added);
        strictEqual(asm.pendingAttempts + clock.activeTimers, 0);
      }),
      { numRuns: RUNS },
    );
  });
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

function rootSpan(id: string, count: number | undefined, model: string): OtlpSpan {
  const attributes = new Map<string, string | bigint>([
    ['reconcile.controller', 'hostedcluster'],
    ['reconcile.object', 'clusters/hc-1'],
    ['reconcile.model', model],
  ]);
  if (count !== undefined) attributes.set('reconcile.operation_count', BigInt(count));
  return { traceId: TRACE, spanId: id, parentSpanId: '', name: 'reconcile', startNs: 10n, endNs: 20n, statusCode: 0, statusMessage: '', attributes };
}

function childSpan(id: string, parent: string, error: boolean): OtlpSpan {
  const spanId = `c0000000000000${id}`;
  return {
    traceId: TRACE,
    spanId,
    parentSpanId: parent,
    name: `Op${id}`,
    startNs: 11n,
    endNs: 12n,
    statusCode: error ? 2 : 0,
    statusMessage: error ? 'boom' : '',
    attributes: new Map(),
  };
}
