/**
 * Ordering evidence: does an op fail more often when another op failed earlier in the same attempt?
 *
 * Every table is one loop's (counters.ts): "B after A failed" and "B after A succeeded" come from the same loop's
 * attempts, so a difference between the loops never passes for a dependence. Every ordered pair with data in a loop
 * is a candidate; the pairs the two loops run in opposite orders are always reported, in the phased loop's order
 * (the order being assessed). A pair is tested only once it has at least `minFailedObservations` observations of
 * `then` after `first` failed and `minBaselineObservations` after `first` succeeded; below that it is `inconclusive`,
 * never `safe`. Tested pairs get the stratified anytime-valid e-value (e-values.ts: only an increase of `then`'s
 * failures after `first`'s failure means a dependence) with e-BH over all tested pairs of the controller; the
 * one-sided exact p-value over the strata and its Benjamini–Hochberg q stay beside it as the fixed-sample view.
 *
 *   dependent:    an e-BH discovery whose increase (Mantel–Haenszel, over the strata) exceeds the margin of `then`'s
 *                 rate after `first` succeeded (`marginFor`);
 *   safe:         tested, not dependent, and the increase is at most that margin;
 *   inconclusive: not tested, or an increase too large to call safe that the e-value does not show.
 * The noise floor is reported beside it, as information.
 */
import { ERROR, OK, type CompiledModel } from '../compiled-model.js';
import { runPhased, runSequential } from '../loops.js';
import { LOOP_KINDS, type LoopKind } from '../../model/types.js';
import { pairStrata, pooledTable, type ControllerCounters } from './counters.js';
import { eBenjaminiHochberg, LOG_E_CAP, logStratifiedE } from './e-values.js';
import { GAP_STRATA } from './counters.js';
import { benjaminiHochberg, mantelHaenszelRiskDifference, stratifiedExactGreater, type TwoByTwo } from './fisher.js';
import { noiseRates } from './noise.js';
import { marginFor, type DecisionThresholds } from './thresholds.js';
import { count, equalsP, eValue, percent, points, times } from './wording.js';

export type EvidenceStatus = 'dependent' | 'safe' | 'inconclusive';

export interface PairDecision {
  /** The loop whose attempts the table counts; `first` runs before `then` in it. */
  readonly loop: LoopKind;
  readonly first: string;
  readonly then: string;
  /** The two loops run these two in opposite orders. */
  readonly reordered: boolean;
  /** a: then failed after first failed; b: then ok after first failed; c/d: the same after first succeeded (all gaps). */
  readonly table: TwoByTwo;
  readonly rateAfterFailure: number | null;
  readonly rateAfterSuccess: number | null;
  /** The Mantel–Haenszel risk difference over the gap strata: the increase compared at equal times since the previous attempt. */
  readonly riskDifference: number | null;
  /** One-sided exact p-value over the gap strata (then fails more after first failed), null when not tested. */
  readonly pGreater: number | null;
  /** Benjamini–Hochberg adjusted pGreater. */
  readonly q: number | null;
  /** The stratified e-value, the bar e-BH held it to, and whether it is a discovery. */
  readonly e: number | null;
  readonly eBar: number | null;
  readonly discovery: boolean;
  /** The increase that counts as none: relative to `then`'s rate after `first` succeeded. */
  readonly margin: number;
  /** `then`'s noise floor in this loop (flip rate with no spec change), null when unknown. */
  readonly noiseFloor: number | null;
  /** The loop still runs `then` after `first` failed; if not, the pair cannot be tested and carries no such risk. */
  readonly followsFailure: boolean;
  /** Distinct runs in which `first` was seen failing under this loop. */
  readonly firstFailureRuns: number;
  readonly status: EvidenceStatus;
  readonly why: string;
}

export interface OrderingEvidence {
  /** Every pair the loops run in opposite orders, in the phased order and from its attempts, dependent first. */
  readonly reordered: readonly PairDecision[];
  /** Pairs not reordered (or tables of the sequential loop) that show dependence. */
  readonly dependentOther: readonly PairDecision[];
  /** Every pair with data in the phased loop's tables (the classification check reads them). */
  readonly phasedPairs: readonly PairDecision[];
  /** Pairs with enough data to be tested: the multiple-comparison family. */
  readonly tested: number;
}

/** Per op: which ops the loop still runs after it, when it fails and everything else succeeds. */
export function followersOfFailure(cm: CompiledModel, loop: LoopKind = 'phased'): Uint8Array[] {
  const n = cm.ops.length;
  const position = loop === 'phased' ? cm.phasedPosition : cm.sequentialPosition;
  return cm.ops.map((_, first) => {
    const followers = new Uint8Array(n);
    if (position[first]! < 0) return followers;
    const outcomes = new Uint8Array(n).fill(OK);
    outcomes[first] = ERROR;
    const run = loop === 'phased' ? runPhased(cm, outcomes) : runSequential(cm, outcomes);
    for (let then = 0; then < n; then++) if (run.ran[then] === 1 && position[then]! > position[first]!) followers[then] = 1;
    return followers;
  });
}

interface Candidate {
  readonly loop: LoopKind;
  readonly first: number;
  readonly then: number;
  readonly strata: readonly TwoByTwo[];
  readonly table: TwoByTwo;
  readonly enough: boolean;
  pGreater: number | null;
  q: number | null;
  e: number | null;
  eBar: number | null;
  discovery: boolean;
}

export function decideOrdering(cm: CompiledModel, counters: ControllerCounters, t: DecisionThresholds): OrderingEvidence {
  const n = cm.ops.length;
  // Keys of reordered pairs in the phased order: the sequential loop runs seqFirst before seqThen, the phased the other way.
  const reorderedKey = new Set(cm.invertedPairs.map(([seqFirst, seqThen]) => seqThen * n + seqFirst));
  const isReordered = (first: number, then: number): boolean => reorderedKey.has(first * n + then) || reorderedKey.has(then * n + first);
  const followers = { sequential: followersOfFailure(cm, 'sequential'), phased: followersOfFailure(cm, 'phased') };
  const candidates: Candidate[] = [];
  for (const loop of LOOP_KINDS) {
    const counts = counters.loops[loop];
    if (counts.usedAttempts === 0 && loop === 'sequential') continue;
    for (let first = 0; first < n; first++) {
      for (let then = 0; then < n; then++) {
        if (first === then) continue;
        const strata = pairStrata(counts, n, first, then);
        const alwaysReported = loop === 'phased' && reorderedKey.has(first * n + then);
        if (strata.length === 0 && !alwaysReported) continue;
        const table = pooledTable(strata);
        const enough = table.a + table.b >= t.minFailedObservations && table.c + table.d >= t.minBaselineObservations;
        candidates.push({ loop, first, then, strata, table, enough, pGreater: null, q: null, e: null, eBar: null, discovery: false });
      }
    }
  }
  const tested = candidates.filter((c) => c.enough);
  for (const c of tested) c.pGreater = stratifiedExactGreater(c.strata);
  benjaminiHochberg(tested.map((c) => c.pGreater!)).forEach((q, i) => (tested[i]!.q = q));
  // The baselines' confidence sequences share a miscoverage of falseDiscoveryRate over the strata.
  for (const c of tested) c.e = Math.exp(Math.min(LOG_E_CAP, logStratifiedE(c.strata, t.falseDiscoveryRate / GAP_STRATA)));
  const ebh = eBenjaminiHochberg(
    tested.map((c) => c.e!),
    t.falseDiscoveryRate,
  );
  tested.forEach((c, i) => {
    c.discovery = ebh.rejected[i]!;
    c.eBar = ebh.bar[i]!;
  });

  const noise = { sequential: noiseRates(counters.loops.sequential), phased: noiseRates(counters.loops.phased) };
  const decisions = candidates.map((c) =>
    decidePair(
      cm,
      c,
      isReordered(c.first, c.then),
      followers[c.loop][c.first]![c.then] === 1,
      counters.loops[c.loop].failureRuns[c.first]!,
      noise[c.loop][c.then] ?? null,
      t,
    ),
  );
  const reordered = decisions.filter((d) => d.reordered && d.loop === 'phased').sort(byStrength);
  const dependentOther = decisions.filter((d) => !(d.reordered && d.loop === 'phased') && d.status === 'dependent').sort(byStrength);
  return { reordered, dependentOther, phasedPairs: decisions.filter((d) => d.loop === 'phased'), tested: tested.length };
}

const STATUS_ORDER: Record<EvidenceStatus, number> = { dependent: 0, safe: 1, inconclusive: 2 };

function byStrength(x: PairDecision, y: PairDecision): number {
  const dataX = x.table.a + x.table.b;
  const dataY = y.table.a + y.table.b;
  return (
    STATUS_ORDER[x.status] - STATUS_ORDER[y.status] ||
    (y.e ?? -1) - (x.e ?? -1) ||
    dataY - dataX ||
    (x.first + x.then < y.first + y.then ? -1 : x.first + x.then > y.first + y.then ? 1 : 0)
  );
}

function decidePair(
  cm: CompiledModel,
  c: Candidate,
  reordered: boolean,
  followsFailure: boolean,
  firstFailureRuns: number,
  noiseFloor: number | null,
  t: DecisionThresholds,
): PairDecision {
  const { a, b, c: c0, d } = c.table;
  const rateAfterFailure = a + b === 0 ? null : a / (a + b);
  const rateAfterSuccess = c0 + d === 0 ? null : c0 / (c0 + d);
  const riskDifference = mantelHaenszelRiskDifference(c.strata);
  const first = cm.ops[c.first]!;
  const then = cm.ops[c.then]!;
  const margin = marginFor(rateAfterSuccess, t);
  const base = {
    loop: c.loop,
    first,
    then,
    reordered,
    table: c.table,
    rateAfterFailure,
    rateAfterSuccess,
    riskDifference,
    pGreater: c.pGreater,
    q: c.q,
    e: c.e,
    eBar: c.eBar,
    discovery: c.discovery,
    margin,
    noiseFloor,
    followsFailure,
    firstFailureRuns,
  };
  const counts = `${then} failed after ${first} failed in ${count(a)} of ${count(a + b)}, after it succeeded in ${count(c0)} of ${count(c0 + d)}`;

  if (!c.enough) {
    let why: string;
    if (!followsFailure) why = `not testable: the ${c.loop} loop never runs ${then} after ${first} failed, so its failure cannot affect it in the same attempt`;
    else if (a + b < t.minFailedObservations)
      why =
        `${then} was seen after ${first} started failing ${times(a + b)} (${t.minFailedObservations} needed)` +
        (firstFailureRuns === 0 ? `; ${first} never failed` : '');
    else why = `${then} was seen after healthy attempts with ${first} succeeding ${times(c0 + d)} (${t.minBaselineObservations} needed)`;
    return { ...base, status: 'inconclusive', why };
  }
  const diff = riskDifference ?? 0;
  const evidence = `e = ${eValue(c.e)}, e-BH bar ${eValue(c.eBar)}; fixed-sample ${equalsP('q', c.q!)}`;
  const marginText = `margin ${percent(margin)}`;
  if (c.discovery && diff > margin) {
    return {
      ...base,
      status: 'dependent',
      why: `${counts} (${points(diff)} at equal times since the previous attempt, beyond the ${marginText}; ${evidence})`,
    };
  }
  if (diff <= margin) {
    const small = c.discovery ? `; the increase the e-value shows is within the ${marginText}` : '';
    return { ...base, status: 'safe', why: `${counts} (${points(diff)}, within the ${marginText}; ${evidence})${small}` };
  }
  return { ...base, status: 'inconclusive', why: `${counts}: ${points(diff)} is beyond the ${marginText} but not shown (${evidence})` };
}
