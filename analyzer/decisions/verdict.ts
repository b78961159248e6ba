/**
 * Switch readiness per controller, in the style of Argo Rollouts' analysis runs (Successful / Failed / Inconclusive):
 *
 *   not-ready     evidence of harm, however little data: the phased loop skipped work the sequential loop ran
 *                 (above maxNewlyBlockedRate), an op depends on the failure of an op the phased loop now runs
 *                 before it, or downstream failures follow a non-critical group's failures;
 *   inconclusive  no harm seen, but not enough to say so: too few attempts or objects, too short a window, a group
 *                 or reordered pair that fails often enough to matter but was not judged, or nothing failed often
 *                 enough to show how the phased loop behaves after a failure;
 *   ready         none of the above.
 * No data is never a pass: every reason is listed, the deciding ones first.
 */
import type { ControllerSummary } from '../report/summary.js';
import type { GroupDecision } from './classification.js';
import type { OrderingEvidence } from './ordering.js';
import type { DecisionThresholds } from './thresholds.js';
import { count, percent, plural, span } from './wording.js';

export type VerdictStatus = 'ready' | 'not-ready' | 'inconclusive';
export type ReasonKind =
  | 'newly-blocked'
  | 'reordered-dependence'
  | 'non-critical-downstream'
  | 'too-few-attempts'
  | 'too-few-objects'
  | 'window-too-short'
  | 'group-not-judged'
  | 'pair-not-judged'
  | 'nothing-to-judge';

export interface VerdictReason {
  readonly kind: ReasonKind;
  readonly status: Exclude<VerdictStatus, 'ready'>;
  readonly message: string;
}

export interface Verdict {
  readonly status: VerdictStatus;
  /** Deciding reasons first (not-ready before inconclusive). Empty when ready. */
  readonly reasons: readonly VerdictReason[];
  /** Op-runs the phased loop would have run that the sequential loop skipped (one-loop ops left out). */
  readonly unblockedOps: number;
  /** Op-runs the sequential loop ran that the phased loop would have skipped (one-loop ops left out). */
  readonly newlyBlockedOps: number;
  readonly newlyBlockedAttempts: number;
}

const LISTED_PAIRS = 5;

export interface VerdictInput {
  readonly summary: ControllerSummary;
  readonly newlyBlockedAttempts: number;
  readonly ordering: OrderingEvidence;
  readonly groups: readonly GroupDecision[];
  readonly thresholds: DecisionThresholds;
}

export function decideVerdict({ summary, newlyBlockedAttempts, ordering, groups, thresholds: t }: VerdictInput): Verdict {
  const reasons: VerdictReason[] = [];
  const notReady = (kind: ReasonKind, message: string): number => reasons.push({ kind, status: 'not-ready', message });
  const inconclusive = (kind: ReasonKind, message: string): number => reasons.push({ kind, status: 'inconclusive', message });
  const attempts = summary.attempts.total;
  const bothLoops = summary.operations.filter((o) => o.onlyIn === null);

  if (attempts > 0 && newlyBlockedAttempts / attempts > t.maxNewlyBlockedRate) {
    const mostOften = bothLoops
      .filter((o) => o.newlyBlocked > 0)
      .sort((x, y) => y.newlyBlocked - x.newlyBlocked || (x.name < y.name ? -1 : 1))
      .slice(0, 3)
      .map((o) => `${o.name} (${count(o.newlyBlocked)})`);
    notReady(
      'newly-blocked',
      `the phased loop would have skipped work the sequential loop ran in ${count(newlyBlockedAttempts)} of ${count(attempts)} attempts (${percent(newlyBlockedAttempts / attempts)}, ` +
        `${percent(t.maxNewlyBlockedRate)} tolerated); most often ${mostOften.join(', ')}`,
    );
  }
  for (const p of ordering.reordered.filter((x) => x.status === 'dependent')) {
    notReady('reordered-dependence', `${p.then} depends on ${p.first} failing earlier in the attempt, and the phased loop runs ${p.first} first: ${p.why}`);
  }
  for (const g of groups.filter((x) => x.status === 'candidate-critical')) {
    notReady('non-critical-downstream', `${g.group} is non-critical, but ${g.why}`);
  }

  if (attempts < t.minAttempts) inconclusive('too-few-attempts', `${plural(attempts, 'attempt')} observed (${count(t.minAttempts)} needed)`);
  if (summary.objects < t.minObjects) inconclusive('too-few-objects', `${plural(summary.objects, 'object')} observed (${count(t.minObjects)} needed)`);
  if (summary.window.seconds * 1000 < t.minWindowMs) {
    inconclusive('window-too-short', `observed for ${span(summary.window.seconds * 1000)} (${span(t.minWindowMs)} needed)`);
  }
  const material = groups.filter((g) => g.failureRuns >= t.materialFailures);
  for (const g of material.filter((x) => x.status === 'inconclusive')) {
    inconclusive('group-not-judged', `${g.group} (${g.category === 'critical' ? 'critical' : 'non-critical'}): ${g.why}`);
  }
  const unjudged = ordering.reordered.filter((p) => p.status === 'inconclusive' && p.followsFailure && p.firstFailureRuns >= t.materialFailures);
  if (unjudged.length > 0) {
    const listed = unjudged.slice(0, LISTED_PAIRS).map((p) => `${p.first} → ${p.then} (${p.why})`);
    const more = unjudged.length > LISTED_PAIRS ? `, and ${unjudged.length - LISTED_PAIRS} more` : '';
    inconclusive('pair-not-judged', `${plural(unjudged.length, 'reordered pair')} whose first op fails often enough to matter lack data: ${listed.join('; ')}${more}`);
  }
  if (material.length === 0) {
    inconclusive('nothing-to-judge', `no group failed in ${t.materialFailures} or more distinct runs, so nothing shows how the phased loop behaves after a failure`);
  }

  const status: VerdictStatus = reasons.some((r) => r.status === 'not-ready') ? 'not-ready' : reasons.length > 0 ? 'inconclusive' : 'ready';
  return {
    status,
    reasons,
    unblockedOps: bothLoops.reduce((sum, o) => sum + o.unblocked, 0),
    newlyBlockedOps: bothLoops.reduce((sum, o) => sum + o.newlyBlocked, 0),
    newlyBlockedAttempts,
  };
}
