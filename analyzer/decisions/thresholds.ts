/**
 * The thresholds every decision uses, with their defaults. docs/decisions.md explains each one.
 * `DECISIONS_SECTION` describes them in the sidecar's config schema format (sidecar/config-schema.ts,
 * structurally a `Field` of kind `object`), so a thresholds file, or a `decisions:` section of the sidecar config,
 * is validated with file:line problems like every other config.
 */

export interface DecisionThresholds {
  /** Benjamini–Hochberg false discovery rate over all pair tests of one controller. */
  readonly falseDiscoveryRate: number;
  /** Per pair: observations of the second op after the first one failed, before the pair is tested at all. */
  readonly minFailedObservations: number;
  /** Per pair: observations of the second op after the first one succeeded (the baseline). */
  readonly minBaselineObservations: number;
  /**
   * A pair is called safe only when the second op's failure rate after the first one's failure exceeds its rate
   * after the first one's success by at most this much (on top of the second op's noise floor).
   */
  readonly safeRiskDifference: number;
  /** A group or op that failed in at least this many distinct runs must have been judged before `ready`. */
  readonly materialFailures: number;
  readonly minAttempts: number;
  readonly minObjects: number;
  readonly minWindowMs: number;
  /** Share of attempts in which the phased loop skips work the sequential loop ran, tolerated for `ready`. */
  readonly maxNewlyBlockedRate: number;
}

export const DEFAULT_THRESHOLDS: DecisionThresholds = {
  falseDiscoveryRate: 0.05,
  minFailedObservations: 10,
  minBaselineObservations: 10,
  safeRiskDifference: 0.1,
  materialFailures: 10,
  minAttempts: 1000,
  minObjects: 10,
  minWindowMs: 72 * 3_600_000,
  maxNewlyBlockedRate: 0,
};

/** The thresholds section in the sidecar's config schema format; absent keys take the defaults above. */
export const DECISIONS_SECTION = {
  kind: 'object',
  present: true,
  doc: 'thresholds of the switch-readiness verdict and the evidence behind it (docs/decisions.md)',
  fields: {
    falseDiscoveryRate: { kind: 'number', default: DEFAULT_THRESHOLDS.falseDiscoveryRate, min: 0, doc: 'Benjamini–Hochberg q over all pair tests' },
    minFailedObservations: { kind: 'integer', default: DEFAULT_THRESHOLDS.minFailedObservations, min: 1, doc: 'observations after the first op failed before a pair is tested' },
    minBaselineObservations: { kind: 'integer', default: DEFAULT_THRESHOLDS.minBaselineObservations, min: 1, doc: 'observations after the first op succeeded before a pair is tested' },
    safeRiskDifference: { kind: 'number', default: DEFAULT_THRESHOLDS.safeRiskDifference, min: 0, doc: 'largest failure-rate increase a safe pair may show' },
    materialFailures: { kind: 'integer', default: DEFAULT_THRESHOLDS.materialFailures, min: 1, doc: 'distinct failure runs that make a group or op matter for the verdict' },
    minAttempts: { kind: 'integer', default: DEFAULT_THRESHOLDS.minAttempts, min: 0 },
    minObjects: { kind: 'integer', default: DEFAULT_THRESHOLDS.minObjects, min: 0 },
    minWindowMs: { kind: 'duration', default: '72h', doc: 'shortest observation window for a ready verdict' },
    maxNewlyBlockedRate: { kind: 'number', default: DEFAULT_THRESHOLDS.maxNewlyBlockedRate, min: 0, doc: 'share of attempts with newly blocked work tolerated for ready' },
  },
} as const;

/** Thresholds from a validated section (or any partial set), defaults for the rest; out-of-range values refused. */
export function thresholdsFrom(values: Partial<DecisionThresholds>): DecisionThresholds {
  const t = { ...DEFAULT_THRESHOLDS, ...values };
  if (!(t.falseDiscoveryRate > 0 && t.falseDiscoveryRate < 1)) throw new RangeError(`falseDiscoveryRate must be between 0 and 1, got ${t.falseDiscoveryRate}`);
  if (!(t.maxNewlyBlockedRate >= 0 && t.maxNewlyBlockedRate <= 1)) throw new RangeError(`maxNewlyBlockedRate must be between 0 and 1, got ${t.maxNewlyBlockedRate}`);
  return t;
}
