/** The rollout plan's tiers, order, numbering and what it refuses to propose, on hand-made group decisions. */
import { strict as assert } from 'node:assert';
import type { ClassificationDetail, ClassificationFinding, GroupDecision } from '../../../analyzer/decisions/classification.js';
import { planRollout, STARTS_FROM } from '../../../analyzer/decisions/rollout.js';
import type { GroupCategory } from '../../../model/types.js';

function group(
  name: string,
  category: GroupCategory,
  finding: ClassificationFinding,
  detail: ClassificationDetail,
  judgedRuns: number,
  freedOps: number,
  ops = [name],
): GroupDecision {
  return {
    group: name,
    category,
    blockable: false,
    ops,
    failedAttempts: judgedRuns * 10,
    failureRuns: judgedRuns,
    judgedRuns,
    downstreamPossible: true,
    downstreamDependence: [],
    blocks: [],
    sequentialSkippedOps: 0,
    freed: { ops: freedOps, attempts: freedOps, top: [] },
    finding,
    detail,
    why: `${name} is ${detail}`,
  };
}

describe('rollout plan', () => {
  const groups = [
    group('Waiting', 'nonCritical', 'inconclusive', 'inconclusive', 3, 500),
    group('Risky', 'nonCritical', 'should-be-critical', 'should-be-critical', 40, 900),
    group('CriticalCandidate', 'critical', 'ok', 'could-be-non-critical', 50, 800),
    group('StaysCritical', 'critical', 'ok', 'consistent', 50, 0),
    group('StrongButSmall', 'nonCritical', 'ok', 'consistent', 30, 10),
    group('WeakButBig', 'nonCritical', 'ok', 'consistent', 12, 1000),
    group('StrongAndBig', 'nonCritical', 'ok', 'consistent', 30, 20),
    group('FreesNothing', 'nonCritical', 'ok', 'consistent', 30, 0),
    group('NeverFailed', 'nonCritical', 'inconclusive', 'inconclusive', 0, 0),
    group('HasWorseOp', 'nonCritical', 'ok', 'consistent', 99, 5000, ['Flaky', 'Other']),
  ];

  it('full evidence first (strongest first, then most work freed), then partial, then waits, then keep-critical', () => {
    const plan = planRollout(groups, 2 * 86_400, [{ kind: 'worse-under-phased', subject: 'Flaky', why: 'fails more' }]);
    assert.equal(plan.startsFrom, STARTS_FROM);
    assert.equal(plan.perDayBasis, 'measured');
    assert.deepEqual(
      plan.steps.map((s) => [s.step, s.group, s.action, s.evidence, s.freesPerDay]),
      [
        [1, 'StrongAndBig', 'move', 'full', 10],
        [2, 'StrongButSmall', 'move', 'full', 5],
        [3, 'WeakButBig', 'move', 'full', 500],
        [4, 'CriticalCandidate', 'move', 'partial', 400],
        [null, 'Waiting', 'wait', 'none', 250],
        [null, 'Risky', 'keep-critical', 'full', 450],
      ],
    );
    assert.equal(plan.steps[0]!.why, 'StrongAndBig is consistent');
  });

  it('proposes no move that frees nothing, and no group with an op that fails more under the phased loop', () => {
    const plan = planRollout(groups, 2 * 86_400, [{ kind: 'worse-under-phased', subject: 'Flaky', why: 'fails more' }]);
    assert.deepEqual(
      plan.notProposed.map((n) => [n.group, n.reason]),
      [
        ['FreesNothing', 'its failures never let blockable work run that would have succeeded: moving it frees nothing seen'],
        ['NeverFailed', 'never failed under the phased loop: its category decided nothing yet'],
        ['HasWorseOp', "Flaky fails more under the phased loop: fix that first; until then its failures, and the work they free, are the phased order's doing"],
      ],
    );
    assert.deepEqual(
      plan.fixFirst.map((f) => f.subject),
      ['Flaky'],
    );
  });

  it('rates per day: measured from a day or more, labelled an extrapolation from less, none under a minute', () => {
    const one = [group('G', 'nonCritical', 'ok', 'consistent', 12, 7)];
    assert.deepEqual([planRollout(one, 86_400, []).perDayBasis, planRollout(one, 86_400, []).steps[0]!.freesPerDay], ['measured', 7]);
    assert.deepEqual([planRollout(one, 3_600, []).perDayBasis, planRollout(one, 3_600, []).steps[0]!.freesPerDay], ['extrapolated', 168]);
    assert.deepEqual([planRollout(one, 30, []).perDayBasis, planRollout(one, 30, []).steps[0]!.freesPerDay], ['none', null]);
  });
});
