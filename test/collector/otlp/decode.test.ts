import { deepStrictEqual, strictEqual, throws } from 'node:assert';
import { decodeTraceRequest, encodingOf } from '../../../collector/otlp/internal/decode.js';
import { otlpTypes } from '../../../collector/otlp/internal/proto.js';
import { UndecodableBody, type DecodeLimits, type OtlpSpan } from '../../../collector/otlp/internal/span.js';

const LIMITS: DecodeLimits = { maxSpansPerRequest: 100, maxAttributesPerSpan: 8, maxStringLength: 64 };
const TRACE = '0af7651916cd43dd8448eb211c80319c';

/** One span as the JS exporter writes it in OTLP/JSON (intValue as a number, times as strings, hex ids). */
function jsonSpan(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: TRACE,
    spanId: 'b7ad6b7169203331',
    parentSpanId: '00f067aa0ba902b7',
    name: 'SSHKeySync',
    kind: 1,
    startTimeUnixNano: '1795960237660220127',
    endTimeUnixNano: '1795960238000000001',
    attributes: [
      { key: 'reconcile.operation_count', value: { intValue: 3 } },
      { key: 'reconcile.generation', value: { intValue: '9007199254740993' } },
      { key: 'reconcile.object', value: { stringValue: 'clusters/hc-1' } },
      { key: 'reconcile.flag', value: { boolValue: true } },
      { key: 'reconcile.ratio', value: { doubleValue: 0.5 } },
      { key: 'reconcile.list', value: { arrayValue: { values: [{ stringValue: 'a' }] } } },
      { key: 'http.method', value: { stringValue: 'GET' } },
    ],
    droppedAttributesCount: 0,
    events: [],
    status: { code: 2, message: 'boom' },
    links: [],
    flags: 257,
    ...overrides,
  };
}

function jsonBody(spans: unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'op' }, spans }] }] }));
}

const EXPECTED: OtlpSpan = {
  traceId: TRACE,
  spanId: 'b7ad6b7169203331',
  parentSpanId: '00f067aa0ba902b7',
  name: 'SSHKeySync',
  startNs: 1795960237660220127n,
  endNs: 1795960238000000001n,
  statusCode: 2,
  statusMessage: 'boom',
  attributes: new Map<string, string | bigint | boolean | number>([
    ['reconcile.operation_count', 3n],
    ['reconcile.generation', 9007199254740993n],
    ['reconcile.object', 'clusters/hc-1'],
    ['reconcile.flag', true],
    ['reconcile.ratio', 0.5],
  ]),
};

function protobufBody(spans: Record<string, unknown>[]): Uint8Array {
  const { request } = otlpTypes();
  return request.encode(request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish();
}

/** The same span in protobufjs' object form: bytes as Buffers, fixed64/int64 as decimal strings. */
function protoSpan(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: Buffer.from(TRACE, 'hex'),
    spanId: Buffer.from('b7ad6b7169203331', 'hex'),
    parentSpanId: Buffer.from('00f067aa0ba902b7', 'hex'),
    name: 'SSHKeySync',
    kind: 1,
    startTimeUnixNano: '1795960237660220127',
    endTimeUnixNano: '1795960238000000001',
    attributes: [
      { key: 'reconcile.operation_count', value: { intValue: '3' } },
      { key: 'reconcile.generation', value: { intValue: '9007199254740993' } },
      { key: 'reconcile.object', value: { stringValue: 'clusters/hc-1' } },
      { key: 'reconcile.flag', value: { boolValue: true } },
      { key: 'reconcile.ratio', value: { doubleValue: 0.5 } },
      { key: 'reconcile.list', value: { arrayValue: { values: [{ stringValue: 'a' }] } } },
      { key: 'http.method', value: { stringValue: 'GET' } },
    ],
    status: { code: 2, message: 'boom' },
    flags: 257,
    ...overrides,
  };
}

describe('otlp/decode: both encodings to one span shape', () => {
  it('names the encoding of a content-type, ignoring parameters and case', () => {
    deepStrictEqual(
      ['application/x-protobuf', 'application/json; charset=utf-8', 'Application/JSON', 'application/protobuf', 'text/plain', undefined].map(encodingOf),
      ['protobuf', 'json', 'json', undefined, undefined, undefined],
    );
  });

  it('decodes OTLP/JSON as the JS exporter sends it: exact nanoseconds, int64 beyond 2^53, only reconcile.* scalars kept', () => {
    deepStrictEqual(decodeTraceRequest(jsonBody([jsonSpan()]), 'json', LIMITS), { spans: [EXPECTED], problems: [] });
  });

  it('accepts the other OTLP/JSON spellings: uppercase hex, times as numbers, enum names, no parent, no status', () => {
    const body = jsonBody([
      jsonSpan({ traceId: TRACE.toUpperCase(), startTimeUnixNano: 1000, endTimeUnixNano: 2000, status: { code: 'STATUS_CODE_OK' }, attributes: [] }),
      jsonSpan({ parentSpanId: '', status: undefined, attributes: undefined }),
    ]);
    const { spans, problems } = decodeTraceRequest(body, 'json', LIMITS);
    deepStrictEqual(problems, []);
    deepStrictEqual(
      spans.map((s) => [s.traceId, s.parentSpanId, s.startNs, s.endNs, s.statusCode, s.statusMessage, s.attributes.size]),
      [
        [TRACE, '00f067aa0ba902b7', 1000n, 2000n, 1, '', 0],
        [TRACE, '', 1795960237660220127n, 1795960238000000001n, 0, '', 0],
      ],
    );
  });

  it('decodes the same span from protobuf to the same shape', () => {
    deepStrictEqual(decodeTraceRequest(protobufBody([protoSpan()]), 'protobuf', LIMITS), { spans: [EXPECTED], problems: [] });
  });

  it('rejects single spans with a problem naming where they sit and the field, keeping the good ones', () => {
    const tooMany = Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, value: { stringValue: 'v' } }));
    const body = jsonBody([
      jsonSpan({ traceId: 'xyz' }),
      jsonSpan({ spanId: '0000000000000000' }),
      jsonSpan({ attributes: tooMany }),
      jsonSpan({ startTimeUnixNano: '-5' }),
      jsonSpan({ name: 'n'.repeat(65) }),
      jsonSpan({ attributes: [{ key: 'reconcile.generation', value: { intValue: 1.5 } }] }),
      jsonSpan({ status: { code: 'BROKEN' } }),
      jsonSpan(),
    ]);
    const { spans, problems } = decodeTraceRequest(body, 'json', LIMITS);
    strictEqual(spans.length, 1);
    const at = 'resourceSpans[0].scopeSpans[0].spans';
    deepStrictEqual(problems, [
      { reason: 'invalid_record', message: `${at}[0]: traceId: must be 16 non-zero bytes, got "xyz"` },
      { reason: 'invalid_record', message: `${at}[1]: spanId: must be 8 non-zero bytes, got "0000000000000000"` },
      { reason: 'too_many_attributes', message: `${at}[2]: attributes: 9 exceeds the limit of 8 per span` },
      { reason: 'invalid_record', message: `${at}[3]: startTimeUnixNano: not a uint64 count of nanoseconds: "-5"` },
      { reason: 'invalid_record', message: `${at}[4]: name: 65 characters exceeds the limit of 64` },
      { reason: 'invalid_record', message: `${at}[5]: attributes[reconcile.generation].intValue: not an int64: 1.5` },
      { reason: 'invalid_record', message: `${at}[6]: status.code: not a status code: "BROKEN"` },
    ]);
  });

  it('rejects a span without a traceId wherever it sits, the first of a request or after one whose traceId is bad', () => {
    const body = jsonBody([jsonSpan({ traceId: undefined }), jsonSpan({ traceId: 'xyz' }), jsonSpan({ traceId: '' }), jsonSpan()]);
    const { spans, problems } = decodeTraceRequest(body, 'json', LIMITS);
    deepStrictEqual(spans, [EXPECTED]);
    const at = 'resourceSpans[0].scopeSpans[0].spans';
    deepStrictEqual(problems, [
      { reason: 'invalid_record', message: `${at}[0]: traceId: must be 16 non-zero bytes, got ""` },
      { reason: 'invalid_record', message: `${at}[1]: traceId: must be 16 non-zero bytes, got "xyz"` },
      { reason: 'invalid_record', message: `${at}[2]: traceId: must be 16 non-zero bytes, got ""` },
    ]);
  });

  it('keeps the first spans of a request over the span limit and rejects the rest as too_many_spans', () => {
    const { spans, problems } = decodeTraceRequest(jsonBody([jsonSpan(), jsonSpan(), jsonSpan()]), 'json', { ...LIMITS, maxSpansPerRequest: 2 });
    strictEqual(spans.length, 2);
    deepStrictEqual(problems, [{ reason: 'too_many_spans', message: 'span 3 of 3: over the limit of 2 spans per request' }]);
  });

  it('rejects protobuf spans with ids of the wrong length', () => {
    const { spans, problems } = decodeTraceRequest(protobufBody([protoSpan({ spanId: Buffer.from('abcd', 'hex') }), protoSpan()]), 'protobuf', LIMITS);
    strictEqual(spans.length, 1);
    deepStrictEqual(problems, [
      { reason: 'invalid_record', message: 'resource_spans[0].scope_spans[0].spans[0]: spanId: must be 8 non-zero bytes, got "abcd"' },
    ]);
  });

  it('refuses a body that is not a request at all as undecodable, with the cause', () => {
    const undecodable = (body: Uint8Array, encoding: 'json' | 'protobuf', message: RegExp): void => {
      throws(
        () => decodeTraceRequest(body, encoding, LIMITS),
        (e: unknown) => e instanceof UndecodableBody && message.test(e.message),
      );
    };
    undecodable(Buffer.from('{"resourceSpans":'), 'json', /^not JSON: /);
    undecodable(Buffer.from('[1,2]'), 'json', /^the body is not an ExportTraceServiceRequest object$/);
    undecodable(Buffer.from('{"resourceSpans":{}}'), 'json', /^resourceSpans: not a list$/);
    undecodable(Buffer.from('{"resourceSpans":[{"scopeSpans":[{"spans":7}]}]}'), 'json', /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans: not a list$/);
    const valid = protobufBody([protoSpan()]);
    undecodable(valid.subarray(0, valid.length - 3), 'protobuf', /^not a protobuf ExportTraceServiceRequest: /);
    undecodable(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), 'protobuf', /^not a protobuf ExportTraceServiceRequest: /);
  });

  it('refuses a protobuf request holding a string that is not UTF-8 (as the Collector does), still counting all its spans', () => {
    const spans = Array.from({ length: 120 }, (_, i) =>
      protoSpan({ spanId: Buffer.alloc(8, i + 1), attributes: i === 7 ? [{ key: 'reconcile.object', value: { stringValue: 'ns/\u00e9' } }] : [] }),
    );
    const body = Buffer.from(protobufBody(spans));
    // the two bytes of é (c3 a9) become c3 ff: a broken sequence, in the value of a kept attribute of span 7
    const at = body.indexOf(Buffer.from('ns/\u00e9'));
    body[at + 4] = 0xff;
    throws(
      () => decodeTraceRequest(body, 'protobuf', LIMITS),
      (e: unknown) =>
        e instanceof UndecodableBody &&
        e.spans === 120 &&
        e.message ===
          `not a protobuf ExportTraceServiceRequest: resource_spans[0].scope_spans[0].spans[7]: a string field at offset ${at - 1} is not valid UTF-8`,
    );
    // a structure that cannot be walked has no span count
    throws(
      () => decodeTraceRequest(body.subarray(0, body.length - 3), 'protobuf', LIMITS),
      (e: unknown) => e instanceof UndecodableBody && e.spans === undefined,
    );
  });

  it('survives attribute values nested 100,000 deep: protobufjs refuses them, JSON is walked no deeper than a scalar', () => {
    throws(
      () => decodeTraceRequest(nestedProtobuf(100_000), 'protobuf', LIMITS),
      (e: unknown) => e instanceof UndecodableBody && e.message === 'not a protobuf ExportTraceServiceRequest: max depth exceeded',
    );
    const deep = '{"arrayValue":{"values":['.repeat(100_000) + ']}}'.repeat(100_000);
    const { problems } = decodeTraceRequest(
      Buffer.from(
        `{"resourceSpans":[{"scopeSpans":[{"spans":[${JSON.stringify(jsonSpan()).replace('"attributes":[', `"attributes":[{"key":"reconcile.deep","value":${deep}},`)}]}]}]}`,
      ),
      'json',
      LIMITS,
    );
    deepStrictEqual(problems, []);
  });

  it('treats an empty request as valid and empty in both encodings', () => {
    deepStrictEqual(decodeTraceRequest(Buffer.from('{}'), 'json', LIMITS), { spans: [], problems: [] });
    deepStrictEqual(decodeTraceRequest(new Uint8Array(0), 'protobuf', LIMITS), { spans: [], problems: [] });
  });
});

/** A request whose one span has an attribute of arrays in arrays, `depth` levels down, written inside out. */
function nestedProtobuf(depth: number): Uint8Array {
  const innermost = [0x0a, 0x01, 0x78]; // AnyValue { string_value: "x" }
  const headers: number[][] = [];
  let length = innermost.length;
  const wrap = (prefix: number[], tag: number): void => {
    const header = [...prefix, tag, ...varint(length)];
    headers.push(header);
    length += header.length;
  };
  for (let i = 0; i < depth; i++) {
    wrap([], 0x0a); // ArrayValue.values
    wrap([], 0x2a); // AnyValue.array_value
  }
  wrap([0x0a, 0x0e, ...Buffer.from('reconcile.deep')], 0x12); // KeyValue { key, value }
  for (const tag of [0x4a, 0x12, 0x12, 0x0a]) wrap([], tag); // Span.attributes, ScopeSpans.spans, ResourceSpans.scope_spans, request.resource_spans
  return Uint8Array.from([...headers.reverse().flat(), ...innermost]);
}

function varint(n: number): number[] {
  const out: number[] = [];
  for (; n > 127; n >>>= 7) out.push((n & 127) | 128);
  out.push(n);
  return out;
}
