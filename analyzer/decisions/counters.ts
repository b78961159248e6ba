/**
 * The evidence behind the decisions as plain counters: integers (and sums of milliseconds) in typed arrays, one set
 * per loop, so that every rate and contingency table is computed within one loop and never pools the two.
 *
 * Merging two partial states is addition (`mergeCounters`), with two exceptions stated where they live: window
 * bounds merge by min/max and the longest starvation streaks by max. Per-object memory (the previous attempt, the
 * per-object counts behind the design effect) is folded into these counters by `ControllerEvidence.snapshot()`, so
 * partial states merge exactly when each object's attempts were all seen by one of them (a sharding by object).
 */
import type { CompiledModel } from '../compiled-model.js';
import { LOOP_KINDS, type LoopKind } from '../../model/types.js';

/** Counters of the attempts one loop ran (the observed loop of the record). */
export interface LoopCounters {
  attempts: number;
  /** Attempts whose evidence was used (status transitions list only the failing operations, so they are left out). */
  usedAttempts: number;
  /** Objects seen under this loop (an object forgotten past the memory bound counts again when it comes back). */
  objects: number;
  /** Earliest and latest attempt time (ms since the epoch); +Infinity / -Infinity before the first attempt. */
  firstMs: number;
  lastMs: number;
  /** Attempts in which an op the loop ran (replayed) was not observed: a hole, or an attempt cut short (lines lost). */
  incompleteAttempts: number;
  /**
   * The sample-ratio check's per-object sums, over objects with a healthy interval under this loop (from an attempt
   * with no error to the object's next attempt under it): objects, such intervals and the time they span (ms), and
   * Σ intervals² / days per object.
   */
  rateObjects: number;
  rateIntervals: number;
  rateMs: number;
  rateSquares: number;
  /** Attempts per hour of the day (UTC, 0–23): the time-of-day coverage. */
  readonly hourAttempts: Uint32Array;
  /**
   * Pair tables, per ordered pair (first, then) that this loop ran in that order and per stratum of the time since
   * the object's previous attempt (`gapStratum`), 4 cells: index
   * `((stratum * n + first) * n + then) * 4 + (first failed ? 2 : 0) + (then failed ? 1 : 0)` (stratum outermost, so one
   * attempt's counts stay within one stratum's block). An attempt
   * counts for a pair only when both ops succeeded in the object's previous attempt under this loop (a change from a
   * healthy state).
   */
  readonly pairs: Uint32Array;
  /** Per op: runs of consecutive attempts of one object in which it was observed failing. */
  readonly failureRuns: Uint32Array;
  /** Per op: consecutive attempts with the same generation in which it was observed both times, and flips. */
  readonly noiseComparisons: Uint32Array;
  readonly noiseFlips: Uint32Array;
  /**
   * Loop comparison, per op: runs in which both loops (replayed on the attempt) run the op, counted only when the op's
   * last observed outcome on the object under this loop was ok or there was none; and the failures among them.
   */
  readonly commonRuns: Uint32Array;
  readonly commonFailures: Uint32Array;
  /**
   * Per op, over object clusters (an object, or a stretch of one past a counter's range) with at least one common
   * run: the number of clusters and the sum of failures² / runs. With the totals above this is the sufficient
   * statistic of the between-object dispersion (the design effect of loop-comparison.ts).
   */
  readonly clusters: Uint32Array;
  readonly clusterSquares: Float64Array;
  /** Per group: attempts in which an op of it was observed failing; runs of such attempts; runs judged. */
  readonly groupFailedAttempts: Uint32Array;
  readonly groupFailureRuns: Uint32Array;
  /** Failure runs in which some op outside the group was observed running after the group's failure. */
  readonly groupJudgedRuns: Uint32Array;
}

/**
 * Counters of every attempt, whatever loop ran it: both loops are replayed on each attempt, so these compare the
 * loops on the same attempts (the same objects) rather than on two populations.
 */
export interface ControllerCounters {
  readonly opCount: number;
  readonly groupCount: number;
  readonly loops: Readonly<Record<LoopKind, LoopCounters>>;
  /** Objects seen under both loops (a flip of the switch on part of the fleet). */
  objectsInBothLoops: number;
  /** Attempts in which the phased loop would skip an op the sequential loop ran (one-loop ops left out). */
  newlyBlockedAttempts: number;
  /** Time between consecutive attempts of the same object, summed over objects (object-milliseconds). */
  objectMs: number;
  /** Per op: object-time in which the phased loop would not run it and the sequential loop would (and the reverse). */
  readonly phasedStarvedMs: Float64Array;
  readonly sequentialStarvedMs: Float64Array;
  /** Per op: the part of phasedStarvedMs in which a failed critical group blocked it (the model's design). */
  readonly phasedByDesignMs: Float64Array;
  /**
   * Per op: the parts of phasedStarvedMs (not by design) and of sequentialStarvedMs in which no op withheld with it (it,
   * or one the other loop runs after it) writes (`NoLoss`), or none is known to and some op's `writes` is unknown.
   */
  readonly phasedNoLossMs: Float64Array;
  readonly phasedUnknownMs: Float64Array;
  readonly sequentialNoLossMs: Float64Array;
  readonly sequentialUnknownMs: Float64Array;
  /** Per op: the longest such streak on one object (merged by max). */
  readonly phasedLongestMs: Float64Array;
  readonly sequentialLongestMs: Float64Array;
  /** Per op: op-runs the phased loop runs and the sequential loop does not (one-loop ops left out). */
  readonly unblocked: Uint32Array;
  /** `[blocker * n + op]`: of those, the runs whose outcome was ok, by the op that ended the sequential attempt. */
  readonly unblockedOk: Uint32Array;
  /**
   * `[group * n + op]`: op-runs of blockable groups, with an ok outcome, that the group's category decides: for a
   * non-critical group, those the phased loop ran after its failure (a critical group would have blocked them); for
   * a critical group, those the phased loop skipped only because it had failed.
   */
  readonly freedOk: Uint32Array;
  /** Per group: attempts in which its category decided some such op-run. */
  readonly freeingAttempts: Uint32Array;
  /** Per group: op-runs the sequential loop skipped after an op of the group ended the attempt. */
  readonly sequentialSkippedOps: Uint32Array;
  /** Objects forgotten past the evidence's memory bound. */
  forgottenObjects: number;
}

/**
 * Strata of the time since the object's previous attempt: under 1 s, then doubling (1–2 s, 2–4 s, …) up to 18 h and
 * more. A fault that starts between attempts is likelier the longer the gap, and the attempts in which an op first
 * fails come after longer gaps than the rest (a failing object is retried within seconds): compared within a
 * stratum, two ops that fail independently in time do not look dependent.
 */
export const GAP_STRATA = 18;

export function gapStratum(gapMs: number): number {
  if (!(gapMs >= 1000)) return 0;
  return Math.min(GAP_STRATA - 1, 1 + Math.floor(Math.log2(gapMs / 1000)));
}

function loopCounters(n: number, groups: number): LoopCounters {
  return {
    attempts: 0,
    usedAttempts: 0,
    objects: 0,
    firstMs: Infinity,
    lastMs: -Infinity,
    incompleteAttempts: 0,
    rateObjects: 0,
    rateIntervals: 0,
    rateMs: 0,
    rateSquares: 0,
    hourAttempts: new Uint32Array(24),
    pairs: new Uint32Array(n * n * GAP_STRATA * 4),
    failureRuns: new Uint32Array(n),
    noiseComparisons: new Uint32Array(n),
    noiseFlips: new Uint32Array(n),
    commonRuns: new Uint32Array(n),
    commonFailures: new Uint32Array(n),
    clusters: new Uint32Array(n),
    clusterSquares: new Float64Array(n),
    groupFailedAttempts: new Uint32Array(groups),
    groupFailureRuns: new Uint32Array(groups),
    groupJudgedRuns: new Uint32Array(groups),
  };
}

export function emptyCounters(cm: CompiledModel): ControllerCounters {
  const n = cm.ops.length;
  const g = cm.groups.length;
  return {
    opCount: n,
    groupCount: g,
    loops: { sequential: loopCounters(n, g), phased: loopCounters(n, g) },
    objectsInBothLoops: 0,
    newlyBlockedAttempts: 0,
    objectMs: 0,
    phasedStarvedMs: new Float64Array(n),
    sequentialStarvedMs: new Float64Array(n),
    phasedByDesignMs: new Float64Array(n),
    phasedNoLossMs: new Float64Array(n),
    phasedUnknownMs: new Float64Array(n),
    sequentialNoLossMs: new Float64Array(n),
    sequentialUnknownMs: new Float64Array(n),
    phasedLongestMs: new Float64Array(n),
    sequentialLongestMs: new Float64Array(n),
    unblocked: new Uint32Array(n),
    unblockedOk: new Uint32Array(n * n),
    freedOk: new Uint32Array(g * n),
    freeingAttempts: new Uint32Array(g),
    sequentialSkippedOps: new Uint32Array(g),
    forgottenObjects: 0,
  };
}

type Table = { a: number; b: number; c: number; d: number };

/** The 2x2 tables of the ordered pair (first, then) in one loop's counters, one per gap stratum with data (layout in fisher.ts). */
export function pairStrata(loop: LoopCounters, n: number, first: number, then: number): Table[] {
  const p = loop.pairs;
  const tables: Table[] = [];
  for (let stratum = 0; stratum < GAP_STRATA; stratum++) {
    const i = ((stratum * n + first) * n + then) * 4;
    const t = { a: p[i + 3]!, b: p[i + 2]!, c: p[i + 1]!, d: p[i]! };
    if (t.a + t.b + t.c + t.d > 0) tables.push(t);
  }
  return tables;
}

/** The strata summed: the pair's table over all gaps. */
export function pooledTable(strata: readonly Table[]): Table {
  return strata.reduce((sum, t) => ({ a: sum.a + t.a, b: sum.b + t.b, c: sum.c + t.c, d: sum.d + t.d }), { a: 0, b: 0, c: 0, d: 0 });
}

type NumericKeys<T> = { [K in keyof T]: T[K] extends number ? K : never }[keyof T];
type ArrayKeys<T> = { [K in keyof T]: T[K] extends Uint32Array | Float64Array ? K : never }[keyof T];

const LOOP_SUMS: readonly NumericKeys<LoopCounters>[] = [
  'attempts',
  'usedAttempts',
  'objects',
  'incompleteAttempts',
  'rateObjects',
  'rateIntervals',
  'rateMs',
  'rateSquares',
];
const LOOP_ARRAYS: readonly ArrayKeys<LoopCounters>[] = [
  'hourAttempts',
  'pairs',
  'failureRuns',
  'noiseComparisons',
  'noiseFlips',
  'commonRuns',
  'commonFailures',
  'clusters',
  'clusterSquares',
  'groupFailedAttempts',
  'groupFailureRuns',
  'groupJudgedRuns',
];
const SUMS: readonly Exclude<NumericKeys<ControllerCounters>, 'opCount' | 'groupCount'>[] = [
  'objectsInBothLoops',
  'newlyBlockedAttempts',
  'objectMs',
  'forgottenObjects',
];
const ARRAYS: readonly ArrayKeys<ControllerCounters>[] = [
  'phasedStarvedMs',
  'sequentialStarvedMs',
  'phasedByDesignMs',
  'phasedNoLossMs',
  'phasedUnknownMs',
  'sequentialNoLossMs',
  'sequentialUnknownMs',
  'unblocked',
  'unblockedOk',
  'freedOk',
  'freeingAttempts',
  'sequentialSkippedOps',
];
const MAXIMA: readonly ArrayKeys<ControllerCounters>[] = ['phasedLongestMs', 'sequentialLongestMs'];

function addInto(into: Uint32Array | Float64Array, from: Uint32Array | Float64Array): void {
  if (into.length !== from.length) throw new RangeError(`cannot merge counters of different models (${into.length} vs ${from.length} cells)`);
  for (let i = 0; i < into.length; i++) into[i]! += from[i]!;
}

/** Adds `from` into `into` (both of the same model): the merge of two partial states. */
export function mergeCounters(into: ControllerCounters, from: ControllerCounters): void {
  if (into.opCount !== from.opCount || into.groupCount !== from.groupCount) throw new RangeError('cannot merge counters of different models');
  for (const loop of LOOP_KINDS) {
    const a = into.loops[loop];
    const b = from.loops[loop];
    for (const k of LOOP_SUMS) a[k] += b[k];
    for (const k of LOOP_ARRAYS) addInto(a[k], b[k]);
    a.firstMs = Math.min(a.firstMs, b.firstMs);
    a.lastMs = Math.max(a.lastMs, b.lastMs);
  }
  for (const k of SUMS) into[k] += from[k];
  for (const k of ARRAYS) addInto(into[k], from[k]);
  for (const k of MAXIMA) for (let i = 0; i < into[k].length; i++) into[k][i] = Math.max(into[k][i]!, from[k][i]!);
}

/** A deep copy (snapshots fold per-object memory into a copy, never into the live counters). */
export function copyCounters(c: ControllerCounters): ControllerCounters {
  const loop = (l: LoopCounters): LoopCounters => ({
    ...l,
    hourAttempts: l.hourAttempts.slice(),
    pairs: l.pairs.slice(),
    failureRuns: l.failureRuns.slice(),
    noiseComparisons: l.noiseComparisons.slice(),
    noiseFlips: l.noiseFlips.slice(),
    commonRuns: l.commonRuns.slice(),
    commonFailures: l.commonFailures.slice(),
    clusters: l.clusters.slice(),
    clusterSquares: l.clusterSquares.slice(),
    groupFailedAttempts: l.groupFailedAttempts.slice(),
    groupFailureRuns: l.groupFailureRuns.slice(),
    groupJudgedRuns: l.groupJudgedRuns.slice(),
  });
  return {
    ...c,
    loops: { sequential: loop(c.loops.sequential), phased: loop(c.loops.phased) },
    phasedStarvedMs: c.phasedStarvedMs.slice(),
    sequentialStarvedMs: c.sequentialStarvedMs.slice(),
    phasedByDesignMs: c.phasedByDesignMs.slice(),
    phasedNoLossMs: c.phasedNoLossMs.slice(),
    phasedUnknownMs: c.phasedUnknownMs.slice(),
    sequentialNoLossMs: c.sequentialNoLossMs.slice(),
    sequentialUnknownMs: c.sequentialUnknownMs.slice(),
    phasedLongestMs: c.phasedLongestMs.slice(),
    sequentialLongestMs: c.sequentialLongestMs.slice(),
    unblocked: c.unblocked.slice(),
    unblockedOk: c.unblockedOk.slice(),
    freedOk: c.freedOk.slice(),
    freeingAttempts: c.freeingAttempts.slice(),
    sequentialSkippedOps: c.sequentialSkippedOps.slice(),
  };
}
