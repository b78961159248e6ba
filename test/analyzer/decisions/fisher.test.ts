/**
 * Fisher's exact test against published values (R `fisher.test` documentation, Fisher's tea-tasting experiment, the
 * textbook dieting example) and against an exact rational computation with BigInt binomials, written here
 * independently of the implementation (no logarithms, no floating point until the final division).
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  benjaminiHochberg,
  fisherExact,
  hypergeometricLogPmf,
  logFactorial,
  mantelHaenszelRiskDifference,
  stratifiedExactGreater,
  type TwoByTwo,
} from '../../../analyzer/decisions/fisher.js';

function binomial(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

/** Exact p-values: sums of C(r1,x) C(r2,c1-x) over the tables each alternative counts, divided by C(n,c1). */
function exact(t: TwoByTwo): { greater: number; less: number; twoSided: number } {
  const r1 = t.a + t.b;
  const r2 = t.c + t.d;
  const c1 = t.a + t.c;
  const n = r1 + r2;
  const weight = (x: number): bigint => binomial(r1, x) * binomial(r2, c1 - x);
  const observed = weight(t.a);
  let greater = 0n;
  let less = 0n;
  let twoSided = 0n;
  for (let x = Math.max(0, c1 - r2); x <= Math.min(r1, c1); x++) {
    const w = weight(x);
    if (x >= t.a) greater += w;
    if (x <= t.a) less += w;
    if (w <= observed) twoSided += w;
  }
  const total = binomial(n, c1);
  const ratio = (w: bigint): number => Number((w * 10n ** 18n) / total) / 1e18;
  return { greater: ratio(greater), less: ratio(less), twoSided: ratio(twoSided) };
}

const close = (actual: number, expected: number, digits = 4): void =>
  assert.equal(actual.toFixed(digits), expected.toFixed(digits), `${actual} vs ${expected}`);

describe('Fisher exact test', () => {
  it('log-factorials: exact small values and the sum of logs for large ones', () => {
    assert.equal(logFactorial(0), 0);
    assert.equal(logFactorial(1), 0);
    assert.equal(logFactorial(5), Math.log(120));
    close(logFactorial(10), Math.log(3628800), 12);
    let sum = 0;
    for (let i = 2; i <= 2000; i++) sum += Math.log(i);
    close(logFactorial(2000), sum, 9);
    assert.throws(() => logFactorial(-1), RangeError);
    assert.throws(() => logFactorial(2.5), RangeError);
  });

  it('the tea-tasting table [[3,1],[1,3]]: two-sided 0.4857, one-sided 0.2429 (Fisher 1935; R TeaTasting)', () => {
    const r = fisherExact({ a: 3, b: 1, c: 1, d: 3 });
    close(r.twoSided, 0.4857);
    close(r.greater, 0.2429);
    close(r.twoSided, 34 / 70, 12);
    close(r.greater, 17 / 70, 12);
    close(r.less, 69 / 70, 12);
    assert.equal(Math.exp(hypergeometricLogPmf(3, 4, 4, 8)).toFixed(12), (16 / 70).toFixed(12));
  });

  it('the dieting example [[1,9],[11,3]]: table 0.001346076, one-tailed 0.001379728, two-tailed 0.002759456', () => {
    const r = fisherExact({ a: 1, b: 9, c: 11, d: 3 });
    close(Math.exp(hypergeometricLogPmf(1, 10, 12, 24)), 0.001346076, 9);
    close(r.less, 0.001379728, 9);
    close(r.twoSided, 0.002759456, 9);
  });

  it("R's Convictions example [[2,15],[10,3]], alternative less: 0.0004652", () => {
    const r = fisherExact({ a: 2, b: 15, c: 10, d: 3 });
    close(r.less, 0.0004652, 7);
    close(r.twoSided, exact({ a: 2, b: 15, c: 10, d: 3 }).twoSided, 12);
  });

  it('agrees with the exact rational computation on random tables', () => {
    const cell = fc.integer({ min: 0, max: 30 });
    fc.assert(
      fc.property(cell, cell, cell, cell, (a, b, c, d) => {
        const t = { a, b, c, d };
        const got = fisherExact(t);
        const want = exact(t);
        for (const k of ['greater', 'less', 'twoSided'] as const)
          assert.ok(Math.abs(got[k] - want[k]) < 1e-9, `${k} ${JSON.stringify(t)}: ${got[k]} vs ${want[k]}`);
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it('stays finite on large counts: a balanced table is 1, a separated one vanishes', () => {
    const balanced = fisherExact({ a: 5000, b: 5000, c: 5000, d: 5000 });
    close(balanced.twoSided, 1, 9);
    const separated = fisherExact({ a: 2000, b: 0, c: 0, d: 2000 });
    assert.ok(separated.greater < 1e-300 && separated.greater >= 0);
    close(separated.less, 1, 9);
    assert.throws(() => fisherExact({ a: -1, b: 0, c: 0, d: 0 }), RangeError);
    assert.throws(() => fisherExact({ a: 0.5, b: 0, c: 0, d: 0 }), RangeError);
  });
});

describe('Benjamini–Hochberg', () => {
  it("matches R's p.adjust(c(0.01, 0.04, 0.03, 0.005), 'BH') = 0.02 0.04 0.04 0.02, in input order", () => {
    assert.deepEqual(
      benjaminiHochberg([0.01, 0.04, 0.03, 0.005]).map((q) => q.toFixed(10)),
      ['0.0200000000', '0.0400000000', '0.0400000000', '0.0200000000'],
    );
  });

  it('is monotone in p, never below p, never above 1, and empty for no tests', () => {
    assert.deepEqual(benjaminiHochberg([]), []);
    assert.deepEqual(benjaminiHochberg([0.9, 0.5]), [0.9, 0.9]);
    const ps = [0.001, 0.2, 0.04, 0.04, 0.7, 0.0001];
    const qs = benjaminiHochberg(ps);
    ps.forEach((p, i) => {
      assert.ok(qs[i]! >= p && qs[i]! <= 1);
      ps.forEach((p2, j) => {
        if (p < p2) assert.ok(qs[i]! <= qs[j]!);
      });
    });
  });
});

/**
 * R's `Rabbits` example (`?mantelhaen.test`): penicillin level strata of cured/died by treatment, `S = 16,
 * p-value = 0.03994` for the exact test. The one-sided tail is checked against a BigInt enumeration of the sum's
 * distribution (a convolution of the strata's hypergeometric weights, no floating point), whose two-sided value
 * (R's definition) is R's 0.03994.
 */
describe('stratified exact test (exact Mantel–Haenszel)', () => {
  // R: array(c(0, 0, 6, 5, 3, 0, 3, 6, 6, 2, 0, 4, 5, 6, 1, 0, 2, 5, 0, 0), dim = c(2, 2, 5)), column-major.
  const rabbits: TwoByTwo[] = [
    [0, 0, 6, 5],
    [3, 0, 3, 6],
    [6, 2, 0, 4],
    [5, 6, 1, 0],
    [2, 5, 0, 0],
  ].map(([a, c, b, d]) => ({ a: a!, b: b!, c: c!, d: d! }));

  function enumerated(tables: readonly TwoByTwo[]): { greater: number; twoSided: number } {
    let distribution = new Map<number, bigint>([[0, 1n]]);
    let total = 1n;
    let observed = 0;
    for (const t of tables) {
      const r1 = t.a + t.b;
      const r2 = t.c + t.d;
      const c1 = t.a + t.c;
      observed += t.a;
      total *= binomial(r1 + r2, c1);
      const next = new Map<number, bigint>();
      for (const [sum, w] of distribution) {
        for (let x = Math.max(0, c1 - r2); x <= Math.min(r1, c1); x++)
          next.set(sum + x, (next.get(sum + x) ?? 0n) + w * binomial(r1, x) * binomial(r2, c1 - x));
      }
      distribution = next;
    }
    const p = distribution.get(observed)!;
    let greater = 0n;
    let twoSided = 0n;
    for (const [sum, w] of distribution) {
      if (sum >= observed) greater += w;
      if (w <= p) twoSided += w;
    }
    const ratio = (w: bigint): number => Number((w * 10n ** 18n) / total) / 1e18;
    return { greater: ratio(greater), twoSided: ratio(twoSided) };
  }

  it("R's Rabbits: S = 16, two-sided 0.03994; the one-sided tail equals the exact enumeration", () => {
    assert.equal(
      rabbits.reduce((s, t) => s + t.a, 0),
      16,
    );
    const exactValues = enumerated(rabbits);
    close(exactValues.twoSided, 0.03994, 5);
    close(stratifiedExactGreater(rabbits), exactValues.greater, 12);
    close(stratifiedExactGreater(rabbits), 0.019972451790633, 12);
  });

  it('is Fisher’s one-sided test for one stratum, and ignores strata whose margins fix the count', () => {
    const t = { a: 3, b: 7, c: 3, d: 27 };
    assert.equal(stratifiedExactGreater([t]), fisherExact(t).greater);
    assert.equal(stratifiedExactGreater([t, { a: 0, b: 5, c: 0, d: 9 }, { a: 4, b: 0, c: 0, d: 0 }]), fisherExact(t).greater);
  });

  it('agrees with the exact enumeration on random strata', () => {
    const table = fc.record({ a: fc.nat(6), b: fc.nat(6), c: fc.nat(6), d: fc.nat(30) });
    fc.assert(
      fc.property(fc.array(table, { minLength: 1, maxLength: 4 }), (tables) => close(stratifiedExactGreater(tables), enumerated(tables).greater, 9)),
      { numRuns: 200, seed: 11 },
    );
  });

  it('the Mantel–Haenszel risk difference weighs strata by n1 n0 / n, and is null without both rows', () => {
    // Two strata with differences 0.5 (weight 10*10/20 = 5) and 0 (weight 2*8/10 = 1.6): (2.5 + 0) / 6.6.
    const rd = mantelHaenszelRiskDifference([
      { a: 6, b: 4, c: 1, d: 9 },
      { a: 1, b: 1, c: 4, d: 4 },
    ]);
    close(rd!, 2.5 / 6.6, 12);
    assert.equal(mantelHaenszelRiskDifference([{ a: 1, b: 1, c: 0, d: 0 }]), null);
  });
});
