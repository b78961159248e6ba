/**
 * The classification check on the five-op model (tiny-model.ts): First (op A) is non-critical and Core (op C) runs
 * after it. Objects are reconciled twice; the first attempt sets what counts as "previous".
 */
import { strict as assert } from 'node:assert';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { decideGroups } from '../../../analyzer/decisions/classification.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decideOrdering } from '../../../analyzer/decisions/ordering.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { compileModel } from '../../../analyzer/compiled-model.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { attempt, PHASED_OK, TINY } from './tiny-model.js';

let objectId = 0;
const objects = (count: number, firstAttempt: string, second: string): AttemptRecord[] =>
  Array.from({ length: count }, () => {
    const name = `c${objectId++}`;
    return [attempt('phased', name, firstAttempt), attempt('phased', name, second)];
  }).flat();

function first(records: readonly AttemptRecord[]) {
  const analyzer = new Analyzer([TINY]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  for (const r of records) analyzer.attempt(r);
  const cm = compileModel(TINY);
  const counters = evidence.controller('widget')!.snapshot();
  const summary = analyzer.summary().controllers[0]!;
  return decideGroups(cm, counters, summary, decideOrdering(cm, counters, DEFAULT_THRESHOLDS), () => true, DEFAULT_THRESHOLDS).find(
    (g) => g.group === 'First',
  )!;
}

describe('classification check', () => {
  // Twelve failure runs of A judged (C and D ran after it) whose pair with C cannot count: C had failed before.
  const judged = (): AttemptRecord[] => [...objects(30, PHASED_OK, PHASED_OK), ...objects(12, 'Fetch B A C!', 'Fetch B A! C D')];

  it('is ok with enough judged failure runs and no downstream pair failing after it', () => {
    const g = first([...judged(), ...objects(2, PHASED_OK, 'Fetch B A! C! D')]);
    assert.equal(g.judgedRuns, 14);
    assert.deepEqual([g.finding, g.detail], ['ok', 'consistent']);
    assert.equal(g.why, '14 failure runs with later ops observed, no downstream failure follows');
  });

  it('stays inconclusive while a later op already failed after it three times, too few to test', () => {
    const g = first([...judged(), ...objects(3, PHASED_OK, 'Fetch B A! C! D')]);
    assert.equal(g.judgedRuns, 15);
    assert.equal(g.finding, 'inconclusive');
    assert.equal(
      g.why,
      'later ops fail after its failures more than otherwise, on too few observations to decide: C failed after A failed in 3 of 3 (10 observations needed)',
    );
  });

  it('should be critical once the dependence is tested', () => {
    const g = first([...judged(), ...objects(10, PHASED_OK, 'Fetch B A! C! D')]);
    assert.equal(g.finding, 'should-be-critical');
    assert.deepEqual(
      g.downstreamDependence.map((p) => `${p.first} → ${p.then}`),
      ['A → C'],
    );
  });
});
