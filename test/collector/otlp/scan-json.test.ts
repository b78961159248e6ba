/**
 * The OTLP/JSON scanner (collector/otlp/internal/scan-json.ts) against the parse-and-walk it stands in for: on bodies the real
 * JSON exporter sent and on those bodies mutated (bytes, values, keys, key order, spelling, whitespace, limits), both
 * must give the same spans and problems, or refuse the body with the same message. The scanner must also really take
 * the exporter's bodies itself, or the comparison would only ever run the walk twice. `FUZZ_RUNS` raises the cases.
 */
import { deepStrictEqual, strictEqual } from 'node:assert';
import { trace, ROOT_CONTEXT } from '@opentelemetry/api';
import fc from 'fast-check';
import { decodeJsonRequest, decodeParsedJsonRequest } from '../../../collector/otlp/internal/decode-json.js';
import { emitAttempt } from '../../../collector/otlp/internal/emit.js';
import { scanJsonRequest } from '../../../collector/otlp/internal/scan-json.js';
import type { DecodedBatch } from '../../../collector/otlp/internal/span-batch.js';
import { UndecodableBody, type DecodeLimits, type OtlpSpan, type SpanProblem } from '../../../collector/otlp/internal/span.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { captureExportedBodies } from '../../support/exporter-bodies.js';
import { otlpExporter } from './helpers.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const LIMITS: DecodeLimits = { maxSpansPerRequest: 10_000, maxAttributesPerSpan: 128, maxStringLength: 4096 };

type Outcome = { spans: OtlpSpan[]; problems: SpanProblem[] } | { refused: string; spans: number | undefined };

function outcome(decode: (body: Uint8Array, limits: DecodeLimits) => DecodedBatch, body: Uint8Array, limits: DecodeLimits): Outcome {
  try {
    const { batch, problems } = decode(body, limits);
    return { spans: batch.spans(), problems };
  } catch (e) {
    if (e instanceof UndecodableBody) return { refused: e.message, spans: e.spans };
    throw e;
  }
}

/** What the scanner does with a body on its own: takes it whole, hands some spans to the walk, or gives it up. */
function path(body: Uint8Array, limits: DecodeLimits): 'scanned' | 'spans parsed' | 'parsed' {
  let parsed = 0;
  const scanned = scanJsonRequest(body, limits, () => void parsed++);
  return scanned === undefined ? 'parsed' : parsed > 0 ? 'spans parsed' : 'scanned';
}

function sameAsParsed(body: Uint8Array, limits: DecodeLimits): void {
  deepStrictEqual(outcome(decodeJsonRequest, body, limits), outcome(decodeParsedJsonRequest, body, limits));
}

function attempt(object: string, operations: AttemptRecord['operations'], generation?: number): AttemptRecord {
  const time = '2026-11-01T00:00:05.339362Z';
  return {
    time,
    timeMs: Date.parse(time),
    controller: 'hostedcluster',
    object,
    loop: 'phased',
    operations,
    origin: { source: 'journal' },
    ...(generation === undefined ? {} : { generation }),
  };
}

/** Attempts whose spans carry what exporters really write: error messages with quotes, newlines and non-ASCII. */
const ATTEMPTS: readonly AttemptRecord[] = [
  attempt(
    'clusters/hc-1',
    [
      { name: 'ValidReleaseImage', outcome: 'ok', durationSeconds: 0.25 },
      {
        name: 'AuditWebhookSync',
        outcome: 'error',
        error: 'failed to get audit webhook config clusters/hc-1: secrets "hc-1-audit-webhook" not found',
        durationSeconds: 0.5,
      },
      { name: 'PayloadArch', outcome: 'skip' },
      { name: 'PersistStatus', outcome: 'stop' },
    ],
    2,
  ),
  attempt('clusters/hc-ü', [
    { name: 'IgnitionEndpointAvailable', outcome: 'error', error: 'línea 1\nline 2\ttab \\ backslash, € and 😀' },
    { name: 'ReconcileÄ', outcome: 'ok', durationSeconds: 1e-9 },
  ]),
  attempt('clusters/hc-3', []),
];

/** Bodies exactly as the real JSON exporter sends them, with attributes of every kind, kept and not. */
function exporterBodies(): Promise<Buffer[]> {
  return captureExportedBodies(
    (url) => otlpExporter('json', url),
    (tracer) => {
      for (const a of ATTEMPTS) emitAttempt(tracer, a);
      const parent = tracer.startSpan('reconcile');
      const span = tracer.startSpan(
        'Extra',
        {
          attributes: {
            'http.method': 'GET',
            'reconcile.ratio': 0.5,
            'reconcile.flag': false,
            'reconcile.big': 2 ** 53 + 2,
            'reconcile.list': ['a', 'b'],
            'reconcile.neg': -7,
          },
        },
        trace.setSpan(ROOT_CONTEXT, parent),
      );
      span.addEvent('an event', { 'reconcile.x': 'y' });
      span.end();
      parent.end();
    },
    { scope: 'scan-json', batchSize: 4 },
  );
}

const hex = (bytes: number): fc.Arbitrary<string> => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', 'a"b', 'a\\b', 'tab\there', 'ü', '€😀', '\u2028', '\ud800', 'reconcile.', 'x'.repeat(70)),
);
/** An attributes list: kept keys and others, every kind of value and junk. */
const attributeList = fc.array(
  fc.record(
    {
      key: fc.oneof(fc.constantFrom('reconcile.controller', 'reconcile.outcome', 'reconcile.operation_count', 'http.method'), text),
      value: fc.oneof(
        fc.record({ stringValue: fc.oneof(text, fc.integer()) }),
        fc.record({
          intValue: fc.oneof(
            fc.integer(),
            fc.bigInt({ min: -(1n << 64n), max: 1n << 64n }).map(String),
            fc.double(),
            fc.constantFrom(1e15, 123456789012345, 1234567890123456, -0, 2 ** 63, -(2 ** 63), 2 ** 63 - 1024, -(2 ** 63) - 2048, 1e19, 2 ** 64),
          ),
        }),
        fc.record({ boolValue: fc.oneof(fc.boolean(), fc.string()) }),
        fc.record({ doubleValue: fc.oneof(fc.double({ noNaN: true }), fc.string()) }),
        fc.record({ stringValue: text, intValue: fc.integer() }),
        fc.record({ arrayValue: fc.record({ values: fc.array(fc.record({ stringValue: text }), { maxLength: 2 }) }) }),
        fc.anything({ maxDepth: 2, maxKeys: 2 }),
      ),
    },
    { requiredKeys: [] },
  ),
  { maxLength: 4 },
);
/** Values a span's fields may be replaced with: the plain ones, the other spellings the walk accepts, and junk. */
const fieldValue = fc.oneof(
  hex(16),
  hex(8),
  hex(16).map((h) => h.toUpperCase()),
  fc.constantFrom('0'.repeat(32), '0'.repeat(16), ''),
  fc.bigInt({ min: 0n, max: 1n << 66n }).map(String),
  fc.constantFrom('18446744073709551615', '18446744073709551616', '0001', '1e3', '-1', ' 1'),
  fc.integer({ min: -3, max: 2 ** 31 }),
  fc.constantFrom(0, 2, 2.5, -0, 1e21, 2 ** 64, 2 ** 53 + 2),
  text,
  fc.constant(null),
  fc.boolean(),
  fc.record(
    { code: fc.oneof(fc.nat(3), fc.constantFrom('STATUS_CODE_ERROR', 'STATUS_CODE_OK', 'bad', 2.5, -1, 2 ** 40)), message: fc.oneof(text, fc.constant(null)) },
    { requiredKeys: [] },
  ),
  attributeList,
  fc.anything({ maxDepth: 2, maxKeys: 3 }),
);
/** Edge values every field gets, in every span of a body (the first, and ones after spans that decoded or not). */
const EDGE_VALUES: readonly unknown[] = [
  undefined,
  null,
  '',
  '0'.repeat(32),
  '0'.repeat(16),
  'ABCDEF0123456789ABCDEF0123456789',
  'abcdef0123456789',
  'abcdef012345678g',
  '18446744073709551615',
  '9999999999999999999',
  '0001',
  0,
  -1,
  2 ** 53,
  1.5,
  'a"b\\c\n',
  'ü€',
  'x'.repeat(17),
  {},
  { code: 2, message: 'boom "quoted"' },
  { code: 'STATUS_CODE_ERROR' },
  [],
  [
    { key: 'reconcile.outcome', value: { stringValue: 'stop' } },
    { key: 'reconcile.n', value: { intValue: 7 } },
  ],
  [{ key: 'reconcile.n', value: { intValue: 2 ** 63 } }],
];
const FIELDS = ['traceId', 'spanId', 'parentSpanId', 'name', 'startTimeUnixNano', 'endTimeUnixNano', 'status', 'attributes', 'kind', 'events'] as const;

/** A span that decodes, for a key written twice: JSON.parse keeps the second. */
const SPAN = '{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"Twice"}';

/** Rewrites of the body's text that JSON.stringify cannot make: repeated keys, escaped keys, other spellings. */
const REWRITES: readonly ((json: string) => string)[] = [
  (j) => j.replace('"name":', '"name":"first","name":'),
  (j) => j.replace('"status":', '"status":{"code":2,"message":"first"},"status":'),
  (j) => j.replace('"attributes":[],', '"attributes":[{"key":"reconcile.first","value":{"stringValue":"x"}}],"attributes":[],'),
  (j) => j.replace('"spanId":', '"spanId":"b7ad6b7169203331","spanId":'),
  (j) => j.replace('"spans":[', `"spans":[${SPAN}],"spans":[`),
  (j) => j.replace('"scopeSpans":[', `"scopeSpans":[{"spans":[${SPAN}]}],"scopeSpans":[`),
  (j) => j.replace('"resourceSpans":[', `"resourceSpans":[{"scopeSpans":[{"spans":[${SPAN}]}]}],"resourceSpans":[`),
  (j) => j.replace('"scopeSpans":', '"scopeSpans":null,"scopeSpans":'),
  (j) => j.replace(/("key":"reconcile\.[a-z_]*","value":)(\{"stringValue":"[^"]*"\})/, '$1$2,"value":{}'),
  (j) => j.replace('"traceId"', '"trace\\u0049d"'),
  (j) => j.replace('"spans"', '"sp\\u0061ns"'),
  (j) => j.replace('"key":"reconcile.', '"key":"reconcile\\u002e'),
  (j) => j.replace('"startTimeUnixNano"', '"start_time_unix_nano"'),
  (j) => j.replace('"parentSpanId"', '"parent_span_id"'),
  (j) => j.replace(/\{"key":("[^"]*"),"value":(\{[^{}]*\})\}/, '{"value":$2,"key":$1}'),
  (j) => j.replace(/,"/g, ' ,\n\t"').replace(/:/g, ' : '),
  (j) => `\ufeff${j}`,
  (j) => ` ${j}\r\n`,
  (j) => `${j},`,
  (j) => j.replace('"kind":1', '"kind":1.5e+3'),
  (j) => j.replace('"kind":1', '"kind":01'),
  (j) => j.replace('"events":[]', '"events":[{"name":"\\ud83d\\ude00 \\u00fc","attributes":[[[[{}]]]]}]'),
  (j) => j.replace('"events":[]', '"events":[tru]'),
  (j) => j.replace('"events":[]', '"events":"\\x"'),
];

/** One byte at a time: what a truncated, corrupted or hand-edited body looks like. */
const BYTES = [...'"\\{}[],:- 0a.eE\n', '\u0000', '\u007f'].map((c) => c.charCodeAt(0)).concat([0x80, 0xc3, 0xff]);

function mutateBytes(body: Buffer, edits: readonly [number, number, number][]): Buffer {
  let b = body;
  for (const [op, at, byte] of edits) {
    const i = at % (b.length + 1);
    const x = BYTES[byte % BYTES.length]!;
    if (op === 0) b = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
    else if (op === 1) b = Buffer.concat([b.subarray(0, i), Buffer.of(x), b.subarray(i)]);
    else if (i < b.length) b = Buffer.concat([b.subarray(0, i), Buffer.of(x), b.subarray(i + 1)]);
    else b = b.subarray(0, Math.max(0, i - 1)); // cut short
  }
  return b;
}

type JsonObject = Record<string, unknown>;

/** The spans of a parsed body, in order. */
function spansOf(request: JsonObject): JsonObject[] {
  const rs = request.resourceSpans as JsonObject[];
  return rs.flatMap((r) => (r.scopeSpans as JsonObject[]).flatMap((s) => s.spans as JsonObject[]));
}

/** The same object with its keys written in the opposite order. */
function reverseKeys(o: JsonObject): void {
  const entries = Object.entries(o).reverse();
  for (const [k] of entries) delete o[k];
  for (const [k, v] of entries) o[k] = v;
}

describe('otlp/scan-json: the scanner decodes exactly as JSON.parse and the walk', () => {
  let bodies: Buffer[] = [];
  before(async () => {
    bodies = await exporterBodies();
  });

  it('takes every body the real exporter sent by itself, with the same spans as the walk', () => {
    strictEqual(bodies.length, 3);
    strictEqual(
      bodies.reduce((n, b) => n + decodeJsonRequest(b, LIMITS).batch.length, 0),
      ATTEMPTS.reduce((n, a) => n + 1 + a.operations.length, 0) + 2,
    );
    for (const body of bodies) {
      strictEqual(path(body, LIMITS), 'scanned');
      sameAsParsed(body, LIMITS);
    }
  });

  it('agrees on the exporter bodies under any limits: spans over the limit, attributes, string lengths', () => {
    fc.assert(
      fc.property(fc.nat(bodies.length - 1), fc.nat(12), fc.nat(8), fc.nat(120), (b, spans, attributes, length) => {
        sameAsParsed(bodies[b]!, { maxSpansPerRequest: spans, maxAttributesPerSpan: attributes, maxStringLength: length });
      }),
      { numRuns: RUNS },
    );
  });

  it('agrees on each edge value in each span field, in the first span and in later ones', () => {
    const request = JSON.parse(bodies[0]!.toString('utf8')) as JsonObject;
    const count = spansOf(request).length;
    for (const field of FIELDS) {
      for (const value of EDGE_VALUES) {
        for (let at = 0; at < count; at++) {
          const edited = JSON.parse(bodies[0]!.toString('utf8')) as JsonObject;
          const span = spansOf(edited)[at]!;
          if (value === undefined) delete span[field];
          else span[field] = value;
          const body = Buffer.from(JSON.stringify(edited));
          sameAsParsed(body, LIMITS);
          sameAsParsed(body, { maxSpansPerRequest: count, maxAttributesPerSpan: 1, maxStringLength: 16 });
        }
      }
    }
  });

  it('agrees when a span field holds another value or is missing, in any key order and with rewritten text', () => {
    const paths = new Set<string>();
    fc.assert(
      fc.property(
        fc.nat(bodies.length - 1),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...FIELDS), fc.option(fieldValue, { nil: undefined })), { maxLength: 3 }),
        fc.boolean(),
        fc.option(fc.nat(REWRITES.length - 1), { nil: undefined }),
        (b, edits, shuffle, rewrite) => {
          const request = JSON.parse(bodies[b]!.toString('utf8')) as JsonObject;
          const spans = spansOf(request);
          for (const [at, field, value] of edits) {
            const span = spans[at % spans.length]!;
            if (value === undefined) delete span[field];
            else span[field] = value;
          }
          if (shuffle) for (const span of spans) reverseKeys(span);
          let json = JSON.stringify(request);
          if (rewrite !== undefined) json = REWRITES[rewrite]!(json);
          const body = Buffer.from(json);
          paths.add(path(body, LIMITS));
          sameAsParsed(body, LIMITS);
          sameAsParsed(body, { maxSpansPerRequest: 3, maxAttributesPerSpan: 2, maxStringLength: 16 });
        },
      ),
      { numRuns: RUNS },
    );
    deepStrictEqual([...paths].sort(), ['parsed', 'scanned', 'spans parsed']);
  });

  it('agrees on any attributes list in a span', () => {
    fc.assert(
      fc.property(fc.nat(bodies.length - 1), fc.nat(), attributeList, fc.nat(6), (b, at, attributes, limit) => {
        const request = JSON.parse(bodies[b]!.toString('utf8')) as JsonObject;
        const spans = spansOf(request);
        spans[at % spans.length]!.attributes = attributes;
        const body = Buffer.from(JSON.stringify(request));
        sameAsParsed(body, LIMITS);
        sameAsParsed(body, { ...LIMITS, maxAttributesPerSpan: limit, maxStringLength: 8 });
      }),
      { numRuns: RUNS },
    );
  });

  it('agrees on bodies with bytes deleted, inserted, replaced or cut off', () => {
    const paths = new Set<string>();
    fc.assert(
      fc.property(fc.nat(bodies.length - 1), fc.array(fc.tuple(fc.nat(3), fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }), (b, edits) => {
        const body = mutateBytes(bodies[b]!, edits);
        paths.add(path(body, LIMITS));
        sameAsParsed(body, LIMITS);
      }),
      { numRuns: RUNS },
    );
    deepStrictEqual([...paths].sort(), ['parsed', 'scanned', 'spans parsed']);
  });

  it('agrees on bodies that are not requests, or not JSON, and on dense ones', () => {
    const dense = `{"resourceSpans":[${'{},'.repeat(2000)}{}]}`;
    for (const text of [
      '',
      ' ',
      '{}',
      '[]',
      'null',
      '"x"',
      '{"resourceSpans":null}',
      '{"resourceSpans":{}}',
      '{"resourceSpans":[1]}',
      '{"resourceSpans":[{"scopeSpans":[{"spans":[1,null,"x",[]]}]}]}',
      dense,
      '{"a":1}x',
      '{"a":1,}',
    ]) {
      sameAsParsed(Buffer.from(text), LIMITS);
    }
    const deep = '{"arrayValue":{"values":['.repeat(100_000) + ']}}'.repeat(100_000);
    const body = Buffer.from(bodies[0]!.toString('utf8').replace('"attributes":[', `"attributes":[{"key":"reconcile.deep","value":${deep}},`));
    strictEqual(path(body, LIMITS), 'scanned');
    sameAsParsed(body, LIMITS);
  });
});
