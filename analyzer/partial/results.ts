/**
 * What a (merged) partial yields: the summary `analyze` prints and the decisions `report` prints, built by the same
 * functions a single run uses (summary-state.ts, decisions/decide.ts), so a merge of every shard reads byte for byte
 * as one run over the whole input.
 */
import { decideController, DECISIONS_SCHEMA, type DecisionReport } from '../decisions/decide.js';
import { RULES } from '../decisions/rules.js';
import type { Rule } from '../decisions/rules/rule.js';
import type { DecisionThresholds } from '../decisions/thresholds.js';
import { StarvationTimeline } from '../decisions/timeline.js';
import { inputSection, summaryFromState } from '../summary/summary-state.js';
import { SUMMARY_SCHEMA } from '../summary/types.js';
import type { Summary } from '../summary/types.js';
import type { PartialState } from './format.js';

export function summaryOf(p: PartialState): Summary {
  return {
    schema: SUMMARY_SCHEMA,
    controllers: p.controllers.map((c) => summaryFromState(c.cm, c.summary)),
    input: inputSection({
      ...p.input,
      rejectionSample: p.input.rejectionSample.map(({ input: _input, position: _position, ...rejection }) => rejection),
      sources: p.input.sources.map((s) => s.summary),
    }),
  };
}

/** Decided by `rules` (RULES by default; the list the partial was read with). Throws when a controller's partial carries no evidence (made for a summary alone). */
export function decisionReportOf(p: PartialState, thresholds: DecisionThresholds, rules: readonly Rule[] = RULES): DecisionReport {
  const summary = summaryOf(p);
  const controllers = p.controllers.map((c, i) => {
    if (!c.evidence) throw new Error(`controller ${c.cm.model.controller}: the partial carries no decisions evidence`);
    const timeline = StarvationTimeline.fromState(c.cm.ops.length, c.evidence.timeline);
    return decideController(c.cm, summary.controllers[i]!, c.evidence.counters, c.evidence.rules, timeline.points(), timeline.bucketWidthMs, thresholds, rules);
  });
  return { schema: DECISIONS_SCHEMA, summary, controllers };
}
