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
 */
import { MAX_OPERATIONS_PER_ATTEMPT, toAttempt } from '../journal.js';
import { REJECT_REASONS, type AttemptRecord, type RecordSink, type RejectReason } from '../records.js';
import type { Scheduler, Timer } from './scheduler.js';
import { STATUS_ERROR, heldBytes, type AttributeValue, type OtlpSpan } from './span.js';
import { formatRfc3339Nanos, parseRfc3339Nanos } from './time.js';

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
} as const;

export interface AssemblerOptions {
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
}

export const DEFAULT_ASSEMBLER_OPTIONS: AssemblerOptions = {
  settleMs: 1_000,
  maxWaitMs: 30_000,
  maxPendingAttempts: 10_000,
  maxPendingSpans: 200_000,
  maxPendingBytes: 8 * 1024 * 1024,
  recentSpanMemory: 100_000,
};

interface Arrival {
  readonly span: OtlpSpan;
  /** The request it came in, for rejections. */
  readonly where: string;
  /** Arrival order, the tie-break between children that started at the same nanosecond. */
  readonly seq: number;
  readonly bytes: number;
}

/** Everything about one attempt while it waits, in one place. */
interface PendingAttempt {
  /** traceId + the root's spanId. */
  readonly key: string;
  readonly traceId: string;
  readonly rootId: string;
  root?: Arrival;
  readonly children: Map<string, Arrival>;
  /** From the root's `reconcile.operation_count`; undefined while settling (no count) or before the root. */
  expected?: number;
  /** A root attribute that makes the whole attempt invalid, reported when it is handed on. */
  rootProblem?: string;
  settle?: Timer;
  readonly deadline: Timer;
  /** Handed on or dropped. */
  gone: boolean;
  /** Where it sits in the orders pending attempts give way in (AttemptOrder). */
  readonly places: Record<OrderName, Place>;
}

type OrderName = 'opened' | 'settling';

interface Place {
  prev?: PendingAttempt;
  next?: PendingAttempt;
  listed: boolean;
}

export class AttemptAssembler {
  private readonly pending = new Map<string, PendingAttempt>();
  /**
   * The pending attempts again, by their root's span id (more than one only when traces reuse an id): each span finds
   * its attempt without building the key, a string that cost a copy and a hash per span.
   */
  private readonly byRoot = new Map<string, PendingAttempt[]>();
  /** Every pending attempt in the order it was opened, and the settling ones in the order their root arrived. */
  private readonly opened = new AttemptOrder('opened');
  private readonly settling = new AttemptOrder('settling');
  private spansPending = 0;
  private bytesPending = 0;
  private seq = 0;
  private readonly recent: RecentSpans;

  constructor(
    private readonly options: AssemblerOptions,
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

  add(span: OtlpSpan, where: string): void {
    const arrival: Arrival = { span, where, seq: this.seq++, bytes: heldBytes(span) };
    if (this.recent.has(span.traceId, span.spanId)) return this.reject(arrival, 'duplicate_span', 'already handed on in an analyzed attempt');
    if (span.attributes.has(ATTR.controller)) return this.addRoot(arrival);
    if (span.parentSpanId === '') {
      return this.reject(arrival, 'orphan_span', `neither an attempt root (no ${ATTR.controller} attribute) nor the child of one`);
    }
    if (this.recent.has(span.traceId, span.parentSpanId)) return this.reject(arrival, 'orphan_span', `arrived after its attempt (root ${span.parentSpanId}) was analyzed`);
    this.addChild(arrival);
  }

  /**
   * Hands on everything pending now (shutdown): settling attempts as complete, attempts still short of their count as
   * incomplete, children without a root as `shutdown`.
   */
  flush(): void {
    for (const p of [...this.pending.values()]) {
      if (p.root) this.complete(p, p.expected !== undefined);
      else this.dropAll(p, 'shutdown', 'the receiver stopped before the root span arrived');
    }
  }

  private addRoot(arrival: Arrival): void {
    const { traceId, spanId } = arrival.span;
    let p = this.find(traceId, spanId);
    if (p?.root) return this.reject(arrival, 'duplicate_span', 'the same root span arrived twice');
    const limit = this.makeRoom(arrival, p);
    if (limit) return this.pendingLimit(arrival, limit);
    p ??= this.open(traceId, spanId);
    p.root = arrival;
    this.spansPending++;
    this.bytesPending += arrival.bytes;
    const count = intAttribute(arrival.span.attributes, ATTR.operationCount);
    if (count === null) p.rootProblem = `${ATTR.operationCount}: must be a non-negative integer`;
    else if (count !== undefined) p.expected = count;
    if (p.expected === undefined) this.settling.push(p);
    this.arrived(p);
  }

  private addChild(arrival: Arrival): void {
    const { traceId, parentSpanId } = arrival.span;
    let p = this.find(traceId, parentSpanId);
    if (p?.children.has(arrival.span.spanId)) return this.reject(arrival, 'duplicate_span', 'the same child span arrived twice');
    if (p && p.children.size >= MAX_OPERATIONS_PER_ATTEMPT) {
      return this.reject(arrival, 'too_many_operations', `the attempt already has ${MAX_OPERATIONS_PER_ATTEMPT} operation spans`);
    }
    const limit = this.makeRoom(arrival, p);
    if (limit) return this.pendingLimit(arrival, limit);
    p ??= this.open(traceId, parentSpanId);
    p.children.set(arrival.span.spanId, arrival);
    this.spansPending++;
    this.bytesPending += arrival.bytes;
    this.arrived(p);
  }

  private find(traceId: string, rootId: string): PendingAttempt | undefined {
    const sharing = this.byRoot.get(rootId);
    if (sharing) for (const p of sharing) if (p.traceId === traceId) return p;
    return undefined;
  }

  private open(traceId: string, rootId: string): PendingAttempt {
    const key = traceId + rootId;
    const p: PendingAttempt = {
      key,
      traceId,
      rootId,
      children: new Map(),
      deadline: this.scheduler.setTimer(this.options.maxWaitMs, () => this.expire(p)),
      gone: false,
      places: { opened: { listed: false }, settling: { listed: false } },
    };
    this.pending.set(key, p);
    const sharing = this.byRoot.get(rootId);
    if (sharing) sharing.push(p);
    else this.byRoot.set(rootId, [p]);
    this.opened.push(p);
    return p;
  }

  /**
   * Room for the span (in `own`, or in a new attempt when `own` is undefined): while a pending limit would be passed,
   * other attempts are handed on early, settling ones first (as complete: their root is in, and a root ends after its
   * children), then the one pending longest. Refusing new spans instead would let attempts that will never complete
   * (their other spans were dropped by an overloaded exporter) block every new attempt for the whole wait. Returns the
   * limit still in the way when nothing else is left to hand on.
   */
  private makeRoom(arrival: Arrival, own: PendingAttempt | undefined): string | undefined {
    for (;;) {
      const limit = this.limitPassed(arrival, own === undefined);
      if (limit === undefined) return undefined;
      const other = (p: PendingAttempt): boolean => p !== own;
      const oldest = this.settling.first(other) ?? this.opened.first(other);
      if (!oldest) return limit;
      if (oldest.root) this.complete(oldest, oldest.expected !== undefined);
      else this.dropAll(oldest, 'pending_limit', `its attempt was evicted to make room: ${limit}, the limit`);
    }
  }

  private limitPassed(arrival: Arrival, opening: boolean): string | undefined {
    const o = this.options;
    if (opening && this.pending.size >= o.maxPendingAttempts) return `${o.maxPendingAttempts} pending attempts`;
    if (this.spansPending >= o.maxPendingSpans) return `${o.maxPendingSpans} pending spans`;
    if (this.bytesPending + arrival.bytes > o.maxPendingBytes) return `${this.bytesPending} bytes of pending spans (limit ${o.maxPendingBytes})`;
    return undefined;
  }

  private arrived(p: PendingAttempt): void {
    if (!p.root) return;
    if (p.expected !== undefined) {
      if (p.children.size >= p.expected) this.complete(p, false);
      return;
    }
    p.settle?.cancel();
    p.settle = this.scheduler.setTimer(this.options.settleMs, () => this.complete(p, false));
  }

  private expire(p: PendingAttempt): void {
    if (p.gone) return;
    if (p.root) this.complete(p, true);
    else this.dropAll(p, 'orphan_span', `its root span (${p.rootId}) did not arrive within ${this.options.maxWaitMs} ms`);
  }

  private complete(p: PendingAttempt, incomplete: boolean): void {
    this.remove(p);
    const root = p.root!;
    const children = [...p.children.values()].sort(byStart);
    let record: AttemptRecord;
    try {
      record = this.toRecord(p, root, children, incomplete);
    } catch (e) {
      const reason = rejectReasonOf(e);
      const message = `attempt of root ${root.span.spanId} in trace ${root.span.traceId}: ${(e as Error).message}`;
      for (const a of [root, ...children]) this.reject(a, reason, message);
      this.remember(root, children);
      return;
    }
    this.remember(root, children);
    this.sink.attempt(record);
  }

  private toRecord(p: PendingAttempt, root: Arrival, children: readonly Arrival[], incomplete: boolean): AttemptRecord {
    if (p.rootProblem !== undefined) throw new RootProblem(p.rootProblem);
    const attrs = root.span.attributes;
    const generation = intAttribute(attrs, ATTR.generation);
    const shaped = {
      time: timeText(root.span),
      controller: jsonSafe(attrs.get(ATTR.controller)),
      object: jsonSafe(attrs.get(ATTR.object)),
      // an invalid generation is passed on as it came, so the journal validator names it in the rejection
      generation: generation === null ? jsonSafe(attrs.get(ATTR.generation)) : generation,
      model: jsonSafe(attrs.get(ATTR.model)),
      operations: children.map((c) => toOperation(c.span)),
    };
    const record = toAttempt(shaped, { file: root.where, knownOperations: this.options.knownOperations }, 'otlp');
    return { ...record, origin: { source: 'otlp', traceId: root.span.traceId, spanId: root.span.spanId, incomplete } };
  }

  private remove(p: PendingAttempt): void {
    p.gone = true;
    p.deadline.cancel();
    p.settle?.cancel();
    this.pending.delete(p.key);
    const sharing = this.byRoot.get(p.rootId) ?? [];
    const at = sharing.indexOf(p);
    if (at >= 0 && sharing.length === 1) this.byRoot.delete(p.rootId);
    else if (at >= 0) sharing.splice(at, 1);
    this.spansPending -= p.children.size + (p.root ? 1 : 0);
    this.bytesPending -= p.root?.bytes ?? 0;
    for (const c of p.children.values()) this.bytesPending -= c.bytes;
    this.opened.remove(p);
    this.settling.remove(p);
  }

  private remember(root: Arrival, children: readonly Arrival[]): void {
    this.recent.add(root.span.traceId, root.span.spanId);
    for (const c of children) this.recent.add(c.span.traceId, c.span.spanId);
  }

  private dropAll(p: PendingAttempt, reason: RejectReason, message: string): void {
    this.remove(p);
    for (const c of p.children.values()) this.reject(c, reason, message);
  }

  private pendingLimit(arrival: Arrival, limit: string): void {
    this.reject(arrival, 'pending_limit', `the receiver already holds ${limit}, its limit`);
  }

  private reject(a: Arrival, reason: RejectReason, message: string): void {
    const s = a.span;
    this.sink.reject({ source: 'otlp', reason, where: a.where, message: `span ${s.spanId} (${JSON.stringify(s.name)}) in trace ${s.traceId}: ${message}` });
  }
}

/**
 * Pending attempts in one order, oldest first, as a list threaded through the attempts themselves: an attempt leaves
 * from anywhere in O(1), and one that is handed on is not held a moment longer (an array with lazy deletion held every
 * attempt behind a long-waiting first one, with all its spans, for up to maxWaitMs).
 */
class AttemptOrder {
  private head: PendingAttempt | undefined;
  private tail: PendingAttempt | undefined;

  constructor(private readonly name: OrderName) {}

  push(p: PendingAttempt): void {
    const place = p.places[this.name];
    if (place.listed) return;
    place.listed = true;
    place.prev = this.tail;
    place.next = undefined;
    if (this.tail) this.tail.places[this.name].next = p;
    else this.head = p;
    this.tail = p;
  }

  remove(p: PendingAttempt): void {
    const place = p.places[this.name];
    if (!place.listed) return;
    if (place.prev) place.prev.places[this.name].next = place.next;
    else this.head = place.next;
    if (place.next) place.next.places[this.name].prev = place.prev;
    else this.tail = place.prev;
    place.listed = false;
    place.prev = undefined;
    place.next = undefined;
  }

  /** The oldest attempt `wanted` accepts. */
  first(wanted: (p: PendingAttempt) => boolean): PendingAttempt | undefined {
    for (let p = this.head; p; p = p.places[this.name].next) if (wanted(p)) return p;
    return undefined;
  }
}

/** An attempt refused because of its root's own attributes. */
class RootProblem extends Error {
  readonly reason: RejectReason = 'invalid_record';
}

function toOperation(span: OtlpSpan): Record<string, unknown> {
  const named = span.attributes.get(ATTR.operation);
  const declared = span.attributes.get(ATTR.outcome);
  const outcome = declared === undefined ? (span.statusCode === STATUS_ERROR ? 'error' : 'ok') : jsonSafe(declared);
  const name = typeof named === 'string' && named !== '' ? named : span.name;
  const durationSeconds = Number(span.endNs - span.startNs) / 1e9;
  return outcome === 'error' && span.statusMessage !== '' ? { name, outcome, error: span.statusMessage, durationSeconds } : { name, outcome, durationSeconds };
}

/** The root's start as RFC 3339, or `reconcile.time` when it spells that same instant (to the nanosecond) differently. */
function timeText(root: OtlpSpan): string {
  const declared = root.attributes.get(ATTR.time);
  if (typeof declared === 'string' && parseRfc3339Nanos(declared) === root.startNs) return declared;
  return formatRfc3339Nanos(root.startNs);
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

function byStart(a: Arrival, b: Arrival): number {
  if (a.span.startNs !== b.span.startNs) return a.span.startNs < b.span.startNs ? -1 : 1;
  return a.seq - b.seq;
}

function rejectReasonOf(e: unknown): RejectReason {
  const reason = (e as { reason?: unknown }).reason;
  if (typeof reason === 'string' && (REJECT_REASONS as readonly string[]).includes(reason)) return reason as RejectReason;
  throw e;
}

/**
 * A bounded set of (traceId, spanId) that forgets its oldest pairs first. The order lives in a ring: evicting through
 * a Set's own iteration order (`values().next()`) walks every deleted slot at the front of V8's table on each call,
 * which made a full memory cost ~100 µs per span and cut the receiver's throughput by an order of magnitude under
 * load. The pairs are held per trace: one table of 200,000 concatenated ids cost a string per span, a rehash of the
 * whole table at each doubling and a cache miss per lookup (the assembler's largest cost); a trace's own set is small.
 */
class RecentSpans {
  private readonly byTrace = new Map<string, Set<string>>();
  private readonly ringTrace: string[] = [];
  private readonly ringSpan: string[] = [];
  private oldest = 0;

  constructor(private readonly capacity: number) {}

  has(traceId: string, spanId: string): boolean {
    return this.byTrace.get(traceId)?.has(spanId) ?? false;
  }

  add(traceId: string, spanId: string): void {
    if (this.capacity <= 0) return;
    let spans = this.byTrace.get(traceId);
    if (!spans) this.byTrace.set(traceId, (spans = new Set()));
    else if (spans.has(spanId)) return;
    spans.add(spanId);
    if (this.ringSpan.length < this.capacity) {
      this.ringTrace.push(traceId);
      this.ringSpan.push(spanId);
      return;
    }
    const oldTrace = this.ringTrace[this.oldest]!;
    const oldSpans = this.byTrace.get(oldTrace)!;
    oldSpans.delete(this.ringSpan[this.oldest]!);
    if (oldSpans.size === 0) this.byTrace.delete(oldTrace);
    this.ringTrace[this.oldest] = traceId;
    this.ringSpan[this.oldest] = spanId;
    this.oldest = (this.oldest + 1) % this.capacity;
  }
}
