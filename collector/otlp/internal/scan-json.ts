/**
 * OTLP/JSON bodies read byte by byte straight into a SpanBatch, without JSON.parse: as the protobuf path reads the
 * wire, only what the span convention uses becomes JS values (ids and times as words, the name, the status, the
 * `reconcile.*` scalars); everything else is checked to be JSON and skipped where it lies. JSON.parse built every
 * object and string of the body only for the decoder to read a few of them back, and was most of the ingest's time.
 *
 * The scanner takes the plain form real exporters write and gives up on anything else, so that what it decodes and
 * refuses is exactly what decode-json.ts's parse-and-walk does (test/collector/otlp/scan-json.test.ts compares the
 * two on real and mutated bodies):
 * - on the whole body (scanJsonRequest returns undefined, and the caller parses it) when it is not valid JSON, or its
 *   request structure is not plain: a resourceSpans, scopeSpans or spans that is not a list or null, a level that is
 *   not an object, one of those keys repeated or written with an escape;
 * - on one span, when it holds anything but the plain form or fails a check: a key of the span, its status or its
 *   attributes written with an escape or repeated, times that are not strings of up to 19 digits, ids that are not
 *   hex of their length, a status or an attribute that is not the plain shape (a `value` before its `key`, a number
 *   where a string belongs, an intValue with a fraction or an exponent), a limit exceeded. That span's bytes (valid
 *   JSON, as the scanner checked) go through JSON.parse and the walk instead, so its problem message is the walk's.
 * Kept strings with escapes or non-ASCII text are still the scanner's: it hands the one string to JSON.parse, or
 * decodes it as toString would.
 */
import { AsciiStrings } from './ascii-strings.js';
import { SAMPLING_THRESHOLD, samplingThreshold } from './sampling.js';
import { ID_WORDS, NO_ATTRIBUTES, SpanBatch, TIME_WORDS, type DecodedBatch } from './span-batch.js';
import { CONVENTION_PREFIX, spanProblem, tooManySpans, type AttributeValue, type DecodeLimits, type SpanProblem } from './span.js';

/** Adds one span from its JSON.parse value, as the walk does, or throws its problem. */
export type AddParsedSpan = (span: unknown, batch: SpanBatch) => void;

/** The encoders behind Buffer#toString, without its argument checks (see decode-protobuf.ts). */
interface NativeSlices {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

type Body = Buffer & NativeSlices;

/** The scanner gives up on the whole body: the caller parses it. */
class NotPlainBody extends Error {}
/** The scanner gives up on one span: its bytes are parsed and walked. */
class NotPlainSpan extends Error {}
// made once: thrown often on odd bodies, and a stack trace is of no use to the one catch
const NOT_PLAIN_BODY = new NotPlainBody('not the plain OTLP/JSON form');
const NOT_PLAIN_SPAN = new NotPlainSpan('not the plain OTLP/JSON span form');

/** Names, keys and attribute values seen before, shared by every request. */
const STRINGS = new AsciiStrings();
/** The JS exporter writes ~370 bytes a span: a guess on the high side, trimmed when far off. */
const BYTES_PER_SPAN_GUESS = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;

const bytesOf = (s: string): Uint8Array => Buffer.from(s, 'latin1');
const KEY = {
  resourceSpans: bytesOf('resourceSpans'),
  scopeSpans: bytesOf('scopeSpans'),
  spans: bytesOf('spans'),
  code: bytesOf('code'),
  message: bytesOf('message'),
  key: bytesOf('key'),
  value: bytesOf('value'),
  stringValue: bytesOf('stringValue'),
  boolValue: bytesOf('boolValue'),
  intValue: bytesOf('intValue'),
  doubleValue: bytesOf('doubleValue'),
};
const TRUE = bytesOf('true');
const FALSE = bytesOf('false');
const NULL = bytesOf('null');

/** A key of a span, with its bytes as big-endian words to compare four at a time. */
interface SpanKey {
  readonly bytes: Uint8Array;
  readonly words: Uint32Array;
}

function spanKey(key: string): SpanKey {
  const bytes = bytesOf(key);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  return { bytes, words: Uint32Array.from({ length: bytes.length >>> 2 }, (_, k) => view.getUint32(4 * k)) };
}

const SPAN_KEY = {
  traceId: spanKey('traceId'),
  traceState: spanKey('traceState'),
  spanId: spanKey('spanId'),
  parentSpanId: spanKey('parentSpanId'),
  name: spanKey('name'),
  startTimeUnixNano: spanKey('startTimeUnixNano'),
  endTimeUnixNano: spanKey('endTimeUnixNano'),
  status: spanKey('status'),
  attributes: spanKey('attributes'),
};

/** A span's fields, one bit each, to notice one written twice (JSON.parse would keep the last). */
const TRACE_ID = 1;
const SPAN_ID = 2;
const PARENT_SPAN_ID = 4;
const NAME = 8;
const START = 16;
const END = 32;
const STATUS = 64;
const ATTRIBUTES = 128;
const TRACE_STATE = 256;

/** The value of each hex digit (either case), -1 for any other byte. */
const HEX = new Int8Array(256).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX[d.toString(16).charCodeAt(0)] = d;
  HEX[d.toString(16).toUpperCase().charCodeAt(0)] = d;
}
/** The bytes a JSON escape may name after its backslash (besides `u`). */
const ESCAPES = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPES[c.charCodeAt(0)] = 1;
/** 10^n for the digits of a time read five at a time (both JSON decoders). */
export const POWERS_OF_TEN = [1, 10, 100, 1000, 10_000, 100_000];

/**
 * The request's spans as the parse-and-walk would decode them, or undefined when the body is not in the plain form
 * (decode it by parsing). `addParsed` decodes the spans the scanner does not take.
 */
export function scanJsonRequest(body: Uint8Array, limits: DecodeLimits, addParsed: AddParsedSpan): DecodedBatch | undefined {
  const buf = (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)) as Body;
  const scanner = new Scanner(buf, limits, addParsed);
  try {
    scanner.request();
  } catch (e) {
    if (e === NOT_PLAIN_BODY) return undefined;
    throw e;
  }
  const { batch, problems } = scanner;
  if (scanner.total > limits.maxSpansPerRequest) problems.push(tooManySpans(limits.maxSpansPerRequest, scanner.total, limits));
  batch.trim();
  return { batch, problems };
}

class Scanner {
  /** Where the scanner is in the body. */
  private i = 0;
  private readonly end: number;
  readonly batch: SpanBatch;
  readonly problems: SpanProblem[] = [];
  /** Spans seen, decoded or not. */
  total = 0;
  /** Containers open while a value is skipped: 1 an object, 0 a list. */
  private readonly open: number[] = [];
  /** The body, to compare four bytes at a time. */
  private readonly view: DataView;
  /**
   * Where the last trace and parent ids read lie in the body, and their words: an exporter writes an attempt's spans
   * side by side, so most spans repeat both, and comparing the bytes is cheaper than reading the hex again.
   */
  private lastTrace = -1;
  private readonly lastTraceWords = new Uint32Array(4);
  private lastParent = -1;
  private readonly lastParentWords = new Uint32Array(2);

  constructor(
    private readonly buf: Body,
    private readonly limits: DecodeLimits,
    private readonly addParsed: AddParsedSpan,
  ) {
    this.end = buf.length;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.length);
    this.batch = new SpanBatch(Math.min(limits.maxSpansPerRequest, Math.ceil(buf.length / BYTES_PER_SPAN_GUESS)));
  }

  /** The ExportTraceServiceRequest, and nothing after it but whitespace. */
  request(): void {
    this.expect(OPEN_OBJECT, NOT_PLAIN_BODY);
    let seen = false;
    for (let more = this.firstKey(NOT_PLAIN_BODY); more; more = this.nextKey(NOT_PLAIN_BODY)) {
      const keyEnd = this.keyEnd(NOT_PLAIN_BODY);
      if (this.isKey(keyEnd, KEY.resourceSpans)) {
        if (seen) throw NOT_PLAIN_BODY;
        seen = true;
        this.list((r) => this.resourceSpans(r));
      } else this.skipValue();
    }
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.i !== this.end) throw NOT_PLAIN_BODY;
  }

  private resourceSpans(r: number): void {
    this.expect(OPEN_OBJECT, NOT_PLAIN_BODY);
    let seen = false;
    for (let more = this.firstKey(NOT_PLAIN_BODY); more; more = this.nextKey(NOT_PLAIN_BODY)) {
      const keyEnd = this.keyEnd(NOT_PLAIN_BODY);
      if (this.isKey(keyEnd, KEY.scopeSpans)) {
        if (seen) throw NOT_PLAIN_BODY;
        seen = true;
        this.list((k) => this.scopeSpans(r, k));
      } else this.skipValue();
    }
  }

  private scopeSpans(r: number, k: number): void {
    this.expect(OPEN_OBJECT, NOT_PLAIN_BODY);
    let seen = false;
    for (let more = this.firstKey(NOT_PLAIN_BODY); more; more = this.nextKey(NOT_PLAIN_BODY)) {
      const keyEnd = this.keyEnd(NOT_PLAIN_BODY);
      if (this.isKey(keyEnd, KEY.spans)) {
        if (seen) throw NOT_PLAIN_BODY;
        seen = true;
        this.list((s) => this.span(r, k, s));
      } else this.skipValue();
    }
  }

  /** A repeated field's value: a list, whose items `item` reads one by one, or null (empty, as absent). */
  private list(item: (index: number) => void): void {
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.buf[this.i] === NULL[0]) return this.literal(NULL, NOT_PLAIN_BODY);
    this.expect(OPEN_LIST, NOT_PLAIN_BODY);
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.buf[this.i] === CLOSE_LIST) {
      this.i++;
      return;
    }
    for (let index = 0; ; index++) {
      item(index);
      if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
      const c = this.buf[this.i++];
      if (c === CLOSE_LIST) return;
      if (c !== COMMA) throw NOT_PLAIN_BODY;
    }
  }

  /** One item of a spans list: decoded when it is plain, parsed and walked when not, counted when past the limit. */
  private span(r: number, k: number, s: number): void {
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    const start = this.i;
    if (this.total++ >= this.limits.maxSpansPerRequest) return this.skipValue();
    try {
      this.plainSpan();
      return;
    } catch (e) {
      if (e !== NOT_PLAIN_SPAN) throw e;
    }
    this.i = start;
    this.skipValue();
    let value: unknown;
    try {
      value = JSON.parse(this.buf.utf8Slice(start, this.i));
    } catch {
      throw NOT_PLAIN_BODY; // the scanner took for JSON what is not: let JSON.parse have the whole body
    }
    try {
      this.addParsed(value, this.batch);
    } catch (e) {
      this.problems.push(spanProblem(`resourceSpans[${r}].scopeSpans[${k}].spans[${s}]`, e));
    }
  }

  /**
   * A span in the plain form, its checks passed, into the batch; throws NOT_PLAIN_SPAN at anything else. Absent
   * fields are what the walk takes them for: ids '' (so a span without traceId or spanId is not plain), times 0.
   */
  private plainSpan(): void {
    const { buf, batch, limits } = this;
    this.expect(OPEN_OBJECT, NOT_PLAIN_SPAN);
    const i = batch.next();
    const w = i * ID_WORDS;
    const t = i * TIME_WORDS;
    const { ids, times } = batch;
    times[t] = times[t + 1] = times[t + 2] = times[t + 3] = 0;
    let seen = 0;
    let hasParent = false;
    let name = '';
    let statusCode = 0;
    let statusMessage = '';
    let attributes: Map<string, AttributeValue> | undefined;
    let threshold: string | undefined;
    for (let more = this.firstKey(NOT_PLAIN_SPAN); more; more = this.nextKey(NOT_PLAIN_SPAN)) {
      // by the key's first byte, then its bytes and closing quote: no pass over the key to find its end first
      let field = 0;
      switch (buf[this.i]) {
        case 0x74: // t
          if (this.isNext(SPAN_KEY.traceId)) field = TRACE_ID;
          else if (this.isNext(SPAN_KEY.traceState)) field = TRACE_STATE;
          break;
        case 0x73: // s
          if (this.isNext(SPAN_KEY.spanId)) field = SPAN_ID;
          else if (this.isNext(SPAN_KEY.startTimeUnixNano)) field = START;
          else if (this.isNext(SPAN_KEY.status)) field = STATUS;
          break;
        case 0x70: // p
          if (this.isNext(SPAN_KEY.parentSpanId)) field = PARENT_SPAN_ID;
          break;
        case 0x6e: // n
          if (this.isNext(SPAN_KEY.name)) field = NAME;
          break;
        case 0x65: // e
          if (this.isNext(SPAN_KEY.endTimeUnixNano)) field = END;
          break;
        case 0x61: // a
          if (this.isNext(SPAN_KEY.attributes)) field = ATTRIBUTES;
          break;
      }
      if (field === 0) {
        this.keyEnd(NOT_PLAIN_SPAN);
        this.skipValue();
        continue;
      }
      this.colon(NOT_PLAIN_SPAN);
      if ((seen & field) !== 0) throw NOT_PLAIN_SPAN;
      seen |= field;
      if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
      switch (field) {
        case TRACE_ID:
          this.traceId(ids, w);
          break;
        case SPAN_ID:
          this.hexId(ids, w + 4, 2);
          if ((ids[w + 4]! | ids[w + 5]!) === 0) throw NOT_PLAIN_SPAN;
          break;
        case PARENT_SPAN_ID:
          if (buf[this.i] === QUOTE && buf[this.i + 1] === QUOTE) this.i += 2;
          else {
            this.parentId(ids, w + 6);
            hasParent = true;
          }
          break;
        case NAME:
          name = this.string(true);
          if (name.length > limits.maxStringLength) throw NOT_PLAIN_SPAN;
          break;
        case START:
          this.digitsInto(times, t);
          break;
        case END:
          this.digitsInto(times, t + 2);
          break;
        case STATUS:
          this.expect(OPEN_OBJECT, NOT_PLAIN_SPAN);
          for (let more = this.firstKey(NOT_PLAIN_SPAN), fields = 0; more; more = this.nextKey(NOT_PLAIN_SPAN)) {
            const keyEnd = this.keyEnd(NOT_PLAIN_SPAN);
            const f = this.isKey(keyEnd, KEY.code) ? 1 : this.isKey(keyEnd, KEY.message) ? 2 : 0;
            if (f === 0) {
              this.skipValue();
              continue;
            }
            if ((fields & f) !== 0) throw NOT_PLAIN_SPAN;
            fields |= f;
            if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
            if (f === 1) statusCode = this.integer(9);
            else {
              statusMessage = this.string(false);
              if (statusMessage.length > limits.maxStringLength) throw NOT_PLAIN_SPAN;
            }
          }
          break;
        case ATTRIBUTES:
          attributes = this.attributes();
          break;
        case TRACE_STATE:
          threshold = samplingThreshold(this.string(false));
          break;
      }
    }
    if ((seen & (TRACE_ID | SPAN_ID)) !== (TRACE_ID | SPAN_ID)) throw NOT_PLAIN_SPAN;
    if (threshold !== undefined) (attributes ??= new Map()).set(SAMPLING_THRESHOLD, threshold);
    batch.commit(hasParent, name, statusCode, statusMessage, attributes ?? NO_ATTRIBUTES);
  }

  /**
   * The `reconcile.*` scalars of an attributes list of {key, value} objects, key first; undefined when it keeps
   * none. Other attributes' values are skipped unread, as the walk leaves them unread.
   */
  private attributes(): Map<string, AttributeValue> | undefined {
    const { buf, limits } = this;
    this.expect(OPEN_LIST, NOT_PLAIN_SPAN);
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (buf[this.i] === CLOSE_LIST) {
      this.i++;
      return undefined;
    }
    let kept: Map<string, AttributeValue> | undefined;
    for (let count = 1; ; count++) {
      if (count > limits.maxAttributesPerSpan) throw NOT_PLAIN_SPAN;
      if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
      this.expect(OPEN_OBJECT, NOT_PLAIN_SPAN);
      let key: string | undefined;
      let convention = false;
      let valueSeen = false;
      for (let more = this.firstKey(NOT_PLAIN_SPAN); more; more = this.nextKey(NOT_PLAIN_SPAN)) {
        const keyEnd = this.keyEnd(NOT_PLAIN_SPAN);
        if (this.isKey(keyEnd, KEY.key)) {
          if (key !== undefined) throw NOT_PLAIN_SPAN;
          if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
          key = this.string(true);
          convention = key.startsWith(CONVENTION_PREFIX) || limits.keptKeys?.has(key) === true;
        } else if (this.isKey(keyEnd, KEY.value)) {
          // the value is read only once the key says whether it is kept
          if (key === undefined || valueSeen) throw NOT_PLAIN_SPAN;
          valueSeen = true;
          if (!convention) {
            this.skipValue();
            continue;
          }
          const value = this.scalar();
          if (value !== undefined) (kept ??= new Map()).set(key, value);
        } else this.skipValue();
      }
      if (key === undefined) throw NOT_PLAIN_SPAN;
      if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
      const c = buf[this.i++];
      if (c === CLOSE_LIST) return kept;
      if (c !== COMMA) throw NOT_PLAIN_SPAN;
    }
  }

  /** A kept attribute's AnyValue: the one scalar it holds, undefined when it is not an object or holds none. */
  private scalar(): AttributeValue | undefined {
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.buf[this.i] !== OPEN_OBJECT) {
      this.skipValue();
      return undefined;
    }
    this.i++;
    let value: AttributeValue | undefined;
    for (let more = this.firstKey(NOT_PLAIN_SPAN); more; more = this.nextKey(NOT_PLAIN_SPAN)) {
      const keyEnd = this.keyEnd(NOT_PLAIN_SPAN);
      const kind = this.isKey(keyEnd, KEY.stringValue)
        ? 1
        : this.isKey(keyEnd, KEY.boolValue)
          ? 2
          : this.isKey(keyEnd, KEY.intValue)
            ? 3
            : this.isKey(keyEnd, KEY.doubleValue)
              ? 4
              : 0;
      if (kind === 0) {
        this.skipValue();
        continue;
      }
      // the walk reads the kinds in a fixed order, whatever the body's: two kinds (or one twice) are not plain
      if (value !== undefined) throw NOT_PLAIN_SPAN;
      if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
      if (kind === 1) {
        value = this.string(true);
        if (value.length > this.limits.maxStringLength) throw NOT_PLAIN_SPAN;
      } else if (kind === 2) {
        if (this.buf[this.i] === TRUE[0]) {
          this.literal(TRUE, NOT_PLAIN_SPAN);
          value = true;
        } else {
          this.literal(FALSE, NOT_PLAIN_SPAN);
          value = false;
        }
      } else if (kind === 3) value = this.int64();
      else value = this.number(false);
    }
    return value;
  }

  /** A non-zero traceId into `ids` from `at`, from the last one's words when it is written alike. */
  private traceId(ids: Uint32Array, at: number): void {
    const words = this.lastTraceWords;
    if (this.lastTrace < 0 || !this.sameId(this.lastTrace, 32)) {
      this.lastTrace = -1;
      this.hexId(words, 0, 4);
      if ((words[0]! | words[1]! | words[2]! | words[3]!) === 0) throw NOT_PLAIN_SPAN;
      this.lastTrace = this.i - 33;
    } else this.i += 34;
    ids[at] = words[0]!;
    ids[at + 1] = words[1]!;
    ids[at + 2] = words[2]!;
    ids[at + 3] = words[3]!;
  }

  /** A parentSpanId into `ids` from `at`, from the last one's words when it is written alike. */
  private parentId(ids: Uint32Array, at: number): void {
    const words = this.lastParentWords;
    if (this.lastParent < 0 || !this.sameId(this.lastParent, 16)) {
      this.lastParent = -1;
      this.hexId(words, 0, 2);
      this.lastParent = this.i - 17;
    } else this.i += 18;
    ids[at] = words[0]!;
    ids[at + 1] = words[1]!;
  }

  /** Whether the string here is `digits` bytes long and the same as the ones at `last`. */
  private sameId(last: number, digits: number): boolean {
    const start = this.i + 1;
    if (this.buf[this.i] !== QUOTE || this.buf[start + digits] !== QUOTE) return false;
    const view = this.view;
    for (let k = 0; k < digits; k += 4) if (view.getUint32(start + k) !== view.getUint32(last + k)) return false;
    return true;
  }

  /** `words` words of a hex id (either case) of exactly 8 × `words` digits, into `ids` from `at`. */
  private hexId(ids: Uint32Array, at: number, words: number): void {
    const buf = this.buf;
    const start = this.i + 1;
    if (buf[this.i] !== QUOTE || buf[start + 8 * words] !== QUOTE) throw NOT_PLAIN_SPAN;
    for (let k = 0; k < words; k++) {
      let word = 0;
      let bad = 0;
      for (let p = start + 8 * k, end = p + 8; p < end; p++) {
        const d = HEX[buf[p]!]!;
        bad |= d;
        word = word * 16 + d;
      }
      if (bad < 0) throw NOT_PLAIN_SPAN;
      ids[at + k] = word;
    }
    this.i = start + 8 * words + 1;
  }

  /**
   * A time: a string of 1 to 19 digits (below 2^64 whatever they are) into two words of `times` at `at`, as the
   * walk reads it, five digits at a time so that (high, low) × 10^5 + chunk stays exact in a double.
   */
  private digitsInto(times: Uint32Array, at: number): void {
    const buf = this.buf;
    if (buf[this.i] !== QUOTE) throw NOT_PLAIN_SPAN;
    const start = this.i + 1;
    let high = 0;
    let low = 0;
    let chunk = 0;
    let p = start;
    for (; p < this.end; p++) {
      const digit = buf[p]! - ZERO;
      if (digit >>> 0 > 9) break;
      chunk = chunk * 10 + digit;
      if ((p - start) % 5 === 4) {
        const scaled = low * 100_000 + chunk;
        const carry = Math.floor(scaled / 0x1_0000_0000);
        low = scaled - carry * 0x1_0000_0000;
        high = high * 100_000 + carry;
        chunk = 0;
      }
    }
    // past 19 digits the words are wrong, and thrown away
    if (buf[p] !== QUOTE || p === start || p - start > 19) throw NOT_PLAIN_SPAN;
    const rest = (p - start) % 5;
    if (rest > 0) {
      const scale = POWERS_OF_TEN[rest]!;
      const scaled = low * scale + chunk;
      const carry = Math.floor(scaled / 0x1_0000_0000);
      low = scaled - carry * 0x1_0000_0000;
      high = high * scale + carry;
    }
    times[at] = high;
    times[at + 1] = low;
    this.i = p + 1;
  }

  /** An intValue written as a JSON number: an integer (no fraction, no exponent) that fits in an int64. */
  private int64(): bigint {
    const n = BigInt(this.number(true));
    if (n !== BigInt.asIntN(64, n)) throw NOT_PLAIN_SPAN;
    return n;
  }

  /** A JSON number as JSON.parse reads it (its text through Number); `integer`: one with a fraction or an exponent is not plain. */
  private number(integer: boolean): number {
    const buf = this.buf;
    const start = this.i;
    const c = buf[start];
    if (c !== MINUS && (c === undefined || (c - ZERO) >>> 0 > 9)) throw NOT_PLAIN_SPAN;
    this.skipNumber();
    if (integer) for (let p = start; p < this.i; p++) if (buf[p] === 0x2e || buf[p] === 0x65 || buf[p] === 0x45) throw NOT_PLAIN_SPAN;
    return Number(buf.latin1Slice(start, this.i));
  }

  /** A JSON integer of at most `digits` digits (no fraction, no exponent). */
  private integer(digits: number): number {
    const buf = this.buf;
    let p = this.i;
    const negative = buf[p] === MINUS;
    if (negative) p++;
    const start = p;
    let n = 0;
    while (p < this.end && (buf[p]! - ZERO) >>> 0 <= 9) n = n * 10 + buf[p++]! - ZERO;
    const c = buf[p];
    if (p === start || p - start > digits || (buf[start] === ZERO && p - start > 1) || c === 0x2e || c === 0x65 || c === 0x45) throw NOT_PLAIN_SPAN;
    this.i = p;
    return negative ? -n : n;
  }

  /**
   * A string value as JSON.parse reads it. Plain ASCII (nearly every one) is sliced, from the cache of short
   * strings when `cached`; other text is decoded as toString would, and a string with escapes is handed to JSON.parse
   * alone (its quotes are ASCII, so its bytes decode as they would within the body).
   */
  private string(cached: boolean): string {
    const buf = this.buf;
    if (buf[this.i] !== QUOTE) throw NOT_PLAIN_SPAN;
    const start = this.i + 1;
    let high = 0;
    for (let p = start; p < this.end; p++) {
      const c = buf[p]!;
      if (c === QUOTE) {
        this.i = p + 1;
        if (high >= 0x80) return buf.utf8Slice(start, p);
        return cached ? STRINGS.get(buf, start, p)! : buf.latin1Slice(start, p);
      }
      if (c === BACKSLASH || c < 0x20) break;
      high |= c;
    }
    this.i = start;
    this.skipString();
    return JSON.parse(buf.utf8Slice(start - 1, this.i)) as string;
  }

  /**
   * After an object's `{`: whether it has a first key; if so, the scanner is at that key's first character.
   * nextKey does the same after a member's value.
   */
  private firstKey(notPlain: Error): boolean {
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    const c = this.buf[this.i++];
    if (c === CLOSE_OBJECT) return false;
    if (c !== QUOTE) throw notPlain;
    return true;
  }

  private nextKey(notPlain: Error): boolean {
    const buf = this.buf;
    if (buf[this.i] === COMMA && buf[this.i + 1] === QUOTE) {
      this.i += 2;
      return true;
    }
    if (buf[this.i]! <= 0x20) this.skipWhitespace();
    const c = buf[this.i++];
    if (c === CLOSE_OBJECT) return false;
    if (c !== COMMA) throw notPlain;
    if (buf[this.i]! <= 0x20) this.skipWhitespace();
    if (buf[this.i++] !== QUOTE) throw notPlain;
    return true;
  }

  /**
   * Moves past a key without escapes and its colon, returning where its closing quote is; the key starts at the
   * position the scanner had. A key with an escape might spell one the scanner reads, so it is not plain.
   */
  private keyEnd(notPlain: Error): number {
    const buf = this.buf;
    let p = this.i;
    for (; p < this.end; p++) {
      const c = buf[p]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH || c < 0x20) throw notPlain;
    }
    if (p >= this.end) throw notPlain;
    this.i = p + 1;
    this.colon(notPlain);
    return p;
  }

  private colon(notPlain: Error): void {
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.buf[this.i++] !== COLON) throw notPlain;
  }

  /** Whether the key that starts here is `key` (its bytes, then the closing quote); if so, moves past it. */
  private isNext(key: SpanKey): boolean {
    const at = this.i;
    const { bytes, words } = key;
    if (this.buf[at + bytes.length] !== QUOTE) return false;
    // four bytes at a time (the key and its quote lie inside the body), then the last few
    const view = this.view;
    let k = 0;
    for (; k < words.length; k++) if (view.getUint32(at + 4 * k) !== words[k]) return false;
    for (k *= 4; k < bytes.length; k++) if (this.buf[at + k] !== bytes[k]) return false;
    this.i = at + bytes.length + 1;
    return true;
  }

  /** Whether the key that ends at `keyEnd` (its closing quote) is `key`. */
  private isKey(keyEnd: number, key: Uint8Array): boolean {
    const start = keyEnd - key.length;
    if (start < 1 || this.buf[start - 1] !== QUOTE) return false;
    return this.startsWith(start, key);
  }

  private startsWith(at: number, bytes: Uint8Array): boolean {
    const buf = this.buf;
    if (at + bytes.length > this.end) return false;
    for (let k = 0; k < bytes.length; k++) if (buf[at + k] !== bytes[k]) return false;
    return true;
  }

  private expect(byte: number, notPlain: Error): void {
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.buf[this.i] !== byte) throw notPlain;
    this.i++;
  }

  private literal(bytes: Uint8Array, notPlain: Error): void {
    if (!this.startsWith(this.i, bytes)) throw notPlain;
    this.i += bytes.length;
  }

  /**
   * Moves past JSON whitespace. Callers test the byte first (`<= 0x20`): exporters write none, and a test is cheaper
   * than the call, made some sixty times per span.
   */
  private skipWhitespace(): void {
    const buf = this.buf;
    let p = this.i;
    for (;;) {
      const c = buf[p];
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    this.i = p;
  }

  /**
   * Moves past one JSON value of any kind, checking it is JSON as JSON.parse does; gives up on the body when not.
   * Iterative: attribute values nested 100,000 deep are JSON too.
   */
  private skipValue(): void {
    const buf = this.buf;
    const open = this.open;
    const base = open.length;
    for (;;) {
      // a value
      if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
      const c = buf[this.i];
      if (c === OPEN_OBJECT || c === OPEN_LIST) {
        this.i++;
        if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
        if (buf[this.i] === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_LIST)) this.i++;
        else {
          open.push(c === OPEN_OBJECT ? 1 : 0);
          if (c === OPEN_OBJECT) this.member();
          continue;
        }
      } else if (c === QUOTE) {
        this.i++;
        this.skipString();
      } else if (c === TRUE[0]) this.literal(TRUE, NOT_PLAIN_BODY);
      else if (c === FALSE[0]) this.literal(FALSE, NOT_PLAIN_BODY);
      else if (c === NULL[0]) this.literal(NULL, NOT_PLAIN_BODY);
      else this.skipNumber();
      // after a value: close what it ended, or go on to the next
      for (;;) {
        if (open.length === base) return;
        if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
        const next = buf[this.i++];
        const inObject = open[open.length - 1] === 1;
        if (next === COMMA) {
          if (inObject) this.member();
          break;
        }
        if (next !== (inObject ? CLOSE_OBJECT : CLOSE_LIST)) throw NOT_PLAIN_BODY;
        open.pop();
      }
    }
  }

  /** A member's key and colon, in an object being skipped. */
  private member(): void {
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.buf[this.i++] !== QUOTE) throw NOT_PLAIN_BODY;
    this.skipString();
    if (this.buf[this.i]! <= 0x20) this.skipWhitespace();
    if (this.buf[this.i++] !== COLON) throw NOT_PLAIN_BODY;
  }

  /** From after a string's opening quote to after its closing one: no raw control characters, only JSON's escapes. */
  private skipString(): void {
    const buf = this.buf;
    let p = this.i;
    for (; p < this.end; p++) {
      const c = buf[p]!;
      if (c === QUOTE) {
        this.i = p + 1;
        return;
      }
      if (c < 0x20) throw NOT_PLAIN_BODY;
      if (c === BACKSLASH) {
        const e = buf[++p];
        if (e === 0x75) {
          // \uXXXX
          if (p + 4 >= this.end || (HEX[buf[p + 1]!]! | HEX[buf[p + 2]!]! | HEX[buf[p + 3]!]! | HEX[buf[p + 4]!]!) < 0) throw NOT_PLAIN_BODY;
          p += 4;
        } else if (e === undefined || ESCAPES[e] !== 1) throw NOT_PLAIN_BODY;
      }
    }
    throw NOT_PLAIN_BODY;
  }

  /** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
  private skipNumber(): void {
    const buf = this.buf;
    let p = this.i;
    if (buf[p] === MINUS) p++;
    if (buf[p] === ZERO) p++;
    else p = this.digits(p);
    if (buf[p] === 0x2e) p = this.digits(p + 1);
    if (buf[p] === 0x65 || buf[p] === 0x45) {
      p++;
      if (buf[p] === 0x2b || buf[p] === MINUS) p++;
      p = this.digits(p);
    }
    this.i = p;
  }

  /** Past one or more digits from `p`. */
  private digits(p: number): number {
    const buf = this.buf;
    const start = p;
    while (p < this.end && (buf[p]! - ZERO) >>> 0 <= 9) p++;
    if (p === start) throw NOT_PLAIN_BODY;
    return p;
  }
}
