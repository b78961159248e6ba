/**
 * Switch readiness per controller, in the style of Argo Rollouts' analysis runs (Successful / Failed / Inconclusive).
 * It separates harm from design: the phased loop skipping the blockable groups while a critical group fails is what
 * the model asks for, so blocked work alone is never harm. Harm is measured:
 *
 *   not-ready     an op fails more under the phased loop; the phased loop keeps an op from running for longer
 *                 (time, net of what it frees); an op fails more after an op the phased loop now runs before it
 *                 failed; downstream failures follow a non-critical group's failures;
 *   inconclusive  too little data to decide (the phased loop's attempts, objects or window: then whatever else is
 *                 seen is only an early sign), or nothing to compare with, or an op, group or reordered pair that
 *                 fails often enough to matter and is not judged yet;
 *   ready         none of the above.
 * No data is never a pass. Reasons are listed deciding ones first; the first says what is missing and how much.
 */
import type { LoopKind } from '../../model/types.js';
import type { GroupDecision } from './classification.js';
import type { LoopCounters } from './counters.js';
import type { LoopComparison } from './loop-comparison.js';
import type { OrderingEvidence } from './ordering.js';
import type { StarvationComparison } from './starvation-comparison.js';
import type { DecisionThresholds } from './thresholds.js';
import { count, plural, span } from './wording.js';

export type VerdictStatus = 'ready' | 'not-ready' | 'inconclusive';
export type ReasonKind =
  | 'no-phased-attempts'
  | 'too-few-attempts'
  | 'too-few-objects'
  | 'window-too-short'
  | 'worse-under-phased'
  | 'starved-under-phased'
  | 'reordered-dependence'
  | 'non-critical-downstream'
  | 'no-baseline'
  | 'op-not-compared'
  | 'group-not-judged'
  | 'pair-not-judged'
  | 'nothing-to-judge';

/** The reasons that are measured harm of the phased loop: each makes the verdict not-ready. */
export const HARM_REASON_KINDS = ['worse-under-phased', 'starved-under-phased', 'reordered-dependence', 'non-critical-downstream'] as const satisfies readonly ReasonKind[];

export interface VerdictReason {
  readonly kind: ReasonKind;
  readonly status: Exclude<VerdictStatus, 'ready'>;
  /** A sign of harm seen on too little data to decide: reported, but the verdict stays inconclusive. */
  readonly early: boolean;
  readonly message: string;
}

/** What the phased loop would have run that the sequential loop did not, and how much of it counts. */
export interface Benefit {
  /** Op-runs the phased loop runs and the sequential loop skips (one-loop ops left out). */
  readonly unblockedOpRuns: number;
  /** Of those, the runs that would have succeeded, of ops that do not fail more under the phased loop, behind a sequential stop that is not one. */
  readonly creditedOpRuns: number;
  /** Not credited: the op would have failed. */
  readonly wouldFail: number;
  /** Not credited: the op, or the op that stopped the sequential loop, fails more under the phased loop. */
  readonly fromWorseOps: number;
}

export interface Verdict {
  readonly status: VerdictStatus;
  readonly reasons: readonly VerdictReason[];
  readonly benefit: Benefit;
  /** Attempts in which the phased loop would skip an op the sequential loop ran: by design while a critical group fails. */
  readonly newlyBlockedAttempts: number;
}

const LISTED = 5;

export interface VerdictInput {
  readonly loops: Readonly<Record<LoopKind, LoopCounters>>;
  readonly ordering: OrderingEvidence;
  readonly groups: readonly GroupDecision[];
  readonly comparison: LoopComparison;
  readonly starvation: StarvationComparison;
  readonly benefit: Benefit;
  readonly newlyBlockedAttempts: number;
  readonly thresholds: DecisionThresholds;
}

const windowMs = (l: LoopCounters): number => (l.attempts === 0 ? 0 : l.lastMs - l.firstMs);

/** What the loop's data lacks against the minimums, each with how much more is needed. */
function shortfalls(l: LoopCounters, loop: LoopKind, t: DecisionThresholds): { kind: ReasonKind; message: string }[] {
  const out: { kind: ReasonKind; message: string }[] = [];
  if (l.attempts < t.minAttempts) out.push({ kind: 'too-few-attempts', message: `${plural(l.attempts, 'attempt')} ran the ${loop} loop (${count(t.minAttempts)} needed: ${count(t.minAttempts - l.attempts)} more)` });
  if (l.objects < t.minObjects) out.push({ kind: 'too-few-objects', message: `${plural(l.objects, 'object')} ran the ${loop} loop (${count(t.minObjects)} needed: ${count(t.minObjects - l.objects)} more)` });
  const ms = windowMs(l);
  if (ms < t.minWindow) out.push({ kind: 'window-too-short', message: `the ${loop} loop was observed for ${span(ms)} (${span(t.minWindow)} needed: about ${span(t.minWindow - ms)} more)` });
  return out;
}

function listed<T>(items: readonly T[], show: (x: T) => string): string {
  const more = items.length > LISTED ? `; and ${items.length - LISTED} more` : '';
  return items.slice(0, LISTED).map(show).join('; ') + more;
}

export function decideVerdict(input: VerdictInput): Verdict {
  const { loops, ordering, groups, comparison, starvation, thresholds: t } = input;
  const gates: VerdictReason[] = [];
  const harm: { kind: ReasonKind; message: string }[] = [];
  const missing: VerdictReason[] = [];
  const inconclusive = (kind: ReasonKind, message: string): number => missing.push({ kind, status: 'inconclusive', early: false, message });

  const phased = loops.phased;
  if (phased.attempts === 0) {
    gates.push({ kind: 'no-phased-attempts', status: 'inconclusive', early: false, message: 'no attempt ran the phased loop: only attempts it runs show how it behaves after a failure; put part of the fleet on it (a canary)' });
  } else {
    for (const s of shortfalls(phased, 'phased', t)) gates.push({ ...s, status: 'inconclusive', early: false });
  }

  for (const op of comparison.operations.filter((o) => o.finding === 'worse-under-phased')) harm.push({ kind: 'worse-under-phased', message: `${op.operation} fails more under the phased loop: ${op.why}` });
  for (const op of starvation.operations.filter((o) => o.finding === 'starved-under-phased')) harm.push({ kind: 'starved-under-phased', message: `${op.operation} waits longer under the phased loop: ${op.why}` });
  for (const p of ordering.reordered.filter((x) => x.status === 'dependent')) {
    harm.push({ kind: 'reordered-dependence', message: `${p.then} depends on ${p.first} failing earlier in the attempt, and the phased loop runs ${p.first} first: ${p.why}` });
  }
  for (const g of groups.filter((x) => x.finding === 'should-be-critical')) harm.push({ kind: 'non-critical-downstream', message: `${g.group} is non-critical, but ${g.why}` });

  const sequential = loops.sequential;
  if (sequential.attempts === 0) {
    inconclusive('no-baseline', 'no attempt ran the sequential loop, so no op’s failure rate can be compared between the loops: keep part of the fleet on it');
  } else {
    const short = shortfalls(sequential, 'sequential', t);
    if (short.length > 0) inconclusive('no-baseline', `too little to compare with: ${short.map((s) => s.message).join('; ')}`);
  }
  const uncompared = comparison.operations.filter((o) => o.material && o.finding === 'inconclusive');
  if (uncompared.length > 0 && comparison.unavailable === null) {
    inconclusive('op-not-compared', `${plural(uncompared.length, 'op')} that fail often enough to matter ${uncompared.length === 1 ? 'is' : 'are'} not yet compared between the loops: ${listed(uncompared, (o) => `${o.operation} (${o.why})`)}`);
  }
  const material = groups.filter((g) => g.failureRuns >= t.materialFailures);
  for (const g of material.filter((x) => x.finding === 'inconclusive')) inconclusive('group-not-judged', `${g.group} (non-critical): ${g.why}`);
  const unjudged = ordering.reordered.filter((p) => p.status === 'inconclusive' && p.followsFailure && p.firstFailureRuns >= t.materialFailures);
  if (unjudged.length > 0) {
    inconclusive('pair-not-judged', `${plural(unjudged.length, 'reordered pair')} whose first op fails often enough to matter lack data: ${listed(unjudged, (p) => `${p.first} → ${p.then} (${p.why})`)}`);
  }
  if (material.length === 0 && phased.attempts > 0) {
    inconclusive('nothing-to-judge', `no group failed in ${t.materialFailures} or more distinct runs under the phased loop, so nothing shows how it behaves after a failure`);
  }

  const decided = gates.length === 0;
  const harmReasons: VerdictReason[] = harm.map((h) =>
    decided ? { ...h, status: 'not-ready', early: false } : { ...h, status: 'inconclusive', early: true, message: `early sign, on too little data to decide: ${h.message}` },
  );
  const reasons = decided ? [...harmReasons, ...missing] : [...gates, ...harmReasons, ...missing];
  const status: VerdictStatus = decided && harmReasons.length > 0 ? 'not-ready' : reasons.length > 0 ? 'inconclusive' : 'ready';
  return { status, reasons, benefit: input.benefit, newlyBlockedAttempts: input.newlyBlockedAttempts };
}
