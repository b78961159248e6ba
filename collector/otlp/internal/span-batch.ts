/**
 * The spans of one request as columns: what both decoders write and what the queue and the assembler read, with no
 * object per span. A span is an index; its ids are big-endian 32-bit words of their bytes, its times the high and low
 * halves of its nanoseconds, its strings the ones the decoder made (an operation's name is the same string object for
 * every span that carries it, see ascii-strings.ts). Decoding used to make about nine objects per span (the span, three
 * hex ids, two bigints, a wrapper before the checks, a name, the assembler's own record of it); collecting them was
 * a third of the receiver's time.
 * `span(i)` turns one back into an OtlpSpan, for the tests and the debugging eye; the hot path never does.
 */
import { checkIds, heldBytesOf, type AttributeValue, type OtlpSpan, type SpanProblem } from './span.js';

/** Id words per span: traceId 0-3, spanId 4-5, parentSpanId 6-7. */
export const ID_WORDS = 8;
/** Time words per span: start high, start low, end high, end low. */
export const TIME_WORDS = 4;
const FIRST_CAPACITY = 16;
/** Most spans keep no attribute (operation spans carry their outcome in the status); they share one empty map. */
export const NO_ATTRIBUTES: ReadonlyMap<string, AttributeValue> = new Map();

export class SpanBatch {
  /** Spans committed. */
  length = 0;
  /** Their heldBytes, summed. */
  totalBytes = 0;
  ids: Uint32Array;
  times: Uint32Array;
  /** 1 when the span has a parent (an id of 8 bytes, zeros included), else 0. */
  parents: Uint8Array;
  statusCodes: Int32Array;
  /** heldBytes of each span (span.ts): what the queue and the assembler count against their byte limits. */
  heldBytes: Int32Array;
  readonly names: string[] = [];
  readonly statusMessages: string[] = [];
  readonly attributes: ReadonlyMap<string, AttributeValue>[] = [];

  /** `expected`: about how many spans will be written (a decoder's guess from the body's size); it grows past it. */
  constructor(expected = FIRST_CAPACITY) {
    const capacity = Math.max(1, expected);
    this.ids = new Uint32Array(capacity * ID_WORDS);
    this.times = new Uint32Array(capacity * TIME_WORDS);
    this.parents = new Uint8Array(capacity);
    this.statusCodes = new Int32Array(capacity);
    this.heldBytes = new Int32Array(capacity);
  }

  /**
   * The index the next span is written at: the decoder fills its ids and times there, then commits it or, when a
   * check refuses it, leaves it to be overwritten by the next one.
   */
  next(): number {
    if (this.length === this.parents.length) this.grow();
    return this.length;
  }

  /** Completes the span written at next(); `hasParent` says whether words 6-7 hold its parent's id. */
  commit(hasParent: boolean, name: string, statusCode: number, statusMessage: string, attributes: ReadonlyMap<string, AttributeValue>): void {
    const i = this.length++;
    this.parents[i] = hasParent ? 1 : 0;
    this.statusCodes[i] = statusCode;
    this.names.push(name);
    this.statusMessages.push(statusMessage);
    this.attributes.push(attributes);
    const bytes = heldBytesOf(hasParent, name, statusMessage, attributes);
    this.heldBytes[i] = bytes;
    this.totalBytes += bytes;
  }

  /** Span `i` as an OtlpSpan object. */
  span(i: number): OtlpSpan {
    const id = (from: number, words: number): string => hexWords(this.ids, i * ID_WORDS + from, words);
    const t = i * TIME_WORDS;
    return {
      traceId: id(0, 4),
      spanId: id(4, 2),
      parentSpanId: this.parents[i] === 1 ? id(6, 2) : '',
      name: this.names[i]!,
      startNs: nanos(this.times[t]!, this.times[t + 1]!),
      endNs: nanos(this.times[t + 2]!, this.times[t + 3]!),
      statusCode: this.statusCodes[i]!,
      statusMessage: this.statusMessages[i]!,
      attributes: this.attributes[i]!,
    };
  }

  spans(): OtlpSpan[] {
    return Array.from({ length: this.length }, (_, i) => this.span(i));
  }

  /** A batch of the given spans, which must keep OtlpSpan's promises (lowercase hex ids, times of 64 unsigned bits). */
  static of(spans: readonly OtlpSpan[]): SpanBatch {
    const batch = new SpanBatch();
    for (const s of spans) {
      checkIds(s.traceId, s.spanId, s.parentSpanId);
      const i = batch.next();
      const w = i * ID_WORDS;
      wordsOfHex(s.traceId, batch.ids, w);
      wordsOfHex(s.spanId, batch.ids, w + 4);
      if (s.parentSpanId !== '') wordsOfHex(s.parentSpanId, batch.ids, w + 6);
      setNanos(batch.times, i * TIME_WORDS, s.startNs);
      setNanos(batch.times, i * TIME_WORDS + 2, s.endNs);
      batch.commit(s.parentSpanId !== '', s.name, s.statusCode, s.statusMessage, s.attributes);
    }
    return batch;
  }

  /**
   * Gives back the room of a guess that was far too high, once decoding is done: a queued batch must hold about what
   * its spans' heldBytes say, not what a body of few large spans made the decoder expect.
   */
  trim(): void {
    if (this.parents.length > 2 * this.length + FIRST_CAPACITY) this.resize(this.length);
  }

  private grow(): void {
    this.resize(this.parents.length * 2);
  }

  private resize(capacity: number): void {
    this.ids = resized(this.ids, capacity * ID_WORDS);
    this.times = resized(this.times, capacity * TIME_WORDS);
    this.parents = resized(this.parents, capacity);
    this.statusCodes = resized(this.statusCodes, capacity);
    this.heldBytes = resized(this.heldBytes, capacity);
  }
}

function resized<T extends Uint32Array | Uint8Array | Int32Array>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a.subarray(0, Math.min(a.length, length)));
  return b;
}

/** `words` 32-bit words from `at` as lowercase hex, 8 digits each (written big-endian, hex-encoded natively). */
export function hexWords(ids: ArrayLike<number>, at: number, words: number): string {
  for (let k = 0; k < words; k++) HEX_SCRATCH.writeUInt32BE(ids[at + k]!, 4 * k);
  return HEX_SCRATCH.toString('hex', 0, 4 * words);
}

const HEX_SCRATCH = Buffer.alloc(4 * ID_WORDS);

/** The nanoseconds of a high and a low 32-bit half. */
export function nanos(high: number, low: number): bigint {
  return (BigInt(high) << 32n) | BigInt(low);
}

function setNanos(times: Uint32Array, at: number, ns: bigint): void {
  if (ns < 0n || ns >= 1n << 64n) throw new RangeError(`a span time must be 64 unsigned bits, got ${ns}`);
  times[at] = Number(ns >> 32n);
  times[at + 1] = Number(ns & 0xffffffffn);
}

/** Lowercase hex (checked) into big-endian words. */
function wordsOfHex(hex: string, ids: Uint32Array, at: number): void {
  for (let k = 0; k < hex.length / 8; k++) ids[at + k] = Number.parseInt(hex.slice(8 * k, 8 * k + 8), 16);
}

/** A request's spans as columns, and the spans refused one by one while decoding it. */
export interface DecodedBatch {
  readonly batch: SpanBatch;
  readonly problems: SpanProblem[];
}
