/**
 * `application/x-protobuf` bodies, read straight off the wire with protobufjs' Reader. Only what the span convention
 * uses becomes JS values: ids, name, times, status and `reconcile.*` scalar attributes (strings
 * must be valid UTF-8, as proto3 requires). Everything else (resources,
 * scopes, events, links, other attributes and their values) is skipped where it lies, and spans past the
 * per-request limit are only counted. Decoding a body therefore costs about the body's own size in memory: a full
 * object tree (protobufjs' `Type.decode`) of a 4 MiB body of tiny attributes or empty spans takes hundreds of MiB,
 * which ran the sidecar out of its heap.
 * Field numbers are opentelemetry-proto's; collector/otlp/otlp_trace.proto lists them.
 */
import protobuf from 'protobufjs';
import { longToBigInt } from './proto.js';
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
  type DecodedRequest,
  type OtlpSpan,
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
/** Most spans keep no attribute (operation spans carry their outcome in the status); they share one empty map. */
const NO_ATTRIBUTES: ReadonlyMap<string, AttributeValue> = new Map();

/** A span as it lies on the wire, before the checks: those run in one fixed order, whatever the field order. */
interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  startNs: bigint;
  endNs: bigint;
  statusCode: number;
  statusMessage: string;
  attributeCount: number;
  /**
   * `reconcile.*` scalars in arrival order, at most one past the attribute limit (the span fails then anyway); made
   * with the first one, as most spans have none.
   */
  kept?: [string, AttributeValue][];
}

/**
 * The encoders behind Buffer#toString, without its encoding lookup and argument checks (a third of the cost of a
 * short slice). Node's Buffer has had them since its first releases; protobufjs reads strings through utf8Slice too.
 */
interface NativeSlices {
  hexSlice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

type Body = Buffer & NativeSlices;

interface Walk {
  /** The body as a Buffer, for native hex and latin1 slices, and as a DataView, for fixed64s as bigints. */
  readonly buf: Body;
  readonly view: DataView;
  readonly limits: DecodeLimits;
  readonly spans: OtlpSpan[];
  readonly problems: SpanProblem[];
  total: number;
  /** Where the first string that is not valid UTF-8 sits: the whole request is refused, its spans still counted. */
  invalidText?: string;
}

/** A string field that is not valid UTF-8 (proto3 requires it to be). */
class InvalidText extends Error {}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

export function decodeProtobufRequest(body: Uint8Array, limits: DecodeLimits): DecodedRequest {
  const buf = (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)) as Body;
  const walk: Walk = { buf, view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), limits, spans: [], problems: [], total: 0 };
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
  return { spans: walk.spans, problems: walk.problems };
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
    if (walk.total++ >= walk.limits.maxSpansPerRequest || walk.invalidText !== undefined) r.pos = spanEnd; // counted, never decoded
    else {
      let span: WireSpan;
      try {
        span = wireSpan(r, spanEnd, walk);
      } catch (e) {
        if (!(e instanceof InvalidText)) throw e;
        walk.invalidText = `${at}.spans[${k}]: ${e.message}`;
        r.pos = spanEnd;
        k++;
        return true;
      }
      try {
        walk.spans.push(checked(span, walk.limits));
      } catch (e) {
        walk.problems.push(spanProblem(`${at}.spans[${k}]`, e));
      }
    }
    k++;
    return true;
  });
}

/** The span's fields, in one loop: this runs for every span, so no closure per span (as forFields would take). */
function wireSpan(r: Reader, end: number, walk: Walk): WireSpan {
  const span: WireSpan = { traceId: '', spanId: '', parentSpanId: '', name: '', startNs: 0n, endNs: 0n, statusCode: 0, statusMessage: '', attributeCount: 0 };
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new Error(`illegal tag ${tag} at offset ${r.pos}`);
    switch (field) {
      case 1:
        span.traceId = id(r, wire, field, walk.buf);
        break;
      case 2:
        span.spanId = id(r, wire, field, walk.buf);
        break;
      case 4:
        span.parentSpanId = id(r, wire, field, walk.buf);
        break;
      case 5:
        expectWire(field, wire, LEN);
        span.name = text(r, walk.buf);
        break;
      case 7:
        expectWire(field, wire, I64);
        span.startNs = fixed64(r, walk.view);
        break;
      case 8:
        expectWire(field, wire, I64);
        span.endNs = fixed64(r, walk.view);
        break;
      case 9:
        expectWire(field, wire, LEN);
        span.attributeCount++;
        keyValue(r, messageEnd(r, 4), span, walk);
        break;
      case 15:
        expectWire(field, wire, LEN);
        status(r, messageEnd(r, 4), span, walk.buf);
        break;
      default:
        r.skipType(wire, 0, field);
    }
  }
  if (r.pos > end) throw new Error(`a field runs past the end of its message at offset ${end}`);
  return span;
}

/** One attribute: kept when its key has the convention's prefix and its value is a scalar, otherwise only counted. */
function keyValue(r: Reader, end: number, span: WireSpan, walk: Walk): void {
  let key: string | undefined;
  let valueStart = -1;
  let valueEnd = -1;
  forFields(r, end, (field, wire) => {
    if (field === 1) {
      expectWire(field, wire, LEN);
      key = conventionKey(r, walk.buf);
      return true;
    }
    if (field !== 2) return false;
    expectWire(field, wire, LEN);
    valueEnd = messageEnd(r, 5);
    valueStart = r.pos;
    r.pos = valueEnd;
    return true;
  });
  if (key === undefined || valueStart < 0 || (span.kept?.length ?? 0) > walk.limits.maxAttributesPerSpan) return;
  // the value is read only once its key is known to be kept, whichever of the two came first
  r.pos = valueStart;
  const value = anyValue(r, valueEnd, 5, walk.buf);
  r.pos = end;
  if (value !== undefined) (span.kept ??= []).push([key, value]);
}

/** The key when it starts with the convention's prefix; any other key is skipped without becoming a string. */
function conventionKey(r: Reader, buf: Body): string | undefined {
  const at = r.pos;
  const length = r.uint32();
  const start = r.pos;
  r.skip(length);
  if (length < PREFIX.length || PREFIX.compare(buf, start, start + PREFIX.length) !== 0) return undefined;
  r.pos = at;
  return text(r, buf);
}

/** The scalar an AnyValue holds (the last member set wins, as with protobufjs), or undefined for lists, maps, bytes. */
function anyValue(r: Reader, end: number, depth: number, buf: Body): AttributeValue | undefined {
  if (depth > MAX_DEPTH) throw new Error('max depth exceeded');
  let value: AttributeValue | undefined;
  forFields(r, end, (field, wire) => {
    switch (field) {
      case 1:
        expectWire(field, wire, LEN);
        value = text(r, buf);
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
      span.statusMessage = text(r, buf);
    } else if (field === 3) {
      expectWire(field, wire, VARINT);
      span.statusCode = r.int32();
    } else r.skipType(wire, 0, field);
  }
  if (r.pos > end) throw new Error(`a field runs past the end of its message at offset ${end}`);
}

/** The checks and their order are the JSON decoder's, so both encodings reject a span with the same problem. */
function checked(s: WireSpan, limits: DecodeLimits): OtlpSpan {
  checkIds(s.traceId, s.spanId, s.parentSpanId, true);
  // no checkTimes: a fixed64 read as an unsigned 64-bit integer is always in its range
  checkLength('name', s.name, limits);
  checkLength('status.message', s.statusMessage, limits);
  checkAttributeCount(s.attributeCount, limits);
  if (!s.kept) return { traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId, name: s.name, startNs: s.startNs, endNs: s.endNs, statusCode: s.statusCode, statusMessage: s.statusMessage, attributes: NO_ATTRIBUTES };
  const attributes = new Map<string, AttributeValue>();
  for (const [key, value] of s.kept) {
    if (typeof value === 'string') checkLength(`attributes[${key}]`, value, limits);
    attributes.set(key, value);
  }
  return { traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId, name: s.name, startNs: s.startNs, endNs: s.endNs, statusCode: s.statusCode, statusMessage: s.statusMessage, attributes };
}

/**
 * Bytes as lowercase hex; past what a problem message shows, the rest is left out (the id is wrong anyway). Sliced
 * from the body itself: no Buffer object per id.
 */
function id(r: Reader, wire: number, field: number, buf: Body): string {
  expectWire(field, wire, LEN);
  const [start, end] = lengthDelimited(r);
  return buf.hexSlice(start, Math.min(end, start + ID_SHOWN_BYTES));
}


/**
 * A string field, which proto3 requires to be valid UTF-8. Almost every one is ASCII, read as latin1 in one native
 * call; anything else goes through the strict decoder.
 */
function text(r: Reader, buf: Body): string {
  const at = r.pos;
  const [start, end] = lengthDelimited(r);
  for (let i = start; i < end; i++) {
    if (buf[i]! >= 0x80) {
      try {
        return STRICT_UTF8.decode(buf.subarray(start, end));
      } catch {
        throw new InvalidText(`a string field at offset ${at} is not valid UTF-8`);
      }
    }
  }
  return buf.latin1Slice(start, end);
}

/** The bounds of the length-delimited value that starts here (protobufjs' bytes(), without the bytes); skips it. */
function lengthDelimited(r: Reader): [number, number] {
  const length = r.size();
  const start = r.pos;
  const end = start + length;
  if (end > r.len) throw new RangeError(`index out of range: ${start} + ${length} > ${r.len}`);
  r.pos = end;
  return [start, end];
}

/** A fixed64 straight to a bigint (protobufjs makes a Long first). */
function fixed64(r: Reader, view: DataView): bigint {
  if (r.pos + 8 > r.len) throw new RangeError(`index out of range: ${r.pos} + 8 > ${r.len}`);
  const value = view.getBigUint64(r.pos, true);
  r.pos += 8;
  return value;
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
