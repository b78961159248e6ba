/**
 * The one internal span shape both OTLP encodings decode to, and the checks they share.
 * Only the span convention's `reconcile.*` attributes are kept (the rest are counted against the limit and
 * dropped), so a queued span costs a few hundred bytes whatever the instrumentation attaches to it.
 */
import type { RejectReason } from '../../records.js';

/** A kept attribute value: OTLP string, bool, int (exact, as bigint) or double. Arrays, maps and bytes are not kept. */
export type AttributeValue = string | boolean | bigint | number;

export const CONVENTION_PREFIX = 'reconcile.';

/** OTLP's STATUS_CODE_ERROR; the only status code the convention reads. */
export const STATUS_ERROR = 2;

export interface OtlpSpan {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** 16 lowercase hex digits, or '' when the span has no parent. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** 0 unset, 1 ok, 2 error (other values are kept and treated as not an error). */
  readonly statusCode: number;
  readonly statusMessage: string;
  /** The `reconcile.*` attributes. */
  readonly attributes: ReadonlyMap<string, AttributeValue>;
}

/**
 * About what a decoded span costs in the heap while it waits (queued or pending), for the byte limits: a fixed part
 * (the object, its Map, the bigints, the assembler's bookkeeping, as measured for the spans `emitAttempt` writes;
 * bench/README.md) plus two bytes per character of its strings. The span limits alone would let 50,000 spans of 8 KiB names
 * take gigabytes.
 */
export const SPAN_FIXED_BYTES = 400;

export function heldBytes(span: OtlpSpan): number {
  const chars = span.traceId.length + span.spanId.length + span.parentSpanId.length + span.name.length + span.statusMessage.length;
  return SPAN_FIXED_BYTES + 2 * (chars + attributeChars(span.attributes));
}

/** heldBytes of a span whose ids are valid: 32 and 16 hex digits, and 16 more for a parent. */
export function heldBytesOf(hasParent: boolean, name: string, statusMessage: string, attributes: ReadonlyMap<string, AttributeValue>): number {
  const chars = (hasParent ? 64 : 48) + name.length + statusMessage.length;
  return SPAN_FIXED_BYTES + 2 * (chars + attributeChars(attributes));
}

function attributeChars(attributes: ReadonlyMap<string, AttributeValue>): number {
  // most spans have none: no iterator for them
  if (attributes.size === 0) return 0;
  let chars = 0;
  for (const [key, value] of attributes) chars += key.length + (typeof value === 'string' ? value.length : 8);
  return chars;
}

export interface DecodeLimits {
  /** Spans past this many in one request are rejected (`too_many_spans`); the first ones are kept. */
  readonly maxSpansPerRequest: number;
  /** A span with more attributes is rejected (`too_many_attributes`). */
  readonly maxAttributesPerSpan: number;
  /** A span whose name, status message or kept string attribute is longer is rejected (`invalid_record`). */
  readonly maxStringLength: number;
  /** Attribute keys kept besides `reconcile.*`: the ones the configured span mappings read (span-mappings.ts). */
  readonly keptKeys?: ReadonlySet<string>;
}

/** A span refused while decoding: counted, reported in `partial_success`, never handed on. */
export interface SpanProblem {
  readonly reason: RejectReason;
  readonly message: string;
  /** How many spans the problem stands for; 1 when absent. */
  readonly count?: number;
}

/** The spans a request's problems stand for. */
export function problemSpans(problems: readonly SpanProblem[]): number {
  let n = 0;
  for (const p of problems) n += p.count ?? 1;
  return n;
}

export interface DecodedRequest {
  readonly spans: OtlpSpan[];
  readonly problems: SpanProblem[];
}

/**
 * The whole body could not be read as an ExportTraceServiceRequest (HTTP 400). `spans`: how many spans it holds,
 * when its structure could still be walked (one bad string refuses a protobuf request), so they are counted as spans.
 */
export class UndecodableBody extends Error {
  override readonly name = 'UndecodableBody';

  constructor(
    message: string,
    readonly spans?: number,
  ) {
    super(message);
  }
}

/** A span that cannot become an OtlpSpan; `message` names the field. */
export class SpanFieldProblem extends Error {
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message);
  }
}

const MAX_FIXED64 = (1n << 64n) - 1n;

/** `hexEncoded`: the ids were made by hex-encoding bytes (protobuf), so only their lengths and zeros need checking. */
export function checkIds(traceId: string, spanId: string, parentSpanId: string, hexEncoded = false): void {
  const isHex = hexEncoded ? alwaysHex : isLowerHex;
  if (traceId.length !== 32 || !isHex(traceId) || isZero(traceId))
    throw new SpanFieldProblem('invalid_record', `traceId: must be 16 non-zero bytes, got ${show(traceId)}`);
  if (spanId.length !== 16 || !isHex(spanId) || isZero(spanId))
    throw new SpanFieldProblem('invalid_record', `spanId: must be 8 non-zero bytes, got ${show(spanId)}`);
  if (parentSpanId !== '' && (parentSpanId.length !== 16 || !isHex(parentSpanId))) {
    throw new SpanFieldProblem('invalid_record', `parentSpanId: must be empty or 8 bytes, got ${show(parentSpanId)}`);
  }
}

export function checkTimes(startNs: bigint, endNs: bigint): void {
  if (startNs < 0n || startNs > MAX_FIXED64) throw new SpanFieldProblem('invalid_record', `startTimeUnixNano: out of range: ${startNs}`);
  if (endNs < 0n || endNs > MAX_FIXED64) throw new SpanFieldProblem('invalid_record', `endTimeUnixNano: out of range: ${endNs}`);
}

export function checkAttributeCount(count: number, limits: DecodeLimits): void {
  if (count > limits.maxAttributesPerSpan) {
    throw new SpanFieldProblem('too_many_attributes', `attributes: ${count} exceeds the limit of ${limits.maxAttributesPerSpan} per span`);
  }
}

export function checkLength(field: string, text: string, limits: DecodeLimits): void {
  if (text.length > limits.maxStringLength) {
    throw new SpanFieldProblem('invalid_record', `${field}: ${text.length} characters exceeds the limit of ${limits.maxStringLength}`);
  }
}

/**
 * One problem for all the spans past the per-request limit (they are counted, not decoded): a request of millions
 * of empty spans must not become millions of objects.
 */
export function tooManySpans(limit: number, total: number, limits: DecodeLimits): SpanProblem {
  const which = total - limit === 1 ? `span ${total}` : `spans ${limit + 1}-${total}`;
  return {
    reason: 'too_many_spans',
    message: `${which} of ${total}: over the limit of ${limits.maxSpansPerRequest} spans per request`,
    ...(total - limit > 1 ? { count: total - limit } : {}),
  };
}

/** Prefixes a span's problem with where it sits in the request. */
export function spanProblem(at: string, e: unknown): SpanProblem {
  if (e instanceof SpanFieldProblem) return { reason: e.reason, message: `${at}: ${e.message}` };
  throw e;
}

const alwaysHex = (): boolean => true;
const LOWER_HEX = /^[0-9a-f]*$/;
const isLowerHex = (s: string): boolean => LOWER_HEX.test(s);

/** /^0*$/ as a loop: it stops at the first other character, which for a real id is the first or second. */
function isZero(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== 0x30) return false;
  return true;
}

function show(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}
