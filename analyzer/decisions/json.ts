/**
 * `report --format json`: the decisions as plain data, for tooling and CI gates. docs/decisions.schema.json is its
 * contract (a test validates real output against it). Names follow the questions asked: `ordering` (before/after
 * pairs), `classification`, `loopComparison`, `starvation`, `rollout`; every finding carries its numbers and a
 * sentence saying why. Numbers are finite: what cannot be computed is null.
 */
import type { Summary } from '../summary/types.js';
import type { GroupDecision } from './classification.js';
import type { OperationComparison } from './loop-comparison.js';
import type { NoiseFloor } from './noise.js';
import type { PairDecision } from './ordering.js';
import type { ControllerDecisions, DecisionReport } from './decide.js';
import type { RolloutPlan } from './rollout.js';
import type { DecisionThresholds } from './thresholds.js';

const finite = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : x);

function pair(p: PairDecision): Record<string, unknown> {
  return {
    before: p.first,
    after: p.then,
    loop: p.loop,
    reordered: p.reordered,
    finding: p.status,
    p: finite(p.pGreater),
    q: finite(p.q),
    table: p.table,
    rateAfterFailure: finite(p.rateAfterFailure),
    rateAfterSuccess: finite(p.rateAfterSuccess),
    difference: finite(p.riskDifference),
    e: finite(p.e),
    eBar: finite(p.eBar),
    discovery: p.discovery,
    margin: p.margin,
    noiseFloor: finite(p.noiseFloor),
    testable: p.followsFailure,
    firstFailureRuns: p.firstFailureRuns,
    why: p.why,
  };
}

function comparison(o: OperationComparison): Record<string, unknown> {
  const side = (s: OperationComparison['sequential']): Record<string, unknown> => ({
    runs: s.runs,
    failures: s.failures,
    rate: finite(s.rate),
    objects: s.objects,
    designEffect: s.designEffect,
  });
  return {
    operation: o.operation,
    sequential: side(o.sequential),
    phased: side(o.phased),
    difference: finite(o.difference),
    interval: o.interval && { low: o.interval.low, high: o.interval.high },
    margin: o.margin,
    e: finite(o.e),
    eWorse: finite(o.eWorse),
    eBar: finite(o.eBar),
    discovery: o.discovery,
    identical: o.identical,
    fixedSample: {
      p: finite(o.fixedSample.p),
      q: finite(o.fixedSample.q),
      interval: o.fixedSample.interval && { low: o.fixedSample.interval.low, high: o.fixedSample.interval.high },
    },
    noiseFloor: finite(o.noiseFloor),
    finding: o.finding,
    material: o.material,
    moreRunsNeeded: finite(o.moreRunsNeeded),
    suspects: o.suspects.map((s) => ({ operation: s.op, movement: s.movement })),
    why: o.why,
  };
}

function group(g: GroupDecision): Record<string, unknown> {
  return {
    group: g.group,
    category: g.category,
    blockable: g.blockable,
    operations: g.ops,
    finding: g.finding,
    detail: g.detail,
    failedAttempts: g.failedAttempts,
    failureRuns: g.failureRuns,
    judgedRuns: g.judgedRuns,
    downstream: g.downstreamDependence.map((p) => ({ before: p.first, after: p.then, q: finite(p.q) })),
    frees: { opRuns: g.freed.ops, attempts: g.freed.attempts, top: g.freed.top.map((x) => ({ operation: x.name, count: x.count })) },
    why: g.why,
  };
}

function rollout(plan: RolloutPlan): Record<string, unknown> {
  return {
    startsFrom: plan.startsFrom,
    windowSeconds: plan.windowSeconds,
    perDayBasis: plan.perDayBasis,
    fixFirst: plan.fixFirst,
    steps: plan.steps.map((s) => ({
      step: s.step,
      group: s.group,
      category: s.category,
      action: s.action,
      evidence: s.evidence,
      frees: {
        opRuns: s.frees.ops,
        attempts: s.frees.attempts,
        perDay: finite(s.freesPerDay),
        top: s.frees.top.map((x) => ({ operation: x.name, count: x.count })),
      },
      why: s.why,
    })),
    notProposed: plan.notProposed,
  };
}

const noise = (n: NoiseFloor): Record<string, unknown> => ({
  overall: finite(n.overall),
  comparisons: n.comparisons,
  flips: n.flips,
  operations: n.operations.map((o) => ({ operation: o.op, comparisons: o.comparisons, flips: o.flips, rate: o.rate })),
});

function controller(d: ControllerDecisions): Record<string, unknown> {
  const v = d.verdict;
  return {
    controller: d.controller,
    model: d.model,
    ...(d.operatorBuild && { operatorBuild: d.operatorBuild }),
    verdict: v.status,
    reasons: v.reasons.map((r) => ({ kind: r.kind, rule: r.rule, status: r.status, early: r.early, message: r.message })),
    rules: v.rules.map((r) => ({
      rule: r.rule,
      role: r.role,
      status: r.status,
      explanation: r.explanation,
      measurements: r.measurements.map((m) => ({
        name: m.name,
        value: typeof m.value === 'number' ? finite(m.value) : m.value,
        threshold: typeof m.threshold === 'number' ? finite(m.threshold) : m.threshold,
      })),
      reasons: r.reasons.map((x) => ({ kind: x.kind, harm: x.harm, message: x.message })),
      ...(r.details ? { details: r.details } : {}),
    })),
    populations: d.populations,
    benefit: { ...v.benefit, newlyBlockedAttempts: v.newlyBlockedAttempts },
    loopComparison: d.comparison.operations.map(comparison),
    loopComparisonUnavailable: d.comparison.unavailable,
    starvation: { objectSeconds: d.starvationComparison.objectSeconds, operations: d.starvationComparison.operations },
    ordering: [...d.ordering.reordered, ...d.ordering.dependentOther].map(pair),
    classification: d.groups.map(group),
    rollout: rollout(d.rollout),
    noiseFloor: { sequential: noise(d.noiseFloor.sequential), phased: noise(d.noiseFloor.phased) },
    thresholds: thresholdsJson(d.thresholds),
    forgottenObjects: d.forgottenObjects,
  };
}

/** The thresholds as data: numbers, a duration in milliseconds under a key that says so (minWindow → minWindowMs). */
function thresholdsJson(t: DecisionThresholds): Record<string, number> {
  return Object.fromEntries(Object.entries(t).map(([key, value]) => [key === 'minWindow' ? 'minWindowMs' : key, value]));
}

function input(summary: Summary): Record<string, unknown> {
  const i = summary.input;
  return { received: i.received, rejected: i.rejected, rejectedByReason: i.rejectedByReason };
}

export function decisionsJson(report: DecisionReport): Record<string, unknown> {
  return { schema: report.schema, controllers: report.controllers.map(controller), input: input(report.summary) };
}
