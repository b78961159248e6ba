/**
 * Classification check: does the data agree with each group's category?
 *
 * A group's failure "is followed by downstream failures" when some pair (op of the group, op outside it that runs
 * later) is `dependent` in the ordering evidence, so the same statistics, minimum samples and noise floor apply.
 *
 *   non-critical with downstream dependence      -> candidate-critical (continuing after its failure breaks later work)
 *   critical with enough judged failures and none -> candidate-non-critical (blocking after it frees nothing that
 *                                                   needs it, as far as the ops that still run after it show)
 *   data agrees with the category                 -> consistent
 *   too few failures followed by anything         -> inconclusive
 *
 * A critical group's failure blocks the blockable groups, so those are never seen after it: its check rests on
 * the ops that still run after it, and moving it (one rollout step) is the experiment that checks the rest.
 */
import type { GroupCategory } from '../../model/types.js';
import type { CompiledGroup } from '../compiled-model.js';
import type { ControllerSummary } from '../report/summary.js';
import type { ControllerEvidence } from './evidence.js';
import { followersOfFailure, type OrderingEvidence, type PairDecision } from './ordering.js';
import type { DecisionThresholds } from './thresholds.js';
import { plural } from './wording.js';

export type ClassificationStatus = 'candidate-critical' | 'candidate-non-critical' | 'consistent' | 'inconclusive';

export interface UnblockedWork {
  /** Op-runs that would run, over the whole window. */
  readonly ops: number;
  /** Attempts in which at least one of them would run. */
  readonly attempts: number;
  /** What would run, most often first (ops for a non-critical group, groups for a critical one). */
  readonly top: readonly { readonly name: string; readonly count: number }[];
}

export interface GroupDecision {
  readonly group: string;
  readonly category: GroupCategory;
  readonly blockable: boolean;
  readonly ops: readonly string[];
  readonly failedAttempts: number;
  readonly failureRuns: number;
  /** Failure runs with some op outside the group observed after the failure. */
  readonly judgedRuns: number;
  /** The phased loop runs something outside the group after the group fails. */
  readonly downstreamPossible: boolean;
  /** Dependent pairs from an op of the group to a later op outside it. */
  readonly downstreamDependence: readonly PairDecision[];
  /** Phased loop, critical groups: the blockable groups its failure skipped, with attempts. */
  readonly blocks: readonly { readonly group: string; readonly attempts: number }[];
  /** Sequential loop: op-runs skipped after its failure ended the attempt. */
  readonly sequentialSkippedOps: number;
  /**
   * What making it non-critical frees: for a non-critical group, the work the phased loop ran that the sequential
   * loop skipped because of it (the gain over "everything critical"); for a critical group, the blockable work
   * skipped only because it failed.
   */
  readonly unblocked: UnblockedWork;
  readonly status: ClassificationStatus;
  readonly why: string;
}

const TOP_ENTRIES = 3;

function top(counts: Uint32Array, names: readonly string[]): UnblockedWork['top'] {
  return [...counts]
    .map((count, i) => ({ name: names[i]!, count }))
    .filter((e) => e.count > 0)
    .sort((x, y) => y.count - x.count || (x.name < y.name ? -1 : 1))
    .slice(0, TOP_ENTRIES);
}

export function decideGroups(evidence: ControllerEvidence, summary: ControllerSummary, ordering: OrderingEvidence, t: DecisionThresholds): GroupDecision[] {
  const cm = evidence.cm;
  const followers = followersOfFailure(cm);
  const dependent = [...ordering.reordered, ...ordering.dependentSameOrder].filter((p) => p.status === 'dependent');
  return cm.groups.map((g, index) => {
    const c = evidence.groups[index]!;
    const ops = g.ops.map((op) => cm.ops[op]!);
    const inGroup = new Set(ops);
    const downstreamDependence = dependent.filter((p) => inGroup.has(p.first) && !inGroup.has(p.then));
    const downstreamPossible = g.ops.some((op) => followers[op]!.some((f, then) => f === 1 && cm.groupOf[then] !== index));
    const unblocked: UnblockedWork =
      g.category === 'nonCritical'
        ? { ops: c.unblockedOps, attempts: c.unblockingAttempts, top: top(c.unblockedByOp, cm.ops) }
        : { ops: c.soleBlockedOps, attempts: c.soleBlockingAttempts, top: top(c.soleBlockedGroups, cm.groups.map((x) => x.name)) };
    const counts = { failedAttempts: c.failedAttempts, failureRuns: c.failureRuns, judgedRuns: c.judgedRuns };
    return {
      group: g.name,
      category: g.category,
      blockable: g.blockable,
      ops,
      ...counts,
      downstreamPossible,
      downstreamDependence,
      blocks: summary.blockedBy.filter((b) => b.blocker === g.name).map((b) => ({ group: b.blocked, attempts: b.count })),
      sequentialSkippedOps: c.sequentialSkippedOps,
      unblocked,
      ...classify(g, counts, downstreamPossible, downstreamDependence, t),
    };
  });
}

function classify(
  g: CompiledGroup,
  c: { failureRuns: number; judgedRuns: number },
  downstreamPossible: boolean,
  dependence: readonly PairDecision[],
  t: DecisionThresholds,
): { status: ClassificationStatus; why: string } {
  const critical = g.category === 'critical';
  if (dependence.length > 0) {
    const list = dependence.map((p) => `${p.then} after ${p.first}`).join(', ');
    return critical
      ? { status: 'consistent', why: `downstream failures follow its failures (${list}): keep it critical` }
      : { status: 'candidate-critical', why: `downstream failures follow its failures (${list}): continuing after it breaks later work` };
  }
  if (!downstreamPossible) {
    return critical
      ? { status: 'inconclusive', why: 'everything after it is blocked by its failure, so only moving it can show whether that work needs it' }
      : { status: 'consistent', why: 'nothing runs after it in the phased loop, so continuing after its failure affects nothing' };
  }
  if (c.judgedRuns >= t.minFailedObservations) {
    const runs = `${plural(c.judgedRuns, 'failure run')} with later ops observed, no downstream failure follows`;
    return critical
      ? { status: 'candidate-non-critical', why: `${runs} (judged on the ops that still run after it; the blockable work it skips is untested)` }
      : { status: 'consistent', why: runs };
  }
  if (c.failureRuns === 0) return { status: 'inconclusive', why: 'never failed' };
  return {
    status: 'inconclusive',
    why: `failed in ${plural(c.failureRuns, 'run')}, ${c.judgedRuns} with later ops observed after it (${t.minFailedObservations} needed; only attempts the phased loop ran show this)`,
  };
}
