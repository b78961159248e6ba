/**
 * Ordering evidence: does an op fail more often when another op failed earlier in the same attempt?
 *
 * Every ordered pair (first, then) with data is a candidate; the pairs the two loops run in opposite orders are
 * always reported, in the phased loop's order (the order being assessed). A pair is tested only once it has at least
 * `minFailedObservations` observations of `then` after `first` failed and `minBaselineObservations` after `first`
 * succeeded; below that it is `inconclusive`, never `safe`. Tested pairs get a one-sided Fisher exact p-value (only
 * an increase of `then`'s failures after `first`'s failure means a dependence) and Benjamini–Hochberg q-values over
 * all tested pairs of the controller, so that among hundreds of pairs few are called dependent by chance.
 *
 *   dependent:    q <= falseDiscoveryRate and the increase exceeds `then`'s noise floor;
 *   safe:         tested, not dependent, and the increase is at most noise floor + safeRiskDifference;
 *   inconclusive: not tested, or an increase too large to call safe that is not significant.
 */
import { ERROR, OK, type CompiledModel } from '../compiled-model.js';
import { runPhased } from '../loops.js';
import type { ControllerEvidence } from './evidence.js';
import { benjaminiHochberg, fisherExact, type TwoByTwo } from './fisher.js';
import type { DecisionThresholds } from './thresholds.js';
import { count, equalsP, percent, points } from './wording.js';

export type EvidenceStatus = 'dependent' | 'safe' | 'inconclusive';

export interface PairDecision {
  /** Runs first (in the phased loop for a reordered pair). */
  readonly first: string;
  readonly then: string;
  /** The sequential loop runs these two in the opposite order. */
  readonly reordered: boolean;
  /** a: then failed after first failed; b: then ok after first failed; c/d: the same after first succeeded. */
  readonly table: TwoByTwo;
  readonly rateAfterFailure: number | null;
  readonly rateAfterSuccess: number | null;
  readonly riskDifference: number | null;
  /** One-sided Fisher p-value (then fails more after first failed), null when not tested. */
  readonly pGreater: number | null;
  /** Benjamini–Hochberg adjusted pGreater. */
  readonly q: number | null;
  /** `then`'s noise floor (flip rate with no spec change), null when unknown. */
  readonly noiseFloor: number | null;
  /** The phased loop still runs `then` after `first` failed; if not, the pair cannot be tested and carries no such risk. */
  readonly followsFailure: boolean;
  /** Distinct runs in which `first` was seen failing (in any loop). */
  readonly firstFailureRuns: number;
  readonly status: EvidenceStatus;
  readonly why: string;
}

export interface OrderingEvidence {
  /** Every pair the loops run in opposite orders, dependent first, then safe, then by data. */
  readonly reordered: readonly PairDecision[];
  /** Pairs run in the same order by both loops that show dependence. */
  readonly dependentSameOrder: readonly PairDecision[];
  /** Pairs with enough data to be tested: the multiple-comparison family. */
  readonly tested: number;
}

/** Per op: which ops the phased loop still runs after it, when it fails and everything else succeeds. */
export function followersOfFailure(cm: CompiledModel): Uint8Array[] {
  const n = cm.ops.length;
  return cm.ops.map((_, first) => {
    const followers = new Uint8Array(n);
    if (cm.phasedPosition[first]! < 0) return followers;
    const outcomes = new Uint8Array(n).fill(OK);
    outcomes[first] = ERROR;
    const run = runPhased(cm, outcomes);
    for (let then = 0; then < n; then++) if (run.ran[then] === 1 && cm.phasedPosition[then]! > cm.phasedPosition[first]!) followers[then] = 1;
    return followers;
  });
}

interface Candidate {
  readonly first: number;
  readonly then: number;
  readonly table: TwoByTwo;
  readonly enough: boolean;
  pGreater: number | null;
  q: number | null;
}

export function decideOrdering(evidence: ControllerEvidence, noise: readonly (number | null)[], t: DecisionThresholds): OrderingEvidence {
  const cm = evidence.cm;
  const n = cm.ops.length;
  const reorderedKey = new Set(cm.invertedPairs.map(([seqFirst, seqThen]) => seqThen * n + seqFirst));
  const candidates: Candidate[] = [];
  for (let first = 0; first < n; first++) {
    for (let then = 0; then < n; then++) {
      if (first === then) continue;
      const table = evidence.table(first, then);
      if (table.a + table.b + table.c + table.d === 0 && !reorderedKey.has(first * n + then)) continue;
      const enough = table.a + table.b >= t.minFailedObservations && table.c + table.d >= t.minBaselineObservations;
      candidates.push({ first, then, table, enough, pGreater: null, q: null });
    }
  }
  const tested = candidates.filter((c) => c.enough);
  for (const c of tested) c.pGreater = fisherExact(c.table).greater;
  benjaminiHochberg(tested.map((c) => c.pGreater!)).forEach((q, i) => (tested[i]!.q = q));

  const followers = followersOfFailure(cm);
  const decisions = candidates.map((c) => decidePair(cm, c, reorderedKey.has(c.first * n + c.then), followers[c.first]![c.then] === 1, evidence.failureRuns[c.first]!, noise[c.then] ?? null, t));
  const reordered = decisions.filter((d) => d.reordered).sort(byStrength);
  const dependentSameOrder = decisions.filter((d) => !d.reordered && d.status === 'dependent').sort(byStrength);
  return { reordered, dependentSameOrder, tested: tested.length };
}

const STATUS_ORDER: Record<EvidenceStatus, number> = { dependent: 0, safe: 1, inconclusive: 2 };

function byStrength(x: PairDecision, y: PairDecision): number {
  const dataX = x.table.a + x.table.b;
  const dataY = y.table.a + y.table.b;
  return STATUS_ORDER[x.status] - STATUS_ORDER[y.status] || (x.q ?? 2) - (y.q ?? 2) || dataY - dataX || (x.first + x.then < y.first + y.then ? -1 : 1);
}

function decidePair(cm: CompiledModel, c: Candidate, reordered: boolean, followsFailure: boolean, firstFailureRuns: number, noiseFloor: number | null, t: DecisionThresholds): PairDecision {
  const { a, b, c: c0, d } = c.table;
  const rateAfterFailure = a + b === 0 ? null : a / (a + b);
  const rateAfterSuccess = c0 + d === 0 ? null : c0 / (c0 + d);
  const riskDifference = rateAfterFailure === null || rateAfterSuccess === null ? null : rateAfterFailure - rateAfterSuccess;
  const first = cm.ops[c.first]!;
  const then = cm.ops[c.then]!;
  const base = { first, then, reordered, table: c.table, rateAfterFailure, rateAfterSuccess, riskDifference, pGreater: c.pGreater, q: c.q, noiseFloor, followsFailure, firstFailureRuns };
  const noise = noiseFloor ?? 0;
  const counts = `${then} failed after ${first} failed in ${count(a)} of ${count(a + b)}, after it succeeded in ${count(c0)} of ${count(c0 + d)}`;

  if (!c.enough) {
    let why: string;
    if (!followsFailure) why = `not testable: the phased loop never runs ${then} after ${first} failed, so its failure cannot affect it in the same attempt`;
    else if (a + b < t.minFailedObservations) why = `${then} was seen after ${first} started failing ${a + b} times (${t.minFailedObservations} needed)` + (firstFailureRuns === 0 ? `; ${first} never failed` : '');
    else why = `${then} was seen after healthy attempts with ${first} succeeding ${c0 + d} times (${t.minBaselineObservations} needed)`;
    return { ...base, status: 'inconclusive', why };
  }
  const diff = riskDifference!;
  const q = c.q!;
  if (q <= t.falseDiscoveryRate && diff > noise) {
    return { ...base, status: 'dependent', why: `${counts} (${points(diff)}, ${equalsP('q', q)})` };
  }
  if (diff <= noise + t.safeRiskDifference) {
    const withinNoise = q <= t.falseDiscoveryRate ? `; the significant ${points(diff)} is within ${then}'s noise floor of ${percent(noise)}` : '';
    return { ...base, status: 'safe', why: `${counts} (${points(diff)}, ${equalsP('q', q)})${withinNoise}` };
  }
  return { ...base, status: 'inconclusive', why: `${counts}: ${points(diff)} is too large to call safe but not significant (${equalsP('q', q)})` };
}
