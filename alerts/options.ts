/**
 * What the alert rules leave to the person who ships them: thresholds, `for:` durations, windows, the selector
 * that finds the sidecar's series, and where the runbook lives. Everything has a default; `alertOptions()` merges
 * overrides over the defaults and refuses values Prometheus would reject or that would make an alert meaningless.
 */
import { parseDuration } from '../lib/duration.js';

/** A Prometheus duration as written in rules: `30s`, `5m`, `1h`, `1h30m`. */
export type Duration = string;

export interface ForOnly {
  /** How long the condition must hold before the alert fires. */
  readonly for: Duration;
}

export interface ThresholdAndFor extends ForOnly {
  readonly seconds: number;
}

export interface WindowAndFor extends ForOnly {
  /** The range over which counter increases are looked at. */
  readonly window: Duration;
}

export interface AlertOptions {
  /** Label matchers added to every metric selector, so the rules only see this sidecar's series. */
  readonly selector: string;
  /** The runbook (alerts/runbook.md as a web page); each alert links to `<runbookUrl>#<alertname lowercased>`. */
  readonly runbookUrl: string;
  /** A recreation past its kind's stuck threshold (set per kind in the sidecar config), held for `for`. */
  readonly recreationStuck: ForOnly;
  /** A recreation older than `seconds` (from its trigger). */
  readonly recreationStuckCritical: ThresholdAndFor;
  /** An operation the observed loop has not run for `seconds` while the other loop would have. */
  readonly operationStarved: ThresholdAndFor;
  /** Attempts in which the phased loop would not run an operation the current loop runs. */
  readonly newlyBlocked: WindowAndFor;
  /**
   * A critical operation failing in more than `errorRatio` of the attempts that ran it. Which operations are
   * critical the sidecar publishes from its models (`reconcile_shadow_operation_info{category="critical"}`).
   */
  readonly criticalOperationFailing: WindowAndFor & { readonly errorRatio: number };
  readonly sidecarDown: ForOnly;
  readonly sourceDown: ForOnly;
  /** No source of a kind has handed on a record for `seconds`, on any replica. */
  readonly sourceSilent: ThresholdAndFor;
  /** The sidecar is scraped but no source has handed on any record since it started. */
  readonly noSourceData: ForOnly;
  readonly recordsDropped: WindowAndFor & {
    /** Drop reasons that are expected and not worth a ticket (`shutdown` happens on every rollout). */
    readonly ignoreReasons: readonly string[];
  };
  /** Recreations or stuck series evicted because a cap was reached (stuck alerts may then miss objects). */
  readonly recreationTrackingCapped: WindowAndFor;
  /** The fleet's verdict is not-ready with measured harm. */
  readonly phasedLoopHarm: ForOnly;
  /** A check of the data the verdict rests on fails (sample ratio, population balance): the verdict cannot judge. */
  readonly verdictChecksFailing: ForOnly;
  /** A peer's partial has left the fleet's verdict (unreadable past keepFor). */
  readonly fleetPeerMissing: ForOnly;
}

/** Where alerts/runbook.md is published. The lead owns the repository URL; change it here only. */
export const RUNBOOK_URL = 'https://github.com/reconcile-shadow/reconcile-shadow/blob/main/alerts/runbook.md';

/** The defaults the shipped rules are generated with. */
function defaultAlertOptions(): AlertOptions {
  return {
    selector: 'job="reconcile-shadow"',
    runbookUrl: RUNBOOK_URL,
    // The HyperFleet API's stuck alert holds for 5m on top of its 10m threshold; do the same.
    recreationStuck: { for: '5m' },
    // The HyperFleet API's reconciliationTimeout: 30 minutes is when a human must look.
    recreationStuckCritical: { seconds: 1800, for: '5m' },
    operationStarved: { seconds: 1800, for: '5m' },
    newlyBlocked: { window: '15m', for: '5m' },
    criticalOperationFailing: { errorRatio: 0.5, window: '15m', for: '15m' },
    sidecarDown: { for: '5m' },
    sourceDown: { for: '10m' },
    sourceSilent: { seconds: 1800, for: '5m' },
    noSourceData: { for: '15m' },
    recordsDropped: { window: '15m', for: '10m', ignoreReasons: ['shutdown'] },
    recreationTrackingCapped: { window: '1h', for: '1m' },
    // The verdict is re-decided at every read of the peers; a quarter of an hour of it is not a blip.
    phasedLoopHarm: { for: '15m' },
    // A check that fails for an hour is a biased canary, not a slow start.
    verdictChecksFailing: { for: '1h' },
    // Past keepFor (10m by default) already: the verdict has stopped covering the peer.
    fleetPeerMissing: { for: '5m' },
  };
}

export type Overrides = { readonly [K in keyof AlertOptions]?: AlertOptions[K] extends string ? string : Partial<AlertOptions[K]> };

/** The defaults with `overrides` applied field by field, validated. Throws naming every bad field. */
export function alertOptions(overrides: Overrides = {}): AlertOptions {
  const defaults = defaultAlertOptions();
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    const base = defaults[key as keyof AlertOptions];
    merged[key] = typeof base === 'object' ? { ...base, ...(value as object) } : value;
  }
  const options = merged as unknown as AlertOptions;
  const problems = validate(options);
  if (problems.length > 0) throw new Error(`alert options: ${problems.join('; ')}`);
  return options;
}

function validate(options: AlertOptions): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (typeof value !== 'object' || value === null) continue;
    const fields = value as Record<string, unknown>;
    for (const field of ['for', 'window'] as const) {
      const text = fields[field];
      if (text !== undefined && !isDuration(text)) problems.push(`${name}.${field}: ${JSON.stringify(text)} is not a Prometheus duration (e.g. 30s, 5m, 1h)`);
    }
    if (fields.seconds !== undefined && !(typeof fields.seconds === 'number' && fields.seconds > 0))
      problems.push(`${name}.seconds: must be a positive number`);
  }
  const ratio = options.criticalOperationFailing.errorRatio;
  if (!(ratio >= 0 && ratio < 1)) problems.push('criticalOperationFailing.errorRatio: must be at least 0 and below 1');
  if (options.selector.includes('{') || options.selector.includes('}')) problems.push('selector: give matchers without braces, e.g. job="reconcile-shadow"');
  return problems;
}

/** Durations Prometheus accepts in `for:` and ranges, limited to the units people use for alerts. */
export function isDuration(text: unknown): text is Duration {
  return typeof text === 'string' && /^(\d+(ms|s|m|h|d))+$/.test(text) && (parseDuration(text) ?? 0) > 0;
}
