import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { alertOptions } from '../../alerts/options.js';
import { DURATION_PHASES } from '../../analyzer/recreations/tracker.js';
import { overviewDashboard } from '../../dashboards/overview.js';
import { recreationsDashboard } from '../../dashboards/recreations.js';
import { asJson, contentPanels, panel, type DashboardJson } from './dashboard-json.js';
import { metricSelectors } from './promql-metric-names.js';

const options = alertOptions();
const overview = asJson(overviewDashboard(options));
const recreations = asJson(recreationsDashboard(options));

describe('dashboards: shape', () => {
  for (const d of [overview, recreations]) {
    it(`${d.title}: every panel queries $datasource, has a description and at least one query`, () => {
      for (const p of contentPanels(d)) {
        deepStrictEqual(p.datasource, { type: 'prometheus', uid: '${datasource}' }, p.title);
        ok((p.description ?? '').length > 20, `${p.title}: description`);
        ok((p.targets ?? []).length > 0, `${p.title}: queries`);
      }
    });

    it(`${d.title}: numbers panels 1..n in layout order, so panel links survive regeneration`, () => {
      deepStrictEqual(
        d.panels.map((p) => p.id),
        d.panels.map((_, i) => i + 1),
      );
    });

    it(`${d.title}: lays panels out on the 24-column grid without overlaps`, () => {
      const cells = new Set<string>();
      for (const p of d.panels) {
        const g = p.gridPos!;
        ok(g.x + g.w <= 24, `${p.title} overflows`);
        for (let x = g.x; x < g.x + g.w; x++)
          for (let y = g.y; y < g.y + g.h; y++) {
            const key = `${x},${y}`;
            ok(!cells.has(key), `${p.title} overlaps at ${key}`);
            cells.add(key);
          }
      }
    });
  }

  const variables = (d: DashboardJson): [string, string, unknown][] => d.templating.list.map((v) => [v.name, v.type, v.query]);
  const SIDECAR_VARIABLES: [string, string, unknown][] = [
    ['datasource', 'datasource', 'prometheus'],
    ['namespace', 'query', 'label_values(reconcile_shadow_info, namespace)'],
    ['job', 'query', 'label_values(reconcile_shadow_info{namespace=~"$namespace"}, job)'],
    ['instance', 'query', 'label_values(reconcile_shadow_info{namespace=~"$namespace",job=~"$job"}, instance)'],
  ];
  const S = 'namespace=~"$namespace",job=~"$job",instance=~"$instance"';

  it('overview: datasource, sidecar and controller variables, and the panels it ships', () => {
    strictEqual(overview.uid, 'reconcile-shadow-overview');
    deepStrictEqual(variables(overview), [...SIDECAR_VARIABLES, ['controller', 'query', `label_values(reconcile_shadow_attempts_total{${S}}, controller)`]]);
    for (const title of [
      'Attempts analyzed',
      'Divergence rate',
      'One-loop operations (structural)',
      'Failure rate per operation',
      'Unblocked per operation',
      'Newly blocked per operation',
      'Blocked by (blocker → blocked)',
      'Longest starvation per operation',
      'Records dropped, by source and reason',
      'Dropped in range',
    ]) {
      panel(overview, title);
    }
  });

  it('every query selects the sidecars of $namespace, $job and $instance (the per-object stuck series by job and instance)', () => {
    const unfiltered = [overview, recreations].flatMap((d) =>
      contentPanels(d).flatMap((p) =>
        (p.targets ?? []).flatMap((t) =>
          metricSelectors(t.expr)
            .filter(
              ({ metric, matchers }) => !matchers.startsWith(metric === 'reconcile_shadow_recreation_stuck_seconds' ? 'job=~"$job",instance=~"$instance"' : S),
            )
            .map(({ metric }) => `${d.title} / ${p.title}: ${metric}`),
        ),
      ),
    );
    deepStrictEqual(unfiltered, []);
  });

  it('overview: the divergence rate counts only diverged attempts; one-loop operations have their own panel', () => {
    deepStrictEqual(
      panel(overview, 'Divergence rate').targets?.map((t) => t.expr),
      [
        `sum by (controller) (rate(reconcile_shadow_attempts_total{${S},controller=~"$controller",diverged="true"}[$__rate_interval])) / sum by (controller) (rate(reconcile_shadow_attempts_total{${S},controller=~"$controller"}[$__rate_interval]))`,
      ],
    );
    deepStrictEqual(
      panel(overview, 'One-loop operations (structural)').targets?.map((t) => t.expr),
      [
        `sum by (controller, operation) (rate(reconcile_shadow_operation_structural_total{${S},controller=~"$controller"}[$__rate_interval])) / on (controller) group_left () sum by (controller) (rate(reconcile_shadow_attempts_total{${S},controller=~"$controller"}[$__rate_interval]))`,
      ],
    );
  });

  it('overview: filters by $controller wherever the metric has a controller label', () => {
    for (const p of contentPanels(overview)) {
      for (const t of p.targets ?? []) {
        const hasController =
          /reconcile_shadow_(attempts_total|operation_\w+|blocked_by_total|reordered_pairs_total|tracked_objects|tracked_objects_evicted_total|unmapped_errors_total)\b/.test(
            t.expr,
          );
        strictEqual(t.expr.includes('controller=~"$controller"'), hasController, `${p.title}: ${t.expr}`);
      }
    }
  });

  it('overview: the blocked-by table lists blocker → blocked over the selected range', () => {
    const p = panel(overview, 'Blocked by (blocker → blocked)');
    strictEqual(p.type, 'table');
    deepStrictEqual(p.targets, [
      {
        expr: `sum by (blocker, blocked) (increase(reconcile_shadow_blocked_by_total{${S},controller=~"$controller"}[$__range])) > 0`,
        instant: true,
        range: false,
        format: 'table',
      },
    ]);
  });

  it('recreations: datasource, sidecar, kind and resource_type variables, and the panels it ships', () => {
    strictEqual(recreations.uid, 'reconcile-shadow-recreations');
    deepStrictEqual(variables(recreations), [
      ...SIDECAR_VARIABLES,
      ['kind', 'query', `label_values(reconcile_shadow_recreations_in_flight{${S}}, kind)`],
      ['resource_type', 'query', `label_values(reconcile_shadow_unreconciled_seconds_count{${S}}, resource_type)`],
    ]);
    for (const title of [
      'Recreations in flight, by phase',
      'Oldest unfinished recreation',
      'Stuck objects',
      'Predicted unreconciled time: blocking vs sentinel',
      'Decisions',
      'Conflicts in range',
      'Reconciled=False periods, p95 by cause',
    ]) {
      panel(recreations, title);
    }
  });

  it('recreations: the stuck objects table names each object from the per-object stuck series', () => {
    const p = panel(recreations, 'Stuck objects');
    strictEqual(p.type, 'table');
    strictEqual(
      p.targets?.[0]?.expr,
      'max by (kind, namespace, name) (reconcile_shadow_recreation_stuck_seconds{job=~"$job",instance=~"$instance",kind=~"$kind"})',
    );
    strictEqual(p.fieldConfig?.defaults.unit, 's');
  });

  it('recreations: one heatmap of pre-bucketed durations per phase', () => {
    const heatmaps = contentPanels(recreations).filter((p) => p.type === 'heatmap');
    deepStrictEqual(
      heatmaps.map((p) => p.title),
      DURATION_PHASES.map((phase) => `Duration: ${phase}`),
    );
    for (const [i, p] of heatmaps.entries()) {
      strictEqual(p.options?.calculate, false);
      deepStrictEqual(p.targets, [
        {
          expr: `sum by (le) (increase(reconcile_shadow_recreation_duration_seconds_bucket{${S},kind=~"$kind",phase="${DURATION_PHASES[i]}"}[$__rate_interval]))`,
          legendFormat: '{{le}}',
          format: 'heatmap',
        },
      ]);
    }
  });

  it('every query is valid PromQL once Grafana substitutes its variables (promtool parses each as a recording rule)', () => {
    const grafanaValues: Record<string, string> = {
      $__rate_interval: '2m',
      $__range: '6h',
      $namespace: '.*',
      $job: '.*',
      $instance: '.*',
      $controller: '.*',
      $kind: '.*',
      $resource_type: '.*',
    };
    const exprs = [overview, recreations].flatMap((d) => contentPanels(d).flatMap((p) => (p.targets ?? []).map((t) => t.expr)));
    const rules = exprs.map((expr, i) => ({ record: `dashboard_query:${i}`, expr: expr.replace(/\$\w+/g, (v) => grafanaValues[v] ?? v) }));
    const dir = mkdtempSync(join(tmpdir(), 'rs-dashboards-'));
    try {
      writeFileSync(join(dir, 'queries.yaml'), stringify({ groups: [{ name: 'dashboard-queries', rules }] }, { lineWidth: 0 }));
      const run = spawnSync('promtool', ['check', 'rules', join(dir, 'queries.yaml')], { encoding: 'utf8', timeout: 20_000 });
      strictEqual(run.status, 0, `${run.stdout}${run.stderr}`);
      ok(run.stdout.includes(`SUCCESS: ${exprs.length} rules found`), run.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('draws the alert thresholds the rules were generated with', () => {
    const steps = (d: DashboardJson, title: string): (number | null)[] => panel(d, title).fieldConfig?.defaults.thresholds?.steps.map((s) => s.value) ?? [];
    deepStrictEqual(steps(overview, 'Longest starvation per operation'), [null, 1800]);
    deepStrictEqual(steps(overview, 'Failure rate per operation'), [null, 0.5]);
    deepStrictEqual(steps(recreations, 'Oldest unfinished recreation'), [null, 1800]);
    const custom = alertOptions({
      operationStarved: { seconds: 900 },
      recreationStuckCritical: { seconds: 3600 },
      criticalOperationFailing: { errorRatio: 0.25 },
    });
    deepStrictEqual(steps(asJson(overviewDashboard(custom)), 'Longest starvation per operation'), [null, 900]);
    deepStrictEqual(steps(asJson(overviewDashboard(custom)), 'Failure rate per operation'), [null, 0.25]);
    deepStrictEqual(steps(asJson(recreationsDashboard(custom)), 'Oldest unfinished recreation'), [null, 3600]);
  });

  it('recreations: draws each kind’s configured stuck threshold (dashed) next to its oldest recreation', () => {
    const p = panel(recreations, 'Oldest unfinished recreation');
    deepStrictEqual(p.targets, [
      { expr: `max by (kind) (reconcile_shadow_recreation_oldest_seconds{${S},kind=~"$kind"})`, legendFormat: '{{kind}}' },
      { expr: `max by (kind) (reconcile_shadow_recreation_stuck_threshold_seconds{${S},kind=~"$kind"})`, legendFormat: 'stuck threshold {{kind}}' },
    ]);
    deepStrictEqual(p.fieldConfig?.overrides, [
      { matcher: { id: 'byRegexp', options: '^stuck threshold ' }, properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }] },
    ]);
  });

  it('overview: failure rate per operation carries each operation’s category from the published info series', () => {
    deepStrictEqual(panel(overview, 'Failure rate per operation').targets, [
      {
        expr: `(sum by (controller, operation) (rate(reconcile_shadow_operation_observed_total{${S},controller=~"$controller",outcome="error"}[$__rate_interval])) / sum by (controller, operation) (rate(reconcile_shadow_operation_observed_total{${S},controller=~"$controller",outcome=~"ok|error|stop"}[$__rate_interval]))) * on (controller, operation) group_left (category) max by (controller, operation, category) (reconcile_shadow_operation_info{${S},controller=~"$controller"})`,
        legendFormat: '{{operation}} ({{category}})',
      },
    ]);
  });
});
