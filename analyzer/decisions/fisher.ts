/**
 * Fisher's exact test for a 2x2 table, computed from log-factorials so large counts neither overflow nor lose
 * precision. The table is read as
 *
 *                   second failed   second ok
 *   first failed          a             b
 *   first ok              c             d
 *
 * With the margins fixed, `a` follows a hypergeometric distribution; each p-value sums its probabilities.
 * The two-sided p-value is R's `fisher.test` definition: the total probability of every table no more likely than
 * the observed one (with R's relative tolerance of 1e-7, so tables tied with the observed one are not lost to
 * rounding).
 */

export interface TwoByTwo {
  readonly a: number;
  readonly b: number;
  readonly c: number;
  readonly d: number;
}

export interface FisherResult {
  /** P(a or more): the second fails more often after the first failed (positive dependence). */
  readonly greater: number;
  /** P(a or fewer). */
  readonly less: number;
  readonly twoSided: number;
}

/** R's tolerance for "as likely as the observed table". */
const RELATIVE_TOLERANCE = 1 + 1e-7;

/** log(k!) for k = 0, 1, ...; grown on demand. A cache of fixed values, so the functions stay pure. */
const logFactorials: number[] = [0];

export function logFactorial(k: number): number {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`logFactorial: ${k} is not a non-negative integer`);
  for (let i = logFactorials.length; i <= k; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[k]!;
}

/** log P(a = x) for a 2x2 table with first-row total r1, first-column total c1 and grand total n. */
export function hypergeometricLogPmf(x: number, r1: number, c1: number, n: number): number {
  const lf = logFactorial;
  return lf(r1) + lf(n - r1) + lf(c1) + lf(n - c1) - lf(n) - lf(x) - lf(r1 - x) - lf(c1 - x) - lf(n - r1 - c1 + x);
}

export function fisherExact(t: TwoByTwo): FisherResult {
  for (const [name, v] of Object.entries(t)) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`fisherExact: cell ${name} = ${v} is not a non-negative integer`);
  }
  const r1 = t.a + t.b;
  const c1 = t.a + t.c;
  const n = r1 + t.c + t.d;
  const lo = Math.max(0, r1 + c1 - n);
  const hi = Math.min(r1, c1);
  const observed = hypergeometricLogPmf(t.a, r1, c1, n);
  const cutoff = observed + Math.log(RELATIVE_TOLERANCE);
  let greater = 0;
  let less = 0;
  let twoSided = 0;
  for (let x = lo; x <= hi; x++) {
    const logP = hypergeometricLogPmf(x, r1, c1, n);
    const p = Math.exp(logP);
    if (x >= t.a) greater += p;
    if (x <= t.a) less += p;
    if (logP <= cutoff) twoSided += p;
  }
  return { greater: Math.min(1, greater), less: Math.min(1, less), twoSided: Math.min(1, twoSided) };
}

/**
 * Benjamini–Hochberg adjusted p-values (q-values), in the input order: a test is a discovery at false discovery
 * rate q when its adjusted value is at most q. Controls the expected share of false discoveries among all
 * discoveries when the tests are independent or positively dependent.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const [p, i] = order[rank - 1]!;
    // p * (m / rank), not (p * m) / rank: with a factor of at least 1 the rounding never drops below p.
    running = Math.min(running, p * (m / rank));
    adjusted[i] = running;
  }
  return adjusted;
}

/** The probabilities of `a` = lo..hi of one table with its margins fixed (underflowing tails as 0). */
function hypergeometricPmf(t: TwoByTwo): { lo: number; pmf: Float64Array } {
  const r1 = t.a + t.b;
  const c1 = t.a + t.c;
  const n = r1 + t.c + t.d;
  const lo = Math.max(0, r1 + c1 - n);
  const hi = Math.min(r1, c1);
  const pmf = new Float64Array(hi - lo + 1);
  for (let x = lo; x <= hi; x++) pmf[x - lo] = Math.exp(hypergeometricLogPmf(x, r1, c1, n));
  return { lo, pmf };
}

/**
 * The exact test of conditional independence for several 2x2 tables (strata) sharing one effect, one-sided: P(the
 * sum of `a` over the strata is at least the observed one), each stratum's `a` hypergeometric given its margins
 * (the exact form of the Mantel–Haenszel test, R's `mantelhaen.test(exact = TRUE)`). With one stratum it is
 * Fisher's exact test.
 */
export function stratifiedExactGreater(tables: readonly TwoByTwo[]): number {
  let lo = 0;
  let dist = new Float64Array([1]);
  let observed = 0;
  for (const t of tables) {
    if (t.a + t.b === 0 || t.c + t.d === 0 || t.a + t.c === 0 || t.b + t.d === 0) {
      observed += t.a;
      lo += t.a; // a degenerate stratum: `a` is fixed by its margins
      continue;
    }
    const s = hypergeometricPmf(t);
    observed += t.a;
    const next = new Float64Array(dist.length + s.pmf.length - 1);
    for (let i = 0; i < dist.length; i++) {
      const p = dist[i]!;
      if (p === 0) continue;
      for (let j = 0; j < s.pmf.length; j++) next[i + j]! += p * s.pmf[j]!;
    }
    dist = next;
    lo += s.lo;
  }
  let greater = 0;
  for (let i = Math.max(0, observed - lo); i < dist.length; i++) greater += dist[i]!;
  return Math.min(1, greater);
}

/**
 * The Mantel–Haenszel risk difference over strata: each stratum's a/(a+b) − c/(c+d), weighted by
 * (a+b)(c+d)/n; null when no stratum has both rows.
 */
export function mantelHaenszelRiskDifference(tables: readonly TwoByTwo[]): number | null {
  let weighted = 0;
  let weights = 0;
  for (const t of tables) {
    const r1 = t.a + t.b;
    const r0 = t.c + t.d;
    if (r1 === 0 || r0 === 0) continue;
    const w = (r1 * r0) / (r1 + r0);
    weighted += w * (t.a / r1 - t.c / r0);
    weights += w;
  }
  return weights === 0 ? null : weighted / weights;
}
