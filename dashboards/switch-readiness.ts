/**
 * "Reconcile shadow — switch readiness": the fleet component's verdict (sources.peers) over time, per controller, the
 * reasons it gives, the per-loop failure rates of the operations it compares and their findings, and the peers its
 * evidence covers. It reads the fleet component's series only; a sidecar of one operator has none of them.
 */
import { DashboardBuilder, RowBuilder, type Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import {
  dashboardLinks,
  datasourceVariable,
  labelVariable,
  numberPanels,
  query,
  SIDECARS,
  sidecarVariables,
  stacked,
  stat,
  table,
  TAGS,
  timeseries,
} from './panels.js';

export const SWITCH_READINESS_UID = 'reconcile-shadow-switch-readiness';

const C = `${SIDECARS},controller=~"$controller"`;

export function switchReadinessDashboard(): Dashboard {
  const builder = new DashboardBuilder('Reconcile shadow — switch readiness')
    .uid(SWITCH_READINESS_UID)
    .tags(TAGS)
    .description("The fleet's verdict on switching to the phased loop, decided over every sidecar's evidence (sources.peers).")
    .refresh('1m')
    .time({ from: 'now-7d', to: 'now' })
    .link(dashboardLinks())
    .withVariable(datasourceVariable());
  for (const v of sidecarVariables()) builder.withVariable(v);
  const dashboard = builder
    .withVariable(labelVariable('controller', 'Controller', `reconcile_shadow_verdict{${SIDECARS}}`))

    .withRow(new RowBuilder('Verdict'))
    .withPanel(
      stacked(
        timeseries(
          'Verdict over time',
          'The current verdict per controller (1 for the verdict it gives): ready, not-ready (measured harm), or inconclusive (the first reason says what is missing).',
          'short',
          { span: 16 },
          query(`max by (controller, verdict) (reconcile_shadow_verdict{${C}}) > 0`, '{{controller}} {{verdict}}'),
        ),
      ),
    )
    .withPanel(
      table(
        'Reasons now',
        "The kinds of reason the fleet's verdict gives now, and how many of each (docs/decisions.md).",
        'short',
        { span: 8 },
        `max by (controller, kind) (reconcile_shadow_verdict_reasons{${C}}) > 0`,
        ['controller', 'kind'],
        'reasons',
      ),
    )

    .withPanel(
      table(
        'Rules now',
        'Each decision rule of the verdict (docs/decisions.md): 1 passes, 0 gives reasons. A failing check (sample-ratio, population-balance) makes the verdict inconclusive first.',
        'short',
        { span: 24 },
        `max by (controller, rule, role) (reconcile_shadow_verdict_rule_passed{${C}})`,
        ['controller', 'rule', 'role'],
        'passed',
      ),
    )

    .withRow(new RowBuilder('Operations compared across the loops'))
    .withPanel(
      timeseries(
        'Failure rate of the operations found worse under the phased loop',
        'For each operation the comparison finds worse under the phased loop: the share of its runs that fail, per loop, over the peers.',
        'percentunit',
        { span: 12 },
        query(
          `max by (operation, loop) (reconcile_shadow_loop_failure_ratio{${C}}) and on (operation) (max by (operation) (reconcile_shadow_loop_comparison{${C},finding="worse-under-phased"}) == 1)`,
          '{{operation}} {{loop}}',
        ),
      ),
    )
    .withPanel(
      timeseries(
        'E-values of the compared operations',
        'Per operation, the anytime-valid e-value against "fails no more under the phased loop": safe to watch as it grows; with e-BH across operations, a large one is harm.',
        'short',
        { span: 12 },
        query(`max by (operation) (reconcile_shadow_loop_comparison_e_value{${C}})`, '{{operation}}'),
      ),
    )
    .withPanel(
      table(
        'Findings now',
        'Each compared operation and its finding (worse-under-phased, better-under-phased, same, inconclusive).',
        'short',
        { span: 12 },
        `max by (controller, operation, finding) (reconcile_shadow_loop_comparison{${C}}) == 1`,
        ['controller', 'operation', 'finding'],
        'current',
      ),
    )

    .withRow(new RowBuilder('Peers covered'))
    .withPanel(
      stacked(
        timeseries(
          'Peers by state',
          'The sidecars the verdict covers (read; failing: its last partial still counted) and those it does not (missing).',
          'short',
          { span: 12 },
          query(`max by (state) (reconcile_shadow_fleet_peers{${SIDECARS}})`, '{{state}}'),
        ),
      ),
    )
    .withPanel(
      stat(
        'Peers missing',
        'Peers whose evidence has left the verdict (ReconcileShadowFleetPeerMissing).',
        'short',
        { span: 4 },
        query(`count(max by (peer) (reconcile_shadow_fleet_peer_up{${SIDECARS}}) == 0) or vector(0)`, 'missing'),
      ),
    )
    .withPanel(
      timeseries(
        'Peer read failures',
        "Reads of peers' partials that failed, per second, by reason.",
        'ops',
        { span: 8 },
        query(`sum by (reason) (rate(reconcile_shadow_fleet_peer_failures_total{${SIDECARS}}[$__rate_interval]))`, '{{reason}}'),
      ),
    )
    .build();
  return numberPanels(dashboard);
}
