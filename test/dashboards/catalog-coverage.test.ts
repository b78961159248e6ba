/** Every metric a dashboard panel, a dashboard variable or an alert reads is in the catalog; every catalog metric is shown. */
import { deepStrictEqual } from 'node:assert/strict';
import { alertOptions } from '../../alerts/options.js';
import { alertRuleGroups } from '../../alerts/rules.js';
import { METRICS, seriesNames } from '../../analyzer/metrics/catalog.js';
import { overviewDashboard } from '../../dashboards/overview.js';
import { recreationsDashboard } from '../../dashboards/recreations.js';
import { asJson, contentPanels } from './dashboard-json.js';
import { metricNames, variableQueryMetricNames } from './promql-metric-names.js';

/** Series Prometheus adds itself; the only non-catalog names a query may read. */
const PROMETHEUS_SERIES = ['up'];
const CATALOG_SERIES = new Set(METRICS.flatMap((m) => seriesNames(m)));
const options = alertOptions();
const dashboards = [asJson(overviewDashboard(options)), asJson(recreationsDashboard(options))];

/** `where → names read` for every query. */
function dashboardReads(): [string, string[]][] {
  return dashboards.flatMap((d) => [
    ...contentPanels(d).flatMap((p) => (p.targets ?? []).map((t): [string, string[]] => [`${d.title} / ${p.title}`, metricNames(t.expr)])),
    ...d.templating.list.filter((v) => v.type === 'query').map((v): [string, string[]] => [`${d.title} / $${v.name}`, variableQueryMetricNames(typeof v.query === 'string' ? v.query : JSON.stringify(v.query))]),
  ]);
}

const alertReads = (): [string, string[]][] => alertRuleGroups(options).flatMap((g) => g.rules.map((r): [string, string[]] => [r.alert, metricNames(r.expr)]));

const unknown = (reads: [string, string[]][], allowed: (name: string) => boolean): string[] =>
  reads.flatMap(([where, names]) => names.filter((n) => !allowed(n)).map((n) => `${where}: ${n}`));

describe('dashboards and alerts read only catalog metrics', () => {
  it('every dashboard query and variable reads catalog series only', () => {
    deepStrictEqual(unknown(dashboardReads(), (n) => CATALOG_SERIES.has(n)), []);
  });

  it('every alert expression reads catalog series or Prometheus’s own `up` only', () => {
    deepStrictEqual(unknown(alertReads(), (n) => CATALOG_SERIES.has(n) || PROMETHEUS_SERIES.includes(n)), []);
  });

  it('every query reads at least one metric (the check above cannot pass vacuously)', () => {
    deepStrictEqual([...dashboardReads(), ...alertReads()].filter(([, names]) => names.length === 0).map(([where]) => where), []);
  });

  it('every catalog metric is shown on a dashboard', () => {
    const shown = new Set(dashboardReads().flatMap(([, names]) => names));
    deepStrictEqual(
      METRICS.filter((m) => !seriesNames(m).some((s) => shown.has(s))).map((m) => m.name),
      [],
    );
  });

  it('names metrics outside the catalog when a query uses one', () => {
    deepStrictEqual(unknown([['probe', metricNames('rate(reconcile_shadow_made_up_total[5m]) / reconcile_shadow_attempts_total')]], (n) => CATALOG_SERIES.has(n)), ['probe: reconcile_shadow_made_up_total']);
  });
});
