/**
 * The dashboards and alerts against what a person would run first: the sidecar on its embedded default (a
 * simulated HyperShift fleet and adapter world), scraped for a minute by a real Prometheus (Debian's
 * /usr/bin/prometheus) as the shipped ServiceMonitor does (honor_labels, the target's namespace label), with the
 * shipped rules file loaded. Then every query of the shipped dashboard JSON goes through Prometheus's HTTP API with
 * Grafana's variables filled in from the label values the dashboards' own variable queries find: every query must
 * evaluate, at least 90 % of the panel targets must return data, and every rule must be healthy. The panel list,
 * with whether each showed data, is printed.
 *
 * It runs long, so it runs in `make e2e` (and .ci/run), not in `make test`.
 */
import { deepStrictEqual, ok } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDED_DEFAULT, parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { startPrometheus, type Evaluation, type RunningPrometheus } from '../alerts/prometheus-server.js';
import { until } from '../support/until.js';
import type { DashboardJson } from '../dashboards/dashboard-json.js';
import { contentPanels } from '../dashboards/dashboard-json.js';
import { REPO } from '../support/paths.js';

const JOB = 'reconcile-shadow';
const NAMESPACE = 'hypershift';
/** How long Prometheus scrapes the demo before the queries run (1 s scrapes). */
const SCRAPE_SECONDS = 60;
/** Grafana's $__rate_interval for 1 s scrapes over a minute: several samples per window. */
const RATE_INTERVAL = '10s';
const DASHBOARDS = ['reconcile-shadow-overview.json', 'reconcile-shadow-recreations.json'];

interface TargetResult {
  readonly dashboard: string;
  readonly panel: string;
  readonly legend: string;
  readonly expr: string;
  readonly evaluation: Evaluation;
  readonly hasData: boolean;
}

const shipped = (file: string): DashboardJson => JSON.parse(readFileSync(join(REPO, 'dashboards', file), 'utf8')) as DashboardJson;

/** A finite sample anywhere in the result: what Grafana would draw. */
function hasData(e: Evaluation): boolean {
  return (e.data?.result ?? []).some((series) =>
    [...(series.values ?? []), ...(series.value ? [series.value] : [])].some(([, v]) => Number.isFinite(Number(v))),
  );
}

/** `a|b` matching exactly these values, as Grafana renders a multi-value selection in a regex matcher. */
const regexOf = (values: readonly string[]): string => values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&')).join('|');

describe('dashboards and alerts on the embedded default, against a real Prometheus', function () {
  this.timeout(SCRAPE_SECONDS * 1000 + 90_000);
  let sidecar: Sidecar | undefined;
  let prometheus: RunningPrometheus | undefined;
  const variables = new Map<string, string[]>();
  const results: TargetResult[] = [];

  before(async () => {
    // The embedded default as `run` starts it, on free ports instead of 9464, 4318 and 4317.
    const config = EMBEDDED_DEFAULT.replace('127.0.0.1:9464', '127.0.0.1:0')
      .replace('127.0.0.1:4318', '127.0.0.1:0')
      .replace('127.0.0.1:4317', '127.0.0.1:0')
      .replace('console: {interval: 5s}', 'console: {enabled: false}');
    sidecar = await startSidecar(parseConfig(config, '(embedded default)'), { env: {}, log: () => undefined });
    prometheus = await startPrometheus({
      rules: readFileSync(join(REPO, 'alerts', 'reconcile-shadow.rules.yaml'), 'utf8'),
      job: JOB,
      target: `127.0.0.1:${sidecar.metricsAddress.port}`,
      targetLabels: { namespace: NAMESPACE },
    });
    const p = prometheus;
    // Prometheus hands new targets to its scrapers every 5 s; then a minute of 1 s scrapes.
    const scraped = `count_over_time(up{job="${JOB}"}[${SCRAPE_SECONDS + 30}s])`;
    await until('Prometheus to scrape the sidecar', async () => (await p.query(`up{job="${JOB}"} == 1`)).length === 1, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await until(`${SCRAPE_SECONDS} scrapes`, async () => Number((await p.query(scraped))[0]?.value[1] ?? 0) >= SCRAPE_SECONDS, {
      timeoutMs: SCRAPE_SECONDS * 1000 + 30_000,
      intervalMs: 100,
    });
  });

  after(async () => {
    await prometheus?.stop();
    await sidecar?.stop();
  });

  it('finds a value for every dashboard variable with the variable’s own query', async () => {
    const p = prometheus!;
    const missing: string[] = [];
    for (const d of DASHBOARDS.map(shipped)) {
      for (const v of d.templating.list.filter((x) => x.type === 'query')) {
        const query = typeof v.query === 'string' ? v.query : JSON.stringify(v.query);
        const m = /^label_values\((.*), (\w+)\)$/.exec(query);
        if (!m) throw new Error(`${d.title} $${v.name}: not a label_values query: ${query}`);
        const values = await p.labelValues(m[2]!, substitute(m[1]!));
        if (values.length === 0) missing.push(`${d.title} $${v.name}`);
        variables.set(v.name, values);
      }
    }
    deepStrictEqual(missing, []);
    deepStrictEqual(
      ['namespace', 'job', 'controller', 'kind', 'resource_type'].map((name) => [name, variables.get(name)]),
      [
        ['namespace', [NAMESPACE]],
        ['job', [JOB]],
        ['controller', ['hostedcluster']],
        ['kind', ['Job']],
        ['resource_type', ['cluster']],
      ],
    );
  });

  /** Grafana's variables as a person leaves them: every value the variable query found (before that: all). */
  function substitute(expr: string): string {
    return expr.replace(/\$(__rate_interval|__range|\w+)/g, (whole, name: string) => {
      if (name === '__rate_interval') return RATE_INTERVAL;
      if (name === '__range') return `${SCRAPE_SECONDS}s`;
      const values = variables.get(name);
      return values ? regexOf(values) : '.*';
    });
  }

  it('evaluates every panel query, and at least 90 % of the panel targets return data', async () => {
    const p = prometheus!;
    const end = Date.now() / 1000;
    const range = { start: end - SCRAPE_SECONDS, end, step: '1s' };
    for (const d of DASHBOARDS.map(shipped)) {
      for (const panel of contentPanels(d)) {
        for (const t of panel.targets ?? []) {
          const evaluation = await p.evaluate(substitute(t.expr), t.instant === true ? undefined : range);
          results.push({ dashboard: d.title, panel: panel.title, legend: t.legendFormat ?? '', expr: t.expr, evaluation, hasData: hasData(evaluation) });
        }
      }
    }
    const width = Math.max(...results.map((r) => r.panel.length));
    process.stdout.write(
      `\n      panel targets on the embedded default (${results.filter((r) => r.hasData).length} of ${results.length} with data):\n` +
        results
          .map(
            (r) =>
              `      ${r.hasData ? 'data   ' : 'NO DATA'}  ${String(r.evaluation.data?.result.length ?? 0).padStart(4)} series  ${r.panel.padEnd(width)}  ${r.legend}`,
          )
          .join('\n') +
        '\n',
    );
    deepStrictEqual(
      results.filter((r) => r.evaluation.status !== 'success').map((r) => `${r.panel}: ${r.evaluation.error ?? 'failed'}`),
      [],
    );
    const withData = results.filter((r) => r.hasData).length;
    ok(
      withData / results.length >= 0.9,
      `${withData} of ${results.length} panel targets returned data; without: ${results
        .filter((r) => !r.hasData)
        .map((r) => r.panel)
        .join(', ')}`,
    );
  });

  it('has every shipped rule loaded and healthy', async () => {
    const rules = await prometheus!.rules();
    deepStrictEqual(rules.length, 14);
    deepStrictEqual(
      rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`),
      [],
    );
  });
});
