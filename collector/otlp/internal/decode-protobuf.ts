/**
 * `application/x-protobuf` bodies, read straight off the wire with protobufjs' Reader into a SpanBatch (columns, no
 * object per span). Only what the span convention uses becomes JS values: ids and times as 32-bit words, the name,
 * the status, the sampling threshold of the trace_state (sampling.ts) and `reconcile.*` scalar attributes (strings must be valid UTF-8, as proto3 requires; short ASCII ones
 * come from a cache, ascii-strings.ts). Everything else (resources, scopes, events, links, other attributes and
 * their values) is skipped where it lies, and spans past the per-request limit are only counted. Decoding a body
 * therefore costs about the body's own size in memory: a full object tree (protobufjs' `Type.decode`) of a body of
 * tiny attributes or empty spans is many times the body's size, enough to run the sidecar out of its heap.
 * Field numbers are opentelemetry-proto's; collector/otlp/otlp_trace.proto lists them.
 */
import protobuf from 'protobufjs';
import { AsciiStrings } from './ascii-strings.js';
import { longToBigInt } from './proto.js';
import { SAMPLING_THRESHOLD, samplingThreshold } from './sampling.js';
import { ID_WORDS, NO_ATTRIBUTES, SpanBatch, TIME_WORDS, type DecodedBatch } from './span-batch.js';
import {
  CONVENTION_PREFIX,
  UndecodableBody,
  checkAttributeCount,
  checkIds,
  checkLength,
  spanProblem,
  tooManySpans,
  type AttributeValue,
  type DecodeLimits,
  type SpanProblem,
} from './span.js';

type Reader = protobuf.Reader;

const VARINT = 0;
const I64 = 1;
const LEN = 2;

/** Messages nested deeper than this are refused, as protobufjs refuses them. */
export const MAX_DEPTH = protobuf.Reader.recursionLimit;
const PREFIX = Buffer.from(CONVENTION_PREFIX, 'utf8');
/** An id longer than this is only shown, never used: hex-encode no more than a problem message prints. */
const ID_SHOWN_BYTES = 21;
const BYTES_PER_SPAN_GUESS = 64;
/** Names, keys and attribute values seen before, shared by every request. */
const STRINGS = new AsciiStrings();

/**
 * The span being read, as it lies on the wire, before the checks: those run in one fixed order, whatever the field
 * order. One per request, reset for each span. Ids are where their bytes lie in the body (length -1: absent).
 */
interface WireSpan {
  traceAt: number;
  traceLength: number;
  spanAt: number;
  spanLength: number;
  parentAt: number;
  parentLength: number;
  name: string;
  statusCode: number;
  statusMessage: string;
  attributeCount: number;
  /**
   * `reconcile.*` scalars in arrival order, at most one past the attribute limit (the span fails then anyway); made
   * with the first one, as most spans have none.
   */
  kept: [string, AttributeValue][] | undefined;
}

/**
 * The encoders behind Buffer#toString, without its encoding lookup and argument checks (much of the cost of a short
 * slice). Node's Buffer has had them since its first releases; protobufjs reads strings through utf8Slice too.
 */
interface NativeSlices {
  hexSlice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

type Body = Buffer & NativeSlices;

interface Walk {
  readonly buf: Body;
  readonly limits: DecodeLimits;
  readonly batch: SpanBatch;
  readonly problems: SpanProblem[];
  readonly span: WireSpan;
  total: number;
  /** Where the first string that is not valid UTF-8 sits: the whole request is refused, its spans still counted. */
  invalidText?: string;
}

/** A string field that is not valid UTF-8 (proto3 requires it to be). */
class InvalidText extends Error {}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

export function decodeProtobufRequest(body: Uint8Array, limits: DecodeLimits): DecodedBatch {
  const buf = (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)) as Body;
  const span: WireSpan = {
    traceAt: 0,
    traceLength: -1,
    spanAt: 0,
    spanLength: -1,
    parentAt: 0,
    parentLength: -1,
    name: '',
    statusCode: 0,
    statusMessage: '',
    attributeCount: 0,
    kept: undefined,
  };
  // the JS exporter writes ~95 bytes a span: a guess on the high side, trimmed when far off
  const batch = new SpanBatch(Math.min(limits.maxSpansPerRequest, Math.ceil(buf.length / BYTES_PER_SPAN_GUESS)));
  const walk: Walk = { buf, limits, batch, problems: [], span, total: 0 };
  try {
    const r = protobuf.Reader.create(buf);
    let rs = 0;
    forFields(r, r.len, (field, wire) => {
      if (field !== 1) return false;
      expectWire(field, wire, LEN);
      resourceSpans(r, messageEnd(r, 1), rs++, walk);
      return true;
    });
  } catch (e) {
    throw new UndecodableBody(`not a protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
  }
  // as the Collector does, one bad string refuses the request; its spans were all walked, so they are counted
  if (walk.invalidText !== undefined) throw new UndecodableBody(`not a protobuf ExportTraceServiceRequest: ${walk.invalidText}`, walk.total);
  if (walk.total > limits.maxSpansPerRequest) walk.problems.push(tooManySpans(limits.maxSpansPerRequest, walk.total, limits));
  batch.trim();
  return { batch, problems: walk.problems };
}

function resourceSpans(r: Reader, end: number, rs: number, walk: Walk): void {
  let ss = 0;
  forFields(r, end, (field, wire) => {
    if (field !== 2) return false;
    expectWire(field, wire, LEN);
    scopeSpans(r, messageEnd(r, 2), `resource_spans[${rs}].scope_spans[${ss++}]`, walk);
    return true;
  });
}

function scopeSpans(r: Reader, end: number, at: string, walk: Walk): void {
  let k = 0;
  forFields(r, end, (field, wire) => {
    if (field !== 2) return false;
    expectWire(field, wire, LEN);
    const spanEnd = messageEnd(r, 3);
    if (walk.total++ >= walk.limits.maxSpansPerRequest || walk.invalidText !== undefined)
      r.pos = spanEnd; // counted, never decoded
    else {
      try {
        wireSpan(r, spanEnd, walk);
      } catch (e) {
        if (!(e instanceof InvalidText)) throw e;
        walk.invalidText = `${at}.spans[${k}]: ${e.message}`;
        r.pos = spanEnd;
        k++;
        return true;
      }
      try {
        commitChecked(walk);
      } catch (e) {
        walk.problems.push(spanProblem(`${at}.spans[${k}]`, e));
      }
    }
    k++;
    return true;
  });
}

/**
 * The span's fields, in one loop: this runs for every span, so no closure per span (as forFields would take). Times
 * go straight to the batch, ids are kept as places in the body until the checks.
 */
function wireSpan(r: Reader, end: number, walk: Walk): void {
  const span = walk.span;
  span.traceLength = span.spanLength = span.parentLength = -1;
  span.name = span.statusMessage = '';
  span.statusCode = span.attributeCount = 0;
  span.kept = undefined;
  const { buf, batch } = walk;
  const t = batch.next() * TIME_WORDS; // first: it may grow the columns
  const times = batch.times;
  times[t] = times[t + 1] = times[t + 2] = times[t + 3] = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new Error(`illegal tag ${tag} at offset ${r.pos}`);
    switch (field) {
      case 1:
        expectWire(field, wire, LEN);
        span.traceAt = bytesAt(r);
        span.traceLength = r.pos - span.traceAt;
        break;
      case 2:
        expectWire(field, wire, LEN);
        span.spanAt = bytesAt(r);
        span.spanLength = r.pos - span.spanAt;
        break;
      case 3: {
        // present only on sampled traces; a span keeps nothing of it but the sampling threshold
        expectWire(field, wire, LEN);
        const th = samplingThreshold(text(r, buf, false));
        if (th !== undefined) (span.kept ??= []).push([SAMPLING_THRESHOLD, th]);
        break;
      }
      case 4:
        expectWire(field, wire, LEN);
        span.parentAt = bytesAt(r);
        span.parentLength = r.pos - span.parentAt;
        break;
      case 5:
        expectWire(field, wire, LEN);
        span.name = text(r, buf, true);
        break;
      case 7:
        expectWire(field, wire, I64);
        fixed64(r, buf, times, t);
        break;
      case 8:
        expectWire(field, wire, I64);
        fixed64(r, buf, times, t + 2);
        break;
      case 9:
        expectWire(field, wire, LEN);
        span.attributeCount++;
        keyValue(r, messageEnd(r, 4), span, walk);
        break;
      case 15:
        expectWire(field, wire, LEN);
        status(r, messageEnd(r, 4), span, buf);
        break;
      default:
        r.skipType(wire, 0, field);
    }
  }
  if (r.pos > end) throw new Error(`a field runs past the end of its message at offset ${end}`);
}

/**
 * One attribute: kept when its key has the convention's prefix and its value is a scalar, otherwise only counted.
 * One loop, no closure: it runs for every attribute of every span.
 */
function keyValue(r: Reader, end: number, span: WireSpan, walk: Walk): void {
  let key: string | undefined;
  let valueStart = -1;
  let valueEnd = -1;
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new Error(`illegal tag ${tag} at offset ${r.pos}`);
    if (field === 1) {
      expectWire(field, wire, LEN);
      key = conventionKey(r, walk.buf, walk.limits.keptKeys);
    } else if (field === 2) {
      expectWire(field, wire, LEN);
      valueEnd = messageEnd(r, 5);
      valueStart = r.pos;
      r.pos = valueEnd;
    } else r.skipType(wire, 0, field);
  }
  if (r.pos > end) throw new Error(`a field runs past the end of its message at offset ${end}`);
  if (key === undefined || valueStart < 0 || (span.kept?.length ?? 0) > walk.limits.maxAttributesPerSpan) return;
  // the value is read only once its key is known to be kept, whichever of the two came first
  r.pos = valueStart;
  const value = anyValue(r, valueEnd, 5, walk.buf);
  r.pos = end;
  if (value !== undefined) (span.kept ??= []).push([key, value]);
}

/**
 * The key when it starts with the convention's prefix or is one of `kept` (the span mappings' keys); without `kept`,
 * any other key is skipped without becoming a string.
 */
function conventionKey(r: Reader, buf: Body, kept: ReadonlySet<string> | undefined): string | undefined {
  const at = r.pos;
  const length = r.uint32();
  const start = r.pos;
  r.skip(length);
  if (length < PREFIX.length || PREFIX.compare(buf, start, start + PREFIX.length) !== 0) {
    if (kept === undefined) return undefined;
    const end = r.pos;
    r.pos = at;
    const key = text(r, buf, true);
    r.pos = end;
    return kept.has(key) ? key : undefined;
  }
  r.pos = at;
  return text(r, buf, true);
}

/** The scalar an AnyValue holds (the last member set wins, as with protobufjs), or undefined for lists, maps, bytes. */
function anyValue(r: Reader, end: number, depth: number, buf: Body): AttributeValue | undefined {
  if (depth > MAX_DEPTH) throw new Error('max depth exceeded');
  let value: AttributeValue | undefined;
  forFields(r, end, (field, wire) => {
    switch (field) {
      case 1:
        expectWire(field, wire, LEN);
        value = text(r, buf, true);
        return true;
      case 2:
        expectWire(field, wire, VARINT);
        value = r.bool();
        return true;
      case 3:
        expectWire(field, wire, VARINT);
        value = longToBigInt(r.int64(), true);
        return true;
      case 4:
        expectWire(field, wire, I64);
        value = r.double();
        return true;
      case 5: // ArrayValue { repeated AnyValue values = 1 }
      case 6: // KeyValueList { repeated KeyValue values = 1 }, KeyValue { string key = 1; AnyValue value = 2 }
        expectWire(field, wire, LEN);
        nested(r, messageEnd(r, depth + 1), depth + 1, field === 6, buf);
        value = undefined;
        return true;
      case 7:
        r.skipType(wire, depth, field);
        value = undefined;
        return true;
      default:
        return false;
    }
  });
  return value;
}

/** Steps through a list or map value, only to refuse nesting beyond the depth limit. */
function nested(r: Reader, end: number, depth: number, keyValues: boolean, buf: Body): void {
  if (depth > MAX_DEPTH) throw new Error('max depth exceeded');
  forFields(r, end, (field, wire) => {
    if (field !== 1 || wire !== LEN) return false;
    const itemEnd = messageEnd(r, depth + 1);
    if (!keyValues) anyValue(r, itemEnd, depth + 1, buf);
    else {
      if (depth + 1 > MAX_DEPTH) throw new Error('max depth exceeded');
      forFields(r, itemEnd, (f, w) => {
        if (f !== 2 || w !== LEN) return false;
        anyValue(r, messageEnd(r, depth + 2), depth + 2, buf);
        return true;
      });
    }
    return true;
  });
}

function status(r: Reader, end: number, span: WireSpan, buf: Body): void {
  span.statusCode = 0;
  span.statusMessage = '';
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new Error(`illegal tag ${tag} at offset ${r.pos}`);
    if (field === 2) {
      expectWire(field, wire, LEN);
      span.statusMessage = text(r, buf, false);
    } else if (field === 3) {
      expectWire(field, wire, VARINT);
      span.statusCode = r.int32();
    } else r.skipType(wire, 0, field);
  }
  if (r.pos > end) throw new Error(`a field runs past the end of its message at offset ${end}`);
}

/**
 * Checks the span just read and commits it to the batch. The checks and their order are the JSON decoder's, so both
 * encodings reject a span with the same problem.
 */
function commitChecked(walk: Walk): void {
  const { span: s, buf, batch, limits } = walk;
  const hasParent = s.parentLength > 0;
  const idsValid =
    s.traceLength === 16 && !allZero(buf, s.traceAt, 16) && s.spanLength === 8 && !allZero(buf, s.spanAt, 8) && (s.parentLength <= 0 || s.parentLength === 8);
  // the ids are hex-encoded only to say what is wrong with them
  if (!idsValid) checkIds(hex(buf, s.traceAt, s.traceLength), hex(buf, s.spanAt, s.spanLength), hex(buf, s.parentAt, s.parentLength), true);
  // no checkTimes: a fixed64 read as an unsigned 64-bit integer is always in its range
  checkLength('name', s.name, limits);
  checkLength('status.message', s.statusMessage, limits);
  checkAttributeCount(s.attributeCount, limits);
  let attributes = NO_ATTRIBUTES;
  if (s.kept) {
    const kept = new Map<string, AttributeValue>();
    for (const [key, value] of s.kept) {
      if (typeof value === 'string') checkLength(`attributes[${key}]`, value, limits);
      kept.set(key, value);
    }
    attributes = kept;
  }
  const w = batch.next() * ID_WORDS;
  const ids = batch.ids;
  for (let k = 0; k < 4; k++) ids[w + k] = word(buf, s.traceAt + 4 * k);
  ids[w + 4] = word(buf, s.spanAt);
  ids[w + 5] = word(buf, s.spanAt + 4);
  if (hasParent) {
    ids[w + 6] = word(buf, s.parentAt);
    ids[w + 7] = word(buf, s.parentAt + 4);
  }
  batch.commit(hasParent, s.name, s.statusCode, s.statusMessage, attributes);
}

/** Four bytes as a big-endian unsigned word. */
function word(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

function allZero(buf: Uint8Array, at: number, length: number): boolean {
  for (let i = at; i < at + length; i++) if (buf[i] !== 0) return false;
  return true;
}

/** An id's bytes as lowercase hex, '' when absent; past what a problem message shows, the rest is left out. */
function hex(buf: Body, at: number, length: number): string {
  return length <= 0 ? '' : buf.hexSlice(at, at + Math.min(length, ID_SHOWN_BYTES));
}

/**
 * A string field, which proto3 requires to be valid UTF-8. Almost every one is ASCII, read as latin1 in one native
 * call (from the cache when `cached` and short); anything else goes through the strict decoder.
 */
function text(r: Reader, buf: Body, cached: boolean): string {
  const at = r.pos;
  const start = bytesAt(r);
  const end = r.pos;
  const ascii = cached ? STRINGS.get(buf, start, end) : asciiSlice(buf, start, end);
  if (ascii !== undefined) return ascii;
  try {
    return STRICT_UTF8.decode(buf.subarray(start, end));
  } catch {
    throw new InvalidText(`a string field at offset ${at} is not valid UTF-8`);
  }
}

function asciiSlice(buf: Body, start: number, end: number): string | undefined {
  for (let i = start; i < end; i++) if (buf[i]! >= 0x80) return undefined;
  return buf.latin1Slice(start, end);
}

/** Skips the length-delimited value that starts here (protobufjs' bytes(), without the bytes); returns where it starts. */
function bytesAt(r: Reader): number {
  const length = r.size();
  const start = r.pos;
  const end = start + length;
  if (end > r.len) throw new RangeError(`index out of range: ${start} + ${length} > ${r.len}`);
  r.pos = end;
  return start;
}

/** A fixed64 into two words of `times` at `at`: the high half, then the low. */
function fixed64(r: Reader, buf: Uint8Array, times: Uint32Array, at: number): void {
  const p = r.pos;
  if (p + 8 > r.len) throw new RangeError(`index out of range: ${p} + 8 > ${r.len}`);
  times[at] = (buf[p + 4]! | (buf[p + 5]! << 8) | (buf[p + 6]! << 16) | (buf[p + 7]! << 24)) >>> 0;
  times[at + 1] = (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0;
  r.pos = p + 8;
}

/**
 * Runs `take` on each field of the message that ends at `end`; a field it does not take is skipped (groups are
 * walked within the depth limit). A field that runs past the end of its message makes the body undecodable.
 */
function forFields(r: Reader, end: number, take: (field: number, wire: number) => boolean): void {
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new Error(`illegal tag ${tag} at offset ${r.pos}`);
    if (!take(field, wire)) r.skipType(wire, 0, field);
  }
  if (r.pos > end) throw new Error(`a field runs past the end of its message at offset ${end}`);
}

/** The end offset of the length-delimited message that starts here. */
function messageEnd(r: Reader, depth: number): number {
  if (depth > MAX_DEPTH) throw new Error('max depth exceeded');
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) throw new Error(`index out of range: ${r.pos} + ${length} > ${r.len}`);
  return end;
}

function expectWire(field: number, wire: number, expected: number): void {
  if (wire !== expected) throw new Error(`field ${field} has wire type ${wire}, expected ${expected}`);
}
