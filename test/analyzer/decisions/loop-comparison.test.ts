/**
 * The loop comparison on counters written by hand (counters.ts), so each expected figure can be worked out on paper:
 * the design effect, the test on effective counts, the findings and the reordered pairs named with an op.
 */
import { strict as assert } from 'node:assert';
import { compileModel } from '../../../analyzer/compiled-model.js';
import { emptyCounters, type ControllerCounters, type LoopCounters } from '../../../analyzer/decisions/counters.js';
import { rateConfidenceSequence, twoProportionE } from '../../../analyzer/decisions/e-values.js';
import { fisherExact } from '../../../analyzer/decisions/fisher.js';
import { compareLoops, designEffect, runsToBound, suspectsOf } from '../../../analyzer/decisions/loop-comparison.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { TINY } from './tiny-model.js';

const CM = compileModel(TINY);
const op = (name: string): number => CM.opIndex.get(name)!;

/** Per-object (runs, failures) of one op under one loop, written into the loop's counters as evidence.ts would. */
function objects(loop: LoopCounters, name: string, perObject: readonly (readonly [number, number])[]): void {
  const i = op(name);
  for (const [runs, failures] of perObject) {
    loop.commonRuns[i]! += runs;
    loop.commonFailures[i]! += failures;
    if (runs > 0) {
      loop.clusters[i]!++;
      loop.clusterSquares[i]! += (failures * failures) / runs;
    }
  }
}

function fleet(perLoopObjects = 10): ControllerCounters {
  const c = emptyCounters(CM);
  c.loops.sequential.objects = perLoopObjects;
  c.loops.phased.objects = perLoopObjects;
  return c;
}

const tenObjects = (runs: number, failures: (i: number) => number): [number, number][] => Array.from({ length: 10 }, (_, i) => [runs, failures(i)]);

describe('loop comparison', () => {
  it('design effect: Pearson’s dispersion of the per-object rates over K − 1, never below 1', () => {
    const c = fleet();
    // Three objects, 10 runs each, failures 0, 0, 6: p = 0.2, X² = (3.6 − 1.2) / 0.16 = 15, φ = 15 / 2 = 7.5.
    objects(c.loops.phased, 'A', [
      [10, 0],
      [10, 0],
      [10, 6],
    ]);
    assert.equal(designEffect(c.loops.phased, op('A')), 7.5);
    // Evenly spread failures are less dispersed than binomial: 1, not below.
    objects(c.loops.sequential, 'A', [
      [10, 2],
      [10, 2],
      [10, 2],
    ]);
    assert.equal(designEffect(c.loops.sequential, op('A')), 1);
    // One object, or no failure: nothing to estimate.
    objects(c.loops.phased, 'B', [[30, 6]]);
    assert.equal(designEffect(c.loops.phased, op('B')), 1);
  });

  it('names an op that fails more under the phased loop, with its e-value, bar, sequence and the reordered ops around it', () => {
    const c = fleet();
    objects(
      c.loops.sequential,
      'B',
      tenObjects(100, (i) => (i < 2 ? 1 : 0)),
    );
    objects(
      c.loops.phased,
      'B',
      tenObjects(100, (i) => 20 + (i % 3)),
    );
    objects(
      c.loops.sequential,
      'C',
      tenObjects(100, (i) => (i % 5 === 0 ? 1 : 0)),
    );
    objects(
      c.loops.phased,
      'C',
      tenObjects(100, (i) => (i % 5 === 1 ? 1 : 0)),
    );
    const result = compareLoops(CM, c, DEFAULT_THRESHOLDS);
    assert.equal(result.tested, 2);
    const b = result.operations[0]!;
    assert.equal(b.operation, 'B');
    assert.equal(b.finding, 'worse-under-phased');
    assert.deepEqual([b.sequential.failures, b.sequential.runs, b.phased.failures, b.phased.runs], [2, 1000, 209, 1000]);
    // No spread beyond binomial in either loop: the effective counts are the counts; two tests, B's q = 2p.
    assert.deepEqual([b.sequential.designEffect, b.phased.designEffect], [1, 1]);
    const counts = { x1: 209, n1: 1000, x2: 2, n2: 1000 };
    assert.equal(b.e, (twoProportionE(counts, 'greater') + twoProportionE(counts, 'less')) / 2);
    // e-BH over two ops at 0.001: the larger e-value alone is held to 2 / 0.001.
    assert.equal(b.eBar, 2000);
    assert.equal(b.discovery, true);
    const p = fisherExact({ a: 209, b: 791, c: 2, d: 998 }).twoSided;
    assert.deepEqual(b.fixedSample.p, p);
    assert.equal(b.fixedSample.q, Math.min(1, p * 2));
    // The margin: 25 % of the sequential 0.2 % is below the 0.5-point floor.
    assert.equal(b.margin, 0.005);
    const ph = rateConfidenceSequence(209, 1000, 0.025);
    const seq = rateConfidenceSequence(2, 1000, 0.025);
    assert.deepEqual(b.interval, { low: ph.low - seq.high, high: ph.high - seq.low });
    assert.deepEqual(b.suspects, [{ op: 'A', movement: 'now-after' }]);
    assert.match(
      b.why,
      /^fails 21% under the phased loop \(209 of 1,000\) vs 0\.2% under the sequential loop \(2 of 1,000\) \(\+21 pp, beyond the margin ±0\.5% \(25% of the sequential rate, at least 0\.5%\); e = 2\.1e\+\d+, e-BH bar 2000; fixed-sample q < 0\.0001\); reordered around it: A \(now runs after it\)$/,
    );
    // C: 0.2 % in both, but 1,000 runs cannot bound the difference within ±0.5 points.
    const cOp = result.operations.find((o) => o.operation === 'C')!;
    assert.equal(cOp.finding, 'inconclusive');
  });

  it('margins scale with the rate: a 3× regression of a 0.5 % op is worse, a 2× one never the same, equal rates the same on enough runs', () => {
    const c = fleet();
    // B: 0.5 % vs 1.5 % (3×) over 100,000 runs per loop; C: 0.5 % vs 1.0 % (2×) over 4,000; D: 0.5 % in both over 100,000.
    objects(
      c.loops.sequential,
      'B',
      tenObjects(10_000, () => 50),
    );
    objects(
      c.loops.phased,
      'B',
      tenObjects(10_000, () => 150),
    );
    objects(
      c.loops.sequential,
      'C',
      tenObjects(400, () => 2),
    );
    objects(
      c.loops.phased,
      'C',
      tenObjects(400, () => 4),
    );
    objects(
      c.loops.sequential,
      'D',
      tenObjects(10_000, () => 50),
    );
    objects(
      c.loops.phased,
      'D',
      tenObjects(10_000, () => 50),
    );
    const ops = new Map(compareLoops(CM, c, DEFAULT_THRESHOLDS).operations.map((o) => [o.operation, o]));
    assert.equal(ops.get('B')!.finding, 'worse-under-phased');
    assert.equal(ops.get('B')!.margin, 0.005);
    assert.equal(ops.get('D')!.finding, 'same');
    const two = ops.get('C')!;
    assert.notEqual(two.finding, 'same');
    assert.equal(two.finding, 'inconclusive');
    // A sequence wholly on the harmful side is never the same, whatever the margin.
    const wide = compareLoops(CM, c, { ...DEFAULT_THRESHOLDS, relativeMargin: 10, absoluteMargin: 0.5 });
    const b = wide.operations.find((o) => o.operation === 'B')!;
    assert.ok(b.interval!.low > 0);
    assert.equal(b.finding, 'inconclusive');
    assert.match(b.why, /lies wholly on the harmful side, so it is not the same, but the difference is within the margin/);
  });

  it('an effect carried by one object weighs as little as that object: not a finding', () => {
    const c = fleet();
    objects(
      c.loops.sequential,
      'B',
      tenObjects(100, () => 0),
    );
    // One phased object fails 60 of its 100 runs, the nine others never.
    objects(
      c.loops.phased,
      'B',
      tenObjects(100, (i) => (i === 0 ? 60 : 0)),
    );
    const b = compareLoops(CM, c, DEFAULT_THRESHOLDS).operations[0]!;
    // p = 0.06, S = 36, X² = (36 − 3.6) / 0.0564 = 574.47, φ = 63.83: 1000 runs and 60 failures count as 16 and 1.
    assert.equal(b.phased.designEffect.toFixed(2), '63.83');
    assert.equal(b.finding, 'inconclusive');
    assert.equal(b.fixedSample.p, fisherExact({ a: 1, b: 15, c: 0, d: 1000 }).twoSided);
    assert.equal(b.e, (twoProportionE({ x1: 1, n1: 16, x2: 0, n2: 1000 }, 'greater') + twoProportionE({ x1: 1, n1: 16, x2: 0, n2: 1000 }, 'less')) / 2);
    assert.match(b.why, /weighted for the spread between objects \(design effect 63\.83 phased, 1\.00 sequential\)/);
  });

  it('is inconclusive, never the same, on too few runs, and says roughly how many more are needed', () => {
    const c = fleet();
    objects(c.loops.sequential, 'D', [[9, 0]]);
    objects(c.loops.phased, 'D', [[40, 0]]);
    const d = compareLoops(CM, c, DEFAULT_THRESHOLDS).operations[0]!;
    assert.equal(d.finding, 'inconclusive');
    assert.equal(d.e, null);
    assert.equal(d.fixedSample.p, null);
    assert.equal(d.why, '9 runs from a healthy state is too few: 9 under the sequential loop (10 needed per loop)');
    // No failure seen: the fewest runs whose confidence sequence for a rate of 0 is at most the 0.5-point margin wide.
    const n = runsToBound(0, 0.005, 1);
    assert.ok(rateConfidenceSequence(0, n, 0.025).high <= 0.005 && rateConfidenceSequence(0, n - 1, 0.025).high > 0.005, `${n}`);
    assert.equal(d.moreRunsNeeded, n - 9);
  });

  it('compares nothing when a loop ran on too few objects to tell the loop from the objects', () => {
    const c = fleet();
    c.loops.phased.objects = 3;
    objects(
      c.loops.sequential,
      'B',
      tenObjects(100, () => 0),
    );
    objects(c.loops.phased, 'B', [[300, 200]]);
    const result = compareLoops(CM, c, DEFAULT_THRESHOLDS);
    assert.equal(result.tested, 0);
    assert.equal(result.unavailable, '3 objects ran the phased loop (10 per loop needed to compare the loops’ failure rates)');
    assert.equal(result.operations[0]!.finding, 'inconclusive');
  });

  it('suspects: ops the loops order differently around an op, missing prerequisites first', () => {
    // Sequential: Fetch, A, B, D, C; phased: Fetch, B, A, C, D.
    assert.deepEqual(suspectsOf(CM, op('B')), [{ op: 'A', movement: 'now-after' }]);
    assert.deepEqual(suspectsOf(CM, op('A')), [{ op: 'B', movement: 'now-before' }]);
    assert.deepEqual(suspectsOf(CM, op('Fetch')), []);
  });
});
