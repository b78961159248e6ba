/**
 * The thresholds every decision uses, with their defaults. docs/decisions.md explains each one and why its default.
 * `DECISIONS_SECTION` describes them in the config schema format (lib/schema.ts), so a thresholds file is validated
 * with file:line problems like every other config, and their type is derived from it.
 */
import { durationText, type Field, type Infer } from '../../lib/schema.js';

/** The defaults; docs/decisions.md defends each. */
const DEFAULTS = {
  /** e-BH false discovery rate, per family of tests of one controller (pairs; loop comparisons; each check). */
  falseDiscoveryRate: 0.001,
  /** Per pair: observations of the second op after the first one failed, before the pair is tested at all. */
  minFailedObservations: 10,
  /** Per pair: observations after the first op succeeded; per op and loop: runs before the loops are compared. */
  minBaselineObservations: 10,
  /**
   * The margin within which a difference counts as none, relative to the baseline rate (0.25: the phased rate at most
   * 1.25 times the sequential one), never below `absoluteMargin`: an op is `same`, a pair `safe`, only when the
   * data bound the difference inside it.
   */
  relativeMargin: 0.25,
  absoluteMargin: 0.005,
  /** An op or group that failed in at least this many distinct runs must have been judged before `ready`. */
  materialFailures: 10,
  /** Attempts and objects the phased loop needs before any verdict but `inconclusive`. */
  minAttempts: 1000,
  minObjects: 10,
  /** Hours of the day (UTC) in which each loop must have run attempts before `ready`: time-of-day effects. */
  minHoursOfDay: 24,
  /** Observation window per loop (ms, 0: none) before `ready`, measured with one resync interval of slack. */
  minWindow: 0,
  /** Share of object-time the phased loop may keep an op from running beyond what the sequential loop does. */
  maxStarvationShare: 0.01,
};

/** Name, doc line and kind of each threshold, in one place for the config schema and the report's table. */
export const THRESHOLD_DOCS: Readonly<Record<keyof typeof DEFAULTS, string>> = {
  falseDiscoveryRate: 'e-BH false discovery rate per family of tests (pairs; loop comparisons; each check)',
  minFailedObservations: 'observations after the first op failed before a pair is tested; judged failure runs a group needs',
  minBaselineObservations: 'observations after the first op succeeded before a pair is tested; runs per loop before an op is compared',
  relativeMargin: 'margin of a difference that counts as none, relative to the baseline rate (safe / same)',
  absoluteMargin: 'smallest margin of a difference that counts as none (safe / same)',
  materialFailures: 'failure runs that make an op, a group or a pair matter for the verdict',
  minAttempts: 'attempts the phased loop needs (and the sequential loop, to compare with it)',
  minObjects: 'objects per loop',
  minHoursOfDay: 'hours of the day (UTC) each loop must have covered before ready',
  minWindow: 'observation window per loop before ready, with one resync interval of slack (0: none)',
  maxStarvationShare: 'extra share of object-time the phased loop may keep an op from running',
};

/** The thresholds file (`report --thresholds`, `--threshold name=value`) in the config schema format (lib/schema.ts). */
export const DECISIONS_SECTION = {
  kind: 'object',
  present: true,
  doc: 'thresholds of the switch-readiness verdict and the evidence behind it (docs/decisions.md)',
  fields: {
    falseDiscoveryRate: { kind: 'number', default: DEFAULTS.falseDiscoveryRate, min: 0, doc: THRESHOLD_DOCS.falseDiscoveryRate },
    minFailedObservations: { kind: 'integer', default: DEFAULTS.minFailedObservations, min: 1, doc: THRESHOLD_DOCS.minFailedObservations },
    minBaselineObservations: { kind: 'integer', default: DEFAULTS.minBaselineObservations, min: 1, doc: THRESHOLD_DOCS.minBaselineObservations },
    relativeMargin: { kind: 'number', default: DEFAULTS.relativeMargin, min: 0, doc: THRESHOLD_DOCS.relativeMargin },
    absoluteMargin: { kind: 'number', default: DEFAULTS.absoluteMargin, min: 0, doc: THRESHOLD_DOCS.absoluteMargin },
    materialFailures: { kind: 'integer', default: DEFAULTS.materialFailures, min: 1, doc: THRESHOLD_DOCS.materialFailures },
    minAttempts: { kind: 'integer', default: DEFAULTS.minAttempts, min: 0, doc: THRESHOLD_DOCS.minAttempts },
    minObjects: { kind: 'integer', default: DEFAULTS.minObjects, min: 0, doc: THRESHOLD_DOCS.minObjects },
    minHoursOfDay: { kind: 'integer', default: DEFAULTS.minHoursOfDay, min: 0, doc: THRESHOLD_DOCS.minHoursOfDay },
    minWindow: { kind: 'duration', default: durationText(DEFAULTS.minWindow), doc: THRESHOLD_DOCS.minWindow },
    maxStarvationShare: { kind: 'number', default: DEFAULTS.maxStarvationShare, min: 0, doc: THRESHOLD_DOCS.maxStarvationShare },
  },
} as const satisfies Field;

/** Every threshold, as the schema validates it (durations in milliseconds). */
export type DecisionThresholds = Infer<typeof DECISIONS_SECTION>;

export const DEFAULT_THRESHOLDS: DecisionThresholds = DEFAULTS;

/** The difference that counts as none for a baseline rate: relative to it, never below the absolute floor. */
export function marginFor(baseline: number | null, t: DecisionThresholds): number {
  return Math.max(t.absoluteMargin, t.relativeMargin * (baseline ?? 0));
}

/**
 * What the schema cannot say: each threshold of `values` out of its range, with its key and the problem
 * (`must be between 0 and 1, got 2`). A thresholds file reports them at their lines (cli/report-command.ts).
 */
export function thresholdProblems(values: Partial<DecisionThresholds>): [keyof DecisionThresholds, string][] {
  const out: [keyof DecisionThresholds, string][] = [];
  const { falseDiscoveryRate: fdr, maxStarvationShare: share, absoluteMargin: margin, minHoursOfDay: hours } = values;
  if (fdr !== undefined && !(fdr > 0 && fdr < 1)) out.push(['falseDiscoveryRate', `must be between 0 and 1, got ${fdr}`]);
  if (share !== undefined && !(share >= 0 && share <= 1)) out.push(['maxStarvationShare', `must be between 0 and 1, got ${share}`]);
  if (margin !== undefined && !(margin <= 1)) out.push(['absoluteMargin', `must be at most 1, got ${margin}`]);
  if (hours !== undefined && !(hours <= 24)) out.push(['minHoursOfDay', `must be at most 24, got ${hours}`]);
  return out;
}

/** Thresholds from a validated section (or any partial set), defaults for the rest; out-of-range values refused. */
export function thresholdsFrom(values: Partial<DecisionThresholds>): DecisionThresholds {
  const problems = thresholdProblems(values);
  if (problems.length > 0) throw new RangeError(problems.map(([key, problem]) => `${key} ${problem}`).join('; '));
  return { ...DEFAULT_THRESHOLDS, ...values };
}
