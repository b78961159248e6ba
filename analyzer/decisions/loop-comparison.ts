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
 * statistic over the K objects that ran the op. The comparison is made only when each loop ran on at least
 * `minObjects` objects.
 *
 * The test is anytime-valid (e-values.ts): a two-proportion e-value on the effective counts, e-BH over the ops of the
 * controller at `falseDiscoveryRate`, and a 95 % confidence sequence for the difference; Fisher's exact test with
 * Benjamini–Hochberg q-values and Newcombe's interval stay beside them as the fixed-sample view. The margin is
 * relative to the sequential rate (`marginFor`):
 *   worse-under-phased / better-under-phased: an e-BH discovery whose difference exceeds the margin;
 *   same:         the confidence sequence lies inside ±margin and not wholly on the harmful side;
 *   inconclusive: too few runs, or a difference the data can neither confirm beyond the margin nor bound inside it.
 * The noise floor (the A/A flip rate) is reported beside it, as information.
 */
import type { CompiledModel } from '../compiled-model.js';
import { LOOP_KINDS } from '../../model/types.js';
import type { ControllerCounters, LoopCounters } from './counters.js';
import { eBenjaminiHochberg, rateConfidenceSequence, twoProportionE } from './e-values.js';
import { benjaminiHochberg, fisherExact } from './fisher.js';
import { rateDifference, type Interval } from './intervals.js';
import { noiseRates } from './noise.js';
import { marginFor, type DecisionThresholds } from './thresholds.js';
import { count, equalsP, eValue, percent, plural, points } from './wording.js';

/** Miscoverage of the confidence sequence of the difference: 95 %, split between the two rates. */
const SEQUENCE_MISCOVERAGE = 0.025;

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
  /** The anytime-valid 95 % confidence sequence of the difference, from the effective counts. */
  readonly interval: Interval | null;
  /** The difference that counts as none: relative to the sequential rate, never below the absolute floor. */
  readonly margin: number;
  /** e-values (effective counts): phased fails more, and the two-sided one e-BH uses; null when not tested. */
  readonly eWorse: number | null;
  readonly e: number | null;
  /** The bar e-BH held `e` to (m/(αk)), and whether it is a discovery. */
  readonly eBar: number | null;
  readonly discovery: boolean;
  /** The op runs identically in both loops (same ops before it, the same error effects): only the populations can differ. */
  readonly identical: boolean;
  /** The fixed-sample view: Fisher's two-sided p, its Benjamini–Hochberg q, Newcombe's 95 % interval. */
  readonly fixedSample: { readonly p: number | null; readonly q: number | null; readonly interval: Interval | null };
  /** The sequential loop's flip rate of the op (the A/A noise floor, information only), null when unknown. */
  readonly noiseFloor: number | null;
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
 * Runs per loop that would bound the difference within `margin` at the rate seen: the fewest n whose confidence
 * sequence for the rate (at the comparison's miscoverage) is at most `margin` wide, so that the difference's, which
 * adds the two rates' half-widths, fits inside ±margin; times the design effect.
 */
export function runsToBound(rate: number, margin: number, designEffect: number): number {
  if (margin <= 0) return Infinity;
  const narrow = (n: number): boolean => {
    const cs = rateConfidenceSequence(Math.round(rate * n), n, SEQUENCE_MISCOVERAGE);
    return cs.high - cs.low <= margin;
  };
  let high = 16;
  while (!narrow(high)) {
    high *= 2;
    if (high > 2 ** 40) return Infinity;
  }
  let low = high / 2;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (narrow(mid)) high = mid;
    else low = mid;
  }
  return Math.ceil(designEffect * high);
}

interface Candidate {
  readonly op: number;
  readonly sequential: LoopSide;
  readonly phased: LoopSide;
  readonly enough: boolean;
  p: number | null;
  q: number | null;
  e: number | null;
  eWorse: number | null;
  eBar: number | null;
  discovery: boolean;
}

/**
 * Ops that run identically in both loops: a prefix of fail-fast steps in the same order with the same error effects,
 * so whether and how they run does not depend on the loop. A difference in their rates is the populations'.
 */
export function identicalOps(cm: CompiledModel): Uint8Array {
  const identical = new Uint8Array(cm.ops.length);
  const [sequentialEffects, phasedEffects] = cm.effects;
  for (let k = 0; k < cm.sequentialOrder.length && k < cm.phasedSteps.length; k++) {
    const step = cm.phasedSteps[k]!;
    const op = cm.sequentialOrder[k]!;
    if (step.kind !== 'op' || step.op !== op) break;
    let same = true;
    for (let v = 0; v < cm.variantStride; v++) same &&= sequentialEffects[op * cm.variantStride + v] === phasedEffects[op * cm.variantStride + v];
    if (!same) break;
    identical[op] = 1;
  }
  return identical;
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
    candidates.push({ op, sequential: s, phased: p, enough, p: null, q: null, e: null, eWorse: null, eBar: null, discovery: false });
  }
  const tested = candidates.filter((c) => c.enough);
  for (const c of tested) {
    const ph = effective(c.phased);
    const seq = effective(c.sequential);
    const counts = { x1: ph.failures, n1: ph.runs, x2: seq.failures, n2: seq.runs };
    c.p = fisherExact({ a: ph.failures, b: ph.runs - ph.failures, c: seq.failures, d: seq.runs - seq.failures }).twoSided;
    c.eWorse = twoProportionE(counts, 'greater');
    // The average of the two one-sided e-values is an e-value for "no difference"; its direction is the larger one's.
    c.e = (c.eWorse + twoProportionE(counts, 'less')) / 2;
  }
  benjaminiHochberg(tested.map((c) => c.p!)).forEach((q, i) => (tested[i]!.q = q));
  const ebh = eBenjaminiHochberg(
    tested.map((c) => c.e!),
    t.falseDiscoveryRate,
  );
  tested.forEach((c, i) => {
    c.discovery = ebh.rejected[i]!;
    c.eBar = ebh.bar[i]!;
  });
  const noise = noiseRates(sequential);
  const identical = identicalOps(cm);
  const operations = candidates.map((c) => decide(cm, c, noise[c.op] ?? null, identical[c.op] === 1, unavailable, t)).sort(byFinding);
  return { operations, tested: tested.length, unavailable };
}

/** Why the two loops' populations cannot be compared, or null when they can. */
function populationProblem(counters: ControllerCounters, t: DecisionThresholds): string | null {
  const problems = LOOP_KINDS.filter((loop) => counters.loops[loop].objects < Math.max(2, t.minObjects)).map(
    (loop) => `${plural(counters.loops[loop].objects, 'object')} ran the ${loop} loop`,
  );
  if (problems.length === 0) return null;
  return `${problems.join(' and ')} (${Math.max(2, t.minObjects)} per loop needed to compare the loops’ failure rates)`;
}

const FINDING_ORDER: Record<LoopFinding, number> = { 'worse-under-phased': 0, 'better-under-phased': 1, inconclusive: 2, same: 3 };

function byFinding(x: OperationComparison, y: OperationComparison): number {
  return (
    FINDING_ORDER[x.finding] - FINDING_ORDER[y.finding] || (y.e ?? -1) - (x.e ?? -1) || (x.operation < y.operation ? -1 : x.operation > y.operation ? 1 : 0)
  );
}

/** The confidence sequence of phased − sequential: each rate's at half the miscoverage. */
function differenceSequence(ph: { failures: number; runs: number }, seq: { failures: number; runs: number }): Interval {
  const p = rateConfidenceSequence(ph.failures, ph.runs, SEQUENCE_MISCOVERAGE);
  const s = rateConfidenceSequence(seq.failures, seq.runs, SEQUENCE_MISCOVERAGE);
  return { low: p.low - s.high, high: p.high - s.low };
}

function decide(
  cm: CompiledModel,
  c: Candidate,
  noiseFloor: number | null,
  identical: boolean,
  unavailable: string | null,
  t: DecisionThresholds,
): OperationComparison {
  const name = cm.ops[c.op]!;
  const { sequential: s, phased: p } = c;
  const difference = s.rate === null || p.rate === null ? null : p.rate - s.rate;
  const material = Math.max(s.failures, p.failures) >= t.materialFailures;
  const suspects = suspectsOf(cm, c.op);
  const rates = `${percent(p.rate)} under the phased loop (${count(p.failures)} of ${count(p.runs)}) vs ${percent(s.rate)} under the sequential loop (${count(s.failures)} of ${count(s.runs)})`;
  const margin = marginFor(s.rate, t);
  const base = {
    operation: name,
    sequential: s,
    phased: p,
    difference,
    noiseFloor,
    margin,
    eWorse: c.eWorse,
    e: c.e,
    eBar: c.eBar,
    discovery: c.discovery,
    identical,
    material,
    suspects,
  };
  const pooled = (s.failures + p.failures) / Math.max(1, s.runs + p.runs);
  const needed = runsToBound(pooled, margin, Math.max(s.designEffect, p.designEffect));
  const marginText = `±${percent(margin)} (${percent(t.relativeMargin)} of the sequential rate, at least ${percent(t.absoluteMargin)})`;

  if (!c.enough) {
    const short = [
      s.runs < t.minBaselineObservations ? `${count(s.runs)} under the sequential loop` : null,
      p.runs < t.minBaselineObservations ? `${count(p.runs)} under the phased loop` : null,
    ].filter((x) => x !== null);
    const why =
      unavailable ??
      `${plural(Math.min(s.runs, p.runs), 'run')} from a healthy state is too few: ${short.join(', ')} (${t.minBaselineObservations} needed per loop)`;
    return {
      ...base,
      interval: null,
      fixedSample: { p: null, q: null, interval: null },
      finding: 'inconclusive',
      moreRunsNeeded: Math.max(0, needed - Math.min(s.runs, p.runs)),
      why,
    };
  }
  const ph = effective(p);
  const seq = effective(s);
  const interval = differenceSequence(ph, seq);
  const fixedSample = { p: c.p, q: c.q, interval: rateDifference(ph.failures, ph.runs, seq.failures, seq.runs) };
  const diff = difference!;
  const evidence = `e = ${eValue(c.e)}, e-BH bar ${eValue(c.eBar)}; fixed-sample ${equalsP('q', c.q!)}`;
  const within = `95 % confidence sequence ${points(interval.low)} .. ${points(interval.high)}`;
  const effect =
    Math.max(s.designEffect, p.designEffect) > 1
      ? `; weighted for the spread between objects (design effect ${p.designEffect.toFixed(2)} phased, ${s.designEffect.toFixed(2)} sequential)`
      : '';
  const full = { ...base, interval, fixedSample };
  if (c.discovery && Math.abs(diff) > margin) {
    const finding: LoopFinding = diff > 0 ? 'worse-under-phased' : 'better-under-phased';
    const explain =
      diff > 0 && suspects.length > 0
        ? `; reordered around it: ${suspects.map((x) => `${x.op} (${x.movement === 'now-after' ? 'now runs after it' : 'now runs before it'})`).join(', ')}`
        : '';
    return { ...full, finding, moreRunsNeeded: null, why: `fails ${rates} (${points(diff)}, beyond the margin ${marginText}; ${evidence})${effect}${explain}` };
  }
  const harmfulSide = interval.low > 0;
  if (!harmfulSide && interval.high <= margin && interval.low >= -margin) {
    return { ...full, finding: 'same', moreRunsNeeded: null, why: `${rates}: the ${within} lies within the margin ${marginText}${effect}` };
  }
  const more = Math.max(0, needed - Math.min(s.runs, p.runs));
  const reason = harmfulSide
    ? `the ${within} lies wholly on the harmful side, so it is not the same${c.discovery ? ', but the difference is within the margin' : ', and the e-value does not yet show it'}`
    : `${points(diff)} is not shown (${evidence}) and the ${within} is wider than the margin ${marginText}`;
  return { ...full, finding: 'inconclusive', moreRunsNeeded: more, why: `${rates}: ${reason}${effect}; about ${count(more)} more runs per loop needed` };
}
