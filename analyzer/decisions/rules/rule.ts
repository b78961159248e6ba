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
import type { ControllerSummary } from '../../summary/types.js';
import type { GroupDecision } from '../classification.js';
import type { ControllerCounters } from '../counters.js';
import type { LoopComparison } from '../loop-comparison.js';
import type { OrderingEvidence } from '../ordering.js';
import type { StarvationComparison } from '../starvation-comparison.js';
import type { DecisionThresholds } from '../thresholds.js';
import type { Table } from '../../../lib/table.js';

export type RuleRole = 'check' | 'gate' | 'harm' | 'coverage';

/** A kind of reason a rule may give: whether it is harm, and when it is given (for docs/decisions.md). */
export interface ReasonSpec {
  /** harm: the phased loop is measurably worse (not-ready); the others: data missing or unfit (inconclusive). */
  readonly harm: boolean;
  readonly when: string;
}

export interface RuleReason<K extends string = string> {
  readonly kind: K;
  /** From the rule's ReasonSpec of the kind. */
  readonly harm: boolean;
  readonly message: string;
}

/** A reason as its rule gives it: the harm is its kind's (`outcome`). */
export type ReasonGiven<K extends string> = Pick<RuleReason<K>, 'kind' | 'message'>;

/** A measured value, with the threshold it was held to, for a reviewer to redo the decision by hand. */
export interface Measurement {
  readonly name: string;
  readonly value: number | string | null;
  readonly threshold: number | string | null;
}

/** A section of the review document (outputs/review/document.ts draws it in HTML and Markdown). */
export interface Section {
  readonly id: string;
  readonly title: string;
  readonly intro: readonly string[];
  readonly table: Table;
  /** Rows kept out of the way: behind "show" in HTML, counted in Markdown. */
  readonly rest?: { readonly summary: string; readonly table: Table };
}

export interface RuleOutcome<K extends string = string> {
  readonly rule: string;
  readonly role: RuleRole;
  /** `fail`: the rule gave reasons; `pass`: it found nothing against the phased loop. */
  readonly status: 'pass' | 'fail';
  readonly reasons: readonly RuleReason<K>[];
  readonly measurements: readonly Measurement[];
  /** One sentence: what the rule asks and what it found. */
  readonly explanation: string;
  /**
   * The rule's own rendering, for evidence no other part of the decisions shows: `details` goes into its entry of
   * the JSON's `rules` (any object, docs/decisions.schema.json), `section` into the review document after the
   * decisions' own sections. The rules whose evidence is a shared analysis (the loop comparison, ordering,
   * starvation, classification: the rollout plan and the benefit read them too) leave both out: the JSON and the
   * document show those analyses themselves.
   */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly section?: Section;
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

/** `K`: the kinds of reason it gives, each declared in `reasons`. */
export interface Rule<K extends string = string> {
  readonly name: string;
  readonly role: RuleRole;
  /** What the rule asks, for the documentation and the report's table of rules. */
  readonly question: string;
  readonly reasons: Readonly<Record<K, ReasonSpec>>;
  evaluate(context: RuleContext): RuleOutcome<K>;
}

/** What a rule found, as its outcome: failed when it gave reasons; each reason's harm is its kind's. */
export function outcome<K extends string>(
  rule: Rule<K>,
  reasons: readonly ReasonGiven<K>[],
  measurements: readonly Measurement[],
  explanation: string,
  rendering: Pick<RuleOutcome, 'details' | 'section'> = {},
): RuleOutcome<K> {
  return {
    rule: rule.name,
    role: rule.role,
    status: reasons.length > 0 ? 'fail' : 'pass',
    reasons: reasons.map((r) => ({ kind: r.kind, harm: rule.reasons[r.kind].harm, message: r.message })),
    measurements,
    explanation,
    ...rendering,
  };
}

const LISTED = 5;

/** Up to five items, then how many more. */
export function listed<T>(items: readonly T[], show: (x: T) => string): string {
  const more = items.length > LISTED ? `; and ${items.length - LISTED} more` : '';
  return items.slice(0, LISTED).map(show).join('; ') + more;
}
