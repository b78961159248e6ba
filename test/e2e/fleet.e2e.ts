/**
 * The fleet verdict with a real Prometheus (test/support/fleet-world.ts): three sidecars and a fleet component that
 * discovers them; Prometheus scrapes the fleet component and evaluates the generated rules (with short `for:`).
 * ReconcileShadowPhasedLoopHarm must fire naming the harm's kind, every query of the Switch readiness dashboard must
 * evaluate, the rollout gates' queries (deploy/rollout-gate) must read the verdict as -1 (not-ready), and killing
 * the phased sidecar must fire ReconcileShadowFleetPeerMissing naming it, once its partial is past keepFor.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { alertOptions } from '../../alerts/options.js';
import { rulesFile } from '../../alerts/render.js';
import { alertRuleGroups } from '../../alerts/rules.js';
import { contentPanels, type DashboardJson } from '../dashboards/dashboard-json.js';
import { startPrometheus, type RunningPrometheus } from '../alerts/prometheus-server.js';
import { until } from '../support/until.js';
import { FLEET_CONTROLLER, FLEET_NAMESPACE, startFleetWorld, type FleetWorld } from '../support/fleet-world.js';
import { REPO } from '../support/paths.js';

const JOB = 'reconcile-shadow-fleet';
const WAIT_MS = 30_000;

/** The query of a shipped gate, its template variables filled in. */
function gateQuery(file: string): string {
  const gate = parse(readFileSync(join(REPO, 'deploy/rollout-gate', file), 'utf8')) as {
    spec: { query?: string; metrics?: { provider: { prometheus: { query: string } } }[] };
  };
  const query = gate.spec.query ?? gate.spec.metrics![0]!.provider.prometheus.query;
  return query.replaceAll('{{args.controller}}', FLEET_CONTROLLER).replaceAll('{{ variables.controller }}', FLEET_CONTROLLER);
}

describe('the fleet verdict against a real Prometheus: alerts, dashboard, rollout gates', function () {
  this.timeout(120_000);
  let world: FleetWorld | undefined;
  let prometheus: RunningPrometheus | undefined;

  before(async () => {
    world = await startFleetWorld({ keepFor: '3s', interval: '1s' });
    const options = alertOptions({ phasedLoopHarm: { for: '2s' }, fleetPeerMissing: { for: '2s' }, selector: `job="${JOB}"` });
    prometheus = await startPrometheus({
      rules: rulesFile(alertRuleGroups(options), options),
      job: JOB,
      target: `127.0.0.1:${world.fleet.metricsAddress.port}`,
    });
    const p = prometheus;
    await until('Prometheus to scrape the fleet component', async () => (await p.query(`up{job="${JOB}"} == 1`)).length === 1, {
      timeoutMs: WAIT_MS,
      intervalMs: 100,
    });
  });

  after(async () => {
    await prometheus?.stop();
    await world?.close();
  });

  it('fires ReconcileShadowPhasedLoopHarm naming the kind of harm', async () => {
    const p = prometheus!;
    const firing = await until(
      'ReconcileShadowPhasedLoopHarm to fire',
      async () => (await p.alerts()).find((a) => a.labels.alertname === 'ReconcileShadowPhasedLoopHarm' && a.state === 'firing'),
      { timeoutMs: WAIT_MS, intervalMs: 100 },
    );
    deepStrictEqual(firing.labels, {
      alertname: 'ReconcileShadowPhasedLoopHarm',
      severity: 'warning',
      controller: FLEET_CONTROLLER,
      kind: 'worse-under-phased',
    });
  });

  it('evaluates every query of the Switch readiness dashboard, with data', async () => {
    const p = prometheus!;
    const dashboard = JSON.parse(readFileSync(join(REPO, 'dashboards/reconcile-shadow-switch-readiness.json'), 'utf8')) as DashboardJson;
    const fill = (expr: string): string =>
      expr.replace(/\$(__rate_interval|__range|\w+)/g, (_, name: string) => (name === '__rate_interval' ? '10s' : name === '__range' ? '1m' : '.*'));
    const end = Date.now() / 1000;
    const outcomes: string[] = [];
    for (const panel of contentPanels(dashboard)) {
      for (const t of panel.targets ?? []) {
        const e = await p.evaluate(fill(t.expr), t.instant === true ? undefined : { start: end - 30, end, step: '1s' });
        strictEqual(e.status, 'success', `${panel.title}: ${e.error ?? ''}`);
        outcomes.push(`${panel.title}: ${(e.data?.result.length ?? 0) > 0 ? 'data' : 'none'}`);
      }
    }
    // Every bounded series exists from the first scrape (read failures at 0), so every target has data.
    deepStrictEqual(
      outcomes.filter((o) => o.endsWith('none')),
      [],
    );
    strictEqual(outcomes.length, 9);
  });

  it("reads the verdict through the rollout gates' queries: -1, not-ready", async () => {
    for (const file of ['analysistemplate.yaml', 'metrictemplate.yaml']) {
      const result = await prometheus!.query(gateQuery(file));
      deepStrictEqual(
        result.map((s) => Number(s.value[1])),
        [-1],
        file,
      );
    }
  });

  it('fires ReconcileShadowFleetPeerMissing naming the killed sidecar', async () => {
    await world!.stopPeer();
    const p = prometheus!;
    const missing = await until(
      'ReconcileShadowFleetPeerMissing to fire',
      async () => (await p.alerts()).find((a) => a.labels.alertname === 'ReconcileShadowFleetPeerMissing' && a.state === 'firing'),
      { timeoutMs: WAIT_MS, intervalMs: 100 },
    );
    deepStrictEqual(missing.labels, { alertname: 'ReconcileShadowFleetPeerMissing', severity: 'warning', peer: `${FLEET_NAMESPACE}/operator-c` });
    // Two sequential peers left: nothing to compare the phased loop with, so inconclusive (0), and the harm alert resolves.
    await until('the gate to read inconclusive', async () => (await p.query(gateQuery('analysistemplate.yaml')))[0]?.value[1] === '0', {
      timeoutMs: WAIT_MS,
      intervalMs: 100,
    });
    ok((await p.query('reconcile_shadow_fleet_peers{state="read"}')).some((s) => s.value[1] === '2'));
  });
});
