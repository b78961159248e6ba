/**
 * `application/json` bodies (OTLP/JSON). Not canonical proto3 JSON: ids are hex (either case), int64 values
 * arrive as decimal strings or as JSON numbers (the JS exporter sends `intValue` as a number), enums as integers.
 * A body whose structure is wrong is undecodable (400); a span with a wrong field is rejected on its own.
 * Spans are written to a SpanBatch (columns): ids as words parsed from their hex, times as words parsed from their
 * digits, so no bigint, lowercased copy or span object is made per span. Bodies in the form exporters write are
 * scanned into it without JSON.parse (scan-json.ts); what the scanner does not take is parsed and walked here.
 */
import { SAMPLING_THRESHOLD, samplingThreshold } from './sampling.js';
import { POWERS_OF_TEN, scanJsonRequest } from './scan-json.js';
import { ID_WORDS, NO_ATTRIBUTES, SpanBatch, TIME_WORDS, type DecodedBatch } from './span-batch.js';
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
  type SpanProblem,
} from './span.js';

type JsonObject = Record<string, unknown>;

/** The Collector's JSON unmarshaler also accepts the enum names, so senders may use them. */
const STATUS_CODE_NAMES: Readonly<Record<string, number>> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

/**
 * JSON.parse builds one object per `{}` or `[]`, many times more bytes of heap than the 2 or 3 bytes of `{},{},…`
 * that wrote it, while the body is parsed. OTLP/JSON spends far more bytes per object (keys, ids, values), so a
 * body denser than one object or array per MIN_BYTES_PER_CONTAINER bytes is refused unparsed, which bounds parsing to
 * about ten times the body's size. Small bodies are exempt (`{}` is an empty request).
 */
export const MIN_BYTES_PER_CONTAINER = 8;
export const EXEMPT_CONTAINERS = 1_000;

/**
 * The spans of a body: scanned straight into columns when it is in the plain form real exporters write
 * (scan-json.ts), else parsed and walked; either way the same spans and problems, or the same UndecodableBody.
 */
export function decodeJsonRequest(body: Uint8Array, limits: DecodeLimits): DecodedBatch {
  refuseDense(body);
  const last = new LastIds();
  return scanJsonRequest(body, limits, (span, batch) => addSpan(span, limits, batch, last)) ?? parseAndWalk(body, limits);
}

/** The same without the scanner: what the scanner must agree with (test/collector/otlp/scan-json.test.ts). */
export function decodeParsedJsonRequest(body: Uint8Array, limits: DecodeLimits): DecodedBatch {
  refuseDense(body);
  return parseAndWalk(body, limits);
}

function refuseDense(body: Uint8Array): void {
  const containers = countContainers(body);
  if (containers > EXEMPT_CONTAINERS && containers * MIN_BYTES_PER_CONTAINER > body.length) {
    throw new UndecodableBody(
      `${containers} JSON objects and arrays in ${body.length} bytes: denser than OTLP/JSON can be (one per ${MIN_BYTES_PER_CONTAINER} bytes at most)`,
    );
  }
}

/** JSON.parse, then the parsed objects walked into columns. */
function parseAndWalk(body: Uint8Array, limits: DecodeLimits): DecodedBatch {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch (e) {
    throw new UndecodableBody(`not JSON: ${(e as Error).message}`);
  }
  if (!isObject(value)) throw new UndecodableBody('the body is not an ExportTraceServiceRequest object');
  const spanLists: { at: string; spans: unknown[] }[] = [];
  const resources = listAt(value, 'resourceSpans', 'resourceSpans');
  for (let r = 0; r < resources.length; r++) {
    const rs = resources[r];
    const rsAt = `resourceSpans[${r}]`;
    if (!isObject(rs)) throw new UndecodableBody(`${rsAt}: not an object`);
    const scopes = listAt(rs, 'scopeSpans', `${rsAt}.scopeSpans`);
    for (let k = 0; k < scopes.length; k++) {
      const ss = scopes[k];
      const ssAt = `${rsAt}.scopeSpans[${k}]`;
      if (!isObject(ss)) throw new UndecodableBody(`${ssAt}: not an object`);
      spanLists.push({ at: `${ssAt}.spans`, spans: listAt(ss, 'spans', `${ssAt}.spans`) });
    }
  }
  const total = spanLists.reduce((n, l) => n + l.spans.length, 0);
  const batch = new SpanBatch(Math.min(total, limits.maxSpansPerRequest));
  const problems: SpanProblem[] = [];
  const last = new LastIds();
  let index = 0;
  for (const list of spanLists) {
    for (let k = 0; k < list.spans.length && index++ < limits.maxSpansPerRequest; k++) {
      try {
        addSpan(list.spans[k], limits, batch, last);
      } catch (e) {
        problems.push(spanProblem(`${list.at}[${k}]`, e));
      }
    }
  }
  if (total > limits.maxSpansPerRequest) problems.push(tooManySpans(limits.maxSpansPerRequest, total, limits));
  return { batch, problems };
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

/**
 * Checks one span and commits it to the batch; the checks and their order are the protobuf decoder's. Fields are read
 * by name, not through a helper taking the key: a keyed load with varying keys is a slow, megamorphic lookup.
 */
function addSpan(span: unknown, limits: DecodeLimits, batch: SpanBatch, last: LastIds): void {
  if (!isObject(span)) throw new SpanFieldProblem('invalid_record', 'not an object');
  const traceId = text(span.traceId, 'traceId');
  const spanId = text(span.spanId, 'spanId');
  const parentSpanId = text(span.parentSpanId, 'parentSpanId');
  const i = batch.next();
  const w = i * ID_WORDS;
  const ids = batch.ids;
  const idsValid =
    last.trace(traceId, ids, w) &&
    spanId.length === 16 &&
    hexWords(spanId, ids, w + 4) &&
    (ids[w + 4]! | ids[w + 5]!) !== 0 &&
    (parentSpanId === '' || last.parent(parentSpanId, ids, w + 6));
  if (!idsValid) {
    // ids are hex in either case; a problem message shows them lowercased
    checkIds(traceId.toLowerCase(), spanId.toLowerCase(), parentSpanId.toLowerCase());
    throw new Error(`ids ${traceId}/${spanId}/${parentSpanId} passed checkIds but not the decoder`);
  }
  const t = i * TIME_WORDS;
  const start = uint64Words(span.startTimeUnixNano, 'startTimeUnixNano', batch.times, t);
  const end = uint64Words(span.endTimeUnixNano, 'endTimeUnixNano', batch.times, t + 2);
  if (start !== undefined || end !== undefined) {
    checkTimes(start ?? 0n, end ?? 0n);
    if (start !== undefined) setWords(batch.times, t, start);
    if (end !== undefined) setWords(batch.times, t + 2, end);
  }
  const name = text(span.name, 'name');
  checkLength('name', name, limits);
  const st = span.status;
  const statusCode = statusCodeOf(st);
  const statusMessage = st === undefined || st === null ? '' : text((st as JsonObject).message, 'status.message');
  checkLength('status.message', statusMessage, limits);
  const list = span.attributes ?? [];
  if (!Array.isArray(list)) throw new SpanFieldProblem('invalid_record', 'attributes: not a list');
  checkAttributeCount(list.length, limits);
  let attributes: Map<string, AttributeValue> | undefined;
  for (let k = 0; k < list.length; k++) {
    const kv: unknown = list[k];
    if (!isObject(kv) || typeof kv.key !== 'string') throw new SpanFieldProblem('invalid_record', `attributes[${k}]: not a {key, value} object`);
    if (!kv.key.startsWith(CONVENTION_PREFIX) && limits.keptKeys?.has(kv.key) !== true) continue;
    const value = scalar(kv.value, `attributes[${kv.key}]`);
    if (value === undefined) continue;
    if (typeof value === 'string') checkLength(`attributes[${kv.key}]`, value, limits);
    (attributes ??= new Map()).set(kv.key, value);
  }
  const th = samplingThreshold(text(span.traceState, 'traceState'));
  if (th !== undefined) (attributes ??= new Map()).set(SAMPLING_THRESHOLD, th);
  batch.commit(parentSpanId !== '', name, statusCode, statusMessage, attributes ?? NO_ATTRIBUTES);
}

/** The status code; also refuses a status that is not an object (its message is read after). */
function statusCodeOf(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (!isObject(v)) throw new SpanFieldProblem('invalid_record', 'status: not an object');
  const code = v.code ?? 0;
  let statusCode: number | undefined;
  if (typeof code === 'number' && Number.isInteger(code)) statusCode = code;
  else if (typeof code === 'string' && Object.hasOwn(STATUS_CODE_NAMES, code)) statusCode = STATUS_CODE_NAMES[code];
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

/**
 * A uint64 field's value (absent is 0) into two words of `times` at `at`, high half first. Digit strings of up to 19
 * digits and safe integers, which cannot be out of range, are read here without a bigint; anything else comes back as
 * the bigint it spells, for the caller to check against the range (checkTimes names the first one out of it).
 */
function uint64Words(value: unknown, key: string, times: Uint32Array, at: number): bigint | undefined {
  const v = value ?? '0';
  if (typeof v === 'string' && v.length > 0 && v.length <= 19) {
    let high = 0;
    let low = 0;
    // five digits at a time (< 2^17): (high, low) * 10^5 + chunk stays exact in a double, the carry moves up
    for (let from = 0; from < v.length; from += 5) {
      const to = Math.min(v.length, from + 5);
      let chunk = 0;
      for (let i = from; i < to; i++) {
        const digit = v.charCodeAt(i) - 0x30;
        if (digit < 0 || digit > 9) throw notUint64(key, v);
        chunk = chunk * 10 + digit;
      }
      const scale = POWERS_OF_TEN[to - from]!;
      const scaled = low * scale + chunk;
      const carry = Math.floor(scaled / 0x1_0000_0000);
      low = scaled - carry * 0x1_0000_0000;
      high = high * scale + carry;
    }
    times[at] = high;
    times[at + 1] = low;
    return undefined;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) {
    times[at] = Math.floor(v / 0x1_0000_0000);
    times[at + 1] = v % 0x1_0000_0000;
    return undefined;
  }
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && UINT64_TEXT.test(v)) return BigInt(v);
  throw notUint64(key, v);
}

function notUint64(key: string, v: unknown): SpanFieldProblem {
  return new SpanFieldProblem('invalid_record', `${key}: not a uint64 count of nanoseconds: ${JSON.stringify(v)}`);
}

/** A checked uint64 into two words, high half first. */
function setWords(times: Uint32Array, at: number, ns: bigint): void {
  times[at] = Number(ns >> 32n);
  times[at + 1] = Number(ns & 0xffffffffn);
}

/**
 * The words of the trace and parent ids of the span before, with their text: an exporter writes an attempt's spans
 * side by side, so most spans repeat both, and comparing the text is cheaper than reading its hex again.
 */
class LastIds {
  /** undefined until a valid id is read: '' (no traceId) must be checked, not taken for the zeros of no id yet. */
  private traceText: string | undefined;
  private readonly traceWords = new Uint32Array(4);
  private parentText: string | undefined;
  private readonly parentWords = new Uint32Array(2);

  /** Writes a valid, non-zero traceId's words at `at`; false when it is not one. */
  trace(text: string, ids: Uint32Array, at: number): boolean {
    const words = this.traceWords;
    if (text !== this.traceText) {
      if (text.length !== 32 || !hexWords(text, words, 0) || (words[0]! | words[1]! | words[2]! | words[3]!) === 0) {
        this.traceText = undefined;
        return false;
      }
      this.traceText = text;
    }
    ids[at] = words[0]!;
    ids[at + 1] = words[1]!;
    ids[at + 2] = words[2]!;
    ids[at + 3] = words[3]!;
    return true;
  }

  /** Writes a valid parentSpanId's words at `at`; false when it is not one. */
  parent(text: string, ids: Uint32Array, at: number): boolean {
    const words = this.parentWords;
    if (text !== this.parentText) {
      if (text.length !== 16 || !hexWords(text, words, 0)) {
        this.parentText = undefined;
        return false;
      }
      this.parentText = text;
    }
    ids[at] = words[0]!;
    ids[at + 1] = words[1]!;
    return true;
  }
}

/** 8 hex digits (either case) per word into `ids` from `at`; false when a character is not one. */
function hexWords(hex: string, ids: Uint32Array, at: number): boolean {
  for (let k = 0; k < hex.length; k += 8) {
    let w = 0;
    for (let i = k; i < k + 8; i++) {
      const c = hex.charCodeAt(i) | 0x20; // lowercase for letters; digits keep their value
      const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
      if (d < 0) return false;
      w = w * 16 + d;
    }
    ids[at + k / 8] = w;
  }
  return true;
}

/** A string field's value; absent is ''. */
function text(v: unknown, at: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new SpanFieldProblem('invalid_record', `${at}: not a string`);
  return v;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
