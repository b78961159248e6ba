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
import type { AttemptAnalysis } from '../../engine.js';
import type { ControllerSummary } from '../../summary/types.js';
import type { GroupDecision } from '../classification.js';
import type { ControllerCounters } from '../counters.js';
import type { LoopComparison } from '../loop-comparison.js';
import type { OrderingEvidence } from '../ordering.js';
import type { StarvationComparison } from '../starvation-comparison.js';
import type { DecisionThresholds } from '../thresholds.js';
import type { JsonReader, Path } from '../../../lib/json-reader.js';
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

/**
 * Evidence a rule counts for itself, beside the shared counters (counters.ts): one state `S` per controller, which
 * the decisions' evidence (evidence.ts) creates, feeds every attempt and hands the rule as `context.evidence`, and
 * which a partial (analyzer/partial/format.ts) carries as JSON under the rule's name and merges with `merge`. The
 * decisions of merged shards are those of one run when `merge` is associative and commutative with `create`'s state
 * its identity, and `fromJSON` reads back exactly what `toJSON` wrote. The state is per controller; a rule that keeps
 * memory per object in it bounds that memory itself (docs/decisions.md, "Performance").
 */
export interface RuleEvidence<S> {
  /** The state before any attempt. */
  create(cm: CompiledModel): S;
  /** Counts one attempt into the state, in place: every attempt, status transitions too (`attempt.record.origin.transition`). */
  observe(state: S, attempt: AttemptAnalysis, cm: CompiledModel): void;
  /** The state of both parts, as a new state: neither part changes (a merge with `create`'s state is a copy). */
  merge(a: S, b: S): S;
  /** JSON: mappings, lists, strings and finite numbers. */
  toJSON(state: S): unknown;
  /** The state from `toJSON`'s JSON, read from an untrusted partial: each problem noted through `r` at its field, under `path`. */
  fromJSON(r: JsonReader, json: unknown, path: Path, cm: CompiledModel): S;
}

/** The own evidence of one rule of a list, in hand: the rule's name, its hooks and its state. */
export interface RuleState {
  readonly rule: string;
  readonly evidence: RuleEvidence<unknown>;
  readonly state: unknown;
}

/** The empty states of the rules of `rules` that declare evidence of their own, in the list's order. */
export function emptyRuleStates(rules: readonly Rule[], cm: CompiledModel): RuleState[] {
  return rules.flatMap((rule) => (rule.evidence ? [{ rule: rule.name, evidence: rule.evidence, state: rule.evidence.create(cm) }] : []));
}

/** Everything a rule may read: the counters and the analyses computed from them once, and its own evidence. */
export interface RuleContext<S = unknown> {
  readonly cm: CompiledModel;
  readonly counters: ControllerCounters;
  readonly summary: ControllerSummary;
  readonly thresholds: DecisionThresholds;
  readonly comparison: LoopComparison;
  readonly ordering: OrderingEvidence;
  readonly starvation: StarvationComparison;
  readonly groups: readonly GroupDecision[];
  /** The rule's own evidence (`Rule.evidence`); undefined for a rule that declares none. */
  readonly evidence: S;
}

/** `K`: the kinds of reason it gives, each declared in `reasons`; `S`: the state of its own evidence, if any. */
export interface Rule<K extends string = string, S = unknown> {
  readonly name: string;
  readonly role: RuleRole;
  /** What the rule asks, for the documentation and the report's table of rules. */
  readonly question: string;
  readonly reasons: Readonly<Record<K, ReasonSpec>>;
  /** Evidence the shared counters do not hold, counted by the rule itself; most rules read the counters alone. */
  readonly evidence?: RuleEvidence<S>;
  evaluate(context: RuleContext<S>): RuleOutcome<K>;
}

/** What a rule found, as its outcome: failed when it gave reasons; each reason's harm is its kind's. */
export function outcome<K extends string, S>(
  rule: Rule<K, S>,
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
