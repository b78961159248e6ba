/** The rollout plan's tiers, order and pull-request numbering, on hand-made group decisions. */
import { strict as assert } from 'node:assert';
import type { ClassificationStatus, GroupDecision } from '../../../analyzer/decisions/classification.js';
import { planRollout } from '../../../analyzer/decisions/rollout.js';
import type { GroupCategory } from '../../../model/types.js';

function group(name: string, category: GroupCategory, status: ClassificationStatus, judgedRuns: number, unblockedOps: number): GroupDecision {
  return {
    group: name,
    category,
    blockable: false,
    ops: [name],
    failedAttempts: judgedRuns * 10,
    failureRuns: judgedRuns,
    judgedRuns,
    downstreamPossible: true,
    downstreamDependence: [],
    blocks: [],
    sequentialSkippedOps: 0,
    unblocked: { ops: unblockedOps, attempts: unblockedOps, top: [] },
    status,
    why: `${name} is ${status}`,
  };
}

describe('rollout plan', () => {
  it('full evidence first (strongest first, then most work freed), then partial, then waits, then keep-critical', () => {
    const steps = planRollout(
      [
        group('Waiting', 'nonCritical', 'inconclusive', 3, 500),
        group('Risky', 'nonCritical', 'candidate-critical', 40, 900),
        group('CriticalCandidate', 'critical', 'candidate-non-critical', 50, 800),
        group('StaysCritical', 'critical', 'consistent', 50, 0),
        group('StrongButSmall', 'nonCritical', 'consistent', 30, 10),
        group('WeakButBig', 'nonCritical', 'consistent', 12, 1000),
        group('StrongAndBig', 'nonCritical', 'consistent', 30, 20),
      ],
      2 * 86_400,
    );
    assert.deepEqual(
      steps.map((s) => [s.rank, s.pr, s.group, s.action, s.evidence, s.unblockedPerDay]),
      [
        [1, 'PR 3', 'StrongAndBig', 'move', 'full', 10],
        [2, 'PR 4', 'StrongButSmall', 'move', 'full', 5],
        [3, 'PR 5', 'WeakButBig', 'move', 'full', 500],
        [4, 'PR 6', 'CriticalCandidate', 'move', 'partial', 400],
        [5, null, 'Waiting', 'wait', 'none', 250],
        [6, null, 'Risky', 'keep-critical', 'full', 450],
      ],
    );
    assert.equal(steps[0]!.why, 'StrongAndBig is consistent');
  });

  it('has no per-day rate for a window under a minute', () => {
    assert.equal(planRollout([group('G', 'nonCritical', 'consistent', 12, 7)], 30)[0]!.unblockedPerDay, null);
  });
});
