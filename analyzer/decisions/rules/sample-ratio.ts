/**
 * The sample-ratio check: did each loop's data arrive as the data itself implies it should? Two signs of lines lost
 * from one loop's objects (a logger sampling, a collector dropping spans), either of which biases every comparison:
 *
 * - Healthy attempts per object-day. A healthy object is reconciled at a cadence no loop sets (resyncs, watch
 *   events): counting the intervals from an attempt with no error to the object's next one, and the time they span,
 *   the phased loop's share of the intervals is its share of that time, whatever each loop's failures (which only
 *   change how fast a failing object is retried). The counts are divided by the dispersion of the per-object rates (Pearson's X²
 *   over the objects, as the loop comparison's design effect), then tested against that share with the Beta(½, ½)
 *   mixture's e-value against the known share (a test martingale: anytime-valid).
 * - Incomplete attempts: an op the loop ran went unobserved before one observed. Their rates are compared between
 *   the loops with the two-proportion e-value.
 * Either e-value at 1/falseDiscoveryRate or more fails the check.
 */
import { logLikelihood, logMixture, logTwoProportionE, LOG_E_CAP } from '../e-values.js';
import type { LoopCounters } from '../counters.js';
import { count, eValue, percent } from '../wording.js';
import { outcome, type Rule, type ReasonGiven } from './rule.js';

const DAY_MS = 86_400_000;

/** Attempts per object-day of one loop, and the dispersion of its objects' rates around it. */
export function attemptRate(l: LoopCounters): { perDay: number | null; dispersion: number } {
  const days = l.rateMs / DAY_MS;
  if (days <= 0 || l.rateIntervals === 0) return { perDay: null, dispersion: 1 };
  const rate = l.rateIntervals / days;
  const pearson = l.rateSquares / rate - l.rateIntervals;
  return { perDay: rate, dispersion: l.rateObjects < 2 ? 1 : Math.max(1, pearson / (l.rateObjects - 1)) };
}

/** log e-value that the phased share of the intervals differs from its share of the object-time. */
export function logAttemptRatioE(sequential: LoopCounters, phased: LoopCounters): number {
  const dispersion = Math.max(attemptRate(sequential).dispersion, attemptRate(phased).dispersion);
  const share = phased.rateMs / (phased.rateMs + sequential.rateMs);
  const x = Math.round(phased.rateIntervals / dispersion);
  const n = x + Math.round(sequential.rateIntervals / dispersion);
  if (n === 0 || !(share > 0 && share < 1)) return 0;
  return Math.min(LOG_E_CAP, logMixture(x, n) - logLikelihood(share, x, n));
}

type Kind = 'sample-ratio';

export const SAMPLE_RATIO: Rule<Kind> = {
  name: 'sample-ratio',
  role: 'check',
  question: 'do both loops’ objects show as many attempts per object-day, and as few incomplete attempts, as the other’s?',
  reasons: {
    'sample-ratio': {
      harm: false,
      when: 'healthy attempts per object-day, or the share of incomplete attempts, differ between the loops (an e-value at 1/`falseDiscoveryRate`)',
    },
  },
  evaluate({ counters, thresholds: t }) {
    const { sequential: s, phased: p } = counters.loops;
    const bar = 1 / t.falseDiscoveryRate;
    const reasons: ReasonGiven<Kind>[] = [];
    const rs = attemptRate(s);
    const rp = attemptRate(p);
    const comparable = s.rateObjects >= 2 && p.rateObjects >= 2;
    const rateE = comparable ? Math.exp(logAttemptRatioE(s, p)) : null;
    if (rateE !== null && rateE >= bar) {
      reasons.push({
        kind: 'sample-ratio',
        message: `sample ratio: healthy objects of the phased loop show ${rp.perDay!.toFixed(1)} attempts per object-day, those of the sequential loop ${rs.perDay!.toFixed(1)} (e = ${eValue(rateE)}, bar ${eValue(bar)}): lines of one loop’s objects are likely lost or sampled away; look at the collector’s dropped counts and the logger’s sampling for those objects before comparing the loops`,
      });
    }
    const incompleteE =
      s.usedAttempts > 0 && p.usedAttempts > 0
        ? Math.exp(
            Math.min(LOG_E_CAP, logTwoProportionE({ x1: p.incompleteAttempts, n1: p.usedAttempts, x2: s.incompleteAttempts, n2: s.usedAttempts }, 'two-sided')),
          )
        : null;
    const incompleteRate = (l: LoopCounters): number | null => (l.usedAttempts === 0 ? null : l.incompleteAttempts / l.usedAttempts);
    if (incompleteE !== null && incompleteE >= bar) {
      reasons.push({
        kind: 'sample-ratio',
        message: `sample ratio: ${percent(incompleteRate(p))} of the phased loop’s attempts are incomplete (an op it ran unobserved before one observed), ${percent(incompleteRate(s))} of the sequential loop’s (e = ${eValue(incompleteE)}, bar ${eValue(bar)}): lines are lost from one loop’s attempts; look at the input’s rejected and dropped lines before comparing the loops`,
      });
    }
    return outcome(
      SAMPLE_RATIO,
      reasons,
      [
        { name: 'healthy attempts per object-day (sequential)', value: rs.perDay, threshold: null },
        { name: 'healthy attempts per object-day (phased)', value: rp.perDay, threshold: null },
        { name: 'phased share of healthy object-time', value: p.rateMs + s.rateMs > 0 ? p.rateMs / (p.rateMs + s.rateMs) : null, threshold: null },
        { name: 'attempt-rate e-value', value: rateE, threshold: bar },
        { name: 'incomplete attempts (sequential)', value: incompleteRate(s), threshold: null },
        { name: 'incomplete attempts (phased)', value: incompleteRate(p), threshold: null },
        { name: 'incomplete-attempts e-value', value: incompleteE, threshold: bar },
      ],
      comparable
        ? `healthy attempts per object-day ${rs.perDay!.toFixed(1)} (sequential, ${count(s.rateObjects)} objects) vs ${rp.perDay!.toFixed(1)} (phased, ${count(p.rateObjects)} objects); incomplete attempts ${percent(incompleteRate(s))} vs ${percent(incompleteRate(p))}`
        : 'too few objects with two or more attempts under each loop to compare their attempt rates',
    );
  },
};
