/**
 * A controller summary's state as plain data: what ControllerSummaryBuilder has counted, with every name spelled
 * out, before it is shaped into the published summary. Two states of the same model merge exactly
 * (`mergeSummaryStates`) when each object's attempts were all counted in one of them (a sharding by object): counts
 * add, maxima keep the larger with its object (ties: the smaller name), the window keeps the earliest and latest
 * time (ties of the same millisecond: the smaller text first, the larger last). Nothing depends on the order states
 * are merged in, so merging is associative and commutative, and `summaryFromState` of a merged state is the summary
 * one run over all the attempts builds.
 */
import { REJECT_REASONS, SOURCE_KINDS, type Rejection, type RejectReason, type SourceInputSummary, type SourceKind } from '../../collector/records.js';
import type { LoopKind } from '../../model/types.js';
import type { CompiledModel } from '../compiled-model.js';
import { SUMMARY_SCHEMA, type ControllerSummary, type OperationSummary, type Summary } from './types.js';

const TOP_BLOCKERS = 3;

export interface Counted {
  readonly count: number;
}

export interface OperationState {
  readonly name: string;
  readonly observed: number;
  readonly outcomes: { readonly ok: number; readonly error: number; readonly stop: number; readonly skip: number };
  readonly unblocked: number;
  readonly newlyBlocked: number;
  readonly structural: number;
  readonly predicted: number;
  readonly inconsistent: number;
  /** Every blocker (an operation's or a group's name) with its count, by name; the summary shows the top three. */
  readonly blockers: readonly (Counted & { readonly blocker: string })[];
  /** The longest starvation streak and its object; null when the op never starved. */
  readonly longestStarvation: { readonly ms: number; readonly object: string } | null;
}

export interface TimeMark {
  readonly ms: number;
  /** As the input wrote it. */
  readonly text: string;
}

export interface SummaryState {
  readonly attempts: {
    readonly total: number;
    readonly byObservedLoop: Readonly<Record<LoopKind, number>>;
    readonly bySource: Readonly<Partial<Record<SourceKind, number>>>;
    readonly diverged: number;
    readonly structural: number;
    readonly partial: number;
    /** Attempts (as analyzed, unweighted) that a probability sampler kept; absent when none. */
    readonly sampled?: number;
  };
  readonly window: { readonly first: TimeMark | null; readonly last: TimeMark | null };
  /** Objects tracked (outcome history kept) when the state was taken. */
  readonly objects: number;
  /** In the model's order. */
  readonly operations: readonly OperationState[];
  /** By (blocker, blocked). */
  readonly blockedBy: readonly (Counted & { readonly blocker: string; readonly blocked: string })[];
  /** Pairs counted at least once, by (first, second). */
  readonly reorderedPairs: readonly (Counted & { readonly first: string; readonly second: string })[];
}

const byKey =
  <T>(key: (x: T) => string) =>
  (a: T, b: T): number =>
    compareText(key(a), key(b));

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export const blockerOrder = byKey<{ blocker: string }>((b) => b.blocker);
export const blockedByOrder = byKey<{ blocker: string; blocked: string }>((b) => `${b.blocker}\u0000${b.blocked}`);
export const pairOrder = byKey<{ first: string; second: string }>((p) => `${p.first}\u0000${p.second}`);
/** The summary lists reordered pairs by their names run together (then by the first name, for a total order). */
const pairShownOrder = (x: { first: string; second: string }, y: { first: string; second: string }): number =>
  compareText(x.first + x.second, y.first + y.second) || compareText(x.first, y.first);

/** The published summary of a state (the same for a state of one run and a merge of shards). */
export function summaryFromState(cm: CompiledModel, state: SummaryState): ControllerSummary {
  const operations = cm.ops.map((name, op): OperationSummary => {
    const s = state.operations[op]!;
    const group = cm.groupOf[op]! >= 0 ? cm.groups[cm.groupOf[op]!]! : undefined;
    const only = cm.model.operations[op]!.only;
    return {
      name,
      group: group?.name ?? null,
      category: group ? group.category : only === 'sequential' ? 'sequentialOnly' : 'failFast',
      onlyIn: only ?? null,
      observed: s.observed,
      outcomes: { ok: s.outcomes.ok, error: s.outcomes.error, stop: s.outcomes.stop, skip: s.outcomes.skip },
      failureRate: s.observed === 0 ? null : s.outcomes.error / s.observed,
      unblocked: s.unblocked,
      newlyBlocked: s.newlyBlocked,
      structural: s.structural,
      predicted: s.predicted,
      topBlockers: mostFirst(s.blockers, blockerOrder)
        .slice(0, TOP_BLOCKERS)
        .map((b) => ({ blocker: b.blocker, count: b.count })),
      longestStarvationSeconds: (s.longestStarvation?.ms ?? 0) / 1000,
      longestStarvationObject: s.longestStarvation?.object ?? null,
      inconsistent: s.inconsistent,
    };
  });
  const { first, last } = state.window;
  const a = state.attempts;
  return {
    schema: SUMMARY_SCHEMA,
    model: cm.model.name,
    ...(cm.model.build !== undefined && { operatorBuild: { name: cm.model.build, statement: cm.model.buildStatement ?? null } }),
    controller: cm.model.controller,
    window: { first: first?.text ?? null, last: last?.text ?? null, seconds: first && last ? (last.ms - first.ms) / 1000 : 0 },
    attempts: {
      total: a.total,
      byObservedLoop: { sequential: a.byObservedLoop.sequential, phased: a.byObservedLoop.phased },
      bySource: inOrder(a.bySource, SOURCE_KINDS),
      diverged: a.diverged,
      divergenceRate: a.total === 0 ? null : a.diverged / a.total,
      structural: a.structural,
      partial: a.partial,
      ...(a.sampled === undefined ? {} : { sampled: a.sampled, estimate: SAMPLED_ESTIMATE }),
    },
    objects: state.objects,
    operations,
    blockedBy: mostFirst(state.blockedBy, blockedByOrder).map((b) => ({ blocker: b.blocker, blocked: b.blocked, count: b.count })),
    reorderedPairs: mostFirst(state.reorderedPairs, pairShownOrder).map((p) => ({ first: p.first, second: p.second, count: p.count })),
  };
}

/** What the summary says when some attempts came from sampled traces. */
export const SAMPLED_ESTIMATE =
  'estimates: some attempts come from traces a probability sampler kept (tracestate ot=th), each counted as its adjusted count (1 / its sampling probability)';

/** Most counted first, ties in `order`. */
function mostFirst<T extends Counted>(items: readonly T[], order: (a: T, b: T) => number): T[] {
  return [...items].sort((a, b) => b.count - a.count || order(a, b));
}

/** The entries of `counts` in the order of `keys` (a fixed order, whatever order the counts were first seen in). */
export function inOrder<K extends string>(counts: Readonly<Partial<Record<K, number>>>, keys: readonly K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const k of keys) if (counts[k] !== undefined) out[k] = counts[k];
  return out;
}

/** The exact merge of two states of the same model (see above). */
export function mergeSummaryStates(a: SummaryState, b: SummaryState): SummaryState {
  if (a.operations.length !== b.operations.length) throw new RangeError('cannot merge summaries of different models');
  const x = a.attempts;
  const y = b.attempts;
  return {
    attempts: {
      total: x.total + y.total,
      byObservedLoop: { sequential: x.byObservedLoop.sequential + y.byObservedLoop.sequential, phased: x.byObservedLoop.phased + y.byObservedLoop.phased },
      bySource: addCounts(x.bySource, y.bySource, SOURCE_KINDS),
      diverged: x.diverged + y.diverged,
      structural: x.structural + y.structural,
      partial: x.partial + y.partial,
      ...(x.sampled === undefined && y.sampled === undefined ? {} : { sampled: (x.sampled ?? 0) + (y.sampled ?? 0) }),
    },
    window: { first: earlier(a.window.first, b.window.first), last: later(a.window.last, b.window.last) },
    objects: a.objects + b.objects,
    operations: a.operations.map((o, i) => mergeOperation(o, b.operations[i]!)),
    blockedBy: mergeCounted(a.blockedBy, b.blockedBy, (k) => `${k.blocker}\u0000${k.blocked}`, blockedByOrder),
    reorderedPairs: mergeCounted(a.reorderedPairs, b.reorderedPairs, (p) => `${p.first}\u0000${p.second}`, pairOrder),
  };
}

function mergeOperation(a: OperationState, b: OperationState): OperationState {
  if (a.name !== b.name) throw new RangeError(`cannot merge operation ${a.name} with ${b.name}: different models`);
  return {
    name: a.name,
    observed: a.observed + b.observed,
    outcomes: {
      ok: a.outcomes.ok + b.outcomes.ok,
      error: a.outcomes.error + b.outcomes.error,
      stop: a.outcomes.stop + b.outcomes.stop,
      skip: a.outcomes.skip + b.outcomes.skip,
    },
    unblocked: a.unblocked + b.unblocked,
    newlyBlocked: a.newlyBlocked + b.newlyBlocked,
    structural: a.structural + b.structural,
    predicted: a.predicted + b.predicted,
    inconsistent: a.inconsistent + b.inconsistent,
    blockers: mergeCounted(a.blockers, b.blockers, (k) => k.blocker, blockerOrder),
    longestStarvation: longer(a.longestStarvation, b.longestStarvation),
  };
}

/** The union of two lists of counted keys, counts added, in `order`. */
export function mergeCounted<T extends Counted>(a: readonly T[], b: readonly T[], key: (x: T) => string, order: (x: T, y: T) => number): T[] {
  const merged = new Map<string, T>();
  for (const item of [...a, ...b]) {
    const k = key(item);
    const seen = merged.get(k);
    merged.set(k, seen ? { ...seen, count: seen.count + item.count } : item);
  }
  return [...merged.values()].sort(order);
}

export function addCounts<K extends string>(
  a: Readonly<Partial<Record<K, number>>>,
  b: Readonly<Partial<Record<K, number>>>,
  keys: readonly K[],
): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const k of keys) if (a[k] !== undefined || b[k] !== undefined) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
}

function earlier(a: TimeMark | null, b: TimeMark | null): TimeMark | null {
  if (!a || !b) return a ?? b;
  return b.ms < a.ms || (b.ms === a.ms && b.text < a.text) ? b : a;
}

function later(a: TimeMark | null, b: TimeMark | null): TimeMark | null {
  if (!a || !b) return a ?? b;
  return b.ms > a.ms || (b.ms === a.ms && b.text > a.text) ? b : a;
}

type Streak = OperationState['longestStarvation'];

function longer(a: Streak, b: Streak): Streak {
  if (!a || !b) return a ?? b;
  return b.ms > a.ms || (b.ms === a.ms && b.object < a.object) ? b : a;
}

/**
 * The summary's `input` section: counts by source and by reason in a fixed order (SOURCE_KINDS, REJECT_REASONS), so
 * that it reads the same whatever order the input came in; `sources` only when some source keeps books of its own.
 */
export function inputSection(input: {
  readonly received: Readonly<Partial<Record<SourceKind, number>>>;
  readonly rejected: number;
  readonly rejectedByReason: Readonly<Partial<Record<string, number>>>;
  readonly rejectionSample: readonly Rejection[];
  readonly sources: readonly SourceInputSummary[];
}): Summary['input'] {
  const section = {
    received: inOrder(input.received, SOURCE_KINDS),
    rejected: input.rejected,
    rejectedByReason: inOrder(input.rejectedByReason as Partial<Record<RejectReason, number>>, REJECT_REASONS) as Record<string, number>,
    rejectionSample: [...input.rejectionSample],
  };
  return input.sources.length === 0 ? section : { ...section, sources: [...input.sources] };
}
