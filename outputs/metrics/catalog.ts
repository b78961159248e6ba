/**
 * The metric catalog: every metric the sidecar exports, as data, in one place. It feeds the @prometheus-io/client
 * objects, the README's metrics table, the dashboards and the alerts; a test fails when any of them disagree with it.
 * Labels take values only from models (operation and group names) and closed enums; the one exception is
 * `reconcile_shadow_recreation_stuck_seconds`, capped and removed when a recreation finishes, so alerts can name it.
 * Every time is wall-clock time, whatever clock a source runs on (the simulator's is sped up): `time` says whether a
 * metric is a timestamp (Unix seconds, compared with `time()`), an age or a duration (seconds).
 */
import { REJECT_REASONS, SOURCE_KINDS, SOURCE_NOTES } from '../../collector/records.js';
import { RULES } from '../../analyzer/decisions/rules.js';

/** The per-source cardinalities, counted from the closed lists they come from. */
const SOURCES = `${SOURCE_KINDS.length} sources`;
/** The checks of the rule list (rules.ts) by name, as the rule metric's help names them. */
const CHECK_NAMES = RULES.filter((r) => r.role === 'check').map((r) => r.name);
const CHECKS = CHECK_NAMES.length > 1 ? `${CHECK_NAMES.slice(0, -1).join(', ')} and ${CHECK_NAMES.at(-1)!}` : CHECK_NAMES.join('');

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricSpec {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labels: readonly string[];
  readonly buckets?: readonly number[];
  /** Where the label values come from, for the README (cardinality at a glance). */
  readonly cardinality: string;
  /** For metrics in seconds: a Unix timestamp, an age (now minus a start) or a duration of something finished. */
  readonly time?: 'timestamp' | 'age' | 'duration';
}

/** Recreation phases take seconds to hours: 1 s to 4 h. */
const RECREATION_BUCKETS = [1, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400];

export const METRICS = [
  {
    name: 'reconcile_shadow_attempts_total',
    type: 'counter',
    help: 'Reconcile attempts analyzed, by the loop that was observed and whether the other loop would have run a different set of operations (an operation that exists in one loop alone is no difference: see reconcile_shadow_operation_structural_total).',
    labels: ['controller', 'observed_loop', 'diverged'],
    cardinality: 'controllers x 2 x 2',
  },
  {
    name: 'reconcile_shadow_operation_observed_total',
    type: 'counter',
    help: 'Operation outcomes observed in analyzed attempts (predicted outcomes are never counted here).',
    labels: ['controller', 'operation', 'outcome'],
    cardinality: 'operations x 4 outcomes',
  },
  {
    name: 'reconcile_shadow_operation_unblocked_total',
    type: 'counter',
    help: 'Attempts in which the phased loop would run the operation and the sequential loop does not.',
    labels: ['controller', 'operation'],
    cardinality: 'operations',
  },
  {
    name: 'reconcile_shadow_operation_newly_blocked_total',
    type: 'counter',
    help: 'Attempts in which the sequential loop runs the operation and the phased loop would not.',
    labels: ['controller', 'operation'],
    cardinality: 'operations',
  },
  {
    name: 'reconcile_shadow_operation_structural_total',
    type: 'counter',
    help: 'Attempts that ran an operation existing in one loop alone (`only:` in the model): a difference of the models’ structure, never counted as divergence, unblocked or newly blocked.',
    labels: ['controller', 'operation'],
    cardinality: 'one-loop operations',
  },
  {
    name: 'reconcile_shadow_blocked_by_total',
    type: 'counter',
    help: 'Attempts in which a failed critical group kept a blockable group from running in the phased loop.',
    labels: ['controller', 'blocker', 'blocked'],
    cardinality: 'critical groups x blockable groups',
  },
  {
    name: 'reconcile_shadow_reordered_pairs_total',
    type: 'counter',
    help: 'Attempts in which both loops ran a pair of operations in a different relative order.',
    labels: ['controller', 'first', 'second'],
    cardinality: 'inverted pairs of the model',
  },
  {
    name: 'reconcile_shadow_operation_starved_seconds',
    type: 'gauge',
    help: 'Longest current starvation over all objects: how long the operation has gone without running under the observed loop while the other loop would have run it.',
    labels: ['controller', 'operation'],
    cardinality: 'operations',
    time: 'age',
  },
  {
    name: 'reconcile_shadow_tracked_objects',
    type: 'gauge',
    help: 'Objects whose outcome history and starvation timers the sidecar holds.',
    labels: ['controller'],
    cardinality: 'controllers',
  },
  {
    name: 'reconcile_shadow_tracked_objects_evicted_total',
    help: 'Objects whose outcome history and starvation timers were forgotten because the tracked-objects cap was reached (least recently seen first).',
    type: 'counter',
    labels: ['controller'],
    cardinality: 'controllers',
  },
  {
    name: 'reconcile_shadow_records_received_total',
    type: 'counter',
    help: 'Input records received by each source, before validation.',
    labels: ['source'],
    cardinality: SOURCES,
  },
  {
    name: 'reconcile_shadow_records_dropped_total',
    type: 'counter',
    help: 'Input records refused or lost, by source and bounded reason.',
    labels: ['source', 'reason'],
    cardinality: `${SOURCES} x the reasons each declares (${REJECT_REASONS.length} in all)`,
  },
  {
    name: 'reconcile_shadow_attempts_incomplete_total',
    type: 'counter',
    help: 'Attempts analyzed with only part of their input (OTLP wait expired, sampled logs, status transitions).',
    labels: ['source'],
    cardinality: SOURCES,
  },
  {
    name: 'reconcile_shadow_attempts_noted_total',
    type: 'counter',
    help: 'Attempts a source analyzed with a reservation it states, by bounded note (loop inherited or contradicted, error format shared by several operations, sampled logs, ...): nothing was dropped, but what the attempt states is less than its text; /summary input.sources lists the same counts.',
    labels: ['source', 'note'],
    cardinality: `the sources that read a loop from their input (logs, status) x ${SOURCE_NOTES.length} notes`,
  },
  {
    name: 'reconcile_shadow_unmapped_errors_total',
    type: 'counter',
    help: 'Error messages that matched no operation error format of the model.',
    labels: ['controller'],
    cardinality: 'controllers',
  },
  {
    name: 'reconcile_shadow_source_last_record_timestamp_seconds',
    type: 'gauge',
    help: 'Unix time at which a source last handed on a record (absent until its first); a stale value means the source went silent.',
    labels: ['source'],
    cardinality: SOURCES,
    time: 'timestamp',
  },
  {
    name: 'reconcile_shadow_source_up',
    type: 'gauge',
    help: '1 while a source is connected and current, 0 while it is retrying or serving stale state.',
    labels: ['source'],
    cardinality: SOURCES,
  },
  {
    name: 'reconcile_shadow_source_truncated',
    type: 'gauge',
    help: 'For a source that pages (the HyperFleet API and Maestro pollers): 1 while a list is longer than one poll reads (maxPagesPerPoll, maxPages), 0 while every list is read whole in one poll. The HyperFleet poller then reads the list over several polls, each resource once per pass; the Maestro poller reads it cut and infers no deletion from it.',
    labels: ['source'],
    cardinality: 'the sources that page',
  },
  {
    name: 'reconcile_shadow_source_failures_total',
    type: 'counter',
    help: 'Failed polls of a polling source (HyperFleet API, Maestro), by bounded reason: timeout, connection, http_5xx, http_4xx, unauthorized (a 401: the token is read again), token_unavailable, malformed_body, body_too_large. Also counted in reconcile_shadow_internal_errors_total{kind="source"}.',
    labels: ['source', 'reason'],
    cardinality: 'the polling sources x 8 reasons',
  },
  {
    name: 'reconcile_shadow_internal_errors_total',
    type: 'counter',
    help: 'Failures inside the sidecar, never fatal: publish (an output failed on a record), trace_export, source (a source failed; it retries on its own), metrics and summary (a guarded endpoint could not answer, or the partial could not be saved).',
    labels: ['kind'],
    cardinality: '5 kinds',
  },
  {
    name: 'reconcile_shadow_lifecycle_decisions_total',
    type: 'counter',
    help: 'Shadow decisions of the adapter lifecycle rules per resource change (conflict: delete.when and recreate.when both true; delete wins).',
    labels: ['kind', 'decision'],
    cardinality: 'resource kinds x 7 decisions',
  },
  {
    name: 'reconcile_shadow_recreations_in_flight',
    type: 'gauge',
    help: 'Recreations not yet available, by the phase they are in.',
    labels: ['kind', 'phase'],
    cardinality: 'resource kinds x 4 phases',
  },
  {
    name: 'reconcile_shadow_recreation_oldest_seconds',
    type: 'gauge',
    help: 'Age of the oldest unfinished recreation, from its trigger.',
    labels: ['kind'],
    cardinality: 'resource kinds',
    time: 'age',
  },
  {
    name: 'reconcile_shadow_recreation_duration_seconds',
    type: 'histogram',
    help: 'Duration of finished recreations by phase (deletion, creation, availability) and in total.',
    labels: ['kind', 'phase'],
    buckets: RECREATION_BUCKETS,
    cardinality: 'resource kinds x 4 phases',
    time: 'duration',
  },
  {
    name: 'reconcile_shadow_recreation_predicted_unreconciled_seconds',
    type: 'histogram',
    help: 'Predicted unreconciled time per recreation under the blocking flow (recreate_on_change) and the designed sentinel flow.',
    labels: ['kind', 'flow'],
    buckets: RECREATION_BUCKETS,
    cardinality: 'resource kinds x 2 flows',
    time: 'duration',
  },
  {
    name: 'reconcile_shadow_recreation_stuck',
    type: 'gauge',
    help: 'Unfinished recreations older than their kind’s stuck threshold.',
    labels: ['kind'],
    cardinality: 'resource kinds',
  },
  {
    name: 'reconcile_shadow_recreation_stuck_threshold_seconds',
    type: 'gauge',
    help: 'The stuck threshold configured for the kind: an unfinished recreation older than this counts as stuck.',
    labels: ['kind'],
    cardinality: 'resource kinds',
    time: 'duration',
  },
  {
    name: 'reconcile_shadow_recreation_stuck_seconds',
    type: 'gauge',
    help: 'Age of each stuck recreation; capped series, removed when the recreation finishes, so an alert can name the object.',
    labels: ['kind', 'namespace', 'name'],
    cardinality: 'capped (default 50 series)',
    time: 'age',
  },
  {
    name: 'reconcile_shadow_recreation_evictions_total',
    type: 'counter',
    help: 'In-flight recreations or stuck series dropped because a cap was reached.',
    labels: ['kind', 'cap'],
    cardinality: 'resource kinds x 2 caps',
  },
  {
    name: 'reconcile_shadow_unreconciled_seconds',
    type: 'histogram',
    help: 'Reconciled=False periods reported by the HyperFleet API, by what caused them.',
    labels: ['resource_type', 'flow'],
    buckets: RECREATION_BUCKETS,
    cardinality: 'resource types x 4 causes',
    time: 'duration',
  },
  {
    name: 'reconcile_shadow_verdict',
    type: 'gauge',
    help: "The fleet's switch-readiness verdict per controller, decided as `report` decides over every peer's partial: 1 for the current verdict (ready, not-ready, inconclusive), 0 for the others; absent until a peer's partial is in hand.",
    labels: ['controller', 'verdict'],
    cardinality: 'controllers x 3 verdicts',
  },
  {
    name: 'reconcile_shadow_verdict_reasons',
    type: 'gauge',
    help: "The reasons of the fleet's current verdict, by kind (docs/decisions.md): how many of each kind it gives; a kind it no longer gives is 0.",
    labels: ['controller', 'kind'],
    cardinality: 'controllers x reason kinds',
  },
  {
    name: 'reconcile_shadow_loop_comparison',
    type: 'gauge',
    help: "The fleet's loop comparison per operation: 1 for its current finding (worse-under-phased, better-under-phased, same, inconclusive), 0 for the others.",
    labels: ['controller', 'operation', 'finding'],
    cardinality: 'operations x 4 findings',
  },
  {
    name: 'reconcile_shadow_loop_failure_ratio',
    type: 'gauge',
    help: "Per operation and loop, the share of the runs both loops would make that failed, over the fleet's peers (absent while the loop has no such run).",
    labels: ['controller', 'operation', 'loop'],
    cardinality: 'operations x 2 loops',
  },
  {
    name: 'reconcile_shadow_verdict_rule_passed',
    type: 'gauge',
    help: `Each decision rule of the fleet's verdict (docs/decisions.md: the checks ${CHECKS}, the gates, the harms, the coverage): 1 while it passes, 0 while it gives reasons; role says which.`,
    labels: ['controller', 'rule', 'role'],
    cardinality: `controllers x the rule list (${RULES.length})`,
  },
  {
    name: 'reconcile_shadow_loop_comparison_e_value',
    type: 'gauge',
    help: "Per operation, the anytime-valid e-value against 'fails no more under the phased loop' (docs/decisions.md): safe to read at every scrape; with e-BH across operations, large values are harm.",
    labels: ['controller', 'operation'],
    cardinality: 'operations',
  },
  {
    name: 'reconcile_shadow_fleet_peers',
    type: 'gauge',
    help: "The fleet's peers by state: read (its partial counted), failing (its last read failed; its last partial, younger than keepFor, still counted), missing (not counted).",
    labels: ['state'],
    cardinality: '3 states',
  },
  {
    name: 'reconcile_shadow_fleet_peer_up',
    type: 'gauge',
    help: "1 while a peer's partial is counted in the fleet's verdict, 0 while it is missing; a peer is named by its URL or as namespace/pod.",
    labels: ['peer'],
    cardinality: 'peers (configured URLs and discovered pods)',
  },
  {
    name: 'reconcile_shadow_fleet_peer_failures_total',
    type: 'counter',
    help: "Reads of peers' partials that failed, by bounded reason (timeout, connection, http_status, unauthorized, body_too_large, invalid_partial, not_mergeable, discovery).",
    labels: ['reason'],
    cardinality: '8 reasons',
  },
  {
    name: 'reconcile_shadow_operation_info',
    type: 'gauge',
    help: 'Always 1, one series per model operation: its phased-loop group (empty for a fail-fast step or a sequential-only operation) and category (critical, nonCritical, failFast, sequentialOnly), so alerts can select operations by category.',
    labels: ['controller', 'operation', 'group', 'category'],
    cardinality: 'operations',
  },
  {
    name: 'reconcile_shadow_info',
    type: 'gauge',
    help: 'Always 1; the sidecar version and the models it runs.',
    labels: ['version', 'models'],
    cardinality: '1',
  },
] as const satisfies readonly MetricSpec[];

export type MetricName = (typeof METRICS)[number]['name'];

/** The names Prometheus stores for a metric (histograms add _bucket, _sum and _count). */
export function seriesNames(spec: MetricSpec): string[] {
  return spec.type === 'histogram' ? [`${spec.name}_bucket`, `${spec.name}_sum`, `${spec.name}_count`] : [spec.name];
}
