/**
 * Classification check: does the data agree with each group's category? Groups exist in the phased loop only, so
 * this reads the phased loop's evidence only.
 *
 * A group's failure "is followed by downstream failures" when some pair (op of the group, op outside it that runs
 * later) is `dependent` in the phased loop's tables, so the same statistics, minimum samples and noise floor apply.
 *
 *   non-critical with downstream dependence       -> should-be-critical (continuing after its failure breaks later work)
 *   critical with enough judged failures and none -> ok, could be non-critical (blocking after it protects nothing
 *                                                   that still runs after it, as far as those ops show)
 *   critical with nothing observable after it     -> ok: blocking is the conservative choice and the data cannot
 *                                                   show the blocked work does not need it (only moving it can)
 *   data agrees with the category                 -> ok
 *   non-critical, too few failures followed by anything -> inconclusive
 *
 * A critical group keeps the sequential loop's caution for the blockable groups, so its classification is never
 * harm: only non-critical groups can be flagged.
 */
import type { GroupCategory } from '../../model/types.js';
import type { CompiledGroup, CompiledModel } from '../compiled-model.js';
import type { ControllerSummary } from '../summary/types.js';
import type { ControllerCounters } from './counters.js';
import { followersOfFailure, type OrderingEvidence, type PairDecision } from './ordering.js';
import { marginFor, type DecisionThresholds } from './thresholds.js';
import { plural } from './wording.js';

export type ClassificationFinding = 'should-be-critical' | 'ok' | 'inconclusive';
/** The finding's detail: `ok` is `consistent` with the category or `could-be-non-critical` (a critical group). */
export type ClassificationDetail = 'should-be-critical' | 'could-be-non-critical' | 'consistent' | 'untestable' | 'inconclusive';

export interface FreedWork {
  /** Op-runs with an ok outcome that this group's category decides, over the whole window. */
  readonly ops: number;
  /** Attempts in which at least one of them was decided. */
  readonly attempts: number;
  /** The ops most often decided, most first. */
  readonly top: readonly { readonly name: string; readonly count: number }[];
}

export interface GroupDecision {
  readonly group: string;
  readonly category: GroupCategory;
  readonly blockable: boolean;
  readonly ops: readonly string[];
  /** Phased loop: attempts with a failure of the group, runs of such attempts, runs with later ops observed. */
  readonly failedAttempts: number;
  readonly failureRuns: number;
  readonly judgedRuns: number;
  /** The phased loop runs something outside the group after the group fails. */
  readonly downstreamPossible: boolean;
  /** Dependent pairs (phased loop) from an op of the group to a later op outside it. */
  readonly downstreamDependence: readonly PairDecision[];
  /** Phased loop, critical groups: the blockable groups its failure skipped, with attempts. */
  readonly blocks: readonly { readonly group: string; readonly attempts: number }[];
  /** Sequential loop: op-runs skipped after its failure ended the attempt. */
  readonly sequentialSkippedOps: number;
  /** What its category decides (counters.ts `freedOk`); ops excluded by `creditable` are left out. */
  readonly freed: FreedWork;
  readonly finding: ClassificationFinding;
  readonly detail: ClassificationDetail;
  readonly why: string;
}

const TOP_ENTRIES = 3;
const SUSPICIOUS_FAILURES = 3;

function freedWork(cm: CompiledModel, counters: ControllerCounters, group: number, creditable: (op: number) => boolean): FreedWork {
  const n = cm.ops.length;
  const entries: { name: string; count: number }[] = [];
  let ops = 0;
  for (let op = 0; op < n; op++) {
    const count = counters.freedOk[group * n + op]!;
    if (count === 0 || !creditable(op)) continue;
    ops += count;
    entries.push({ name: cm.ops[op]!, count });
  }
  entries.sort((x, y) => y.count - x.count || (x.name < y.name ? -1 : 1));
  return { ops, attempts: ops === 0 ? 0 : counters.freeingAttempts[group]!, top: entries.slice(0, TOP_ENTRIES) };
}

export function decideGroups(
  cm: CompiledModel,
  counters: ControllerCounters,
  summary: ControllerSummary,
  ordering: OrderingEvidence,
  creditable: (op: number) => boolean,
  t: DecisionThresholds,
): GroupDecision[] {
  const followers = followersOfFailure(cm, 'phased');
  const phased = counters.loops.phased;
  const dependent = [...ordering.reordered, ...ordering.dependentOther].filter((p) => p.status === 'dependent' && p.loop === 'phased');
  return cm.groups.map((g, index) => {
    const ops = g.ops.map((op) => cm.ops[op]!);
    const inGroup = new Set(ops);
    const downstreamDependence = dependent.filter((p) => inGroup.has(p.first) && !inGroup.has(p.then));
    const downstreamSuspect = ordering.phasedPairs.filter((p) => inGroup.has(p.first) && !inGroup.has(p.then) && suspicious(p, t));
    const downstreamPossible = g.ops.some((op) => followers[op]!.some((f, then) => f === 1 && cm.groupOf[then] !== index));
    const counts = {
      failedAttempts: phased.groupFailedAttempts[index]!,
      failureRuns: phased.groupFailureRuns[index]!,
      judgedRuns: phased.groupJudgedRuns[index]!,
    };
    return {
      group: g.name,
      category: g.category,
      blockable: g.blockable,
      ops,
      ...counts,
      downstreamPossible,
      downstreamDependence,
      blocks: summary.blockedBy.filter((b) => b.blocker === g.name).map((b) => ({ group: b.blocked, attempts: b.count })),
      sequentialSkippedOps: counters.sequentialSkippedOps[index]!,
      freed: freedWork(cm, counters, index, creditable),
      ...classify(g, counts, downstreamPossible, downstreamDependence, downstreamSuspect, t),
    };
  });
}

/**
 * A pair too short of data to test whose later op already failed after the first one's failures, at least
 * SUSPICIOUS_FAILURES times (one or two co-failures of rare errors happen by chance), and far more than otherwise.
 */
function suspicious(p: PairDecision, t: DecisionThresholds): boolean {
  if (p.status !== 'inconclusive' || p.rateAfterFailure === null || p.table.a < SUSPICIOUS_FAILURES) return false;
  return p.rateAfterFailure - (p.rateAfterSuccess ?? 0) > marginFor(p.rateAfterSuccess, t);
}

function classify(
  g: CompiledGroup,
  c: { failureRuns: number; judgedRuns: number },
  downstreamPossible: boolean,
  dependence: readonly PairDecision[],
  suspects: readonly PairDecision[],
  t: DecisionThresholds,
): { finding: ClassificationFinding; detail: ClassificationDetail; why: string } {
  const critical = g.category === 'critical';
  if (dependence.length > 0) {
    const list = dependence.map((p) => `${p.then} after ${p.first}`).join(', ');
    return critical
      ? { finding: 'ok', detail: 'consistent', why: `downstream failures follow its failures (${list}): keep it critical` }
      : {
          finding: 'should-be-critical',
          detail: 'should-be-critical',
          why: `downstream failures follow its failures (${list}): continuing after it breaks later work`,
        };
  }
  if (!downstreamPossible) {
    return critical
      ? {
          finding: 'ok',
          detail: 'untestable',
          why: 'everything after it is blocked by its failure: blocking is the conservative choice, and only moving it can show whether that work needs it',
        }
      : { finding: 'ok', detail: 'consistent', why: 'nothing runs after it in the phased loop, so continuing after its failure affects nothing' };
  }
  if (!critical && suspects.length > 0) {
    const list = suspects
      .map((p) => `${p.then} failed after ${p.first} failed in ${p.table.a} of ${p.table.a + p.table.b} (${t.minFailedObservations} observations needed)`)
      .join('; ');
    return {
      finding: 'inconclusive',
      detail: 'inconclusive',
      why: `later ops fail after its failures more than otherwise, on too few observations to decide: ${list}`,
    };
  }
  if (c.judgedRuns >= t.minFailedObservations) {
    const runs = `${plural(c.judgedRuns, 'failure run')} with later ops observed, no downstream failure follows`;
    return critical
      ? { finding: 'ok', detail: 'could-be-non-critical', why: `${runs} (judged on the ops that still run after it; the blockable work it skips is untested)` }
      : { finding: 'ok', detail: 'consistent', why: runs };
  }
  if (critical)
    return {
      finding: 'ok',
      detail: 'consistent',
      why: 'critical: its failure blocks the blockable groups as the sequential loop would' + (c.failureRuns === 0 ? '; never failed' : ''),
    };
  if (c.failureRuns === 0) return { finding: 'inconclusive', detail: 'inconclusive', why: 'never failed under the phased loop' };
  const missing = t.minFailedObservations - c.judgedRuns;
  return {
    finding: 'inconclusive',
    detail: 'inconclusive',
    why: `failed in ${plural(c.failureRuns, 'run')} under the phased loop, ${c.judgedRuns} with later ops observed after it (${t.minFailedObservations} needed: ${plural(missing, 'more judged run')})`,
  };
}
