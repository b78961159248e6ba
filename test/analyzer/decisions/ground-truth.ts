/**
 * The seeded ground-truth world shared by the decision and report tests, generated once per test run: HyperShift
 * observed on the phased loop (a canary fleet) with two planted truths (simulator/scenarios.ts).
 */
import type { AttemptRecord } from '../../../collector/records.js';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionReport, type DecisionReport } from '../../../analyzer/decisions/decide.js';
import { DEFAULT_THRESHOLDS, type DecisionThresholds } from '../../../analyzer/decisions/thresholds.js';
import { resolveModel } from '../../../sidecar/files.js';
import type { ReconcileModel } from '../../../model/types.js';
import { HYPERSHIFT_GROUND_TRUTH, scenarioAttempts, type ScenarioWorldOptions } from '../../../simulator/scenarios.js';
import { BUILTIN_MODEL } from '../../support/paths.js';

export const HYPERSHIFT = resolveModel(BUILTIN_MODEL);
export const GROUND_TRUTH_WORLD: ScenarioWorldOptions = { objects: 20, durationMs: 25 * 3_600_000, seed: 1, observe: 'phased' };

let attempts: readonly AttemptRecord[] | undefined;

export function groundTruthAttempts(): readonly AttemptRecord[] {
  attempts ??= [...scenarioAttempts(HYPERSHIFT, HYPERSHIFT_GROUND_TRUTH, GROUND_TRUTH_WORLD)];
  return attempts;
}

/** Replays records through the analyzer with the decisions listener, as `reconcile-shadow report` does. */
export function decide(model: ReconcileModel, records: Iterable<AttemptRecord>, thresholds: DecisionThresholds = DEFAULT_THRESHOLDS): DecisionReport {
  const analyzer = new Analyzer([model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  for (const r of records) analyzer.attempt(r);
  return decisionReport(analyzer, evidence, thresholds);
}
