/** Every metric a dashboard panel, a dashboard variable or an alert reads is in the catalog; every catalog metric is shown. */
import { deepStrictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alertOptions } from '../../alerts/options.js';
import { alertRuleGroups } from '../../alerts/rules.js';
import { METRICS, seriesNames } from '../../outputs/metrics/catalog.js';
import { overviewDashboard } from '../../dashboards/overview.js';
import { packageRoot } from '../../lib/package-root.js';
import { recreationsDashboard } from '../../dashboards/recreations.js';
import { switchReadinessDashboard } from '../../dashboards/switch-readiness.js';
import { asJson, contentPanels } from './dashboard-json.js';
import { metricNames, variableQueryMetricNames } from './promql-metric-names.js';

/** Series Prometheus adds itself; the only non-catalog names a query may read. */
const PROMETHEUS_SERIES = ['up'];
const CATALOG_SERIES = new Set(METRICS.flatMap((m) => seriesNames(m)));
const options = alertOptions();
const dashboards = [asJson(overviewDashboard(options)), asJson(recreationsDashboard(options)), asJson(switchReadinessDashboard())];

/** `where → names read` for every query. */
function dashboardReads(): [string, string[]][] {
  return dashboards.flatMap((d) => [
    ...contentPanels(d).flatMap((p) => (p.targets ?? []).map((t): [string, string[]] => [`${d.title} / ${p.title}`, metricNames(t.expr)])),
    ...d.templating.list
      .filter((v) => v.type === 'query')
      .map((v): [string, string[]] => [`${d.title} / $${v.name}`, variableQueryMetricNames(typeof v.query === 'string' ? v.query : JSON.stringify(v.query))]),
  ]);
}

const alertReads = (): [string, string[]][] => alertRuleGroups(options).flatMap((g) => g.rules.map((r): [string, string[]] => [r.alert, metricNames(r.expr)]));

const unknown = (reads: [string, string[]][], allowed: (name: string) => boolean): string[] =>
  reads.flatMap(([where, names]) => names.filter((n) => !allowed(n)).map((n) => `${where}: ${n}`));

describe('dashboards and alerts read only catalog metrics', () => {
  it('every dashboard query and variable reads catalog series only', () => {
    deepStrictEqual(
      unknown(dashboardReads(), (n) => CATALOG_SERIES.has(n)),
      [],
    );
  });

  it('every alert expression reads catalog series or Prometheus’s own `up` only', () => {
    deepStrictEqual(
      unknown(alertReads(), (n) => CATALOG_SERIES.has(n) || PROMETHEUS_SERIES.includes(n)),
      [],
    );
  });

  it('every query reads at least one metric (the check above cannot pass vacuously)', () => {
    deepStrictEqual(
      [...dashboardReads(), ...alertReads()].filter(([, names]) => names.length === 0).map(([where]) => where),
      [],
    );
  });

  it('every catalog metric is shown on a dashboard', () => {
    const shown = new Set(dashboardReads().flatMap(([, names]) => names));
    deepStrictEqual(
      METRICS.filter((m) => !seriesNames(m).some((s) => shown.has(s))).map((m) => m.name),
      [],
    );
  });

  it('names metrics outside the catalog when a query uses one', () => {
    deepStrictEqual(
      unknown([['probe', metricNames('rate(reconcile_shadow_made_up_total[5m]) / reconcile_shadow_attempts_total')]], (n) => CATALOG_SERIES.has(n)),
      ['probe: reconcile_shadow_made_up_total'],
    );
  });

  it('the README names, for every metric in seconds, whether it is a timestamp, an age or a duration, as the catalog says', () => {
    const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
    const paragraph = readme.slice(readme.indexOf('**Times are wall-clock.**')).split('\n\n')[0]!;
    const listed = (label: string): string[] => {
      const after = paragraph.slice(paragraph.indexOf(`${label} (`));
      const list = after.slice(after.indexOf('):') + 2).split(/\n[A-Z]\w+ \(/)[0]!;
      return [...list.matchAll(/`(reconcile_shadow_\w+)`/g)].map((m) => m[1]!).sort();
    };
    const inCatalog = (time: string): string[] =>
      METRICS.filter((m) => 'time' in m && m.time === time)
        .map((m) => m.name)
        .sort();
    deepStrictEqual(
      { timestamps: listed('Timestamps'), ages: listed('Ages'), durations: listed('Durations') },
      { timestamps: inCatalog('timestamp'), ages: inCatalog('age'), durations: inCatalog('duration') },
    );
    // Every metric whose unit is seconds says which it is.
    deepStrictEqual(
      METRICS.filter((m) => /_seconds$/.test(m.name) && !('time' in m)).map((m) => m.name),
      [],
    );
  });
});
