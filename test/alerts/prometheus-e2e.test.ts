/**
 * End to end with a real Prometheus: it scrapes the sidecar's metrics and evaluates the generated rules (with short
 * `for:` durations, chosen at generation time); a recreation held stuck makes ReconcileShadowRecreationStuck fire
 * naming the object, and it resolves once the recreation completes. The sidecar is the real one (`startSidecar`);
 * metrics-source.ts says how the stuck recreation is produced.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { alertOptions, criticalOperations } from '../../alerts/options.js';
import { rulesFile } from '../../alerts/render.js';
import { alertRuleGroups } from '../../alerts/rules.js';
import { resolveModel } from '../../model/load.js';
import { startSidecarSource, type RecreatedObject, type StuckRecreationSource } from './metrics-source.js';
import { startPrometheus, until, type PrometheusAlert, type RunningPrometheus } from './prometheus-server.js';

const JOB = 'reconcile-shadow';
const OBJECT: RecreatedObject = { kind: 'Job', namespace: 'hf-c001', name: 'validate-c001' };
const isStuckAlert = (a: PrometheusAlert): boolean => a.labels.alertname === 'ReconcileShadowRecreationStuck' && a.labels.name === OBJECT.name;

describe('alerts: end to end with a real Prometheus', () => {
  let source: StuckRecreationSource | undefined;
  let prometheus: RunningPrometheus | undefined;

  before(async () => {
    source = await startSidecarSource();
    const options = alertOptions(criticalOperations([resolveModel('hypershift-hostedcluster')]), {
      selector: `job="${JOB}"`,
      recreationStuck: { for: '2s' },
      recreationStuckCritical: { for: '2s' },
    });
    prometheus = await startPrometheus({ rules: rulesFile(alertRuleGroups(options), options), job: JOB, target: source.target });
  });

  after(async () => {
    await prometheus?.stop();
    await source?.stop();
  });

  it('fires ReconcileShadowRecreationStuck naming the object, and resolves it when the recreation completes', async () => {
    const p = prometheus!;
    await source!.holdRecreation(OBJECT, 700);

    const statesSeen = new Set<string>();
    const firing = await until(
      async () => {
        const stuck = (await p.alerts()).find(isStuckAlert);
        if (stuck) statesSeen.add(stuck.state);
        return stuck?.state === 'firing' ? stuck : undefined;
      },
      20_000,
      () => 'ReconcileShadowRecreationStuck to fire',
    );
    // `for: 2s` held it pending for two evaluations first.
    deepStrictEqual([...statesSeen], ['pending', 'firing']);
    deepStrictEqual(firing.labels, { alertname: 'ReconcileShadowRecreationStuck', severity: 'warning', kind: 'Job', namespace: 'hf-c001', name: 'validate-c001' });
    strictEqual(firing.value, '7e+02');
    ok(firing.annotations.description?.startsWith('The recreation of Job hf-c001/validate-c001 started 11m 40s ago'), firing.annotations.description);
    // 700 s is past the kind's threshold but far from the critical one.
    strictEqual((await p.alerts()).filter((a) => a.labels.alertname === 'ReconcileShadowRecreationStuckCritical').length, 0);

    await source!.completeRecreation(OBJECT);
    await until(
      async () => ((await p.alerts()).some(isStuckAlert) ? undefined : true),
      20_000,
      () => 'ReconcileShadowRecreationStuck to resolve',
    );
  });
});
