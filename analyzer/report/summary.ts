/**
 * The report builder shared by `reconcile-shadow analyze` and the live sidecar's `GET /report`: it folds analyzed
 * attempts and rejections into one summary, so the offline CLI and the live sidecar never disagree.
 * Its JSON form is documented in docs/summary.schema.json.
 */
import type { AttemptRecord, Rejection, SourceInputReport, SourceKind } from '../../collector/records.js';
import type { GroupCategory, LoopKind } from '../../model/types.js';
import { ERROR, SKIP, STOP, type CompiledModel } from '../compiled-model.js';
import type { AttemptAnalysis } from '../engine.js';
import { blockerGroup, NO_BLOCKER, type LoopRun } from '../loops.js';
import type { StarvationTracker } from '../starvation.js';

export const SUMMARY_SCHEMA = 'reconcile-shadow/summary/v1';
const REJECTION_SAMPLE = 20;
const TOP_BLOCKERS = 3;

export interface OperationSummary {
  readonly name: string;
  /** The phased-loop group, or null for a fail-fast step or a sequential-only op. */
  readonly group: string | null;
  readonly category: GroupCategory | 'failFast' | 'sequentialOnly';
  /** Set when the op exists in one loop alone: it is then never unblocked or newly blocked, only `structural`. */
  readonly onlyIn: LoopKind | null;
  readonly observed: number;
  readonly outcomes: { readonly ok: number; readonly error: number; readonly stop: number; readonly skip: number };
  /** error / observed, or null when never observed. */
  readonly failureRate: number | null;
  readonly unblocked: number;
  readonly newlyBlocked: number;
  /** One-loop ops: attempts in which the loop that has the op ran it. */
  readonly structural: number;
  /** Of the attempts counted in unblocked + newlyBlocked, those where the op's own outcome was predicted, not observed. */
  readonly predicted: number;
  /** What kept the op from running in the loop that did not run it, most frequent first. */
  readonly topBlockers: readonly { readonly blocker: string; readonly count: number }[];
  readonly longestStarvationSeconds: number;
  readonly longestStarvationObject: string | null;
  /** Observed although the model says the observed loop would not have reached it (model or record is off). */
  readonly inconsistent: number;
}

export interface ControllerSummary {
  readonly schema: typeof SUMMARY_SCHEMA;
  readonly model: string;
  readonly controller: string;
  readonly window: { readonly first: string | null; readonly last: string | null; readonly seconds: number };
  readonly attempts: {
    readonly total: number;
    readonly byObservedModel: Readonly<Record<LoopKind, number>>;
    readonly bySource: Readonly<Partial<Record<SourceKind, number>>>;
    readonly diverged: number;
    readonly divergenceRate: number | null;
    /** Attempts in which an operation that exists in one loop alone (`only:`) ran; not divergence. */
    readonly structural: number;
    /** Attempts seen only in part (OTLP wait expired, sampled logs, status transitions): counts are lower bounds. */
    readonly partial: number;
  };
  readonly objects: number;
  readonly operations: readonly OperationSummary[];
  readonly blockedBy: readonly { readonly blocker: string; readonly blocked: string; readonly count: number }[];
  readonly reorderedPairs: readonly { readonly first: string; readonly second: string; readonly count: number }[];
}

export interface ShadowReport {
  readonly schema: typeof SUMMARY_SCHEMA;
  readonly controllers: readonly ControllerSummary[];
  readonly input: {
    readonly received: Readonly<Partial<Record<SourceKind, number>>>;
    readonly rejected: number;
    readonly rejectedByReason: Readonly<Record<string, number>>;
    readonly rejectionSample: readonly Rejection[];
    /**
     * Sources that keep books of their own (logs, status): per source, `received = analyzed + dropped` in its unit,
     * what it noted, which loop it read the input under and why, and (logs) the sampled periods, the unmapped-error
     * sample and the statement that counts from sampled periods are lower bounds. Absent when no such source ran.
     */
    readonly sources?: readonly SourceInputReport[];
  };
}

interface OpCounters {
  observed: number;
  outcomes: [number, number, number, number];
  unblocked: number;
  newlyBlocked: number;
  structural: number;
  predicted: number;
  /** Keyed by blocker code (see loops.ts), named only when the summary is built. */
  blockers: Map<number, number>;
  inconsistent: number;
}

/** Accumulates one controller's analyzed attempts. */
export class ControllerSummaryBuilder {
  private readonly ops: OpCounters[];
  private total = 0;
  private diverged = 0;
  private structural = 0;
  private partial = 0;
  private readonly byModel: Record<LoopKind, number> = { sequential: 0, phased: 0 };
  private readonly bySource: Partial<Record<SourceKind, number>> = {};
  /** Keyed by blocker group * 65536 + blocked group, named only when the summary is built. */
  private readonly blockedBy = new Map<number, number>();
  private readonly reordered: number[];
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
    this.ops = cm.ops.map(() => ({ observed: 0, outcomes: [0, 0, 0, 0], unblocked: 0, newlyBlocked: 0, structural: 0, predicted: 0, blockers: new Map(), inconsistent: 0 }));
    this.reordered = new Array<number>(cm.invertedPairs.length).fill(0);
  }

  add(a: AttemptAnalysis): void {
    const r = a.record;
    this.total++;
    this.byModel[r.model]++;
    this.bySource[r.origin.source] = (this.bySource[r.origin.source] ?? 0) + 1;
    if (r.origin.incomplete || r.origin.sampled || r.origin.transition) this.partial++;
    if (a.diverged) this.diverged++;
    if (a.structural.length > 0) this.structural++;
    for (const op of a.structural) this.ops[op]!.structural++;
    this.noteTime(r);
    for (let op = 0; op < a.observed.length; op++) {
      if (a.observed[op] !== 1) continue;
      const c = this.ops[op]!;
      c.observed++;
      c.outcomes[a.outcomes[op]! as 0 | 1 | 2 | 3]++;
    }
    for (const op of a.unblocked) this.countDivergence(op, a, a.sequential, 'unblocked');
    for (const op of a.newlyBlocked) this.countDivergence(op, a, a.phased, 'newlyBlocked');
    for (const [blocker, blocked] of a.phased.blockedBy) {
      const key = blocker * 65536 + blocked;
      this.blockedBy.set(key, (this.blockedBy.get(key) ?? 0) + 1);
    }
    for (const pair of a.reordered) this.reordered[pair]!++;
    for (const op of a.inconsistent) this.ops[op]!.inconsistent++;
  }

  private countDivergence(op: number, a: AttemptAnalysis, notRunIn: LoopRun, kind: 'unblocked' | 'newlyBlocked'): void {
    const c = this.ops[op]!;
    c[kind]++;
    if (a.observed[op] !== 1) c.predicted++;
    const blocker = notRunIn.blockerOf(op);
    if (blocker !== NO_BLOCKER) c.blockers.set(blocker, (c.blockers.get(blocker) ?? 0) + 1);
  }

  private noteTime(r: AttemptRecord): void {
    if (this.firstText === undefined || r.timeMs < this.firstMs) {
      this.firstText = r.time;
      this.firstMs = r.timeMs;
    }
    if (this.lastText === undefined || r.timeMs > this.lastMs) {
      this.lastText = r.time;
      this.lastMs = r.timeMs;
    }
  }

  build(): ControllerSummary {
    const cm = this.cm;
    const operations = cm.ops.map((name, op): OperationSummary => {
      const c = this.ops[op]!;
      const group = cm.groupOf[op]! >= 0 ? cm.groups[cm.groupOf[op]!]! : undefined;
      const only = cm.model.operations[op]!.only;
      return {
        name,
        group: group?.name ?? null,
        category: group ? group.category : only === 'sequential' ? 'sequentialOnly' : 'failFast',
        onlyIn: only ?? null,
        observed: c.observed,
        outcomes: { ok: c.outcomes[0], error: c.outcomes[ERROR], stop: c.outcomes[STOP], skip: c.outcomes[SKIP] },
        failureRate: c.observed === 0 ? null : c.outcomes[ERROR] / c.observed,
        unblocked: c.unblocked,
        newlyBlocked: c.newlyBlocked,
        structural: c.structural,
        predicted: c.predicted,
        topBlockers: topEntries(new Map([...c.blockers].map(([code, count]) => [blockerName(cm, code), count])), TOP_BLOCKERS).map(([blocker, count]) => ({ blocker, count })),
        longestStarvationSeconds: this.starvation.longestMs[op]! / 1000,
        longestStarvationObject: this.starvation.longestObject[op] ?? null,
        inconsistent: c.inconsistent,
      };
    });
    const named = new Map<string, number>();
    for (const [key, count] of this.blockedBy) {
      const name = `${cm.groups[Math.floor(key / 65536)]!.name}\u0000${cm.groups[key % 65536]!.name}`;
      named.set(name, (named.get(name) ?? 0) + count);
    }
    const blockedBy = topEntries(named, Infinity).map(([key, count]) => {
      const [blocker = '', blocked = ''] = key.split('\u0000');
      return { blocker, blocked, count };
    });
    const reorderedPairs = this.reordered
      .map((count, i) => ({ first: cm.ops[cm.invertedPairs[i]![0]]!, second: cm.ops[cm.invertedPairs[i]![1]]!, count }))
      .filter((p) => p.count > 0)
      .sort((x, y) => y.count - x.count || (x.first + x.second < y.first + y.second ? -1 : 1));
    return {
      schema: SUMMARY_SCHEMA,
      model: cm.model.name,
      controller: cm.model.controller,
      window: {
        first: this.firstText ?? null,
        last: this.lastText ?? null,
        seconds: this.firstText !== undefined && this.lastText !== undefined ? (this.lastMs - this.firstMs) / 1000 : 0,
      },
      attempts: {
        total: this.total,
        byObservedModel: { ...this.byModel },
        bySource: { ...this.bySource },
        diverged: this.diverged,
        divergenceRate: this.total === 0 ? null : this.diverged / this.total,
        structural: this.structural,
        partial: this.partial,
      },
      objects: this.objectCount(),
      operations,
      blockedBy,
      reorderedPairs,
    };
  }
}

function blockerName(cm: CompiledModel, blocker: number): string {
  return (blocker >= 0 ? cm.ops[blocker] : cm.groups[blockerGroup(blocker)]?.name) ?? String(blocker);
}

/** Map entries by count, most first, ties by key, at most `n`. */
function topEntries(map: ReadonlyMap<string, number>, n: number): [string, number][] {
  return [...map.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, n);
}

/** Input bookkeeping shared by every controller: what arrived and what was refused, with a bounded sample. */
export class InputLedger {
  readonly received: Partial<Record<SourceKind, number>> = {};
  readonly rejectedByReason: Record<string, number> = {};
  readonly sample: Rejection[] = [];
  rejected = 0;
  private readonly sourceReports = new Map<SourceKind, () => SourceInputReport>();

  /** A source's own books, read each time the report is built (the last registration of a source kind counts). */
  describe(source: SourceKind, report: () => SourceInputReport): void {
    this.sourceReports.set(source, report);
  }

  receive(source: SourceKind, count: number): void {
    this.received[source] = (this.received[source] ?? 0) + count;
  }

  reject(r: Rejection): void {
    this.rejected++;
    this.rejectedByReason[r.reason] = (this.rejectedByReason[r.reason] ?? 0) + 1;
    if (this.sample.length < REJECTION_SAMPLE) this.sample.push(r);
  }

  build(): ShadowReport['input'] {
    const input = { received: { ...this.received }, rejected: this.rejected, rejectedByReason: { ...this.rejectedByReason }, rejectionSample: [...this.sample] };
    return this.sourceReports.size === 0 ? input : { ...input, sources: [...this.sourceReports.values()].map((report) => report()) };
  }
}

