/**
 * The summary builder shared by `reconcile-shadow analyze` and the live sidecar's `GET /summary`: it folds analyzed
 * attempts and rejections into one summary, so the offline CLI and the live sidecar never disagree.
 * Its JSON form is documented in docs/summary.schema.json.
 */
import type { AttemptRecord, Rejection, SourceInputSummary, SourceKind } from '../../collector/records.js';
import type { CompiledModel } from '../compiled-model.js';
import type { AttemptAnalysis } from '../engine.js';
import { blockerGroup, NO_BLOCKER, type LoopRun } from '../loops.js';
import type { StarvationTracker } from '../starvation.js';
import { blockedByOrder, blockerOrder, inputSection, pairOrder, summaryFromState, type OperationState, type SummaryState } from './summary-state.js';
import type { ControllerSummary, Summary } from './types.js';

/** Rejections the summary lists one by one (the first ones, in input order). */
export const REJECTION_SAMPLE = 20;

/** Pending projections held at most before they are folded into the counts (bounds memory on any input). */
const MAX_PENDING_PROJECTIONS = 1024;

/** What of an attempt depends on its projection alone, and how many attempts had it. */
type Pending = Pick<AttemptAnalysis, 'sequential' | 'phased' | 'unblocked' | 'newlyBlocked' | 'structural' | 'diverged' | 'reordered'> & { count: number };

/**
 * Accumulates one controller's analyzed attempts. What depends only on the attempt's projection (divergence,
 * blockers, reordered pairs) is counted per projection (loop-projection.ts: shared by every attempt that fails alike) and
 * folded into per-op counts later, so an attempt costs one map update there instead of ~100 increments; what depends
 * on the attempt itself (observed outcomes, predictions) is counted as it comes, in typed arrays.
 */
export class ControllerSummaryBuilder {
  private total = 0;
  private partial = 0;
  /** Attempts, as analyzed, that a probability sampler kept: when any, the counts are estimates. */
  private sampled = 0;
  private sequential = 0;
  private phased = 0;
  /** A map, not an object: a keyed update with a different key per source misses V8's inline cache per attempt. */
  private readonly bySource = new Map<SourceKind, number>();
  /** Per op and outcome code (op * 4 + code): attempts that observed the op with that outcome. */
  private readonly outcomes: Float64Array;
  private readonly predicted: Float64Array;
  private readonly inconsistent: Float64Array;
  /**
   * Attempts per projection since the last fold, in the order first seen. An attempt's runs and their comparison are
   * shared by every attempt that fails alike (loop-projection.ts), so its phased run stands for the whole projection.
   */
  private pending = new Map<LoopRun, Pending>();
  private last: Pending | undefined;
  // Folded from the projections:
  private diverged = 0;
  private structural = 0;
  private readonly opStructural: Float64Array;
  private readonly unblocked: Float64Array;
  private readonly newlyBlocked: Float64Array;
  /** Per op, keyed by blocker code (see loops.ts), in the order first seen; named only when the summary is built. */
  private readonly blockers: Map<number, number>[];
  /** Keyed by blocker group * 65536 + blocked group, named only when the summary is built. */
  private readonly blockedBy = new Map<number, number>();
  private readonly reordered: Float64Array;
  /** The earliest and latest attempt times (kept apart rather than as objects: one is replaced on most attempts). */
  private firstText: string | undefined;
  private firstMs = 0;
  private lastText: string | undefined;
  private lastMs = 0;

  constructor(
    private readonly cm: CompiledModel,
    private readonly starvation: StarvationTracker,
    private readonly objectCount: () => number,
  ) {
    const n = cm.ops.length;
    this.outcomes = new Float64Array(4 * n);
    this.predicted = new Float64Array(n);
    this.inconsistent = new Float64Array(n);
    this.opStructural = new Float64Array(n);
    this.unblocked = new Float64Array(n);
    this.newlyBlocked = new Float64Array(n);
    this.blockers = cm.ops.map(() => new Map<number, number>());
    this.reordered = new Float64Array(cm.invertedPairs.length);
  }

  /** An attempt kept by a probability sampler counts as its adjusted count (origin.adjustedCount), others as one. */
  add(a: AttemptAnalysis): void {
    const r = a.record;
    const w = r.origin.adjustedCount ?? 1;
    if (r.origin.adjustedCount !== undefined) this.sampled++;
    this.total += w;
    if (r.loop === 'sequential') this.sequential += w;
    else this.phased += w;
    this.bySource.set(r.origin.source, (this.bySource.get(r.origin.source) ?? 0) + w);
    if (r.origin.incomplete || r.origin.sampled || r.origin.transition) this.partial += w;
    this.noteTime(r);
    const observed = a.observed;
    const outcomes = a.outcomes;
    for (let op = 0; op < observed.length; op++) if (observed[op] === 1) this.outcomes[(op << 2) | outcomes[op]!]! += w;
    for (let k = 0; k < a.unblocked.length; k++) if (observed[a.unblocked[k]!] !== 1) this.predicted[a.unblocked[k]!]! += w;
    for (let k = 0; k < a.newlyBlocked.length; k++) if (observed[a.newlyBlocked[k]!] !== 1) this.predicted[a.newlyBlocked[k]!]! += w;
    for (let k = 0; k < a.inconsistent.length; k++) this.inconsistent[a.inconsistent[k]!]! += w;
    this.pendingOf(a).count += w;
  }

  /** The pending count of the attempt's projection; most attempts have the previous attempt's (a healthy fleet). */
  private pendingOf(a: AttemptAnalysis): Pending {
    if (this.last?.phased === a.phased) return this.last;
    let pending = this.pending.get(a.phased);
    if (!pending) {
      if (this.pending.size === MAX_PENDING_PROJECTIONS) this.fold();
      const { sequential, phased, unblocked, newlyBlocked, structural, diverged, reordered } = a;
      pending = { sequential, phased, unblocked, newlyBlocked, structural, diverged, reordered, count: 0 };
      this.pending.set(a.phased, pending);
    }
    this.last = pending;
    return pending;
  }

  /** Adds the pending projections' attempts to the per-op counts, in the order the projections were first seen. */
  private fold(): void {
    for (const c of this.pending.values()) {
      const count = c.count;
      if (c.diverged) this.diverged += count;
      if (c.structural.length > 0) this.structural += count;
      for (const op of c.structural) this.opStructural[op]! += count;
      for (const op of c.unblocked) this.countDivergence(op, this.unblocked, c.sequential, count);
      for (const op of c.newlyBlocked) this.countDivergence(op, this.newlyBlocked, c.phased, count);
      for (const [blocker, blocked] of c.phased.blockedBy) {
        const key = blocker * 65536 + blocked;
        this.blockedBy.set(key, (this.blockedBy.get(key) ?? 0) + count);
      }
      for (const pair of c.reordered) this.reordered[pair]! += count;
    }
    this.pending = new Map();
    this.last = undefined;
  }

  private countDivergence(op: number, counts: Float64Array, notRunIn: LoopRun, count: number): void {
    counts[op]! += count;
    const blocker = notRunIn.blockerOf(op);
    if (blocker === NO_BLOCKER) return;
    const blockers = this.blockers[op]!;
    blockers.set(blocker, (blockers.get(blocker) ?? 0) + count);
  }

  private noteTime(r: AttemptRecord): void {
    // Ties of the same millisecond go to the smaller text (first) and the larger (last): no order of input matters.
    if (this.firstText === undefined || r.timeMs < this.firstMs || (r.timeMs === this.firstMs && r.time < this.firstText)) {
      this.firstText = r.time;
      this.firstMs = r.timeMs;
    }
    if (this.lastText === undefined || r.timeMs > this.lastMs || (r.timeMs === this.lastMs && r.time > this.lastText)) {
      this.lastText = r.time;
      this.lastMs = r.timeMs;
    }
  }

  /** What has been counted, as plain data (summary-state.ts): the summary, and the partial state a sharded run merges. */
  snapshot(): SummaryState {
    this.fold();
    const cm = this.cm;
    const operations = cm.ops.map((name, op): OperationState => {
      const [ok, error, stop, skip] = this.outcomes.subarray(op << 2, (op + 1) << 2);
      const blockers = new Map<string, number>();
      for (const [code, count] of this.blockers[op]!) blockers.set(blockerName(cm, code), (blockers.get(blockerName(cm, code)) ?? 0) + count);
      const longestMs = this.starvation.longestMs[op]!;
      const longestObject = this.starvation.longestObject[op];
      return {
        name,
        observed: ok! + error! + stop! + skip!,
        outcomes: { ok: ok!, error: error!, stop: stop!, skip: skip! },
        unblocked: this.unblocked[op]!,
        newlyBlocked: this.newlyBlocked[op]!,
        structural: this.opStructural[op]!,
        predicted: this.predicted[op]!,
        inconsistent: this.inconsistent[op]!,
        blockers: [...blockers].map(([blocker, count]) => ({ blocker, count })).sort(blockerOrder),
        longestStarvation: longestObject === undefined ? null : { ms: longestMs, object: longestObject },
      };
    });
    const blockedBy = [...this.blockedBy]
      .map(([key, count]) => ({ blocker: cm.groups[Math.floor(key / 65536)]!.name, blocked: cm.groups[key % 65536]!.name, count }))
      .sort(blockedByOrder);
    const reorderedPairs = [...this.reordered]
      .map((count, i) => ({ first: cm.ops[cm.invertedPairs[i]![0]]!, second: cm.ops[cm.invertedPairs[i]![1]]!, count }))
      .filter((p) => p.count > 0)
      .sort(pairOrder);
    return {
      attempts: {
        total: this.total,
        byObservedLoop: { sequential: this.sequential, phased: this.phased },
        bySource: Object.fromEntries(this.bySource),
        diverged: this.diverged,
        structural: this.structural,
        partial: this.partial,
        ...(this.sampled > 0 ? { sampled: this.sampled } : {}),
      },
      window: {
        first: this.firstText === undefined ? null : { ms: this.firstMs, text: this.firstText },
        last: this.lastText === undefined ? null : { ms: this.lastMs, text: this.lastText },
      },
      objects: this.objectCount(),
      operations,
      blockedBy,
      reorderedPairs,
    };
  }

  build(): ControllerSummary {
    return summaryFromState(this.cm, this.snapshot());
  }
}

function blockerName(cm: CompiledModel, blocker: number): string {
  return (blocker >= 0 ? cm.ops[blocker] : cm.groups[blockerGroup(blocker)]?.name) ?? String(blocker);
}

/** Input bookkeeping shared by every controller: what arrived and what was refused, with a bounded sample. */
export class InputLedger {
  readonly received: Partial<Record<SourceKind, number>> = {};
  readonly rejectedByReason: Record<string, number> = {};
  readonly sample: Rejection[] = [];
  rejected = 0;
  private readonly sourceSummaries = new Map<SourceKind, () => SourceInputSummary>();

  /** A source's own books, read each time the summary is built (the last registration of a source kind counts). */
  describe(source: SourceKind, summary: () => SourceInputSummary): void {
    this.sourceSummaries.set(source, summary);
  }

  receive(source: SourceKind, count: number): void {
    this.received[source] = (this.received[source] ?? 0) + count;
  }

  reject(r: Rejection): void {
    this.rejected++;
    this.rejectedByReason[r.reason] = (this.rejectedByReason[r.reason] ?? 0) + 1;
    if (this.sample.length < REJECTION_SAMPLE) this.sample.push(r);
  }

  build(): Summary['input'] {
    const sources = [...this.sourceSummaries.values()].map((summary) => summary());
    return inputSection({ received: this.received, rejected: this.rejected, rejectedByReason: this.rejectedByReason, rejectionSample: this.sample, sources });
  }
}
