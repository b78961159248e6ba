/**
 * "Reconcile shadow — overview": what the two loops did and would have done, per controller and operation,
 * and what the sidecar could not take in. Every query selects the sidecars of the `namespace`, `job` and `instance`
 * variables, and the `controller` variable wherever the metric has a controller.
 */
import { DashboardBuilder, RowBuilder, type Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import type { AlertOptions } from '../alerts/options.js';
import {
  dashboardLinks,
  datasourceVariable,
  labelVariable,
  numberPanels,
  query,
  SIDECARS,
  sidecarVariables,
  stacked,
  table,
  TAGS,
  timeseries,
  withThresholdLines,
} from './panels.js';

export const OVERVIEW_UID = 'reconcile-shadow-overview';

const S = SIDECARS;
const C = `${SIDECARS},controller=~"$controller"`;
const RATE = '[$__rate_interval]';

export function overviewDashboard(alerts: AlertOptions): Dashboard {
  const ran = `outcome=~"ok|error|stop"`;
  const builder = new DashboardBuilder('Reconcile shadow — overview')
    .uid(OVERVIEW_UID)
    .tags(TAGS)
    .description('Sequential vs phased reconcile loop, replayed in shadow mode by the reconcile-shadow sidecar.')
    .refresh('30s')
    .time({ from: 'now-6h', to: 'now' })
    .link(dashboardLinks())
    .withVariable(datasourceVariable());
  for (const v of sidecarVariables()) builder.withVariable(v);
  const dashboard = builder
    .withVariable(labelVariable('controller', 'Controller', `reconcile_shadow_attempts_total{${S}}`))

    .withRow(new RowBuilder('Attempts and divergence'))
    .withPanel(
      timeseries(
        'Attempts analyzed',
        'Reconcile attempts the sidecar analyzed per second, by controller and by the loop the operator actually ran.',
        'ops',
        { span: 8 },
        query(`sum by (controller, observed_loop) (rate(reconcile_shadow_attempts_total{${C}}${RATE}))`, '{{controller}} (observed {{observed_loop}})'),
      ),
    )
    .withPanel(
      timeseries(
        'Divergence rate',
        'Share of attempts in which the other loop would have run a different set of operations: something unblocked or newly blocked. An operation that exists in one loop alone is no divergence (next panel).',
        'percentunit',
        { span: 8 },
        query(
          `sum by (controller) (rate(reconcile_shadow_attempts_total{${C},diverged="true"}${RATE})) / sum by (controller) (rate(reconcile_shadow_attempts_total{${C}}${RATE}))`,
          '{{controller}}',
        ),
      ),
    )
    .withPanel(
      timeseries(
        'One-loop operations (structural)',
        'Share of attempts that ran an operation existing in one loop alone (`only:` in the model): a difference of the two models’ structure, the same in every attempt, so it is shown apart from divergence.',
        'percentunit',
        { span: 8 },
        query(
          `sum by (controller, operation) (rate(reconcile_shadow_operation_structural_total{${C}}${RATE})) / on (controller) group_left () sum by (controller) (rate(reconcile_shadow_attempts_total{${C}}${RATE}))`,
          '{{operation}}',
        ),
      ),
    )

    .withRow(new RowBuilder('Operations'))
    .withPanel(
      withThresholdLines(
        timeseries(
          'Failure rate per operation',
          'Observed errors as a share of the attempts that ran the operation (ok, error or stop), with the operation’s phased-loop category. The red line is the ReconcileShadowCriticalOperationFailing threshold, which applies to critical operations.',
          'percentunit',
          { span: 12 },
          query(
            `(sum by (controller, operation) (rate(reconcile_shadow_operation_observed_total{${C},outcome="error"}${RATE})) / sum by (controller, operation) (rate(reconcile_shadow_operation_observed_total{${C},${ran}}${RATE}))) * on (controller, operation) group_left (category) max by (controller, operation, category) (reconcile_shadow_operation_info{${C}})`,
            '{{operation}} ({{category}})',
          ),
        ),
        [[alerts.criticalOperationFailing.errorRatio, 'red']],
      ),
    )
    .withPanel(
      stacked(
        timeseries(
          'Observed outcomes',
          'Operation outcomes the sidecar observed, per second (predicted outcomes are never counted).',
          'ops',
          { span: 12 },
          query(`sum by (outcome) (rate(reconcile_shadow_operation_observed_total{${C}}${RATE}))`, '{{outcome}}'),
        ),
      ),
    )
    .withPanel(
      timeseries(
        'Unblocked per operation',
        'Attempts per second in which the phased loop would run the operation and the sequential loop does not: what the phased loop gains.',
        'ops',
        { span: 12 },
        query(`sum by (operation) (rate(reconcile_shadow_operation_unblocked_total{${C}}${RATE}))`, '{{operation}}'),
      ),
    )
    .withPanel(
      timeseries(
        'Newly blocked per operation',
        'Attempts per second in which the sequential loop runs the operation and the phased loop would not: what the phased loop would stop doing.',
        'ops',
        { span: 12 },
        query(`sum by (operation) (rate(reconcile_shadow_operation_newly_blocked_total{${C}}${RATE}))`, '{{operation}}'),
      ),
    )
    .withPanel(
      table(
        'Blocked by (blocker → blocked)',
        'Attempts in the selected time range in which a failed critical group kept a blockable group from running in the phased loop.',
        'short',
        { span: 12 },
        `sum by (blocker, blocked) (increase(reconcile_shadow_blocked_by_total{${C}}[$__range])) > 0`,
        ['blocker', 'blocked'],
        'attempts',
      ),
    )
    .withPanel(
      withThresholdLines(
        timeseries(
          'Longest starvation per operation',
          'The longest current streak, over all objects, of the operation not running under the observed loop while the other loop would have run it. The red line is the ReconcileShadowOperationStarved threshold.',
          's',
          { span: 12 },
          query(`max by (operation) (reconcile_shadow_operation_starved_seconds{${C}})`, '{{operation}}'),
        ),
        [[alerts.operationStarved.seconds, 'red']],
      ),
    )
    .withPanel(
      table(
        'Reordered pairs',
        'Attempts in the selected time range in which both loops ran a pair of operations in a different relative order.',
        'short',
        { span: 12 },
        `sum by (first, second) (increase(reconcile_shadow_reordered_pairs_total{${C}}[$__range])) > 0`,
        ['first', 'second'],
        'attempts',
      ),
    )
    .withPanel(
      timeseries(
        'Tracked objects',
        'Objects whose outcome history and starvation timers the sidecar holds.',
        'short',
        { span: 12 },
        query(`sum by (controller) (reconcile_shadow_tracked_objects{${C}})`, '{{controller}}'),
        query(`sum by (controller) (rate(reconcile_shadow_tracked_objects_evicted_total{${C}}${RATE}))`, '{{controller}} evicted/s'),
      ),
    )

    .withRow(new RowBuilder('What the sidecar took in, and what it dropped'))
    .withPanel(
      timeseries(
        'Records received',
        'Input records per second by source, before validation.',
        'ops',
        { span: 8 },
        query(`sum by (source) (rate(reconcile_shadow_records_received_total{${S}}${RATE}))`, '{{source}}'),
      ),
    )
    .withPanel(
      stacked(
        timeseries(
          'Records dropped, by source and reason',
          'Input records refused or lost per second. Every drop has a bounded reason; none is silent.',
          'ops',
          { span: 8 },
          query(`sum by (source, reason) (rate(reconcile_shadow_records_dropped_total{${S}}${RATE}))`, '{{source}}: {{reason}}'),
        ),
      ),
    )
    .withPanel(
      table(
        'Dropped in range',
        'Records dropped in the selected time range, by source and reason.',
        'short',
        { span: 8 },
        `sum by (source, reason) (increase(reconcile_shadow_records_dropped_total{${S}}[$__range])) > 0`,
        ['source', 'reason'],
        'records',
      ),
    )
    .withPanel(
      timeseries(
        'Incomplete attempts',
        'Attempts analyzed with only part of their input (OTLP wait expired, sampled logs, status transitions), per second.',
        'ops',
        { span: 8 },
        query(`sum by (source) (rate(reconcile_shadow_attempts_incomplete_total{${S}}${RATE}))`, '{{source}}'),
      ),
    )
    .withPanel(
      timeseries(
        'Attempts noted',
        'Attempts per second a source analyzed with a stated reservation (loop inherited or contradicted, an error format several operations share, sampled logs): what they state is less than their text; /summary lists them.',
        'ops',
        { span: 8 },
        query(`sum by (source, note) (rate(reconcile_shadow_attempts_noted_total{${S}}${RATE}))`, '{{source}}: {{note}}'),
      ),
    )
    .withPanel(
      timeseries(
        'Unmapped errors',
        'Error messages per second that matched no error format of the model: the model needs a new format.',
        'ops',
        { span: 8 },
        query(`sum by (controller) (rate(reconcile_shadow_unmapped_errors_total{${C}}${RATE}))`, '{{controller}}'),
      ),
    )
    .withPanel(
      timeseries(
        'Internal errors',
        'Failures inside the sidecar per second, by kind; never fatal, always counted.',
        'ops',
        { span: 8 },
        query(`sum by (kind) (rate(reconcile_shadow_internal_errors_total{${S}}${RATE}))`, '{{kind}}'),
      ),
    )
    .withPanel(
      withThresholdLines(
        timeseries(
          'Time since last record',
          'Seconds since each source last handed on a record (wall-clock time, also in the simulated demo), newest over the selected sidecars. The red line is the ReconcileShadowSourceSilent threshold.',
          's',
          { span: 8 },
          query(`time() - max by (source) (reconcile_shadow_source_last_record_timestamp_seconds{${S}})`, '{{source}}'),
        ),
        [[alerts.sourceSilent.seconds, 'red']],
      ),
    )
    .withPanel(
      timeseries(
        'Sources up',
        '1 while a source is connected and current, 0 while it retries or serves stale state; lowest over the selected sidecars.',
        'short',
        { span: 8 },
        query(`min by (source) (reconcile_shadow_source_up{${S}})`, '{{source}}'),
      ).max(1),
    )
    .withPanel(
      timeseries(
        'Failed polls',
        'Failed polls per second of the HyperFleet API and Maestro sources, by reason; unauthorized is a 401 (the token file is read again before the next poll).',
        'ops',
        { span: 8 },
        query(`sum by (source, reason) (rate(reconcile_shadow_source_failures_total{${S}}${RATE}))`, '{{source}}: {{reason}}'),
      ),
    )
    .withPanel(
      timeseries(
        'Lists read over several polls',
        '1 while a polled list (a HyperFleet fleet, Maestro works) is longer than one poll reads: each resource is then seen once per pass over several polls; raise maxPagesPerPoll. Highest over the selected sidecars.',
        'short',
        { span: 8 },
        query(`max by (source) (reconcile_shadow_source_truncated{${S}})`, '{{source}}'),
      ).max(1),
    )
    .withPanel(
      table(
        'Sidecar versions and models',
        'The sidecars Prometheus scrapes, with their version and the models they run.',
        'short',
        { span: 8 },
        `count by (version, models) (reconcile_shadow_info{${S}})`,
        ['version', 'models'],
        'sidecars',
      ),
    )
    .build();
  return numberPanels(dashboard);
}
