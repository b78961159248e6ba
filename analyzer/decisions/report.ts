/**
 * The decisions report: the shared summary (analyzer/report/summary.ts, unchanged) composed with, per controller,
 * the verdict, the ordering evidence, the classification check, the rollout plan, the noise floor and starvation
 * over time. Pure: it reads the analyzer's summary and the evidence the DecisionEvidence listener collected.
 */
import type { ShadowAnalyzer } from '../analyzer.js';
import type { ControllerSummary, ShadowReport } from '../report/summary.js';
import { decideGroups, type GroupDecision } from './classification.js';
import { ControllerEvidence, type DecisionEvidence } from './evidence.js';
import { noiseFloor, noiseRates, type NoiseFloor } from './noise.js';
import { decideOrdering, type OrderingEvidence } from './ordering.js';
import { planRollout, type RolloutStep } from './rollout.js';
import type { DecisionThresholds } from './thresholds.js';
import { decideVerdict, type Verdict } from './verdict.js';

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

export interface ControllerDecisions {
  readonly controller: string;
  readonly model: string;
  readonly thresholds: DecisionThresholds;
  readonly verdict: Verdict;
  readonly ordering: OrderingEvidence;
  readonly groups: readonly GroupDecision[];
  readonly rollout: readonly RolloutStep[];
  readonly noiseFloor: NoiseFloor;
  readonly starvation: StarvationOverTime;
  /** Objects forgotten past the evidence's memory bound: their later attempts counted as new stretches. */
  readonly forgottenObjects: number;
}

export interface DecisionReport {
  readonly schema: typeof DECISIONS_SCHEMA;
  readonly summary: ShadowReport;
  readonly controllers: readonly ControllerDecisions[];
}

export function decideController(summary: ControllerSummary, evidence: ControllerEvidence, thresholds: DecisionThresholds): ControllerDecisions {
  const ordering = decideOrdering(evidence, noiseRates(evidence), thresholds);
  const groups = decideGroups(evidence, summary, ordering, thresholds);
  const verdict = decideVerdict({ summary, newlyBlockedAttempts: evidence.newlyBlockedAttempts, ordering, groups, thresholds });
  return {
    controller: summary.controller,
    model: summary.model,
    thresholds,
    verdict,
    ordering,
    groups,
    rollout: planRollout(groups, summary.window.seconds),
    noiseFloor: noiseFloor(evidence),
    starvation: starvationOverTime(evidence),
    forgottenObjects: evidence.forgottenObjects,
  };
}

function starvationOverTime(evidence: ControllerEvidence): StarvationOverTime {
  const points = evidence.timeline.points();
  const longest = evidence.cm.ops.map((_, op) => Math.max(0, ...points.map((p) => p.longestSeconds[op]!)));
  const charted = longest
    .map((seconds, op) => ({ op, seconds }))
    .filter((e) => e.seconds > 0)
    .sort((x, y) => y.seconds - x.seconds || x.op - y.op)
    .slice(0, STARVATION_OPS)
    .map((e) => e.op);
  return {
    bucketSeconds: evidence.timeline.bucketWidthMs / 1000,
    ops: charted.map((op) => evidence.cm.ops[op]!),
    points: points.map((p) => ({
      time: new Date(p.startMs).toISOString(),
      attempts: p.attempts,
      starvedOps: p.starvedOps,
      longestSeconds: charted.map((op) => p.longestSeconds[op]!),
    })),
  };
}

/** The report for every controller the analyzer knows, with the evidence the listener collected. */
export function decisionReport(analyzer: ShadowAnalyzer, evidence: DecisionEvidence, thresholds: DecisionThresholds): DecisionReport {
  const summary = analyzer.report();
  const controllers = analyzer.shadows.map((shadow) => {
    const name = shadow.model.controller;
    const seen = evidence.controller(name) ?? new ControllerEvidence(shadow.cm);
    return decideController(summary.controllers.find((c) => c.controller === name)!, seen, thresholds);
  });
  return { schema: DECISIONS_SCHEMA, summary, controllers };
}
