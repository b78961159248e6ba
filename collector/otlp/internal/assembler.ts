/**
 * Spans -> AttemptRecords by the span convention (docs/otlp.md): a root span per reconcile attempt (it carries
 * `reconcile.controller`) and one direct child span per operation. Spans of one attempt arrive across requests and
 * in any order, so they wait here, grouped by the root's id, until the attempt is complete:
 *   - the root says how many children to expect (`reconcile.operation_count`) and that many have arrived; or
 *   - without a count, once its root has arrived and `settleMs` passed with no new child ("settling"), or sooner
 *     when the pending store needs the room or the receiver stops: an SDK exports a span when it ends, and a root
 *     ends after its children, so by then they have been sent;
 *   - otherwise, `maxWaitMs` after the first span of the attempt, it is analyzed with what arrived (`incomplete`),
 *     or, when its root never came, its children are dropped as `orphan_span`.
 * Every span ends as part of exactly one handed-on attempt or as one rejection, so received = analyzed + dropped.
 * Memory is bounded by `maxPendingAttempts`, `maxPendingSpans` and `maxPendingBytes`: past one, pending attempts
 * make room, settling ones first (handed on as complete), then the oldest (incomplete, or dropped as `pending_limit`).
 * Spans come as indexes into a request's SpanBatch (span-batch.ts) and are copied into the attempt they belong to
 * (pending.ts): nothing is allocated per span but the attempt's share of its columns.
 */
import { MAX_OPERATIONS_PER_ATTEMPT, toAttempt } from '../../journal/format.js';
import { REJECT_REASONS, type AttemptOrigin, type AttemptRecord, type RecordSink, type RejectReason } from '../../records.js';
import { pairHash, traceState } from './id-hash.js';
import { AttemptOrder, Children, PendingTable, PendingAttempt, type PendingRoot } from './pending.js';
import { RecentSpans } from './recent-spans.js';
import { SAMPLING_THRESHOLD, adjustedCount } from './sampling.js';
import type { Scheduler } from './scheduler.js';
import { ID_WORDS, SpanBatch, TIME_WORDS, hexWords, nanos } from './span-batch.js';
import { STATUS_ERROR, type AttributeValue, type OtlpSpan } from './span.js';
import { formatRfc3339Nanos, parseRfc3339Nanos } from './time.js';

/** Children's rooms kept for reuse; past this many, the rest are left to the garbage collector. */
const MAX_FREE_CHILDREN = 256;

/** The span convention's attribute names. */
export const ATTR = {
  controller: 'reconcile.controller',
  object: 'reconcile.object',
  generation: 'reconcile.generation',
  model: 'reconcile.model',
  operationCount: 'reconcile.operation_count',
  time: 'reconcile.time',
  operation: 'reconcile.operation',
  outcome: 'reconcile.outcome',
  /** On a root: when it has no child span, the attempt is this one operation, with the root's own outcome. */
  selfOperation: 'reconcile.self_operation',
  /** Set by a span mapping (span-mappings.ts) on a root it could not make an attempt of: why; the attempt is refused. */
  mappingProblem: 'reconcile.mapping_problem',
} as const;

export interface SpanAssemblerOptions {
  readonly settleMs: number;
  readonly maxWaitMs: number;
  readonly maxPendingAttempts: number;
  readonly maxPendingSpans: number;
  /** The pending spans' heldBytes (an estimate of their heap), so large spans are bounded too. */
  readonly maxPendingBytes: number;
  /** Ids of spans already handed on, remembered to tell a resent span (`duplicate_span`) from a late one. */
  readonly recentSpanMemory: number;
  /** When given, an attempt with an operation outside this set is rejected (`unknown_operation`), as in the journal. */
  readonly knownOperations?: ReadonlySet<string>;
  /** The span mappings configured besides the convention (span-mappings.ts), named when a span matches none. */
  readonly rootShapes?: readonly string[];
}

export const DEFAULT_SPAN_ASSEMBLER_OPTIONS: SpanAssemblerOptions = {
  settleMs: 1_000,
  maxWaitMs: 30_000,
  maxPendingAttempts: 10_000,
  maxPendingSpans: 200_000,
  maxPendingBytes: 8 * 1024 * 1024,
  recentSpanMemory: 100_000,
};

export class SpanAssembler {
  private readonly pending = new PendingTable();
  /** Every pending attempt in the order it was opened, and the settling ones in the order their root arrived. */
  private readonly opened = new AttemptOrder('opened');
  private readonly settling = new AttemptOrder('settling');
  private spansPending = 0;
  private bytesPending = 0;
  /** Arrival order, the tie-break between children that started at the same nanosecond. */
  private seq = 0;
  private readonly recent: RecentSpans;
  /** A child's span id words, on their way into a message. */
  private readonly spanWords = new Uint32Array(2);
  /** An attempt's span ids, root first, on their way into `recent`. */
  private attemptSpans = new Uint32Array(2 * 64);
  /** Children of attempts handed on, ready for new attempts. */
  private readonly freeChildren: Children[] = [];
  /** The operations handed to the journal validator, which copies each: reused from attempt to attempt. */
  private readonly shapedOperations: ShapedOperation[] = [];

  constructor(
    private readonly options: SpanAssemblerOptions,
    private readonly sink: RecordSink,
    private readonly scheduler: Scheduler,
  ) {
    this.recent = new RecentSpans(options.recentSpanMemory);
  }

  get pendingAttempts(): number {
    return this.pending.size;
  }

  get pendingSpans(): number {
    return this.spansPending;
  }

  /** One span, as an object (tests, and callers with a span in hand). */
  add(span: OtlpSpan, where: string): void {
    this.addFrom(SpanBatch.of([span]), 0, where);
  }

  /** Span `i` of a request's batch; `where` names the request. */
  addFrom(batch: SpanBatch, i: number, where: string): void {
    const ids = batch.ids;
    const w = i * ID_WORDS;
    const trace = traceState(ids, w);
    if (this.recent.has(trace, ids, w, ids, w + 4)) return this.rejectNew(batch, i, where, 'duplicate_span', 'already handed on in an analyzed attempt');
    if (batch.attributes[i]!.has(ATTR.controller)) return this.addRoot(batch, i, where, pairHash(trace, ids[w + 4]!, ids[w + 5]!));
    if (batch.parents[i] === 0) {
      const shapes = this.options.rootShapes ? `, and no span mapping matches: ${this.options.rootShapes.join(', ')}` : '';
      return this.rejectNew(batch, i, where, 'orphan_span', `neither an attempt root (no ${ATTR.controller} attribute${shapes}) nor the child of one`);
    }
    if (this.recent.has(trace, ids, w, ids, w + 6))
      return this.rejectNew(batch, i, where, 'orphan_span', `arrived after its attempt (root ${hexWords(ids, w + 6, 2)}) was analyzed`);
    this.addChild(batch, i, where, pairHash(trace, ids[w + 6]!, ids[w + 7]!));
  }

  /**
   * Hands on everything pending now (shutdown): settling attempts as complete, attempts still short of their count as
   * incomplete, children without a root as `shutdown`.
   */
  flush(): void {
    for (const p of this.opened.all()) {
      if (p.root) this.complete(p, p.expected !== undefined);
      else this.dropAll(p, 'shutdown', 'the receiver stopped before the root span arrived');
    }
  }

  /** `hash`: the pairHash of its trace id and its own id. */
  private addRoot(batch: SpanBatch, i: number, where: string, hash: number): void {
    const ids = batch.ids;
    const w = i * ID_WORDS;
    let p = this.pending.find(ids, w, w + 4, hash);
    if (p?.root) return this.rejectNew(batch, i, where, 'duplicate_span', 'the same root span arrived twice');
    const bytes = batch.heldBytes[i]!;
    const limit = this.makeRoom(bytes, p);
    if (limit) return this.pendingLimit(batch, i, where, limit);
    p ??= this.open(ids, w, w + 4, hash);
    const t = i * TIME_WORDS;
    const attributes = batch.attributes[i]!;
    p.root = {
      name: batch.names[i]!,
      startHigh: batch.times[t]!,
      startLow: batch.times[t + 1]!,
      endHigh: batch.times[t + 2]!,
      endLow: batch.times[t + 3]!,
      statusCode: batch.statusCodes[i]!,
      statusMessage: batch.statusMessages[i]!,
      attributes,
      where,
      bytes,
    };
    this.spansPending++;
    this.bytesPending += bytes;
    const count = intAttribute(attributes, ATTR.operationCount);
    const mappingProblem = attributes.get(ATTR.mappingProblem);
    if (typeof mappingProblem === 'string') p.rootProblem = mappingProblem;
    else if (count === null) p.rootProblem = `${ATTR.operationCount}: must be a non-negative integer`;
    else if (count !== undefined) p.expected = count;
    if (p.expected === undefined) this.settling.push(p);
    this.arrived(p);
  }

  /** `hash`: the pairHash of its trace id and its parent's id. */
  private addChild(batch: SpanBatch, i: number, where: string, hash: number): void {
    const ids = batch.ids;
    const w = i * ID_WORDS;
    let p = this.pending.find(ids, w, w + 6, hash);
    if (p?.children.has(ids[w + 4]!, ids[w + 5]!)) return this.rejectNew(batch, i, where, 'duplicate_span', 'the same child span arrived twice');
    if (p && p.children.count >= MAX_OPERATIONS_PER_ATTEMPT) {
      return this.rejectNew(batch, i, where, 'too_many_operations', `the attempt already has ${MAX_OPERATIONS_PER_ATTEMPT} operation spans`);
    }
    const bytes = batch.heldBytes[i]!;
    const limit = this.makeRoom(bytes, p);
    if (limit) return this.pendingLimit(batch, i, where, limit);
    p ??= this.open(ids, w, w + 6, hash);
    p.children.push(batch, i, where, this.seq++);
    this.spansPending++;
    this.bytesPending += bytes;
    this.arrived(p);
  }

  private open(ids: Uint32Array, traceAt: number, rootAt: number, hash: number): PendingAttempt {
    const p = new PendingAttempt(ids, traceAt, rootAt, hash, this.freeChildren.pop() ?? new Children());
    p.deadline = this.scheduler.setTimer(this.options.maxWaitMs, () => this.expire(p));
    this.pending.add(p);
    this.opened.push(p);
    return p;
  }

  /**
   * Room for a span of `bytes` (in `own`, or in a new attempt when `own` is undefined): while a pending limit would be
   * passed, other attempts are handed on early, settling ones first (as complete: their root is in, and a root ends
   * after its children), then the one pending longest. Refusing new spans instead would let attempts that will never
   * complete (their other spans were dropped by an overloaded exporter) block every new attempt for the whole wait.
   * Returns the limit still in the way when nothing else is left to hand on.
   */
  private makeRoom(bytes: number, own: PendingAttempt | undefined): string | undefined {
    for (;;) {
      const limit = this.limitPassed(bytes, own === undefined);
      if (limit === undefined) return undefined;
      const oldest = this.settling.firstOther(own) ?? this.opened.firstOther(own);
      if (!oldest) return limit;
      if (oldest.root) this.complete(oldest, oldest.expected !== undefined);
      else this.dropAll(oldest, 'pending_limit', `its attempt was evicted to make room: ${limit}, the limit`);
    }
  }

  private limitPassed(bytes: number, opening: boolean): string | undefined {
    const o = this.options;
    if (opening && this.pending.size >= o.maxPendingAttempts) return `${o.maxPendingAttempts} pending attempts`;
    if (this.spansPending >= o.maxPendingSpans) return `${o.maxPendingSpans} pending spans`;
    if (this.bytesPending + bytes > o.maxPendingBytes) return `${this.bytesPending} bytes of pending spans (limit ${o.maxPendingBytes})`;
    return undefined;
  }

  private arrived(p: PendingAttempt): void {
    if (!p.root) return;
    if (p.expected !== undefined) {
      if (p.children.count >= p.expected) this.complete(p, false);
      return;
    }
    p.settle?.cancel();
    p.settle = this.scheduler.setTimer(this.options.settleMs, () => this.complete(p, false));
  }

  private expire(p: PendingAttempt): void {
    if (p.gone) return;
    if (p.root) this.complete(p, true);
    else this.dropAll(p, 'orphan_span', `its root span (${hexWords(p.ids, 4, 2)}) did not arrive within ${this.options.maxWaitMs} ms`);
  }

  private complete(p: PendingAttempt, incomplete: boolean): void {
    this.remove(p);
    const order = p.children.byStart();
    let record: AttemptRecord;
    try {
      record = this.toRecord(p, order, incomplete);
    } catch (e) {
      const reason = rejectReasonOf(e);
      const message = `attempt of root ${hexWords(p.ids, 4, 2)} in trace ${hexWords(p.ids, 0, 4)}: ${(e as Error).message}`;
      this.rejectRoot(p, reason, message);
      for (const k of order) this.rejectChild(p, k, reason, message);
      this.remember(p, order);
      this.release(p);
      return;
    }
    this.remember(p, order);
    this.release(p);
    this.sink.attempt(record);
  }

  /** The attempt is gone: its children's room goes to a later attempt. */
  private release(p: PendingAttempt): void {
    p.children.release();
    if (this.freeChildren.length < MAX_FREE_CHILDREN) this.freeChildren.push(p.children);
  }

  private toRecord(p: PendingAttempt, order: readonly number[], incomplete: boolean): AttemptRecord {
    if (p.rootProblem !== undefined) throw new RootProblem(p.rootProblem);
    const root = p.root!;
    const attrs = root.attributes;
    const generation = intAttribute(attrs, ATTR.generation);
    const operations = this.shapedOperations;
    const self = order.length === 0 ? attrs.get(ATTR.selfOperation) : undefined;
    const count = typeof self === 'string' && self !== '' ? 1 : order.length;
    while (operations.length < count) operations.push({ name: '', outcome: undefined, error: undefined, durationSeconds: 0 });
    operations.length = count;
    if (count > order.length) shapeSelfOperation(operations[0]!, root, self as string);
    else for (let k = 0; k < order.length; k++) shapeOperation(operations[k]!, p.children, order[k]!);
    const shaped = {
      time: timeText(root.startHigh, root.startLow, attrs),
      controller: jsonSafe(attrs.get(ATTR.controller)),
      object: jsonSafe(attrs.get(ATTR.object)),
      // an invalid generation is passed on as it came, so the journal validator names it in the rejection
      generation: generation === null ? jsonSafe(attrs.get(ATTR.generation)) : generation,
      model: jsonSafe(attrs.get(ATTR.model)),
      operations,
    };
    const record = toAttempt(shaped, { file: root.where, knownOperations: this.options.knownOperations }, 'otlp');
    const traceId = hexWords(p.ids, 0, 4);
    const spanId = hexWords(p.ids, 4, 2);
    const th = attrs.get(SAMPLING_THRESHOLD);
    // one literal per shape: the unsampled one is what nearly every attempt takes
    const origin: AttemptOrigin =
      typeof th === 'string'
        ? { source: 'otlp', traceId, spanId, incomplete, adjustedCount: adjustedCount(th) }
        : { source: 'otlp', traceId, spanId, incomplete };
    return { ...record, origin };
  }

  private remove(p: PendingAttempt): void {
    p.gone = true;
    p.deadline.cancel();
    p.settle?.cancel();
    this.pending.delete(p);
    this.spansPending -= p.spans;
    this.bytesPending -= p.bytes;
    this.opened.remove(p);
    this.settling.remove(p);
  }

  /** The attempt's spans, root first, then its children in start order. */
  private remember(p: PendingAttempt, order: readonly number[]): void {
    if (this.attemptSpans.length < 2 * (order.length + 1)) this.attemptSpans = new Uint32Array(4 * (order.length + 1));
    const spans = this.attemptSpans;
    spans[0] = p.ids[4]!;
    spans[1] = p.ids[5]!;
    for (let k = 0; k < order.length; k++) p.children.spanId(order[k]!, spans, 2 * k + 2);
    this.recent.addAttempt(traceState(p.ids, 0), p.ids, 0, spans, order.length + 1);
  }

  private dropAll(p: PendingAttempt, reason: RejectReason, message: string): void {
    this.remove(p);
    for (let k = 0; k < p.children.count; k++) this.rejectChild(p, k, reason, message);
    this.release(p);
  }

  private pendingLimit(batch: SpanBatch, i: number, where: string, limit: string): void {
    this.rejectNew(batch, i, where, 'pending_limit', `the receiver already holds ${limit}, its limit`);
  }

  /** Rejects span `i` of a batch, which never became part of an attempt. */
  private rejectNew(batch: SpanBatch, i: number, where: string, reason: RejectReason, message: string): void {
    const w = i * ID_WORDS;
    this.reject(where, reason, hexWords(batch.ids, w + 4, 2), batch.names[i]!, hexWords(batch.ids, w, 4), message);
  }

  private rejectRoot(p: PendingAttempt, reason: RejectReason, message: string): void {
    const root = p.root!;
    this.reject(root.where, reason, hexWords(p.ids, 4, 2), root.name, hexWords(p.ids, 0, 4), message);
  }

  private rejectChild(p: PendingAttempt, k: number, reason: RejectReason, message: string): void {
    const c = p.children;
    c.spanId(k, this.spanWords, 0);
    this.reject(c.where(k), reason, hexWords(this.spanWords, 0, 2), c.name(k), hexWords(p.ids, 0, 4), message);
  }

  private reject(where: string, reason: RejectReason, spanId: string, name: string, traceId: string, message: string): void {
    this.sink.reject({ source: 'otlp', reason, where, message: `span ${spanId} (${JSON.stringify(name)}) in trace ${traceId}: ${message}` });
  }
}

/** An attempt refused because of its root's own attributes. */
class RootProblem extends Error {
  readonly reason: RejectReason = 'invalid_record';
}

/**
 * What the journal validator reads of an operation (it copies each into the record): `error` is undefined when the
 * operation has none, which the validator reads as absent.
 */
interface ShapedOperation {
  name: string;
  outcome: string | number | boolean | undefined;
  error: string | undefined;
  durationSeconds: number;
}

function shapeOperation(op: ShapedOperation, c: Children, k: number): void {
  const attrs = c.attributes(k);
  const named = attrs.size > 0 ? attrs.get(ATTR.operation) : undefined;
  const declared = attrs.size > 0 ? attrs.get(ATTR.outcome) : undefined;
  const statusMessage = c.statusMessage(k);
  const outcome = declared === undefined ? (c.statusCode(k) === STATUS_ERROR ? 'error' : 'ok') : jsonSafe(declared);
  op.name = typeof named === 'string' && named !== '' ? named : c.name(k);
  op.outcome = outcome;
  op.error = outcome === 'error' && statusMessage !== '' ? statusMessage : undefined;
  op.durationSeconds = durationNs(c.startHigh(k), c.startLow(k), c.endHigh(k), c.endLow(k)) / 1e9;
}

/** The one operation an attempt whose root has no children stands for: the root's own outcome and duration. */
function shapeSelfOperation(op: ShapedOperation, root: PendingRoot, name: string): void {
  const declared = root.attributes.get(ATTR.outcome);
  const outcome = declared === undefined ? (root.statusCode === STATUS_ERROR ? 'error' : 'ok') : jsonSafe(declared);
  op.name = name;
  op.outcome = outcome;
  op.error = outcome === 'error' && root.statusMessage !== '' ? root.statusMessage : undefined;
  op.durationSeconds = durationNs(root.startHigh, root.startLow, root.endHigh, root.endLow) / 1e9;
}

/**
 * end - start in nanoseconds, as the double Number(endNs - startNs) would give: exact arithmetic on the 32-bit halves
 * while the difference is below 2^52 (104 days), the bigints beyond.
 */
function durationNs(startHigh: number, startLow: number, endHigh: number, endLow: number): number {
  const high = endHigh - startHigh;
  if (high > -0x100000 && high < 0x100000) return high * 0x1_0000_0000 + (endLow - startLow);
  return Number(nanos(endHigh, endLow) - nanos(startHigh, startLow));
}

/** The root's start as RFC 3339, or `reconcile.time` when it spells that same instant (to the nanosecond) differently. */
function timeText(startHigh: number, startLow: number, attrs: ReadonlyMap<string, AttributeValue>): string {
  const startNs = nanos(startHigh, startLow);
  const declared = attrs.get(ATTR.time);
  if (typeof declared === 'string' && parseRfc3339Nanos(declared) === startNs) return declared;
  return formatRfc3339Nanos(startNs);
}

/** undefined when absent, null when present but not a non-negative integer (an int, an integral double, or digits). */
function intAttribute(attrs: ReadonlyMap<string, AttributeValue>, key: string): number | undefined | null {
  const v = attrs.get(key);
  if (v === undefined) return undefined;
  let n: bigint | undefined;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^\d{1,15}$/.test(v)) n = BigInt(v);
  if (n === undefined || n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Number(n);
}

/** The journal validator reports values with JSON.stringify, which cannot print a bigint. */
function jsonSafe(v: AttributeValue | undefined): string | number | boolean | undefined {
  return typeof v === 'bigint' ? v.toString() : v;
}

function rejectReasonOf(e: unknown): RejectReason {
  const reason = (e as { reason?: unknown }).reason;
  if (typeof reason === 'string' && (REJECT_REASONS as readonly string[]).includes(reason)) return reason as RejectReason;
  throw e;
}
