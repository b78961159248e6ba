/**
 * A decision rule: one module that reads the evidence, says whether the phased loop passes it, and explains itself
 * (what it measured, against which threshold, and why) for the JSON and the review document. The verdict is a fold
 * over the outcomes of the rules listed in rules.ts; adding a rule is a module here and a line there.
 *
 * Roles, in the order the verdict reads them:
 *   check     is the data itself fit to judge (sample ratio, population balance)? A failure makes the verdict
 *             inconclusive with the check first, and what harm is seen only an early sign;
 *   gate      is there enough of it (attempts, objects)? A failure does the same, after the checks;
 *   harm      is the phased loop measurably worse? A finding makes the verdict not-ready; its rule may also say
 *             what is not judged yet (inconclusive);
 *   coverage  has the evidence seen enough (hours of the day, a window)? It may hold back ready, never demote harm.
 */
import type { CompiledModel } from '../../compiled-model.js';
import type { ControllerSummary } from '../../summary/summary.js';
import type { GroupDecision } from '../classification.js';
import type { ControllerCounters } from '../counters.js';
import type { LoopComparison } from '../loop-comparison.js';
import type { OrderingEvidence } from '../ordering.js';
import type { StarvationComparison } from '../starvation-comparison.js';
import type { DecisionThresholds } from '../thresholds.js';

export type RuleRole = 'check' | 'gate' | 'harm' | 'coverage';

export type ReasonKind =
  | 'sample-ratio'
  | 'population-imbalance'
  | 'no-phased-attempts'
  | 'too-few-attempts'
  | 'too-few-objects'
  | 'worse-under-phased'
  | 'starved-under-phased'
  | 'reordered-dependence'
  | 'non-critical-downstream'
  | 'no-baseline'
  | 'op-not-compared'
  | 'starvation-effect-unknown'
  | 'group-not-judged'
  | 'pair-not-judged'
  | 'nothing-to-judge'
  | 'hours-not-covered'
  | 'window-too-short';

export interface RuleReason {
  readonly kind: ReasonKind;
  /** harm: the phased loop is measurably worse (not-ready); the others: data missing or unfit (inconclusive). */
  readonly harm: boolean;
  readonly message: string;
}

/** A measured value, with the threshold it was held to, for a reviewer to redo the decision by hand. */
export interface Measurement {
  readonly name: string;
  readonly value: number | string | null;
  readonly threshold: number | string | null;
}

export interface RuleOutcome {
  readonly rule: string;
  readonly role: RuleRole;
  /** `fail`: the rule gave reasons; `pass`: it found nothing against the phased loop. */
  readonly status: 'pass' | 'fail';
  readonly reasons: readonly RuleReason[];
  readonly measurements: readonly Measurement[];
  /** One sentence: what the rule asks and what it found. */
  readonly explanation: string;
}

/** Everything a rule may read: the counters and the analyses computed from them once. */
export interface RuleContext {
  readonly cm: CompiledModel;
  readonly counters: ControllerCounters;
  readonly summary: ControllerSummary;
  readonly thresholds: DecisionThresholds;
  readonly comparison: LoopComparison;
  readonly ordering: OrderingEvidence;
  readonly starvation: StarvationComparison;
  readonly groups: readonly GroupDecision[];
}

export interface Rule {
  readonly name: string;
  readonly role: RuleRole;
  /** What the rule asks, for the documentation and the report's table of rules. */
  readonly question: string;
  evaluate(context: RuleContext): RuleOutcome;
}

/** An outcome from the rule's reasons: failed when it has any. */
export function outcome(rule: Rule, reasons: readonly RuleReason[], measurements: readonly Measurement[], explanation: string): RuleOutcome {
  return { rule: rule.name, role: rule.role, status: reasons.length > 0 ? 'fail' : 'pass', reasons, measurements, explanation };
}

const LISTED = 5;

/** Up to five items, then how many more. */
export function listed<T>(items: readonly T[], show: (x: T) => string): string {
  const more = items.length > LISTED ? `; and ${items.length - LISTED} more` : '';
  return items.slice(0, LISTED).map(show).join('; ') + more;
}
