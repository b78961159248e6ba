/**
 * End to end with a real Prometheus: it scrapes the real sidecar and evaluates the generated rules (with short
 * `for:` durations, chosen at generation time). The sidecar tracks a real recreation through its informers and
 * HyperFleet API poller (metrics-source.ts): the cluster's spec changes, the Job's deletion is held by a finalizer,
 * and ReconcileShadowRecreationStuck fires naming the Job once it is older than the Job's 1 s stuck threshold;
 * when the finalizer goes and the new Job completes, the alert resolves.
 */
import { deepStrictEqual, match, ok, strictEqual } from 'node:assert/strict';
import { alertOptions } from '../../alerts/options.js';
import { rulesFile } from '../../alerts/render.js';
import { alertRuleGroups } from '../../alerts/rules.js';
import { valueOf } from '../support/prometheus-text.js';
import { startRecreationWorld, type RecreationWorld } from './metrics-source.js';
import { until } from '../support/until.js';
import { startPrometheus, type PrometheusAlert, type RunningPrometheus } from './prometheus-server.js';

const JOB = 'reconcile-shadow';
/** A few scrapes and evaluations (1 s each) after the Job's 1 s threshold plus `for: 2s`; generous for a slow CI. */
const ALERT_WAIT_MS = 20_000;

describe('alerts: end to end with a real Prometheus and a recreation held by a finalizer', function () {
  // a real Prometheus evaluates the rules while a sidecar runs
  this.timeout(120_000);
  let world: RecreationWorld | undefined;
  let prometheus: RunningPrometheus | undefined;

  before(async () => {
    world = await startRecreationWorld({ jobStuckThreshold: '1s' });
    const options = alertOptions({ selector: `job="${JOB}"`, recreationStuck: { for: '2s' }, recreationStuckCritical: { for: '2s' } });
    prometheus = await startPrometheus({ rules: rulesFile(alertRuleGroups(options), options), job: JOB, target: world.target });
    // Prometheus hands new targets to its scrapers every 5 s: start the clock once it scrapes the sidecar.
    const p = prometheus;
    await until('Prometheus to scrape the sidecar', async () => (await p.query(`up{job="${JOB}"} == 1`)).length === 1, {
      timeoutMs: ALERT_WAIT_MS,
      intervalMs: 100,
    });
  });

  after(async () => {
    await prometheus?.stop();
    await world?.stop();
  });

  it('fires ReconcileShadowRecreationStuck naming the Job while its finalizer holds it, and resolves it once the new Job completes', async () => {
    const p = prometheus!;
    const w = world!;
    const isStuckAlert = (a: PrometheusAlert): boolean => a.labels.alertname === 'ReconcileShadowRecreationStuck' && a.labels.name === w.object.name;

    const specChangedAt = Date.now();
    await w.holdRecreation();
    const statesSeen = new Set<string>();
    const firing = await until(
      'ReconcileShadowRecreationStuck to fire',
      async () => {
        const stuck = (await p.alerts()).find(isStuckAlert);
        if (stuck) statesSeen.add(stuck.state);
        return stuck?.state === 'firing' ? stuck : undefined;
      },
      { timeoutMs: ALERT_WAIT_MS, intervalMs: 100 },
    );
    const secondsSinceSpecChange = (Date.now() - specChangedAt) / 1000;
    // `for: 2s` held it pending for two evaluations first.
    deepStrictEqual([...statesSeen], ['pending', 'firing']);
    deepStrictEqual(firing.labels, {
      alertname: 'ReconcileShadowRecreationStuck',
      severity: 'warning',
      kind: 'Job',
      namespace: 'hf-c001',
      name: 'validate-c001',
    });
    // The value is the recreation's age at the last scrape: past the Job's 1 s threshold, and no older than the spec change.
    const age = Number(firing.value);
    ok(age > 1 && age <= secondsSinceSpecChange, `age ${firing.value} s, ${secondsSinceSpecChange} s since the spec change`);
    match(
      firing.annotations.description ?? '',
      /^The recreation of Job hf-c001\/validate-c001 started \d+(\.\d+)?s ago and the new object is not available yet; it is past the stuck threshold configured for Job\.$/,
    );
    // Far from the critical threshold (1800 s).
    strictEqual((await p.alerts()).filter((a) => a.labels.alertname === 'ReconcileShadowRecreationStuckCritical').length, 0);

    await w.completeRecreation();
    await until('ReconcileShadowRecreationStuck to resolve', async () => !(await p.alerts()).some(isStuckAlert), { timeoutMs: ALERT_WAIT_MS, intervalMs: 100 });

    // The sidecar measured the whole recreation: every phase observed once, nothing left in flight or stuck.
    const s = await w.scrape();
    deepStrictEqual(
      ['deletion', 'creation', 'availability', 'total'].map((phase) =>
        valueOf(s, 'reconcile_shadow_recreation_duration_seconds_count', { kind: 'Job', phase }),
      ),
      [1, 1, 1, 1],
    );
    deepStrictEqual(
      ['triggered', 'deletion', 'creation', 'availability'].map((phase) => valueOf(s, 'reconcile_shadow_recreations_in_flight', { kind: 'Job', phase })),
      [0, 0, 0, 0],
    );
    strictEqual(valueOf(s, 'reconcile_shadow_recreation_stuck', { kind: 'Job' }), 0);
    deepStrictEqual(
      s.filter((x) => x.name === 'reconcile_shadow_recreation_stuck_seconds'),
      [],
    );
  });
});
