import { strict as assert } from 'node:assert';
import { RecreationMetrics } from '../../../outputs/metrics/recreations.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { parsePrometheusText, valueOf } from '../../support/prometheus-text.js';
import { at, cluster, job, JOB_TASK_CONFIG, shadowOf } from '../../analyzer/recreations/world.js';

async function scrape(registry: ReturnType<typeof createMetrics>['registry']) {
  return parsePrometheusText(await registry.metrics());
}

describe('recreation metrics', () => {
  it('publishes decisions, phase durations, predicted flows, in-flight gauges and Reconciled=False periods', async () => {
    const { registry, metrics } = createMetrics();
    const publisher = new RecreationMetrics(metrics, { maxStuckSeries: 50, kinds: ['Job'], stuckThresholdMs: () => 600_000 });
    const shadow = shadowOf(JOB_TASK_CONFIG, publisher);
    const old = { cluster: 'c1', uid: 'old', generation: 1, created: at(0), complete: at(30) };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    shadow.observe(job('ADDED', at(1), old));
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2, reconciled: { status: 'False', since: at(100) } }));
    shadow.observe(job('MODIFIED', at(102), { ...old, deletion: at(102) }));
    publisher.update(shadow.snapshot(at(150)));
    let s = await scrape(registry);
    assert.equal(valueOf(s, 'reconcile_shadow_recreations_in_flight', { kind: 'Job', phase: 'deletion' }), 1);
    assert.equal(valueOf(s, 'reconcile_shadow_recreations_in_flight', { kind: 'Job', phase: 'availability' }), 0);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_oldest_seconds', { kind: 'Job' }), 50);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_stuck', { kind: 'Job' }), 0);

    shadow.observe(job('DELETED', at(104), { ...old, deletion: at(102) }));
    shadow.observe(job('ADDED', at(105), { cluster: 'c1', uid: 'new', generation: 2, created: at(105) }));
    shadow.observe(job('MODIFIED', at(160), { cluster: 'c1', uid: 'new', generation: 2, created: at(105), complete: at(160) }));
    shadow.observe(cluster(at(161), { id: 'c1', generation: 2, reconciled: { status: 'True', since: at(161) } }));
    publisher.update(shadow.snapshot(at(200)));
    s = await scrape(registry);
    assert.deepEqual(
      ['create', 'skip', 'recreate', 'update', 'delete', 'conflict', 'error'].map((d) =>
        valueOf(s, 'reconcile_shadow_lifecycle_decisions_total', { kind: 'Job', decision: d }),
      ),
      [2, 4, 2, 0, 0, 0, 0],
    );
    const sum = (phase: string) => valueOf(s, 'reconcile_shadow_recreation_duration_seconds_sum', { kind: 'Job', phase });
    assert.deepEqual(['deletion', 'creation', 'availability', 'total'].map(sum), [2, 1, 55, 60]);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_duration_seconds_bucket', { kind: 'Job', phase: 'total', le: '60' }), 1);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_duration_seconds_bucket', { kind: 'Job', phase: 'total', le: '30' }), 0);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_predicted_unreconciled_seconds_sum', { kind: 'Job', flow: 'blocking' }), 60);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_predicted_unreconciled_seconds_sum', { kind: 'Job', flow: 'sentinel' }), 68);
    assert.equal(valueOf(s, 'reconcile_shadow_unreconciled_seconds_sum', { resource_type: 'cluster', flow: 'recreate' }), 61);
    assert.equal(valueOf(s, 'reconcile_shadow_unreconciled_seconds_count', { resource_type: 'cluster', flow: 'recreate' }), 1);
    assert.equal(valueOf(s, 'reconcile_shadow_recreations_in_flight', { kind: 'Job', phase: 'deletion' }), 0);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_oldest_seconds', { kind: 'Job' }), 0);
  });

  it('names stuck recreations up to the cap, removes them when they finish, and counts the ones over the cap once', async () => {
    const { registry, metrics } = createMetrics();
    const publisher = new RecreationMetrics(metrics, { maxStuckSeries: 2, kinds: ['Job'], stuckThresholdMs: () => 600_000 });
    const shadow = shadowOf(JOB_TASK_CONFIG, publisher);
    for (const [i, id] of ['c1', 'c2', 'c3'].entries()) {
      shadow.observe(job('ADDED', at(i), { cluster: id, uid: `u-${id}`, generation: 1, created: at(i) }));
      shadow.observe(cluster(at(10 + i), { id, generation: 2 }));
    }
    publisher.update(shadow.snapshot(at(700)));
    publisher.update(shadow.snapshot(at(710)));
    let s = await scrape(registry);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_stuck', { kind: 'Job' }), 3);
    const named = s.filter((x) => x.name === 'reconcile_shadow_recreation_stuck_seconds').map((x) => [x.labels.namespace, x.labels.name, x.value]);
    assert.deepEqual(named, [
      ['hf-c1', 'validate-c1', 700],
      ['hf-c2', 'validate-c2', 699],
    ]);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_evictions_total', { kind: 'Job', cap: 'stuck_series' }), 1);

    // c1 finishes: its series goes, and c3 takes the free place.
    shadow.observe(job('DELETED', at(720), { cluster: 'c1', uid: 'u-c1', generation: 1, created: at(0) }));
    shadow.observe(job('ADDED', at(721), { cluster: 'c1', uid: 'n-c1', generation: 2, created: at(721), complete: at(721) }));
    publisher.update(shadow.snapshot(at(730)));
    s = await scrape(registry);
    assert.deepEqual(
      s.filter((x) => x.name === 'reconcile_shadow_recreation_stuck_seconds').map((x) => [x.labels.name, x.value]),
      [
        ['validate-c2', 719],
        ['validate-c3', 718],
      ],
    );
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_stuck', { kind: 'Job' }), 2);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_evictions_total', { kind: 'Job', cap: 'stuck_series' }), 1);
  });

  it('counts in-flight evictions and conflicts', async () => {
    const { registry, metrics } = createMetrics();
    const publisher = new RecreationMetrics(metrics, { maxStuckSeries: 50, kinds: [], stuckThresholdMs: () => 600_000 });
    const conflicting = JOB_TASK_CONFIG.replace(
      '    lifecycle:\n',
      '    lifecycle:\n      recreate:\n        when: {expression: \'resources.?job.hasValue() && string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]\'}\n',
    );
    const shadow = shadowOf(conflicting, publisher, { maxInFlight: 1 });
    shadow.observe(job('ADDED', at(0), { cluster: 'c1', uid: 'a', generation: 1, created: at(0) }));
    shadow.observe(job('ADDED', at(0), { cluster: 'c2', uid: 'b', generation: 1, created: at(0) }));
    shadow.observe(cluster(at(10), { id: 'c1', generation: 2 }));
    shadow.observe(cluster(at(11), { id: 'c2', generation: 2 }));
    shadow.observe(cluster(at(12), { id: 'c1', generation: 3, deleted: at(12) }));
    const s = await scrape(registry);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_evictions_total', { kind: 'Job', cap: 'in_flight' }), 1);
    assert.equal(valueOf(s, 'reconcile_shadow_lifecycle_decisions_total', { kind: 'Job', decision: 'conflict' }), 1);
    assert.equal(valueOf(s, 'reconcile_shadow_lifecycle_decisions_total', { kind: 'Job', decision: 'delete' }), 1);
  });
});
