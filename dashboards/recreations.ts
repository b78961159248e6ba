/**
 * "Reconcile shadow — recreations": delete-then-recreate of adapter-managed objects, measured by the sidecar
 * (in flight, stuck, how long each phase took), the blocking flow against the designed sentinel flow, the shadow
 * lifecycle decisions, and the HyperFleet API's Reconciled=False periods by cause.
 */
import { DashboardBuilder, RowBuilder, type Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import type { AlertOptions } from '../alerts/options.js';
import { DURATION_PHASES } from '../analyzer/recreations/tracker.js';
import {
  dashboardLinks,
  datasourceVariable,
  heatmap,
  labelVariable,
  numberPanels,
  query,
  SIDECARS,
  SIDECARS_BY_TARGET,
  sidecarVariables,
  stacked,
  stat,
  table,
  TAGS,
  timeseries,
  withThresholdLines,
} from './panels.js';

export const RECREATIONS_UID = 'reconcile-shadow-recreations';

/** The legend prefix of the per-kind threshold series, drawn dashed. */
const THRESHOLD_LEGEND = 'stuck threshold';

const K = `${SIDECARS},kind=~"$kind"`;
const R = `${SIDECARS},resource_type=~"$resource_type"`;
const RATE = '[$__rate_interval]';
/** Recreations are minutes apart, so percentiles over a rate interval would be mostly empty. */
const QUANTILE_WINDOW = '[1h]';

export function recreationsDashboard(alerts: AlertOptions): Dashboard {
  const critical = alerts.recreationStuckCritical.seconds;
  const builder = new DashboardBuilder('Reconcile shadow — recreations')
    .uid(RECREATIONS_UID)
    .tags(TAGS)
    .description('Delete-then-recreate of adapter-managed objects as the reconcile-shadow sidecar observes and predicts it.')
    .refresh('30s')
    .time({ from: 'now-24h', to: 'now' })
    .link(dashboardLinks())
    .withVariable(datasourceVariable());
  for (const v of sidecarVariables()) builder.withVariable(v);
  builder
    .withVariable(labelVariable('kind', 'Kind', `reconcile_shadow_recreations_in_flight{${SIDECARS}}`))
    .withVariable(labelVariable('resource_type', 'HyperFleet resource type', `reconcile_shadow_unreconciled_seconds_count{${SIDECARS}}`))

    .withRow(new RowBuilder('In flight and stuck'))
    .withPanel(
      stacked(
        timeseries(
          'Recreations in flight, by phase',
          'Recreations not yet available, by the phase they are in (max over replicas, which all track the same objects).',
          'short',
          { span: 8 },
          query(`sum by (phase) (max by (kind, phase) (reconcile_shadow_recreations_in_flight{${K}}))`, '{{phase}}'),
        ),
      ),
    )
    .withPanel(
      withThresholdLines(
        timeseries(
          'Oldest unfinished recreation',
          'Age of the oldest unfinished recreation per kind, from its trigger, against the stuck threshold the sidecar is configured with for that kind (dashed): above it, the recreation counts as stuck. Red: the ReconcileShadowRecreationStuckCritical threshold.',
          's',
          { span: 8 },
          query(`max by (kind) (reconcile_shadow_recreation_oldest_seconds{${K}})`, '{{kind}}'),
          query(`max by (kind) (reconcile_shadow_recreation_stuck_threshold_seconds{${K}})`, `${THRESHOLD_LEGEND} {{kind}}`),
        ).overrideByRegexp(`^${THRESHOLD_LEGEND} `, [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }]),
        [[critical, 'red']],
      ),
    )
    .withPanel(
      stat(
        'Stuck now',
        "Unfinished recreations older than their kind's stuck threshold.",
        'short',
        { span: 8 },
        query(`sum(max by (kind) (reconcile_shadow_recreation_stuck{${K}}))`, 'stuck'),
      ),
    )
    .withPanel(
      table(
        'Stuck objects',
        'Each stuck recreation and its age (capped series; an object leaves the table when its recreation finishes).',
        's',
        { span: 16, height: 10 },
        `max by (kind, namespace, name) (reconcile_shadow_recreation_stuck_seconds{${SIDECARS_BY_TARGET},kind=~"$kind"})`,
        ['kind', 'namespace', 'name'],
        'age',
      ),
    )
    .withPanel(
      timeseries(
        'Evictions by cap',
        'In-flight recreations or stuck series dropped because a cap was reached; when this is not zero the stuck table and alerts may miss objects.',
        'short',
        { span: 8, height: 10 },
        query(`sum by (kind, cap) (increase(reconcile_shadow_recreation_evictions_total{${K}}${RATE}))`, '{{kind}} {{cap}}'),
      ),
    )

    .withRow(new RowBuilder('How long recreations take'));
  for (const phase of DURATION_PHASES) {
    builder.withPanel(
      heatmap(
        `Duration: ${phase}`,
        `Finished recreations by how long their ${phase === 'total' ? 'whole recreation (trigger to available)' : `${phase} phase`} took.`,
        { span: 6 },
        `sum by (le) (increase(reconcile_shadow_recreation_duration_seconds_bucket{${K},phase="${phase}"}${RATE}))`,
      ),
    );
  }
  const dashboard = builder
    .withPanel(
      timeseries(
        'Predicted unreconciled time: blocking vs sentinel',
        'Per recreation, how long the resource stays unreconciled under today’s blocking flow (recreate_on_change) and under the designed sentinel flow (delete, then create on the next Sentinel event). p50 and p95 over the last hour.',
        's',
        { span: 12 },
        query(
          `histogram_quantile(0.5, sum by (le, flow) (rate(reconcile_shadow_recreation_predicted_unreconciled_seconds_bucket{${K}}${QUANTILE_WINDOW})))`,
          'p50 {{flow}}',
        ),
        query(
          `histogram_quantile(0.95, sum by (le, flow) (rate(reconcile_shadow_recreation_predicted_unreconciled_seconds_bucket{${K}}${QUANTILE_WINDOW})))`,
          'p95 {{flow}}',
        ),
      ),
    )
    .withPanel(
      timeseries(
        'Predicted unreconciled time: mean',
        'Mean predicted unreconciled time per recreation over the last hour, by flow.',
        's',
        { span: 12 },
        query(
          `sum by (flow) (rate(reconcile_shadow_recreation_predicted_unreconciled_seconds_sum{${K}}${QUANTILE_WINDOW})) / sum by (flow) (rate(reconcile_shadow_recreation_predicted_unreconciled_seconds_count{${K}}${QUANTILE_WINDOW}))`,
          'mean {{flow}}',
        ),
      ),
    )

    .withRow(new RowBuilder('Lifecycle decisions (shadow)'))
    .withPanel(
      stacked(
        timeseries(
          'Decisions',
          'What the adapter lifecycle rules decide per resource change, evaluated in shadow mode (nothing is acted on), per second.',
          'ops',
          { span: 16 },
          query(`sum by (decision) (rate(reconcile_shadow_lifecycle_decisions_total{${K}}${RATE}))`, '{{decision}}'),
        ),
      ),
    )
    .withPanel(
      stat(
        'Conflicts in range',
        'Resource changes in the selected range where delete.when and recreate.when were both true (delete wins).',
        'short',
        { span: 8 },
        query(`sum(increase(reconcile_shadow_lifecycle_decisions_total{${K},decision="conflict"}[$__range]))`, 'conflicts'),
      ),
    )

    .withRow(new RowBuilder('HyperFleet Reconciled=False periods'))
    .withPanel(
      timeseries(
        'Reconciled=False periods, p95 by cause',
        'How long resources stayed Reconciled=False according to the HyperFleet API, by what caused it (create, update, recreate, delete); p95 over the last hour.',
        's',
        { span: 12 },
        query(`histogram_quantile(0.95, sum by (le, flow) (rate(reconcile_shadow_unreconciled_seconds_bucket{${R}}${QUANTILE_WINDOW})))`, 'p95 {{flow}}'),
      ),
    )
    .withPanel(
      stacked(
        timeseries(
          'Reconciled=False periods per hour, by cause',
          'Finished Reconciled=False periods per hour, by cause.',
          'short',
          { span: 12 },
          query(`sum by (flow) (increase(reconcile_shadow_unreconciled_seconds_count{${R}}[1h]))`, '{{flow}}'),
        ),
      ),
    )
    .build();
  return numberPanels(dashboard);
}
