/**
 * `application/json` bodies (OTLP/JSON). Not canonical proto3 JSON: ids are hex (either case), int64 values
 * arrive as decimal strings or as JSON numbers (the JS exporter sends `intValue` as a number), enums as integers.
 * A body whose structure is wrong is undecodable (400); a span with a wrong field is rejected on its own.
 */
import {
  CONVENTION_PREFIX,
  SpanFieldProblem,
  UndecodableBody,
  checkAttributeCount,
  checkIds,
  checkLength,
  checkTimes,
  spanProblem,
  tooManySpans,
  type AttributeValue,
  type DecodeLimits,
  type DecodedRequest,
  type OtlpSpan,
  type SpanProblem,
} from './span.js';

type JsonObject = Record<string, unknown>;

/** The Collector's JSON unmarshaler also accepts the enum names, so senders may use them. */
const STATUS_CODE_NAMES: Readonly<Record<string, number>> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

/**
 * JSON.parse builds one object per `{}` or `[]`, some 60 bytes of heap for every 2 or 3 bytes of `{},{},…`: a 2 MiB
 * body of them takes ~45 MiB while it is parsed. OTLP/JSON spends far more bytes per object (keys, ids, values), so a
 * body denser than one object or array per MIN_BYTES_PER_CONTAINER bytes is refused unparsed, which bounds parsing to
 * about ten times the body's size. Small bodies are exempt (`{}` is an empty request).
 */
export const MIN_BYTES_PER_CONTAINER = 8;
export const EXEMPT_CONTAINERS = 1_000;

export function decodeJsonRequest(body: Uint8Array, limits: DecodeLimits): DecodedRequest {
  const containers = countContainers(body);
  if (containers > EXEMPT_CONTAINERS && containers * MIN_BYTES_PER_CONTAINER > body.length) {
    throw new UndecodableBody(`${containers} JSON objects and arrays in ${body.length} bytes: denser than OTLP/JSON can be (one per ${MIN_BYTES_PER_CONTAINER} bytes at most)`);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch (e) {
    throw new UndecodableBody(`not JSON: ${(e as Error).message}`);
  }
  if (!isObject(value)) throw new UndecodableBody('the body is not an ExportTraceServiceRequest object');
  const spanLists: { at: string; spans: unknown[] }[] = [];
  listAt(value, 'resourceSpans', 'resourceSpans').forEach((rs, r) => {
    const rsAt = `resourceSpans[${r}]`;
    if (!isObject(rs)) throw new UndecodableBody(`${rsAt}: not an object`);
    listAt(rs, 'scopeSpans', `${rsAt}.scopeSpans`).forEach((ss, s) => {
      const ssAt = `${rsAt}.scopeSpans[${s}]`;
      if (!isObject(ss)) throw new UndecodableBody(`${ssAt}: not an object`);
      spanLists.push({ at: `${ssAt}.spans`, spans: listAt(ss, 'spans', `${ssAt}.spans`) });
    });
  });
  const total = spanLists.reduce((n, l) => n + l.spans.length, 0);
  const spans: OtlpSpan[] = [];
  const problems: SpanProblem[] = [];
  let index = 0;
  for (const list of spanLists) {
    list.spans.forEach((span, k) => {
      if (index++ >= limits.maxSpansPerRequest) return;
      try {
        spans.push(toSpan(span, limits));
      } catch (e) {
        problems.push(spanProblem(`${list.at}[${k}]`, e));
      }
    });
  }
  if (total > limits.maxSpansPerRequest) problems.push(tooManySpans(limits.maxSpansPerRequest, total, limits));
  return { spans, problems };
}

/**
 * `{` and `[` bytes, inside strings too: an upper bound on the objects and arrays JSON.parse would build.
 * It reads every byte of every body, so: where they are sparse, as in real OTLP/JSON (one per ~70 bytes), it jumps
 * from one to the next with Buffer#indexOf (memchr); past one per 32 bytes it counts the rest four bytes at a time.
 */
function countContainers(body: Uint8Array): number {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const sparse = body.length >>> 5;
  let n = 0;
  for (const c of [0x7b, 0x5b]) {
    for (let i = buf.indexOf(c); i !== -1; i = buf.indexOf(c, i + 1)) if (++n > sparse) return countByWords(body);
  }
  return n;
}

/**
 * `{` (0x7b) and `[` (0x5b) differ only in bit 0x20, so each byte of `word | 0x20202020` equals 0x7b exactly when it
 * was one of them; the zero-byte test below is exact.
 */
function countByWords(body: Uint8Array): number {
  let n = 0;
  let i = 0;
  const aligned = Math.min(body.length, (4 - (body.byteOffset & 3)) & 3);
  for (; i < aligned; i++) n += isContainer(body[i]!);
  const words = new Uint32Array(body.buffer, body.byteOffset + i, (body.length - i) >>> 2);
  for (let k = 0; k < words.length; k++) {
    const x = (words[k]! | 0x20202020) ^ 0x7b7b7b7b;
    // 0x80 in each byte of x that is zero, then one bit per such byte summed by the multiply
    const zeros = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f) >>> 7;
    n += ((zeros & 0x01010101) * 0x01010101) >>> 24;
  }
  for (i += words.length * 4; i < body.length; i++) n += isContainer(body[i]!);
  return n;
}

const isContainer = (b: number): number => (b === 0x7b || b === 0x5b ? 1 : 0);

/** A repeated field: absent or null is empty (proto3 JSON), anything but a list is undecodable. */
function listAt(o: JsonObject, key: string, at: string): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new UndecodableBody(`${at}: not a list`);
  return v;
}

function toSpan(span: unknown, limits: DecodeLimits): OtlpSpan {
  if (!isObject(span)) throw new SpanFieldProblem('invalid_record', 'not an object');
  const traceId = idField(span, 'traceId');
  const spanId = idField(span, 'spanId');
  const parentSpanId = idField(span, 'parentSpanId');
  checkIds(traceId, spanId, parentSpanId);
  const startNs = uint64Field(span, 'startTimeUnixNano');
  const endNs = uint64Field(span, 'endTimeUnixNano');
  checkTimes(startNs, endNs);
  const name = stringField(span, 'name', 'name');
  checkLength('name', name, limits);
  const st = span.status;
  const statusCode = statusCodeOf(st);
  const statusMessage = st === undefined || st === null ? '' : stringField(st as JsonObject, 'message', 'status.message');
  checkLength('status.message', statusMessage, limits);
  const list = span.attributes ?? [];
  if (!Array.isArray(list)) throw new SpanFieldProblem('invalid_record', 'attributes: not a list');
  checkAttributeCount(list.length, limits);
  let attributes: Map<string, AttributeValue> | undefined;
  for (let i = 0; i < list.length; i++) {
    const kv: unknown = list[i];
    if (!isObject(kv) || typeof kv.key !== 'string') throw new SpanFieldProblem('invalid_record', `attributes[${i}]: not a {key, value} object`);
    if (!kv.key.startsWith(CONVENTION_PREFIX)) continue;
    const value = scalar(kv.value, `attributes[${kv.key}]`);
    if (value === undefined) continue;
    if (typeof value === 'string') checkLength(`attributes[${kv.key}]`, value, limits);
    (attributes ??= new Map()).set(kv.key, value);
  }
  return { traceId, spanId, parentSpanId, name, startNs, endNs, statusCode, statusMessage, attributes: attributes ?? NO_ATTRIBUTES };
}

/** Most spans keep no attribute (operation spans carry their outcome in the status); they share one empty map. */
const NO_ATTRIBUTES: ReadonlyMap<string, AttributeValue> = new Map();

/** The status code; also refuses a status that is not an object (its message is read after). */
function statusCodeOf(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (!isObject(v)) throw new SpanFieldProblem('invalid_record', 'status: not an object');
  const code = v.code ?? 0;
  let statusCode: number | undefined;
  if (typeof code === 'number' && Number.isInteger(code)) statusCode = code;
  else if (typeof code === 'string') statusCode = STATUS_CODE_NAMES[code];
  if (statusCode === undefined) throw new SpanFieldProblem('invalid_record', `status.code: not a status code: ${JSON.stringify(code)}`);
  return statusCode;
}

/** Only the scalar kinds are kept; the convention uses no arrays, maps or bytes. */
function scalar(v: unknown, at: string): AttributeValue | undefined {
  if (!isObject(v)) return undefined;
  if ('stringValue' in v) {
    if (typeof v.stringValue !== 'string') throw new SpanFieldProblem('invalid_record', `${at}.stringValue: not a string`);
    return v.stringValue;
  }
  if ('boolValue' in v) {
    if (typeof v.boolValue !== 'boolean') throw new SpanFieldProblem('invalid_record', `${at}.boolValue: not a boolean`);
    return v.boolValue;
  }
  if ('intValue' in v) return int64(v.intValue, `${at}.intValue`);
  if ('doubleValue' in v) {
    if (typeof v.doubleValue !== 'number') throw new SpanFieldProblem('invalid_record', `${at}.doubleValue: not a number`);
    return v.doubleValue;
  }
  return undefined;
}

const INT64_TEXT = /^-?\d{1,20}$/;
const UINT64_TEXT = /^\d{1,20}$/;

function int64(v: unknown, at: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && INT64_TEXT.test(v)) n = BigInt(v);
  if (n !== undefined && n === BigInt.asIntN(64, n)) return n;
  throw new SpanFieldProblem('invalid_record', `${at}: not an int64: ${JSON.stringify(v)}`);
}

function uint64Field(o: JsonObject, key: string): bigint {
  const v = o[key] ?? '0';
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && UINT64_TEXT.test(v)) return BigInt(v);
  throw new SpanFieldProblem('invalid_record', `${key}: not a uint64 count of nanoseconds: ${JSON.stringify(v)}`);
}

function idField(o: JsonObject, key: string): string {
  return stringField(o, key, key).toLowerCase();
}

function stringField(o: JsonObject, key: string, at: string): string {
  const v = o[key] ?? '';
  if (typeof v !== 'string') throw new SpanFieldProblem('invalid_record', `${at}: not a string`);
  return v;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
