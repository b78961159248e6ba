/**
 * The decisions: the shared summary (analyzer/summary/summary.ts, unchanged) composed with, per controller,
 * the loop comparison, the ordering evidence, the classification check, starvation in time, the verdict (a fold
 * over the rules of rules.ts, each evaluated once on these analyses), the rollout plan and the noise floor. Pure: a
 * function of the summary, the evidence counters (counters.ts) and the rules' own evidence (rules/rule.ts), so a
 * merged state of several partial runs decides exactly as one run over the same attempts would.
 */
import type { Analyzer } from '../analyzer.js';
import type { CompiledModel } from '../compiled-model.js';
import type { ControllerSummary, Summary } from '../summary/types.js';
import { LOOP_KINDS, type LoopKind } from '../../model/types.js';
import { decideGroups, type GroupDecision } from './classification.js';
import type { ControllerCounters } from './counters.js';
import type { DecisionEvidence } from './evidence.js';
import { compareLoops, type LoopComparison } from './loop-comparison.js';
import { noiseFloor, type NoiseFloor } from './noise.js';
import { decideOrdering, type OrderingEvidence } from './ordering.js';
import { planRollout, type FixFirst, type RolloutPlan } from './rollout.js';
import { compareStarvation, type StarvationComparison } from './starvation-comparison.js';
import type { DecisionThresholds } from './thresholds.js';
import type { TimelinePoint } from './timeline.js';
import { RULES } from './rules.js';
import type { Rule, RuleState } from './rules/rule.js';
import { decideVerdict, type Benefit, type Verdict } from './verdict.js';

export const DECISIONS_SCHEMA = 'reconcile-shadow/decisions/v1';
/** Lines on the starvation-over-time chart: the ops with the longest starvation. */
const STARVATION_OPS = 5;

export interface StarvationOverTime {
  readonly bucketSeconds: number;
  /** The ops charted, longest starvation first. */
  readonly ops: readonly string[];
  readonly points: readonly {
    readonly time: string;
    readonly attempts: number;
    readonly starvedOps: number;
    /** Per charted op (same order as `ops`): the longest open starvation sampled in the bucket, seconds. */
    readonly longestSeconds: readonly number[];
  }[];
}

/** What each loop's evidence rests on: the populations compared. */
export interface LoopPopulation {
  readonly attempts: number;
  /** Attempts whose outcomes were used (status transitions list only failures and are left out). */
  readonly usedAttempts: number;
  readonly objects: number;
  readonly first: string | null;
  readonly last: string | null;
  readonly windowSeconds: number;
}

export interface ControllerDecisions {
  readonly controller: string;
  readonly model: string;
  /** The operator build the model was chosen for, as the summary states it (absent for a model without builds). */
  readonly operatorBuild?: ControllerSummary['operatorBuild'];
  readonly thresholds: DecisionThresholds;
  readonly populations: Readonly<Record<LoopKind, LoopPopulation>> & { readonly objectsInBothLoops: number };
  readonly verdict: Verdict;
  readonly comparison: LoopComparison;
  readonly starvationComparison: StarvationComparison;
  readonly ordering: OrderingEvidence;
  readonly groups: readonly GroupDecision[];
  readonly rollout: RolloutPlan;
  readonly noiseFloor: Readonly<Record<LoopKind, NoiseFloor>>;
  readonly starvation: StarvationOverTime;
  /** Objects forgotten past the evidence's memory bound: their later attempts counted as new objects. */
  readonly forgottenObjects: number;
}

export interface DecisionReport {
  readonly schema: typeof DECISIONS_SCHEMA;
  readonly summary: Summary;
  readonly controllers: readonly ControllerDecisions[];
}

function population(counters: ControllerCounters, loop: LoopKind): LoopPopulation {
  const l = counters.loops[loop];
  const seen = l.attempts > 0;
  return {
    attempts: l.attempts,
    usedAttempts: l.usedAttempts,
    objects: l.objects,
    first: seen ? new Date(l.firstMs).toISOString() : null,
    last: seen ? new Date(l.lastMs).toISOString() : null,
    windowSeconds: seen ? (l.lastMs - l.firstMs) / 1000 : 0,
  };
}

/** Unblocked op-runs credited only where the op would have succeeded and neither it nor the sequential stop is an artefact of the phased loop. */
function benefit(counters: ControllerCounters, creditable: (op: number) => boolean): Benefit {
  const n = counters.opCount;
  let unblockedOpRuns = 0;
  let ok = 0;
  let creditedOpRuns = 0;
  for (let op = 0; op < n; op++) unblockedOpRuns += counters.unblocked[op]!;
  for (let blocker = 0; blocker < n; blocker++) {
    for (let op = 0; op < n; op++) {
      const runs = counters.unblockedOk[blocker * n + op]!;
      ok += runs;
      if (creditable(blocker) && creditable(op)) creditedOpRuns += runs;
    }
  }
  return { unblockedOpRuns, creditedOpRuns, wouldFail: unblockedOpRuns - ok, fromWorseOps: ok - creditedOpRuns };
}

function fixFirst(comparison: LoopComparison, starvation: StarvationComparison, ordering: OrderingEvidence): FixFirst[] {
  return [
    ...comparison.operations
      .filter((o) => o.finding === 'worse-under-phased')
      .map((o): FixFirst => ({ kind: 'worse-under-phased', subject: o.operation, why: o.why })),
    ...starvation.operations
      .filter((o) => o.finding === 'starved-under-phased')
      .map((o): FixFirst => ({ kind: 'starved-under-phased', subject: o.operation, why: o.why })),
    ...ordering.reordered
      .filter((p) => p.status === 'dependent')
      .map((p): FixFirst => ({ kind: 'reordered-dependence', subject: `${p.first} → ${p.then}`, why: p.why })),
  ];
}

export function decideController(
  cm: CompiledModel,
  summary: ControllerSummary,
  counters: ControllerCounters,
  ruleStates: readonly RuleState[],
  timeline: readonly TimelinePoint[],
  bucketMs: number,
  thresholds: DecisionThresholds,
  rules: readonly Rule[] = RULES,
): ControllerDecisions {
  const comparison = compareLoops(cm, counters, thresholds);
  const worse = new Set(comparison.operations.filter((o) => o.finding === 'worse-under-phased').map((o) => cm.opIndex.get(o.operation)!));
  const creditable = (op: number): boolean => !worse.has(op);
  const starvationComparison = compareStarvation(cm, counters, thresholds);
  const ordering = decideOrdering(cm, counters, thresholds);
  const groups = decideGroups(cm, counters, summary, ordering, creditable, thresholds);
  const context = { cm, counters, summary, thresholds, comparison, ordering, starvation: starvationComparison, groups };
  const stateOf = (rule: Rule): unknown => {
    if (!rule.evidence) return undefined;
    const own = ruleStates.find((s) => s.rule === rule.name);
    if (!own) throw new Error(`rule ${rule.name}: its evidence was not collected (the evidence was counted for another list of rules)`);
    return own.state;
  };
  const verdict = decideVerdict(
    rules.map((rule) => rule.evaluate({ ...context, evidence: stateOf(rule) })),
    benefit(counters, creditable),
    counters.newlyBlockedAttempts,
  );
  return {
    controller: summary.controller,
    model: summary.model,
    ...(summary.operatorBuild && { operatorBuild: summary.operatorBuild }),
    thresholds,
    populations: { sequential: population(counters, 'sequential'), phased: population(counters, 'phased'), objectsInBothLoops: counters.objectsInBothLoops },
    verdict,
    comparison,
    starvationComparison,
    ordering,
    groups,
    rollout: planRollout(groups, summary.window.seconds, fixFirst(comparison, starvationComparison, ordering)),
    noiseFloor: Object.fromEntries(LOOP_KINDS.map((loop) => [loop, noiseFloor(counters, loop, cm.ops)])) as Record<LoopKind, NoiseFloor>,
    starvation: starvationOverTime(cm, timeline, bucketMs),
    forgottenObjects: counters.forgottenObjects,
  };
}

function starvationOverTime(cm: CompiledModel, points: readonly TimelinePoint[], bucketMs: number): StarvationOverTime {
  const longest = cm.ops.map((_, op) => Math.max(0, ...points.map((p) => p.longestSeconds[op]!)));
  const charted = longest
    .map((seconds, op) => ({ op, seconds }))
    .filter((e) => e.seconds > 0)
    .sort((x, y) => y.seconds - x.seconds || x.op - y.op)
    .slice(0, STARVATION_OPS)
    .map((e) => e.op);
  return {
    bucketSeconds: bucketMs / 1000,
    ops: charted.map((op) => cm.ops[op]!),
    points: points.map((p) => ({
      time: new Date(p.startMs).toISOString(),
      attempts: p.attempts,
      starvedOps: p.starvedOps,
      longestSeconds: charted.map((op) => p.longestSeconds[op]!),
    })),
  };
}

/** The decisions for every controller the analyzer knows, with the evidence the listener collected, by the evidence's rules. */
export function decisionReport(analyzer: Analyzer, evidence: DecisionEvidence, thresholds: DecisionThresholds): DecisionReport {
  const summary = analyzer.summary();
  const controllers = analyzer.controllers.map((controller) => {
    const name = controller.model.controller;
    const seen = evidence.of(controller.cm);
    return decideController(
      controller.cm,
      summary.controllers.find((c) => c.controller === name)!,
      seen.snapshot(),
      seen.ruleSnapshot(),
      seen.timeline.points(),
      seen.timeline.bucketWidthMs,
      thresholds,
      evidence.rules,
    );
  });
  return { schema: DECISIONS_SCHEMA, summary, controllers };
}
