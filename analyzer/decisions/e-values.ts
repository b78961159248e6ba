/**
 * Anytime-valid evidence: e-values that stay valid however often a report is re-run on a growing journal, and the
 * e-BH procedure across tests. Everything here is a function of counts, so partial states that merge by addition
 * (counters.ts) give exactly the e-values of one run over the same attempts.
 *
 * Two proportions (the loop comparison, the population-balance and sample-ratio checks). Failures of one op under
 * each loop are Bernoulli(θ₁) and Bernoulli(θ₂), in any interleaving the past decides. The numerator is a mixture
 * martingale, each rate under Jeffreys' Beta(½, ½) prior, so it depends on the counts only; the denominator is the
 * likelihood maximised over the null. For every θ in the null the ratio is at most the mixture's likelihood ratio
 * against that θ, a test martingale under it, so by Ville's inequality P(the e-value ever reaches 1/α) ≤ α (the
 * construction of an e-process as the infimum over the null of test martingales, Ramdas, Ruf, Larsson & Koolen
 * 2022; for two proportions Turner, Ly & Grünwald 2024 give the growth-optimal one, which needs the arrival order:
 * this one trades a little power for order-free counts).
 *
 * Stratified pair tables (the ordering tests). Per stratum k of the gap since the previous attempt, the later op
 * fails at rate θ₀ₖ after the first op succeeded and θ₁ₖ after it failed; the null is θ₁ₖ ≤ θ₀ₖ in every stratum,
 * the alternative a common odds ratio ψ > 1 (the Mantel–Haenszel setting, made anytime-valid as in Turner &
 * Grünwald 2023). The observations after a failure give, for a reference θ₀, the likelihood ratio
 * ψ^a / (1 − θ₀ + ψθ₀)^(a+b), mixed over a fixed grid of ψ; it decreases in θ₀, so evaluated at the upper bound of
 * an anytime-valid confidence sequence for θ₀ₖ it is below the test martingale at the true θ₀ₖ whenever the
 * sequence covers. The error is at most 1/e plus the sequences' miscoverage (`STRATUM_MISCOVERAGE` shares of it).
 * Strata without an observation after a failure contribute a factor of exactly 1.
 *
 * e-BH (Wang & Ramdas 2022): with m e-values, reject the k largest where k is the largest with e₍ₖ₎ ≥ m/(αk). It
 * controls the false discovery rate at α under any dependence between the tests.
 */

/** Lanczos coefficients (g = 7, n = 9) for log Γ. */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** log Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`logGamma: ${x} is not positive`);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

const JEFFREYS = 0.5;
const LOG_BETA_JEFFREYS = logBeta(JEFFREYS, JEFFREYS);

/** log of ∫ θ^x (1 − θ)^(n − x) under Beta(½, ½): the mixture's probability of one sequence with x failures in n. */
export function logMixture(x: number, n: number): number {
  return logBeta(x + JEFFREYS, n - x + JEFFREYS) - LOG_BETA_JEFFREYS;
}

/** log θ^x (1 − θ)^(n − x), with 0 · log 0 = 0. */
export function logLikelihood(theta: number, x: number, n: number): number {
  const fail = x === 0 ? 0 : x * Math.log(theta);
  const ok = n - x === 0 ? 0 : (n - x) * Math.log(1 - theta);
  return fail + ok;
}

export interface TwoCounts {
  /** Failures and runs of the first sample (the phased loop, in the loop comparison). */
  readonly x1: number;
  readonly n1: number;
  readonly x2: number;
  readonly n2: number;
}

/** The alternative: θ₁ > θ₂ (`greater`), θ₁ < θ₂ (`less`), or θ₁ ≠ θ₂. */
export type Side = 'greater' | 'less' | 'two-sided';

function checkCounts(c: TwoCounts): void {
  for (const [name, v] of Object.entries(c)) if (!Number.isInteger(v) || v < 0) throw new RangeError(`e-value: ${name} = ${v} is not a non-negative integer`);
  if (c.x1 > c.n1 || c.x2 > c.n2) throw new RangeError(`e-value: more failures than runs (${c.x1}/${c.n1}, ${c.x2}/${c.n2})`);
}

/** log of the e-value against θ₁ = θ₂ (two-sided) or the one-sided null opposite `side`. */
export function logTwoProportionE(c: TwoCounts, side: Side): number {
  checkCounts(c);
  const { x1, n1, x2, n2 } = c;
  const numerator = logMixture(x1, n1) + logMixture(x2, n2);
  const r1 = n1 === 0 ? 0 : x1 / n1;
  const r2 = n2 === 0 ? 0 : x2 / n2;
  const pooled = n1 + n2 === 0 ? 0 : (x1 + x2) / (n1 + n2);
  // The null's best fit: pooled, unless the data already lie inside a one-sided null (then the free fit).
  const inside = (side === 'greater' && r1 <= r2) || (side === 'less' && r1 >= r2);
  const denominator = inside ? logLikelihood(r1, x1, n1) + logLikelihood(r2, x2, n2) : logLikelihood(pooled, x1, n1) + logLikelihood(pooled, x2, n2);
  return numerator - denominator;
}

/** Above e^690 (about 1e300) an e-value is reported as that: every bar is far below, and JSON has no infinity. */
export const LOG_E_CAP = 690;

export function twoProportionE(c: TwoCounts, side: Side): number {
  return Math.exp(Math.min(LOG_E_CAP, logTwoProportionE(c, side)));
}

/** The anytime-valid (1 − α) confidence sequence for one rate: every θ the Beta(½, ½) mixture has not bet 1/α against. */
export function rateConfidenceSequence(x: number, n: number, alpha: number): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const limit = Math.log(1 / alpha);
  const m = logMixture(x, n);
  const outside = (theta: number): boolean => m - logLikelihood(theta, x, n) >= limit;
  const p = x / n;
  const search = (inner: number, outer: number): number => {
    if (!outside(outer)) return outer;
    let a = inner;
    let b = outer;
    for (let i = 0; i < 60; i++) {
      const mid = (a + b) / 2;
      if (outside(mid)) b = mid;
      else a = mid;
    }
    return a;
  };
  return { low: x === 0 ? 0 : search(p, 0), high: x === n ? 1 : search(p, 1) };
}

/** Odds ratios the stratified alternative mixes over, with equal weights. */
export const ODDS_RATIOS = [1.25, 1.5, 2, 3, 5, 10, 30, 100, 1000] as const;

export interface Stratum {
  /** After the first op failed: the later op failed (a) or not (b); after it succeeded: failed (c) or not (d). */
  readonly a: number;
  readonly b: number;
  readonly c: number;
  readonly d: number;
}

/**
 * log of the stratified e-value that the later op fails more after the first one failed, the baselines bounded by
 * confidence sequences with miscoverage `miscoverage` each.
 */
export function logStratifiedE(strata: readonly Stratum[], miscoverage: number): number {
  const terms = ODDS_RATIOS.map((psi) => {
    let log = 0;
    for (const s of strata) {
      const failed = s.a + s.b;
      if (failed === 0) continue;
      const upper = rateConfidenceSequence(s.c, s.c + s.d, miscoverage).high;
      log += s.a * Math.log(psi) - failed * Math.log(1 - upper + upper * psi);
    }
    return log;
  });
  const top = Math.max(...terms);
  return top + Math.log(terms.reduce((sum, t) => sum + Math.exp(t - top), 0) / terms.length);
}

/**
 * Per hypothesis (input order): rejected by e-BH at level α, and the bar its e-value is held to: m/(αk*) for the k*
 * rejected, m/(α(k*+1)) for the others (what one more discovery would need).
 */
export function eBenjaminiHochberg(evalues: readonly number[], alpha: number): { rejected: boolean[]; bar: number[] } {
  const m = evalues.length;
  const order = evalues.map((e, i) => [e, i] as const).sort((x, y) => y[0] - x[0]);
  let k = 0;
  for (let rank = 1; rank <= m; rank++) if (order[rank - 1]![0] >= m / (alpha * rank)) k = rank;
  const rejected = new Array<boolean>(m).fill(false);
  for (let rank = 1; rank <= k; rank++) rejected[order[rank - 1]![1]] = true;
  return { rejected, bar: rejected.map((r) => m / (alpha * (r ? k : k + 1))) };
}
