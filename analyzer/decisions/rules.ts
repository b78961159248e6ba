/**
 * The decision rules, one module each (rules/), in the order the verdict reads them: the checks of the data first,
 * then the gates, the harms and the coverage (rules/rule.ts says what each role does). Adding a rule is its module
 * and one line here: the verdict, the JSON, the review document and the metric of each rule's result follow from
 * this list, and cli/generate.ts regenerates from it the reason kinds of docs/decisions.schema.json and the table of
 * rules in docs/decisions.md.
 */
import { CLASSIFICATION } from './rules/classification.js';
import { COVERAGE } from './rules/coverage.js';
import { DATA_SIZE } from './rules/data-size.js';
import { LOOP_COMPARISON } from './rules/loop-comparison.js';
import { ORDERING } from './rules/ordering.js';
import { POPULATION_BALANCE } from './rules/population-balance.js';
import type { ReasonSpec, Rule } from './rules/rule.js';
import { SAMPLE_RATIO } from './rules/sample-ratio.js';
import { STARVATION } from './rules/starvation.js';

export const RULES: readonly Rule[] = [SAMPLE_RATIO, POPULATION_BALANCE, DATA_SIZE, LOOP_COMPARISON, STARVATION, ORDERING, CLASSIFICATION, COVERAGE];

/** Every kind of reason the rules give, in the list's order: the rule that gives it, whether it is harm, and when. */
export const REASON_KINDS: readonly ({ readonly kind: string; readonly rule: string } & ReasonSpec)[] = RULES.flatMap((r) =>
  Object.entries(r.reasons).map(([kind, spec]) => ({ kind, rule: r.name, ...spec })),
);

/** The reasons that are measured harm of the phased loop: each makes the verdict not-ready. */
export const HARM_REASON_KINDS: readonly string[] = REASON_KINDS.filter((k) => k.harm).map((k) => k.kind);
