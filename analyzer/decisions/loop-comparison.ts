/**
 * The loop comparison: does an op fail more often under the phased loop than under the sequential loop?
 *
 * Each loop's rate comes from its own attempts only (counters.ts): the runs of the op that both loops, replayed on
 * the attempt, would make, counted from a healthy state (the op's last outcome on the object under that loop was ok,
 * or it had none), so a stuck fault counts once and an op the phased loop merely reaches more often (after failures
 * the sequential loop stops at) is not compared on attempts the sequential loop never gets to.
 *
 * Different objects. With half the fleet on each loop the two rates come from different objects, and the attempts
 * of one object are not independent: one object with a flaky environment would make its loop look worse. So the
 * counts of each loop are divided by its design effect (Rao & Scott 1992), the dispersion of the per-object rates
 * around the loop's rate, estimated from the per-object counts: φ = max(1, X² / (K − 1)), with X² Pearson's
 * statistic over the K objects that ran the op. An effect carried by a few objects is then worth a few
 * observations, one shared by every object of the loop keeps its weight. Objects seen under both loops (the switch
 * flipped) count in both. The comparison is made only when each loop ran on at least `minObjects` objects.
 *
 * The test is Fisher's exact test on the effective counts (two-sided, R's definition), with Benjamini–Hochberg
 * q-values over the ops of the controller:
 *   worse-under-phased / better-under-phased: q <= falseDiscoveryRate and |difference| > the sequential loop's noise
 *                                             floor for the op (the A/A flip rate of the loop in place today);
 *   same:         Newcombe's 95 % interval of the difference lies within ±(noise floor + safeRiskDifference);
 *   inconclusive: too few runs, or a difference the data can neither confirm nor bound.
 */
import type { CompiledModel } from '../compiled-model.js';
import type { LoopKind } from '../../model/types.js';
import type { ControllerCounters, LoopCounters } from './counters.js';
import { benjaminiHochberg, fisherExact } from './fisher.js';
import { rateDifference, Z95, type Interval } from './intervals.js';
import { noiseRates } from './noise.js';
import type { DecisionThresholds } from './thresholds.js';
import { count, equalsP, percent, plural, points } from './wording.js';

export type LoopFinding = 'worse-under-phased' | 'better-under-phased' | 'same' | 'inconclusive';

export interface LoopSide {
  /** Runs both loops would make, counted from a healthy state, and the failures among them. */
  readonly runs: number;
  readonly failures: number;
  readonly rate: number | null;
  /** Objects (clusters) that contributed runs. */
  readonly objects: number;
  /** Rao–Scott design effect: runs and failures count as runs/φ and failures/φ independent observations. */
  readonly designEffect: number;
}

/** A reordered pair with the op: an op that ran before it and now runs after it, or the reverse. */
export interface Suspect {
  readonly op: string;
  /** `now-after`: ran before the op under the sequential loop, runs after it under the phased loop (a missing prerequisite?). */
  readonly movement: 'now-after' | 'now-before';
}

export interface OperationComparison {
  readonly operation: string;
  readonly sequential: LoopSide;
  readonly phased: LoopSide;
  /** phased rate − sequential rate. */
  readonly difference: number | null;
  /** Newcombe's 95 % interval of the difference, from the effective counts. */
  readonly interval: Interval | null;
  /** The sequential loop's flip rate of the op (the A/A noise floor), null when unknown. */
  readonly noiseFloor: number | null;
  readonly p: number | null;
  readonly q: number | null;
  readonly finding: LoopFinding;
  /** Failed in at least `materialFailures` counted runs under one loop: it must be compared before `ready`. */
  readonly material: boolean;
  /** Roughly how many more runs per loop would decide it (inconclusive only). */
  readonly moreRunsNeeded: number | null;
  readonly suspects: readonly Suspect[];
  readonly why: string;
}

export interface LoopComparison {
  /** Ops with a run under either loop, worse-under-phased first, then by q. */
  readonly operations: readonly OperationComparison[];
  readonly tested: number;
  /** Why no op could be compared at all, or null. */
  readonly unavailable: string | null;
}

/** The design effect of one op in one loop from the per-object sufficient statistics. */
export function designEffect(loop: LoopCounters, op: number): number {
  const runs = loop.commonRuns[op]!;
  const failures = loop.commonFailures[op]!;
  const clusters = loop.clusters[op]!;
  if (clusters < 2 || failures === 0 || failures === runs) return 1;
  const p = failures / runs;
  const pearson = (loop.clusterSquares[op]! - (failures * failures) / runs) / (p * (1 - p));
  return Math.max(1, pearson / (clusters - 1));
}

function side(loop: LoopCounters, op: number): LoopSide {
  const runs = loop.commonRuns[op]!;
  const failures = loop.commonFailures[op]!;
  return { runs, failures, rate: runs === 0 ? null : failures / runs, objects: loop.clusters[op]!, designEffect: designEffect(loop, op) };
}

/** Effective counts: runs and failures divided by the design effect, rounded to whole observations. */
function effective(s: LoopSide): { runs: number; failures: number } {
  const failures = Math.round(s.failures / s.designEffect);
  return { failures, runs: Math.max(failures, Math.round(s.runs / s.designEffect)) };
}

/** Ops that the two loops order differently relative to `op`, missing prerequisites first. */
export function suspectsOf(cm: CompiledModel, op: number): Suspect[] {
  const after: Suspect[] = [];
  const before: Suspect[] = [];
  for (const [seqFirst, seqThen] of cm.invertedPairs) {
    if (seqThen === op) after.push({ op: cm.ops[seqFirst]!, movement: 'now-after' });
    if (seqFirst === op) before.push({ op: cm.ops[seqThen]!, movement: 'now-before' });
  }
  return [...after, ...before];
}

/**
 * Runs per loop that would bound the difference within `tolerance` at the rates seen: the Wald half-width
 * z·sqrt(2p(1−p)/n) below the tolerance, and never fewer than the rule of three's 3/tolerance.
 */
export function runsToBound(rate: number, tolerance: number, designEffect: number): number {
  if (tolerance <= 0) return Infinity;
  return Math.ceil(designEffect * Math.max(3 / tolerance, (2 * Z95 * Z95 * rate * (1 - rate)) / (tolerance * tolerance)));
}

interface Candidate {
  readonly op: number;
  readonly sequential: LoopSide;
  readonly phased: LoopSide;
  readonly enough: boolean;
  p: number | null;
  q: number | null;
}

export function compareLoops(cm: CompiledModel, counters: ControllerCounters, t: DecisionThresholds): LoopComparison {
  const { sequential, phased } = counters.loops;
  const unavailable = populationProblem(counters, t);
  const candidates: Candidate[] = [];
  for (let op = 0; op < cm.ops.length; op++) {
    if (sequential.commonRuns[op] === 0 && phased.commonRuns[op] === 0) continue;
    const s = side(sequential, op);
    const p = side(phased, op);
    const enough = unavailable === null && s.runs >= t.minBaselineObservations && p.runs >= t.minBaselineObservations;
    candidates.push({ op, sequential: s, phased: p, enough, p: null, q: null });
  }
  const tested = candidates.filter((c) => c.enough);
  for (const c of tested) {
    const ph = effective(c.phased);
    const seq = effective(c.sequential);
    c.p = fisherExact({ a: ph.failures, b: ph.runs - ph.failures, c: seq.failures, d: seq.runs - seq.failures }).twoSided;
  }
  benjaminiHochberg(tested.map((c) => c.p!)).forEach((q, i) => (tested[i]!.q = q));
  const noise = noiseRates(sequential);
  const operations = candidates.map((c) => decide(cm, c, noise[c.op] ?? null, unavailable, t)).sort(byFinding);
  return { operations, tested: tested.length, unavailable };
}

/** Why the two loops' populations cannot be compared, or null when they can. */
function populationProblem(counters: ControllerCounters, t: DecisionThresholds): string | null {
  const problems = (['sequential', 'phased'] as const satisfies readonly LoopKind[])
    .filter((loop) => counters.loops[loop].objects < Math.max(2, t.minObjects))
    .map((loop) => `${plural(counters.loops[loop].objects, 'object')} ran the ${loop} loop`);
  if (problems.length === 0) return null;
  return `${problems.join(' and ')} (${Math.max(2, t.minObjects)} per loop needed to compare the loops’ failure rates)`;
}

const FINDING_ORDER: Record<LoopFinding, number> = { 'worse-under-phased': 0, 'better-under-phased': 1, inconclusive: 2, same: 3 };

function byFinding(x: OperationComparison, y: OperationComparison): number {
  return FINDING_ORDER[x.finding] - FINDING_ORDER[y.finding] || (x.q ?? 2) - (y.q ?? 2) || (x.operation < y.operation ? -1 : x.operation > y.operation ? 1 : 0);
}

function decide(cm: CompiledModel, c: Candidate, noiseFloor: number | null, unavailable: string | null, t: DecisionThresholds): OperationComparison {
  const name = cm.ops[c.op]!;
  const { sequential: s, phased: p } = c;
  const difference = s.rate === null || p.rate === null ? null : p.rate - s.rate;
  const material = Math.max(s.failures, p.failures) >= t.materialFailures;
  const suspects = suspectsOf(cm, c.op);
  const rates = `${percent(p.rate)} under the phased loop (${count(p.failures)} of ${count(p.runs)}) vs ${percent(s.rate)} under the sequential loop (${count(s.failures)} of ${count(s.runs)})`;
  const base = { operation: name, sequential: s, phased: p, difference, noiseFloor, p: c.p, q: c.q, material, suspects };
  const tolerance = (noiseFloor ?? 0) + t.safeRiskDifference;
  const pooled = (s.failures + p.failures) / Math.max(1, s.runs + p.runs);
  const needed = runsToBound(pooled, tolerance, Math.max(s.designEffect, p.designEffect));

  if (!c.enough) {
    const short = [s.runs < t.minBaselineObservations ? `${count(s.runs)} under the sequential loop` : null, p.runs < t.minBaselineObservations ? `${count(p.runs)} under the phased loop` : null].filter((x) => x !== null);
    const why = unavailable ?? `${plural(Math.min(s.runs, p.runs), 'run')} from a healthy state is too few: ${short.join(', ')} (${t.minBaselineObservations} needed per loop)`;
    return { ...base, interval: null, finding: 'inconclusive', moreRunsNeeded: Math.max(0, needed - Math.min(s.runs, p.runs)), why };
  }
  const ph = effective(p);
  const seq = effective(s);
  const interval = rateDifference(ph.failures, ph.runs, seq.failures, seq.runs);
  const diff = difference!;
  const q = c.q!;
  const effect = Math.max(s.designEffect, p.designEffect) > 1 ? `; weighted for the spread between objects (design effect ${p.designEffect.toFixed(2)} phased, ${s.designEffect.toFixed(2)} sequential)` : '';
  if (q <= t.falseDiscoveryRate && Math.abs(diff) > (noiseFloor ?? 0)) {
    const finding: LoopFinding = diff > 0 ? 'worse-under-phased' : 'better-under-phased';
    const explain = diff > 0 && suspects.length > 0 ? `; reordered around it: ${suspects.map((x) => `${x.op} (${x.movement === 'now-after' ? 'now runs after it' : 'now runs before it'})`).join(', ')}` : '';
    return { ...base, interval, finding, moreRunsNeeded: null, why: `fails ${rates} (${points(diff)}, ${equalsP('q', q)})${effect}${explain}` };
  }
  if (interval.high <= tolerance && interval.low >= -tolerance) {
    return { ...base, interval, finding: 'same', moreRunsNeeded: null, why: `${rates}: the difference is within ${points(interval.low)} .. ${points(interval.high)} (95 %)${effect}` };
  }
  const more = Math.max(0, needed - Math.min(s.runs, p.runs));
  return {
    ...base,
    interval,
    finding: 'inconclusive',
    moreRunsNeeded: more,
    why: `${rates}: ${points(diff)} is not significant (${equalsP('q', q)}) and the 95 % interval ${points(interval.low)} .. ${points(interval.high)} is wider than ±${points(tolerance).replace('+', '')}${effect}; about ${count(more)} more runs per loop needed`,
  };
}
