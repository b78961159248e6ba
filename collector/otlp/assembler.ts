/**
 * Spans -> AttemptRecords by the span convention (docs/otlp.md): a root span per reconcile attempt (it carries
 * `reconcile.controller`) and one direct child span per operation. Spans of one attempt arrive across requests and
 * in any order, so they wait here, grouped by the root's id, until the attempt is complete:
 *   - the root says how many children to expect (`reconcile.operation_count`) and that many have arrived; or
 *   - without a count, `settleMs` passed after the root with no new child;
 *   - otherwise, `maxWaitMs` after the first span of the attempt, it is analyzed with what arrived (`incomplete`),
 *     or, when its root never came, its children are dropped as `orphan_span`.
 * Every span ends as part of exactly one handed-on attempt or as one rejection, so received = analyzed + dropped.
 * Memory is bounded by `maxPendingAttempts` and `maxPendingSpans` (`pending_limit`).
 */
import { MAX_OPERATIONS_PER_ATTEMPT, toAttempt } from '../journal.js';
import { REJECT_REASONS, type AttemptRecord, type RecordSink, type RejectReason } from '../records.js';
import type { Scheduler, Timer } from './scheduler.js';
import { STATUS_ERROR, type AttributeValue, type OtlpSpan } from './span.js';
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
  recentSpanMemory: 200_000,
};

interface Arrival {
  readonly span: OtlpSpan;
  /** The request it came in, for rejections. */
  readonly where: string;
  /** Arrival order, the tie-break between children that started at the same nanosecond. */
  readonly seq: number;
}

interface PendingAttempt {
  /** traceId + the root's spanId. */
  readonly key: string;
  root?: Arrival;
  readonly children: Map<string, Arrival>;
  /** From the root's `reconcile.operation_count`. */
  expected?: number;
  /** A root attribute that makes the whole attempt invalid, reported when it is handed on. */
  rootProblem?: string;
  settle?: Timer;
  readonly deadline: Timer;
}

export class AttemptAssembler {
  private readonly pending = new Map<string, PendingAttempt>();
  private spansPending = 0;
  private seq = 0;
  private readonly recent: RecentKeys;

  constructor(
    private readonly options: AssemblerOptions,
    private readonly sink: RecordSink,
    private readonly scheduler: Scheduler,
  ) {
    this.recent = new RecentKeys(options.recentSpanMemory);
  }

  get pendingAttempts(): number {
    return this.pending.size;
  }

  get pendingSpans(): number {
    return this.spansPending;
  }

  add(span: OtlpSpan, where: string): void {
    const arrival: Arrival = { span, where, seq: this.seq++ };
    const own = span.traceId + span.spanId;
    if (this.recent.has(own)) return this.reject(arrival, 'duplicate_span', 'already handed on in an analyzed attempt');
    if (span.attributes.has(ATTR.controller)) return this.addRoot(arrival, own);
    if (span.parentSpanId === '') {
      return this.reject(arrival, 'orphan_span', `neither an attempt root (no ${ATTR.controller} attribute) nor the child of one`);
    }
    const key = span.traceId + span.parentSpanId;
    if (this.recent.has(key)) return this.reject(arrival, 'orphan_span', `arrived after its attempt (root ${span.parentSpanId}) was analyzed`);
    this.addChild(arrival, key);
  }

  /** Hands on everything pending now (shutdown): attempts with a root as incomplete, children without one as `shutdown`. */
  flush(): void {
    for (const p of [...this.pending.values()]) {
      if (p.root) this.complete(p, true);
      else this.dropAll(p, 'shutdown', 'the receiver stopped before the root span arrived');
    }
  }

  private addRoot(arrival: Arrival, key: string): void {
    let p = this.pending.get(key);
    if (p?.root) return this.reject(arrival, 'duplicate_span', 'the same root span arrived twice');
    p ??= this.open(arrival, key);
    if (!p) return;
    p.root = arrival;
    this.spansPending++;
    const count = intAttribute(arrival.span.attributes, ATTR.operationCount);
    if (count === null) p.rootProblem = `${ATTR.operationCount}: must be a non-negative integer`;
    else if (count !== undefined) p.expected = count;
    this.arrived(p);
  }

  private addChild(arrival: Arrival, key: string): void {
    const p = this.pending.get(key) ?? this.open(arrival, key);
    if (!p) return;
    if (p.children.has(arrival.span.spanId)) return this.reject(arrival, 'duplicate_span', 'the same child span arrived twice');
    if (p.children.size >= MAX_OPERATIONS_PER_ATTEMPT) {
      return this.reject(arrival, 'too_many_operations', `the attempt already has ${MAX_OPERATIONS_PER_ATTEMPT} operation spans`);
    }
    if (this.spansPending >= this.options.maxPendingSpans) return this.pendingLimit(arrival, `${this.options.maxPendingSpans} pending spans`);
    p.children.set(arrival.span.spanId, arrival);
    this.spansPending++;
    this.arrived(p);
  }

  /** A new pending attempt, or undefined (and the span rejected) when a pending limit is reached. */
  private open(arrival: Arrival, key: string): PendingAttempt | undefined {
    if (this.pending.size >= this.options.maxPendingAttempts) return this.pendingLimit(arrival, `${this.options.maxPendingAttempts} pending attempts`);
    if (this.spansPending >= this.options.maxPendingSpans) return this.pendingLimit(arrival, `${this.options.maxPendingSpans} pending spans`);
    const p: PendingAttempt = {
      key,
      children: new Map(),
      deadline: this.scheduler.setTimer(this.options.maxWaitMs, () => this.expire(p)),
    };
    this.pending.set(key, p);
    return p;
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
    if (this.pending.get(p.key) !== p) return;
    if (p.root) this.complete(p, true);
    else this.dropAll(p, 'orphan_span', `its root span (${p.key.slice(32)}) did not arrive within ${this.options.maxWaitMs} ms`);
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
    p.deadline.cancel();
    p.settle?.cancel();
    this.pending.delete(p.key);
    this.spansPending -= p.children.size + (p.root ? 1 : 0);
  }

  private remember(root: Arrival, children: readonly Arrival[]): void {
    this.recent.add(root.span.traceId + root.span.spanId);
    for (const c of children) this.recent.add(c.span.traceId + c.span.spanId);
  }

  private dropAll(p: PendingAttempt, reason: RejectReason, message: string): void {
    this.remove(p);
    for (const c of p.children.values()) this.reject(c, reason, message);
  }

  private pendingLimit(arrival: Arrival, limit: string): undefined {
    this.reject(arrival, 'pending_limit', `the receiver already holds ${limit}, its limit`);
    return undefined;
  }

  private reject(a: Arrival, reason: RejectReason, message: string): void {
    const s = a.span;
    this.sink.reject({ source: 'otlp', reason, where: a.where, message: `span ${s.spanId} (${JSON.stringify(s.name)}) in trace ${s.traceId}: ${message}` });
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
  return {
    name: typeof named === 'string' && named !== '' ? named : span.name,
    outcome,
    ...(outcome === 'error' && span.statusMessage !== '' ? { error: span.statusMessage } : {}),
    durationSeconds: Number(span.endNs - span.startNs) / 1e9,
  };
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

/** A bounded set that forgets its oldest keys first. */
class RecentKeys {
  private readonly keys = new Set<string>();
  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    this.keys.add(key);
    if (this.keys.size > this.capacity) this.keys.delete(this.keys.values().next().value!);
  }
}
