/**
 * The rollout plan: starting from the phased loop with every group critical (which blocks as the sequential loop
 * stops), the groups to make non-critical one at a time, safest first, with the evidence and the work each step
 * frees; production evidence is collected between steps.
 *
 *   fix first:               what fails more or waits longer under the phased loop's order, before any step;
 *   move (full evidence):    non-critical in the model, its failures followed by later ops with no dependence;
 *   move (partial evidence): critical in the model, no dependence on the ops that still run after it;
 *   wait:                    non-critical in the model, failed but not judged yet;
 *   keep critical:           non-critical in the model, but downstream failures follow its failures.
 * A group with an op that fails more under the phased loop is not proposed until that is fixed.
 * A move must free something: op-runs that would have succeeded and that only its category decides. A group whose
 * category decided nothing in the window is not proposed, with the reason. Within a tier, more judged failure runs
 * (stronger evidence) come first, then more work freed. Rates per day come from the window when it spans a day or
 * more, and are labelled an extrapolation otherwise.
 */
import type { GroupCategory } from '../../model/types.js';
import type { FreedWork, GroupDecision } from './classification.js';

export type RolloutAction = 'move' | 'wait' | 'keep-critical';
/** `measured`: the window spans a day or more; `extrapolated`: shorter; `none`: under a minute, no rate given. */
export type PerDayBasis = 'measured' | 'extrapolated' | 'none';

export interface RolloutStep {
  /** 1, 2, ... for `move` steps, in order; null for the others. */
  readonly step: number | null;
  readonly group: string;
  readonly category: GroupCategory;
  readonly action: RolloutAction;
  /** Full: every later op was seen after its failures; partial: only the ops that still run after a critical group. */
  readonly evidence: 'full' | 'partial' | 'none';
  readonly why: string;
  readonly frees: FreedWork;
  /** frees.ops per day of observation, null when the window is under a minute. */
  readonly freesPerDay: number | null;
}

export interface FixFirst {
  readonly kind: 'worse-under-phased' | 'starved-under-phased' | 'reordered-dependence';
  readonly subject: string;
  readonly why: string;
}

export interface RolloutPlan {
  readonly startsFrom: string;
  readonly windowSeconds: number;
  readonly perDayBasis: PerDayBasis;
  readonly fixFirst: readonly FixFirst[];
  readonly steps: readonly RolloutStep[];
  readonly notProposed: readonly { readonly group: string; readonly category: GroupCategory; readonly reason: string }[];
}

export const STARTS_FROM = 'every group critical: the phased loop then blocks all later blockable work after any group fails, as the sequential loop stops';
const DAY_SECONDS = 86_400;

interface Entry {
  readonly decision: GroupDecision;
  readonly tier: number;
  readonly action: RolloutAction;
  readonly evidence: RolloutStep['evidence'];
}

function entryFor(d: GroupDecision, worse: ReadonlySet<string>): Entry | string | undefined {
  const fails = d.ops.filter((op) => worse.has(op));
  if (fails.length > 0)
    return `${fails.join(', ')} ${fails.length === 1 ? 'fails' : 'fail'} more under the phased loop: fix that first; until then its failures, and the work they free, are the phased order's doing`;
  if (d.category === 'nonCritical') {
    if (d.finding === 'should-be-critical') return { decision: d, tier: 3, action: 'keep-critical', evidence: 'full' };
    if (d.finding === 'inconclusive')
      return d.failureRuns === 0
        ? 'never failed under the phased loop: its category decided nothing yet'
        : { decision: d, tier: 2, action: 'wait', evidence: 'none' };
    if (d.freed.ops === 0) return 'its failures never let blockable work run that would have succeeded: moving it frees nothing seen';
    return { decision: d, tier: 0, action: 'move', evidence: 'full' };
  }
  if (d.detail !== 'could-be-non-critical') return undefined;
  if (d.freed.ops === 0) return 'its failures never kept blockable work from running that would have succeeded: moving it frees nothing seen';
  return { decision: d, tier: 1, action: 'move', evidence: 'partial' };
}

export function perDayBasis(windowSeconds: number): PerDayBasis {
  return windowSeconds >= DAY_SECONDS ? 'measured' : windowSeconds >= 60 ? 'extrapolated' : 'none';
}

export function planRollout(groups: readonly GroupDecision[], windowSeconds: number, fixFirst: readonly FixFirst[]): RolloutPlan {
  const entries: Entry[] = [];
  const notProposed: RolloutPlan['notProposed'][number][] = [];
  const worse = new Set(fixFirst.filter((f) => f.kind === 'worse-under-phased').map((f) => f.subject));
  for (const g of groups) {
    const e = entryFor(g, worse);
    if (typeof e === 'string') notProposed.push({ group: g.group, category: g.category, reason: e });
    else if (e) entries.push(e);
  }
  entries.sort(
    (x, y) =>
      x.tier - y.tier ||
      y.decision.judgedRuns - x.decision.judgedRuns ||
      y.decision.freed.ops - x.decision.freed.ops ||
      (x.decision.group < y.decision.group ? -1 : 1),
  );
  const basis = perDayBasis(windowSeconds);
  const days = windowSeconds / DAY_SECONDS;
  let step = 1;
  const steps = entries.map((e) => ({
    step: e.action === 'move' ? step++ : null,
    group: e.decision.group,
    category: e.decision.category,
    action: e.action,
    evidence: e.evidence,
    why: e.decision.why,
    frees: e.decision.freed,
    freesPerDay: basis === 'none' ? null : e.decision.freed.ops / days,
  }));
  return { startsFrom: STARTS_FROM, windowSeconds, perDayBasis: basis, fixFirst, steps, notProposed };
}
