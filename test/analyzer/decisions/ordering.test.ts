/**
 * Pair decisions on the five-op model (tiny-model.ts): every object is reconciled twice, first healthy, then with a
 * pattern, so each object adds exactly one observation to each pair its second attempt ran (all 10 s after the
 * previous attempt: one gap stratum, where the stratified test is Fisher's). The reordered pair under test is B → A
 * (the phased loop runs B first). A false discovery rate of 0.05 is used to reach the rules' edges with few objects.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decideOrdering, type PairDecision } from '../../../analyzer/decisions/ordering.js';
import { GAP_STRATA } from '../../../analyzer/decisions/counters.js';
import { logStratifiedE } from '../../../analyzer/decisions/e-values.js';
import { DEFAULT_THRESHOLDS, thresholdsFrom } from '../../../analyzer/decisions/thresholds.js';
import { compileModel } from '../../../analyzer/compiled-model.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { attempt, PHASED_OK, TINY } from './tiny-model.js';

let objectId = 0;
const THRESHOLDS = thresholdsFrom({ falseDiscoveryRate: 0.05 });

/** `count` objects: a healthy attempt, then `pattern`; `newSpec` bumps the generation in between (no A/A comparison). */
function objects(count: number, pattern: string, newSpec = false): AttemptRecord[] {
  return Array.from({ length: count }, () => {
    const name = `o${objectId++}`;
    return [attempt('phased', name, PHASED_OK, 1), attempt('phased', name, pattern, newSpec ? 2 : 1)];
  }).flat();
}

function pairs(records: AttemptRecord[]): { reordered: readonly PairDecision[]; same: readonly PairDecision[]; tested: number } {
  const analyzer = new Analyzer([TINY]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  for (const r of records) analyzer.attempt(r);
  const o = decideOrdering(compileModel(TINY), evidence.controller('widget')!.snapshot(), THRESHOLDS);
  return { reordered: o.reordered, same: o.dependentOther, tested: o.tested };
}

const find = (list: readonly PairDecision[], first: string, then: string): PairDecision => list.find((p) => p.first === first && p.then === then)!;
const HEALTHY = 'Fetch B A C D';
const B_THEN_A_FAILS = 'Fetch B! A! C D';
const ONLY_B_FAILS = 'Fetch B! A C D';

describe('ordering decisions', () => {
  it('reports every reordered pair in the phased order, with data or not', () => {
    const r = pairs(objects(3, HEALTHY));
    assert.deepEqual(r.reordered.map((p) => `${p.first} → ${p.then}`).sort(), ['B → A', 'C → D']);
    assert.ok(r.reordered.every((p) => p.reordered && p.status === 'inconclusive'));
  });

  it('is inconclusive one observation short of the minimum, however strong the dependence, and dependent at it', () => {
    const short = find(pairs([...objects(30, HEALTHY), ...objects(9, B_THEN_A_FAILS)]).reordered, 'B', 'A');
    assert.deepEqual(short.table, { a: 9, b: 0, c: 0, d: 30 });
    assert.equal(short.status, 'inconclusive');
    assert.equal(short.pGreater, null);
    assert.equal(short.why, 'A was seen after B started failing 9 times (10 needed)');

    const enough = find(pairs([...objects(30, HEALTHY), ...objects(10, B_THEN_A_FAILS)]).reordered, 'B', 'A');
    assert.deepEqual(enough.table, { a: 10, b: 0, c: 0, d: 30 });
    assert.equal(enough.status, 'dependent');
    // P(a >= 10) with margins 10/30 and 10/30: 1 / C(40, 10).
    assert.equal(enough.pGreater!.toPrecision(6), (1 / 847660528).toPrecision(6));
    assert.equal(enough.riskDifference, 1);
    // The stratified e-value over the gap strata the attempts fell in: here above that of the pooled table (each
    // stratum's baseline is a narrower sequence), and beyond the e-BH bar.
    assert.ok(enough.e! >= Math.exp(logStratifiedE([{ a: 10, b: 0, c: 0, d: 30 }], DEFAULT_THRESHOLDS.falseDiscoveryRate / GAP_STRATA)));
    assert.ok(enough.e! >= enough.eBar!);
    assert.equal(enough.discovery, true);
    assert.equal(
      enough.why,
      'A failed after B failed in 10 of 10, after it succeeded in 0 of 30 (+100 pp at equal times since the previous attempt, beyond the margin 0.5%; e = 4.0e+5, e-BH bar 100; fixed-sample q < 0.0001)',
    );
    assert.equal(enough.loop, 'phased');
  });

  it('calls a pair safe with enough observations and no increase', () => {
    const p = find(pairs([...objects(30, HEALTHY), ...objects(12, ONLY_B_FAILS)]).reordered, 'B', 'A');
    assert.deepEqual(p.table, { a: 0, b: 12, c: 0, d: 30 });
    assert.equal(p.status, 'safe');
    assert.equal(p.q!.toFixed(9), '1.000000000');
  });

  it('reports the later op’s noise floor as information, not as a hurdle: a +50 pp increase is never safe', () => {
    // Four objects whose A flips on every attempt with no spec change (B skipped, so no pair with B is affected).
    const flaky = Array.from({ length: 4 }, (_, k) =>
      Array.from({ length: 20 }, (__, i) => attempt('phased', `flaky${k}`, i % 2 === 0 ? 'Fetch B~ A C D' : 'Fetch B~ A! C D')),
    ).flat();
    const p = find(pairs([...flaky, ...objects(30, HEALTHY), ...objects(5, B_THEN_A_FAILS), ...objects(5, ONLY_B_FAILS)]).reordered, 'B', 'A');
    assert.deepEqual(p.table, { a: 5, b: 5, c: 0, d: 30 });
    assert.ok(p.q! < 0.05, `q ${p.q}`);
    // A flipped in 76 of 76 flaky comparisons and 5 of the 40 healthy-then-pattern ones.
    assert.equal(p.noiseFloor, 81 / 116);
    assert.equal(p.status, 'inconclusive');
    assert.match(p.why, /: \+50 pp is beyond the margin 0\.5% but not shown \(e = [\d.]+, e-BH bar \d+; fixed-sample q = 0\.\d+\)$/);
  });

  it('is inconclusive on a large increase that is not significant', () => {
    const p = find(
      pairs([...objects(27, HEALTHY, true), ...objects(3, 'Fetch B A! C D', true), ...objects(3, B_THEN_A_FAILS, true), ...objects(7, ONLY_B_FAILS, true)])
        .reordered,
      'B',
      'A',
    );
    assert.deepEqual(p.table, { a: 3, b: 7, c: 3, d: 27 });
    assert.equal(p.noiseFloor, null);
    assert.ok(p.q! > 0.05);
    assert.equal(p.status, 'inconclusive');
    assert.equal(
      p.why,
      'A failed after B failed in 3 of 10, after it succeeded in 3 of 30: +20 pp is beyond the margin 2.5% but not shown (e = 0.17, e-BH bar 60; fixed-sample q = 0.46)',
    );
  });

  it('says a pair cannot be tested when the phased loop never runs the later op after the first one failed', () => {
    const p = find(pairs(objects(12, 'Fetch B A C!')).reordered, 'C', 'D');
    assert.equal(p.followsFailure, false);
    assert.equal(p.status, 'inconclusive');
    assert.match(p.why, /^not testable: the phased loop never runs D after C failed/);
  });

  it('lists dependence between ops both loops run in the same order separately', () => {
    const r = pairs([...objects(30, HEALTHY), ...objects(10, 'Fetch B A! C!')]);
    assert.deepEqual(
      r.same.map((p) => `${p.first} → ${p.then}`),
      ['A → C'],
    );
    assert.ok(r.reordered.every((p) => p.status === 'inconclusive'));
  });

  it('compares at equal times since the previous attempt: a fault likelier after a long gap is no dependence', () => {
    // After an hour's gap B has started failing in half the objects, whether A failed or not; after 10 s never.
    // Pooled, B fails after A failed in 6 of 12 and otherwise in 6 of 112: a "dependence" made by the gaps alone.
    const gap = (ms: number, pattern: string): AttemptRecord[] => {
      const name = `gap${objectId++}`;
      const first = attempt('phased', name, PHASED_OK);
      const second = attempt('phased', name, pattern);
      const timeMs = first.timeMs + ms;
      return [first, { ...second, timeMs, time: new Date(timeMs).toISOString() }];
    };
    const hour = 3_600_000;
    const records = [
      ...Array.from({ length: 6 }, () => gap(hour, 'Fetch B A! C! D')).flat(),
      ...Array.from({ length: 6 }, () => gap(hour, 'Fetch B A! C D')).flat(),
      ...Array.from({ length: 6 }, () => gap(hour, 'Fetch B A C! D')).flat(),
      ...Array.from({ length: 6 }, () => gap(hour, 'Fetch B A C D')).flat(),
      ...Array.from({ length: 100 }, () => gap(10_000, 'Fetch B A C D')).flat(),
    ];
    const p = pairs(records).same.find((x) => x.first === 'A' && x.then === 'C');
    assert.equal(p, undefined);
    const analyzer = new Analyzer([TINY]);
    const evidence = new DecisionEvidence();
    analyzer.listen(evidence);
    for (const r of records) analyzer.attempt(r);
    const all = decideOrdering(compileModel(TINY), evidence.controller('widget')!.snapshot(), THRESHOLDS);
    const decided = [...all.reordered, ...all.phasedPairs].find((x) => x.first === 'A' && x.then === 'C')!;
    assert.deepEqual(decided.table, { a: 6, b: 6, c: 6, d: 106 });
    assert.equal(decided.riskDifference, 0);
    // Only the hour stratum varies: P(a >= 6) for a hypergeometric of 12 of 24, 12 drawn: 1/2 + C(12,6)² / C(24,12) / 2.
    assert.equal(decided.pGreater!.toFixed(6), (0.5 + (924 * 924) / 2704156 / 2).toFixed(6));
    assert.equal(decided.status, 'safe');
  });

  it('never calls a pair safe or dependent below the minimum sample, whatever the counts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 12 }),
        (failedThenFailed, failedThenOk, healthy) => {
          fc.pre(failedThenFailed + failedThenOk < 10);
          const p = find(
            pairs([...objects(healthy, HEALTHY), ...objects(failedThenFailed, B_THEN_A_FAILS), ...objects(failedThenOk, ONLY_B_FAILS)]).reordered,
            'B',
            'A',
          );
          assert.equal(p.status, 'inconclusive');
          assert.equal(p.q, null);
        },
      ),
      { numRuns: 40, seed: 7 },
    );
  });
});
