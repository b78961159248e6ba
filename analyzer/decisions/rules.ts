/**
 * The decision rules, one module each (rules/), in the order the verdict reads them: the checks of the data first,
 * then the gates, the harms and the coverage (rules/rule.ts says what each role does). Adding a rule is its module
 * and one line here; the JSON, the review document and docs/decisions.md list every rule from this list.
 */
import { CLASSIFICATION } from './rules/classification.js';
import { COVERAGE } from './rules/coverage.js';
import { DATA_SIZE } from './rules/data-size.js';
import { LOOP_COMPARISON } from './rules/loop-comparison.js';
import { ORDERING } from './rules/ordering.js';
import { POPULATION_BALANCE } from './rules/population-balance.js';
import type { Rule } from './rules/rule.js';
import { SAMPLE_RATIO } from './rules/sample-ratio.js';
import { STARVATION } from './rules/starvation.js';

export const RULES: readonly Rule[] = [SAMPLE_RATIO, POPULATION_BALANCE, DATA_SIZE, LOOP_COMPARISON, STARVATION, ORDERING, CLASSIFICATION, COVERAGE];
