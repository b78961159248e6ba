/**
 * The alert rules as typed data, monitoring-mixin style: CamelCase names sharing the `ReconcileShadow` prefix,
 * `severity` critical (pages) | warning (ticket) | info (troubleshooting only), a static `summary`, a templated
 * `description` naming the labels and the value, and a `runbook_url` to the alert's section of alerts/runbook.md.
 * Only catalog metrics (and Prometheus's own `up`) appear in expressions; a test checks that.
 *
 * Expressions aggregate away the replica (`max by`/`sum by` without instance or pod): a sidecar runs in every
 * replica of the operator, and each tracks the same recreations, so one object is one alert.
 */
import type { AlertOptions, Duration } from './options.js';
import { HARM_REASON_KINDS } from '../analyzer/decisions/rules.js';
import { increased, noneOf, oneOf, series } from './promql.js';

export type Severity = 'critical' | 'warning' | 'info';

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for: Duration;
  readonly severity: Severity;
  /** A static headline ending in a period. */
  readonly summary: string;
  /** Templated per alert instance with `$labels` and `$value`. */
  readonly description: string;
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly AlertRule[];
}

export const ALERT_PREFIX = 'ReconcileShadow';

export function alertRuleGroups(o: AlertOptions): RuleGroup[] {
  return [
    { name: 'reconcile-shadow.recreations', rules: recreationRules(o) },
    { name: 'reconcile-shadow.shadow', rules: shadowRules(o) },
    { name: 'reconcile-shadow.sidecar', rules: sidecarRules(o) },
    { name: 'reconcile-shadow.fleet', rules: fleetRules(o) },
  ];
}

function recreationRules(o: AlertOptions): AlertRule[] {
  const stuck = series('reconcile_shadow_recreation_stuck_seconds', o.selector);
  const object = '{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}';
  return [
    {
      alert: 'ReconcileShadowRecreationStuck',
      // The per-object series exists only while a recreation is past its kind's threshold.
      expr: `max by (kind, namespace, name) (${stuck}) > 0`,
      for: o.recreationStuck.for,
      severity: 'warning',
      summary: 'A recreation is stuck past its kind’s threshold.',
      description: `The recreation of ${object} started {{ $value | humanizeDuration }} ago and the new object is not available yet; it is past the stuck threshold configured for {{ $labels.kind }}.`,
    },
    {
      alert: 'ReconcileShadowRecreationStuckCritical',
      expr: `max by (kind, namespace, name) (${stuck}) > ${o.recreationStuckCritical.seconds}`,
      for: o.recreationStuckCritical.for,
      severity: 'critical',
      summary: 'A recreation has been stuck for a long time.',
      description: `The recreation of ${object} started {{ $value | humanizeDuration }} ago (more than ${o.recreationStuckCritical.seconds}s) and the new object is still not available; the resource stays Reconciled=False until it is.`,
    },
    {
      alert: 'ReconcileShadowRecreationTrackingCapped',
      expr: increased(series('reconcile_shadow_recreation_evictions_total', o.selector), 'namespace, kind, cap', o.recreationTrackingCapped.window),
      for: o.recreationTrackingCapped.for,
      severity: 'info',
      summary: 'The sidecar dropped recreations from tracking because a cap was reached.',
      description: `{{ $value | humanize }} {{ $labels.kind }} recreations or stuck series were evicted by the {{ $labels.cap }} cap in the last ${o.recreationTrackingCapped.window}; stuck alerts may not name every object.`,
    },
  ];
}

function shadowRules(o: AlertOptions): AlertRule[] {
  return [
    {
      alert: 'ReconcileShadowOperationStarved',
      expr: `max by (controller, operation) (${series('reconcile_shadow_operation_starved_seconds', o.selector)}) > ${o.operationStarved.seconds}`,
      for: o.operationStarved.for,
      severity: 'warning',
      summary: 'An operation has not run for a long time because an earlier operation keeps failing.',
      description:
        'Operation {{ $labels.operation }} of controller {{ $labels.controller }} has not run for {{ $value | humanizeDuration }} on at least one object under the current loop, while the other loop would have run it.',
    },
    {
      alert: 'ReconcileShadowOperationNewlyBlocked',
      expr: increased(series('reconcile_shadow_operation_newly_blocked_total', o.selector), 'controller, operation', o.newlyBlocked.window),
      for: o.newlyBlocked.for,
      severity: 'warning',
      summary: 'The phased loop would stop running an operation the current loop runs.',
      description: `In {{ $value | humanize }} attempts over the last ${o.newlyBlocked.window}, controller {{ $labels.controller }} ran {{ $labels.operation }} and the phased loop would have blocked it.`,
    },
    {
      alert: 'ReconcileShadowCriticalOperationFailing',
      expr: criticalFailureRatio(o),
      for: o.criticalOperationFailing.for,
      severity: 'critical',
      summary: 'A critical operation keeps failing.',
      description: `Critical operation {{ $labels.operation }} (group {{ $labels.group }}) of controller {{ $labels.controller }} failed in {{ $value | humanizePercentage }} of the attempts that ran it over the last ${o.criticalOperationFailing.window}; every blockable operation after it is held back.`,
    },
  ];
}

/**
 * Error share of the attempts that ran the op (ok, error or stop; skip means it did not run), kept for the ops the
 * sidecar publishes as critical. The join takes criticality from the running sidecar's own models, so a user's
 * model needs no regenerated rules; `max by` makes the replicas' identical info series one, and `group_left`
 * brings the op's group into the alert.
 */
function criticalFailureRatio(o: AlertOptions): string {
  const { window, errorRatio } = o.criticalOperationFailing;
  const errors = series('reconcile_shadow_operation_observed_total', o.selector, 'outcome="error"');
  const ran = series('reconcile_shadow_operation_observed_total', o.selector, 'outcome=~"ok|error|stop"');
  const critical = series('reconcile_shadow_operation_info', o.selector, 'category="critical"');
  const ratio = `sum by (controller, operation) (rate(${errors}[${window}])) / sum by (controller, operation) (rate(${ran}[${window}]))`;
  return `(${ratio} > ${errorRatio}) * on (controller, operation) group_left (group) max by (controller, operation, group) (${critical})`;
}

function sidecarRules(o: AlertOptions): AlertRule[] {
  const up = series('up', o.selector);
  const lastRecord = series('reconcile_shadow_source_last_record_timestamp_seconds', o.selector);
  const dropped = series('reconcile_shadow_records_dropped_total', o.selector, ...noneOf('reason', o.recordsDropped.ignoreReasons));
  return [
    {
      alert: 'ReconcileShadowDown',
      // absent() covers "no target at all": a sidecar that was never deployed or whose Service matches nothing.
      expr: `${up} == 0 or absent(${up})`,
      for: o.sidecarDown.for,
      severity: 'warning',
      summary: 'The reconcile-shadow sidecar cannot be scraped.',
      description:
        'Prometheus cannot scrape the reconcile-shadow sidecar {{ with $labels.instance }}on {{ . }}{{ else }}anywhere: no target matches the rules’ selector{{ end }}; no shadow data and no recreation alerts while it lasts.',
    },
    {
      alert: 'ReconcileShadowSourceDown',
      expr: `${series('reconcile_shadow_source_up', o.selector)} == 0`,
      for: o.sourceDown.for,
      severity: 'warning',
      summary: 'A sidecar source is disconnected or serving stale state.',
      description: 'Source {{ $labels.source }} of the sidecar on {{ $labels.instance }} is retrying or serving stale state.',
    },
    {
      alert: 'ReconcileShadowSourceSilent',
      // The newest record over all replicas: a standby replica's sources are silent by design.
      expr: `time() - max by (namespace, source) (${lastRecord}) > ${o.sourceSilent.seconds}`,
      for: o.sourceSilent.for,
      severity: 'warning',
      summary: 'A sidecar source has handed on no record for a long time.',
      description: 'No sidecar in {{ $labels.namespace }} has had a record from source {{ $labels.source }} for {{ $value | humanizeDuration }}.',
    },
    {
      alert: 'ReconcileShadowNoSourceData',
      expr: `count by (namespace) (${up} == 1) unless on (namespace) count by (namespace) (${lastRecord})`,
      for: o.noSourceData.for,
      severity: 'warning',
      summary: 'The sidecar runs but none of its sources has handed on a record.',
      description: 'The {{ $value }} sidecar(s) in {{ $labels.namespace }} are up but no source has handed on a single record; its metrics describe nothing.',
    },
    {
      alert: 'ReconcileShadowRecordsDropped',
      expr: increased(dropped, 'namespace, source, reason', o.recordsDropped.window),
      for: o.recordsDropped.for,
      severity: 'warning',
      summary: 'The sidecar is dropping input records.',
      description: `{{ $value | humanize }} records from source {{ $labels.source }} were dropped in the last ${o.recordsDropped.window} with reason {{ $labels.reason }}; the shadow numbers undercount.`,
    },
  ];
}

/** The fleet component's verdict (sources.peers): harm the phased loop would do, and peers it no longer covers. */
function fleetRules(o: AlertOptions): AlertRule[] {
  const harm = series('reconcile_shadow_verdict_reasons', o.selector, oneOf('kind', HARM_REASON_KINDS));
  const notReady = series('reconcile_shadow_verdict', o.selector, 'verdict="not-ready"');
  return [
    {
      alert: 'ReconcileShadowPhasedLoopHarm',
      expr: `(max by (controller, kind) (${harm}) > 0) and on (controller) (max by (controller) (${notReady}) == 1)`,
      for: o.phasedLoopHarm.for,
      severity: 'warning',
      summary: 'The fleet verdict says the phased loop would do measurable harm.',
      description:
        "The fleet's verdict for controller {{ $labels.controller }} is not-ready: {{ $value }} reason(s) of kind {{ $labels.kind }}; /report of the fleet component names the operations and the evidence. Hold the rollout of the phased loop.",
    },
    {
      alert: 'ReconcileShadowVerdictChecksFailing',
      expr: `max by (controller, rule) (${series('reconcile_shadow_verdict_rule_passed', o.selector, 'role="check"')}) == 0`,
      for: o.verdictChecksFailing.for,
      severity: 'warning',
      summary: 'A check of the data behind the fleet verdict fails.',
      description:
        "The {{ $labels.rule }} check of controller {{ $labels.controller }}'s fleet verdict fails: the two loops' populations or their data differ beyond chance, so the verdict is inconclusive whatever the loops do; the fleet component's /report says what to look at.",
    },
    {
      alert: 'ReconcileShadowFleetPeerMissing',
      expr: `max by (peer) (${series('reconcile_shadow_fleet_peer_up', o.selector)}) == 0`,
      for: o.fleetPeerMissing.for,
      severity: 'warning',
      summary: "A sidecar's evidence has left the fleet verdict.",
      description:
        "The fleet component has not read peer {{ $labels.peer }}'s partial for longer than keepFor; the verdict no longer covers it, and reconcile_shadow_fleet_peer_failures_total says why.",
    },
  ];
}
