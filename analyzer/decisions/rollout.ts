/**
 * The rollout plan: starting from "every group critical" (today's behaviour, the review's PR 2), the groups to move
 * to non-critical one at a time (PR 3, PR 4, ...), safest first, with the evidence and the work each step frees.
 *
 *   move (full evidence):    non-critical in the model, its failures followed by later ops with no dependence;
 *   move (partial evidence): critical in the model but a candidate for non-critical (beyond the proposed model);
 *   wait:                    non-critical in the model, not enough evidence yet;
 *   keep critical:           non-critical in the model, but downstream failures follow its failures.
 * Within a tier, more judged failure runs (stronger evidence) come first, then more work freed.
 */
import type { GroupCategory } from '../../model/types.js';
import type { GroupDecision, UnblockedWork } from './classification.js';

export type RolloutAction = 'move' | 'wait' | 'keep-critical';

export interface RolloutStep {
  readonly rank: number;
  /** The pull request this step would be, for `move` steps: PR 3 is the first reclassification. */
  readonly pr: string | null;
  readonly group: string;
  readonly category: GroupCategory;
  readonly action: RolloutAction;
  /** Full: every later op was seen after its failures; partial: only the ops that still run after a critical group. */
  readonly evidence: 'full' | 'partial' | 'none';
  readonly why: string;
  readonly unblocked: UnblockedWork;
  /** unblocked.ops per day of observation, or null for a window under a minute. */
  readonly unblockedPerDay: number | null;
}

const FIRST_RECLASSIFICATION_PR = 3;

interface Entry {
  readonly decision: GroupDecision;
  readonly tier: number;
  readonly action: RolloutAction;
  readonly evidence: RolloutStep['evidence'];
}

function entryFor(d: GroupDecision): Entry | undefined {
  if (d.category === 'nonCritical') {
    if (d.status === 'consistent') return { decision: d, tier: 0, action: 'move', evidence: 'full' };
    if (d.status === 'candidate-critical') return { decision: d, tier: 3, action: 'keep-critical', evidence: 'full' };
    return { decision: d, tier: 2, action: 'wait', evidence: 'none' };
  }
  return d.status === 'candidate-non-critical' ? { decision: d, tier: 1, action: 'move', evidence: 'partial' } : undefined;
}

export function planRollout(groups: readonly GroupDecision[], windowSeconds: number): RolloutStep[] {
  const entries = groups.flatMap((g) => entryFor(g) ?? []);
  entries.sort(
    (x, y) =>
      x.tier - y.tier ||
      y.decision.judgedRuns - x.decision.judgedRuns ||
      y.decision.unblocked.ops - x.decision.unblocked.ops ||
      (x.decision.group < y.decision.group ? -1 : 1),
  );
  const days = windowSeconds >= 60 ? windowSeconds / 86_400 : null;
  let pr = FIRST_RECLASSIFICATION_PR;
  return entries.map((e, i) => ({
    rank: i + 1,
    pr: e.action === 'move' ? `PR ${pr++}` : null,
    group: e.decision.group,
    category: e.decision.category,
    action: e.action,
    evidence: e.evidence,
    why: e.decision.why,
    unblocked: e.decision.unblocked,
    unblockedPerDay: days === null ? null : e.decision.unblocked.ops / days,
  }));
}
