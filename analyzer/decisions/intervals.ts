/**
 * Confidence intervals for rates and their differences, used to call a difference small ("same", "safe") only when
 * the data bound it, never merely because a test found nothing.
 *
 * Wilson's score interval for one rate, and Newcombe's hybrid score interval for the difference of two independent
 * rates (Newcombe 1998, method 10): each bound combines the two Wilson intervals, so it stays inside [-1, 1] and
 * behaves at 0 and 100 % where the Wald interval collapses.
 */

/** The two-sided 95 % normal quantile. */
export const Z95 = 1.959963984540054;

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** Wilson score interval for `successes` of `trials`; [0, 1] without trials. */
export function wilson(successes: number, trials: number, z = Z95): Interval {
  if (trials <= 0) return { low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/** Newcombe's interval for x1/n1 − x2/n2. */
export function rateDifference(x1: number, n1: number, x2: number, n2: number, z = Z95): Interval {
  const p1 = n1 > 0 ? x1 / n1 : 0;
  const p2 = n2 > 0 ? x2 / n2 : 0;
  const w1 = wilson(x1, n1, z);
  const w2 = wilson(x2, n2, z);
  const d = p1 - p2;
  return {
    low: d - Math.sqrt((p1 - w1.low) ** 2 + (w2.high - p2) ** 2),
    high: d + Math.sqrt((w1.high - p1) ** 2 + (p2 - w2.low) ** 2),
  };
}
