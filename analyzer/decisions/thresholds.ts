/**
 * The thresholds every decision uses, with their defaults. docs/decisions.md explains each one and why its default.
 * `DECISIONS_SECTION` describes them in the sidecar's config schema format (sidecar/config-schema.ts, structurally
 * a `Field` of kind `object`), so a thresholds file is validated with file:line problems like every other config.
 */

export interface DecisionThresholds {
  /** Benjamini–Hochberg false discovery rate, per family of tests of one controller (pairs; loop comparisons). */
  readonly falseDiscoveryRate: number;
  /** Per pair: observations of the second op after the first one failed, before the pair is tested at all. */
  readonly minFailedObservations: number;
  /** Per pair: observations after the first op succeeded; per op and loop: runs before the loops are compared. */
  readonly minBaselineObservations: number;
  /**
   * The largest failure-rate difference (on top of the noise floor) that still counts as no difference: a pair is
   * `safe`, an op the `same` under both loops, only when the data bound the difference below this.
   */
  readonly safeRiskDifference: number;
  /** An op or group that failed in at least this many distinct runs must have been judged before `ready`. */
  readonly materialFailures: number;
  /** Attempts, objects and observation window the phased loop needs before any verdict but `inconclusive`. */
  readonly minAttempts: number;
  readonly minObjects: number;
  readonly minWindowMs: number;
  /** Share of object-time the phased loop may keep an op from running beyond what the sequential loop does. */
  readonly maxStarvationShare: number;
}

export const DEFAULT_THRESHOLDS: DecisionThresholds = {
  falseDiscoveryRate: 0.001,
  minFailedObservations: 10,
  minBaselineObservations: 10,
  safeRiskDifference: 0.1,
  materialFailures: 10,
  minAttempts: 1000,
  minObjects: 10,
  minWindowMs: 24 * 3_600_000,
  maxStarvationShare: 0.01,
};

/** Name, doc line and kind of each threshold, in one place for the config schema and the report's table. */
export const THRESHOLD_DOCS: Readonly<Record<keyof DecisionThresholds, string>> = {
  falseDiscoveryRate: 'Benjamini–Hochberg q per family of tests (pairs; loop comparisons)',
  minFailedObservations: 'observations after the first op failed before a pair is tested; judged failure runs a group needs',
  minBaselineObservations: 'observations after the first op succeeded before a pair is tested; runs per loop before an op is compared',
  safeRiskDifference: 'largest failure-rate difference (plus the noise floor) the data must bound for safe / same',
  materialFailures: 'failure runs that make an op, a group or a pair matter for the verdict',
  minAttempts: 'attempts the phased loop needs (and the sequential loop, to compare with it)',
  minObjects: 'objects per loop',
  minWindowMs: 'observation window per loop',
  maxStarvationShare: 'extra share of object-time the phased loop may keep an op from running',
};

/** The thresholds section in the sidecar's config schema format; absent keys take the defaults above. */
export const DECISIONS_SECTION = {
  kind: 'object',
  present: true,
  doc: 'thresholds of the switch-readiness verdict and the evidence behind it (docs/decisions.md)',
  fields: {
    falseDiscoveryRate: { kind: 'number', default: DEFAULT_THRESHOLDS.falseDiscoveryRate, min: 0, doc: THRESHOLD_DOCS.falseDiscoveryRate },
    minFailedObservations: { kind: 'integer', default: DEFAULT_THRESHOLDS.minFailedObservations, min: 1, doc: THRESHOLD_DOCS.minFailedObservations },
    minBaselineObservations: { kind: 'integer', default: DEFAULT_THRESHOLDS.minBaselineObservations, min: 1, doc: THRESHOLD_DOCS.minBaselineObservations },
    safeRiskDifference: { kind: 'number', default: DEFAULT_THRESHOLDS.safeRiskDifference, min: 0, doc: THRESHOLD_DOCS.safeRiskDifference },
    materialFailures: { kind: 'integer', default: DEFAULT_THRESHOLDS.materialFailures, min: 1, doc: THRESHOLD_DOCS.materialFailures },
    minAttempts: { kind: 'integer', default: DEFAULT_THRESHOLDS.minAttempts, min: 0, doc: THRESHOLD_DOCS.minAttempts },
    minObjects: { kind: 'integer', default: DEFAULT_THRESHOLDS.minObjects, min: 0, doc: THRESHOLD_DOCS.minObjects },
    minWindowMs: { kind: 'duration', default: '24h', doc: THRESHOLD_DOCS.minWindowMs },
    maxStarvationShare: { kind: 'number', default: DEFAULT_THRESHOLDS.maxStarvationShare, min: 0, doc: THRESHOLD_DOCS.maxStarvationShare },
  },
} as const;

/** Thresholds from a validated section (or any partial set), defaults for the rest; out-of-range values refused. */
export function thresholdsFrom(values: Partial<DecisionThresholds>): DecisionThresholds {
  const t = { ...DEFAULT_THRESHOLDS, ...values };
  if (!(t.falseDiscoveryRate > 0 && t.falseDiscoveryRate < 1)) throw new RangeError(`falseDiscoveryRate must be between 0 and 1, got ${t.falseDiscoveryRate}`);
  if (!(t.maxStarvationShare >= 0 && t.maxStarvationShare <= 1)) throw new RangeError(`maxStarvationShare must be between 0 and 1, got ${t.maxStarvationShare}`);
  if (!(t.safeRiskDifference <= 1)) throw new RangeError(`safeRiskDifference must be at most 1, got ${t.safeRiskDifference}`);
  return t;
}
