/**
 * The anytime-valid e-values of analyzer/decisions/e-values.ts, against values derived independently: closed forms of
 * Beta integrals, Python's math.lgamma for the mixtures, and exact enumerations of every outcome (the e-value
 * property E[e] ≤ 1 under the null) and of every sequence (Ville's bound on re-running: P(some look reaches 1/α) ≤ α).
 */
import { strict as assert } from 'node:assert';
import { fisherExact } from '../../../analyzer/decisions/fisher.js';
import {
  eBenjaminiHochberg,
  logGamma,
  logMixture,
  logStratifiedE,
  logTwoProportionE,
  rateConfidenceSequence,
  twoProportionE,
  type Side,
} from '../../../analyzer/decisions/e-values.js';

const close = (actual: number, expected: number, tolerance = 1e-10): void =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${actual} vs ${expected}`);

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

const binomial = (x: number, n: number, theta: number): number => choose(n, x) * theta ** x * (1 - theta) ** (n - x);

describe('e-values', () => {
  it('logGamma matches closed forms: Γ(½) = √π, Γ(10) = 9!, Γ(0.1) by reflection', () => {
    close(logGamma(0.5), Math.log(Math.sqrt(Math.PI)));
    close(logGamma(10), Math.log(362880));
    close(logGamma(1), 0);
    close(logGamma(0.1), 2.252712651734206); // Python math.lgamma(0.1)
  });

  it('the Beta(½, ½) mixture has the closed forms of its moments, and Python’s value for 3 in 10', () => {
    close(Math.exp(logMixture(0, 1)), 1 / 2); // E[1 − θ]
    close(Math.exp(logMixture(1, 2)), 1 / 8); // E[θ(1 − θ)] = ab / ((a + b)(a + b + 1))
    close(Math.exp(logMixture(2, 2)), 3 / 8); // E[θ²] = a(a + 1) / ((a + b)(a + b + 1))
    close(logMixture(3, 10), -7.513804619819108);
  });

  it('two proportions: the values derived in Python from lgamma', () => {
    close(twoProportionE({ x1: 30, n1: 1000, x2: 10, n2: 1000 }, 'greater'), 0.13125428747256168, 1e-9);
    close(logTwoProportionE({ x1: 300, n1: 20000, x2: 100, n2: 20000 }, 'greater'), 42.474228675596805, 1e-9);
    close(logTwoProportionE({ x1: 5, n1: 100, x2: 5, n2: 100 }, 'two-sided'), -5.075924995214578, 1e-9);
    // Data inside the one-sided null: the free fit is the null's best, so the e-value is the mixture's penalty only.
    assert.ok(twoProportionE({ x1: 10, n1: 1000, x2: 30, n2: 1000 }, 'greater') < 0.01);
  });

  for (const side of ['greater', 'less', 'two-sided'] as const satisfies readonly Side[]) {
    it(`${side}: E[e] ≤ 1 under every null rate, enumerated over every outcome of 8 and 6 runs`, () => {
      const nulls: [number, number][] =
        side === 'two-sided' ? [0.05, 0.3, 0.5, 0.9].map((t) => [t, t]) : [[0.2, 0.2], [0.5, 0.5], side === 'greater' ? [0.1, 0.4] : [0.4, 0.1]];
      for (const [t1, t2] of nulls) {
        let expectation = 0;
        for (let x1 = 0; x1 <= 8; x1++)
          for (let x2 = 0; x2 <= 6; x2++) expectation += binomial(x1, 8, t1) * binomial(x2, 6, t2) * twoProportionE({ x1, n1: 8, x2, n2: 6 }, side);
        assert.ok(expectation <= 1 + 1e-12, `θ = ${t1}, ${t2}: E[e] = ${expectation}`);
        assert.ok(expectation > 0.01, `θ = ${t1}, ${t2}: E[e] = ${expectation} (the enumeration is not trivial)`);
      }
    });
  }

  /**
   * P(some look of `looks` reaches the bar) under θ for both loops, one run per loop per look: exact, by dynamic
   * programming over the counts (x1, x2) not yet stopped at each look.
   */
  function everHit(looks: number, theta: number, hit: (x1: number, x2: number, n: number) => boolean): number {
    let alive = new Map<string, number>([['0,0', 1]]);
    let stopped = 0;
    for (let n = 1; n <= looks; n++) {
      const next = new Map<string, number>();
      for (const [key, mass] of alive) {
        const [x1, x2] = key.split(',').map(Number) as [number, number];
        for (const f1 of [0, 1]) {
          for (const f2 of [0, 1]) {
            const m = mass * (f1 ? theta : 1 - theta) * (f2 ? theta : 1 - theta);
            if (hit(x1 + f1, x2 + f2, n)) stopped += m;
            else next.set(`${x1 + f1},${x2 + f2}`, (next.get(`${x1 + f1},${x2 + f2}`) ?? 0) + m);
          }
        }
      }
      alive = next;
    }
    return stopped;
  }

  it('re-running is safe: over 10 and 40 looks, P(some look reaches e ≥ 5) ≤ 0.2, while peeking at Fisher’s p ≤ 0.2 exceeds 0.2', () => {
    for (const theta of [0.2, 0.5]) {
      for (const looks of [10, 40]) {
        const e = everHit(looks, theta, (x1, x2, n) => twoProportionE({ x1, n1: n, x2, n2: n }, 'two-sided') >= 5);
        assert.ok(e <= 0.2 && e > 0.005, `θ = ${theta}, ${looks} looks: P(ever e ≥ 5) = ${e}`);
      }
    }
    // Derived with the same enumeration: 0.0497 for the e-value, 0.2060 for Fisher's test, at θ = ½ over 10 looks.
    close(
      everHit(10, 0.5, (x1, x2, n) => twoProportionE({ x1, n1: n, x2, n2: n }, 'two-sided') >= 5),
      0.0497,
      0.01,
    );
    const fisher = everHit(10, 0.5, (x1, x2, n) => fisherExact({ a: x1, b: n - x1, c: x2, d: n - x2 }).twoSided <= 0.2);
    assert.ok(fisher > 0.2, `P(ever p ≤ 0.2) = ${fisher}`);
  });

  it('the confidence sequence for one rate: bounds derived in Python by bisection, and coverage ≥ 1 − α over every outcome', () => {
    close(rateConfidenceSequence(0, 10, 0.05).high, 0.37698735099067726, 1e-9);
    close(rateConfidenceSequence(20, 1000, 0.05).high, 0.040635405895268095, 1e-9);
    assert.equal(rateConfidenceSequence(0, 10, 0.05).low, 0);
    assert.deepEqual(rateConfidenceSequence(0, 0, 0.05), { low: 0, high: 1 });
    for (const theta of [0.05, 0.3, 0.7]) {
      let miss = 0;
      for (let x = 0; x <= 40; x++) {
        const cs = rateConfidenceSequence(x, 40, 0.1);
        if (theta < cs.low || theta > cs.high) miss += binomial(x, 40, theta);
      }
      assert.ok(miss <= 0.1, `θ = ${theta}: miscoverage ${miss}`);
    }
  });

  it('stratified: one stratum matches the value derived in Python; a stratum without failures of the first op is a factor of 1', () => {
    const one = [{ a: 5, b: 5, c: 10, d: 990 }];
    close(logStratifiedE(one, 0.001), 8.620047482430934, 1e-9);
    close(logStratifiedE([...one, { a: 0, b: 0, c: 40, d: 9000 }], 0.001), 8.620047482430934, 1e-9);
    assert.ok(logStratifiedE([{ a: 0, b: 10, c: 10, d: 990 }], 0.001) < 0);
  });

  it('stratified: with the baseline known, E[e] ≤ 1 under the null, enumerated over the outcomes after a failure in two strata', () => {
    // A baseline of 1e6 runs pins the confidence sequence near its rate; the bound is then the plain test martingale.
    for (const theta of [0.1, 0.4]) {
      const c = Math.round(theta * 1e6);
      let expectation = 0;
      for (let a1 = 0; a1 <= 6; a1++) {
        for (let a2 = 0; a2 <= 4; a2++) {
          const e = Math.exp(
            logStratifiedE(
              [
                { a: a1, b: 6 - a1, c, d: 1e6 - c },
                { a: a2, b: 4 - a2, c, d: 1e6 - c },
              ],
              0.01,
            ),
          );
          expectation += binomial(a1, 6, theta) * binomial(a2, 4, theta) * e;
        }
      }
      assert.ok(expectation <= 1, `θ = ${theta}: E[e] = ${expectation}`);
    }
  });

  it('e-BH rejects the k largest with e₍ₖ₎ ≥ m/(αk), under any dependence', () => {
    // m = 4, α = 0.1: bars 40, 20, 13.3, 10; e = 100 and 30 pass, 4 does not.
    const r = eBenjaminiHochberg([4, 100, 1, 30], 0.1);
    assert.deepEqual(r.rejected, [false, true, false, true]);
    assert.deepEqual(
      r.bar.map((b) => Math.round(b * 1000) / 1000),
      [13.333, 20, 13.333, 20],
    );
    assert.deepEqual(eBenjaminiHochberg([12, 12], 0.1).rejected, [true, true]); // k = 2: both ≥ 2/(0.1 · 2) = 10
    assert.deepEqual(eBenjaminiHochberg([15, 5], 0.1).rejected, [false, false]); // 15 < 20 alone, 5 < 10 as second
  });
});
