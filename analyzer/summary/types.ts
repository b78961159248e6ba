/**
 * The summary's shape (docs/summary.schema.json): what `analyze --format json` prints and /summary serves. Its own
 * module, so that the builder (summary.ts) and the mergeable state (summary-state.ts) both read it without importing
 * each other.
 */
import type { Rejection, SourceInputSummary, SourceKind } from '../../collector/records.js';
import type { GroupCategory, LoopKind } from '../../model/types.js';

export const SUMMARY_SCHEMA = 'reconcile-shadow/summary/v1';

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
  /** The operator build the model was chosen for (model/builds.ts), when the model knows builds. */
  readonly operatorBuild?: { readonly name: string; readonly statement: string | null };
  readonly controller: string;
  readonly window: { readonly first: string | null; readonly last: string | null; readonly seconds: number };
  readonly attempts: {
    readonly total: number;
    readonly byObservedLoop: Readonly<Record<LoopKind, number>>;
    readonly bySource: Readonly<Partial<Record<SourceKind, number>>>;
    readonly diverged: number;
    readonly divergenceRate: number | null;
    /** Attempts in which an operation that exists in one loop alone (`only:`) ran; not divergence. */
    readonly structural: number;
    /** Attempts seen only in part (OTLP wait expired, sampled logs, status transitions): counts are lower bounds. */
    readonly partial: number;
    /**
     * Present when some attempts came from traces a probability sampler kept (tracestate `ot=th:…`): how many, as
     * analyzed. Every count is then weighted by each attempt's adjusted count, so the figures are estimates.
     */
    readonly sampled?: number;
    readonly estimate?: string;
  };
  readonly objects: number;
  readonly operations: readonly OperationSummary[];
  readonly blockedBy: readonly { readonly blocker: string; readonly blocked: string; readonly count: number }[];
  readonly reorderedPairs: readonly { readonly first: string; readonly second: string; readonly count: number }[];
}

export interface Summary {
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
    readonly sources?: readonly SourceInputSummary[];
  };
}
