/**
 * What the very first scrape shows, before any record: every label set the models and the configured sources allow,
 * at 0, so dashboards draw 0 instead of "No data" and `increase()` sees the first event. And the times in it are
 * wall-clock times whatever clock the analysis runs on.
 */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { compileModel } from '../../../analyzer/compiled-model.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { MetricsPublisher } from '../../../outputs/metrics/publisher.js';
import { trackerOptions } from '../../../analyzer/recreations/config.js';
import { RecreationMetrics } from '../../../outputs/metrics/recreations.js';
import { SOURCES } from '../../../sidecar/registry.js';
import { resolveModel } from '../../../sidecar/files.js';
import { World } from '../../../simulator/world.js';
import { parsePrometheusText, valueOf, type Sample } from '../../support/prometheus-text.js';
import { at, cluster, job, JOB_TASK_CONFIG, shadowOf } from '../../analyzer/recreations/world.js';

const MODEL = resolveModel('hypershift-hostedcluster');

async function scrape(registry: ReturnType<typeof createMetrics>['registry']): Promise<Sample[]> {
  return parsePrometheusText(await registry.metrics());
}

const named = (samples: readonly Sample[], name: string): Sample[] => samples.filter((s) => s.name === name);

describe('the first scrape', () => {
  it('holds every label set of the model and of the configured sources, at 0', async () => {
    const { registry, metrics } = createMetrics();
    const analyzer = new Analyzer([MODEL]);
    const publisher = new MetricsPublisher(metrics, analyzer.controllers, () => 0, { version: 'test', sources: [SOURCES.simulator, SOURCES.otlp] });
    publisher.refresh();
    const s = await scrape(registry);
    const cm = compileModel(MODEL);
    const oneLoop = cm.ops.filter((_, op) => cm.oneLoopOnly[op] === 1);
    // The HyperShift model: 70 operations, 1 of them in one loop alone, 12 critical groups before 6 blockable ones.
    deepStrictEqual([cm.ops.length, oneLoop], [70, ['ManagedHSMVersionCheck']]);

    const counts = (name: string): number => named(s, name).length;
    deepStrictEqual(
      {
        attempts: counts('reconcile_shadow_attempts_total'),
        observed: counts('reconcile_shadow_operation_observed_total'),
        unblocked: counts('reconcile_shadow_operation_unblocked_total'),
        newlyBlocked: counts('reconcile_shadow_operation_newly_blocked_total'),
        structural: counts('reconcile_shadow_operation_structural_total'),
        blockedBy: counts('reconcile_shadow_blocked_by_total'),
        reordered: counts('reconcile_shadow_reordered_pairs_total'),
        starved: counts('reconcile_shadow_operation_starved_seconds'),
        tracked: counts('reconcile_shadow_tracked_objects'),
        evicted: counts('reconcile_shadow_tracked_objects_evicted_total'),
        unmapped: counts('reconcile_shadow_unmapped_errors_total'),
        received: counts('reconcile_shadow_records_received_total'),
        dropped: counts('reconcile_shadow_records_dropped_total'),
        incomplete: counts('reconcile_shadow_attempts_incomplete_total'),
        lastRecord: counts('reconcile_shadow_source_last_record_timestamp_seconds'),
      },
      {
        attempts: 4,
        observed: 70 * 4,
        unblocked: 69,
        newlyBlocked: 69,
        structural: 1,
        blockedBy: 36,
        // Pairs grow with the square of the operations: each appears when first counted.
        reordered: 0,
        starved: 70,
        tracked: 1,
        evicted: 1,
        unmapped: 1,
        received: 2,
        // Per source, the reasons it can reject under: the simulator's 2 (the analyzer's), the receiver's 21.
        dropped: 2 + 21,
        incomplete: 2,
        // A timestamp has no zero: absent until the source's first record.
        lastRecord: 0,
      },
    );
    const exported = s.filter((x) => x.name !== 'reconcile_shadow_operation_info' && x.name !== 'reconcile_shadow_info');
    deepStrictEqual([...new Set(exported.map((x) => x.value))], [0]);
    deepStrictEqual(
      named(s, 'reconcile_shadow_operation_structural_total').map((x) => x.labels.operation),
      oneLoop,
    );
    deepStrictEqual([...new Set(named(s, 'reconcile_shadow_records_dropped_total').map((x) => x.labels.source))], ['otlp', 'simulator']);
    const reasonsOf = (source: string): string[] =>
      named(s, 'reconcile_shadow_records_dropped_total')
        .filter((x) => x.labels.source === source)
        .map((x) => x.labels.reason!);
    deepStrictEqual(reasonsOf('simulator'), ['unknown_operation', 'unknown_controller']);
    deepStrictEqual(new Set(reasonsOf('otlp')), new Set(SOURCES.otlp.reasons));
    // Blocked-by: every critical group with every blockable group after it in the phased loop.
    deepStrictEqual(
      named(s, 'reconcile_shadow_blocked_by_total')
        .filter((x) => x.labels.blocked === 'PublicEndpointExposed')
        .map((x) => x.labels.blocker),
      cm.groups.filter((g) => g.category === 'critical').map((g) => g.name),
    );
  });

  it('lists a source it was not told about once that source counts something', async () => {
    const { registry, metrics } = createMetrics();
    const analyzer = new Analyzer([MODEL]);
    analyzer.listen(new MetricsPublisher(metrics, analyzer.controllers, () => 0, { version: 'test', sources: [SOURCES.otlp] }));
    analyzer.reject({ source: 'journal', reason: 'invalid_json', where: 'j.jsonl:3', message: 'x' });
    const s = named(await scrape(registry), 'reconcile_shadow_records_dropped_total').filter((x) => x.labels.source === 'journal');
    deepStrictEqual(s, [{ name: 'reconcile_shadow_records_dropped_total', labels: { source: 'journal', reason: 'invalid_json' }, value: 1 }]);
  });

  it('holds every recreation series of the task config’s kinds and the polled resource types, at 0', async () => {
    const { registry, metrics } = createMetrics();
    new RecreationMetrics(metrics, { maxStuckSeries: 50, kinds: ['Job'], stuckThresholdMs: () => 600_000, resourceTypes: ['cluster'] });
    const s = await scrape(registry);
    deepStrictEqual(
      named(s, 'reconcile_shadow_lifecycle_decisions_total').map((x) => x.labels.decision),
      ['create', 'update', 'skip', 'delete', 'recreate', 'error', 'conflict'],
    );
    deepStrictEqual(
      named(s, 'reconcile_shadow_recreation_evictions_total').map((x) => x.labels.cap),
      ['in_flight', 'stuck_series'],
    );
    deepStrictEqual(
      named(s, 'reconcile_shadow_recreation_duration_seconds_count').map((x) => x.labels.phase),
      ['deletion', 'creation', 'availability', 'total'],
    );
    deepStrictEqual(
      named(s, 'reconcile_shadow_recreation_predicted_unreconciled_seconds_count').map((x) => x.labels.flow),
      ['blocking', 'sentinel'],
    );
    deepStrictEqual(
      named(s, 'reconcile_shadow_unreconciled_seconds_count').map((x) => x.labels.flow),
      ['create', 'update', 'recreate', 'delete'],
    );
    deepStrictEqual([...new Set(s.map((x) => x.value))], [0]);
  });
});

describe('wall-clock times on a simulated clock', () => {
  const SPEED = 60;
  const START = Date.parse('2026-11-01T00:00:00Z');
  const WALL = Date.parse('2030-06-01T12:00:00Z');

  it('the last-record timestamp is the wall clock, and starvation ages are wall-clock seconds', async () => {
    const { registry, metrics } = createMetrics();
    const analyzer = new Analyzer([MODEL]);
    let virtualNow = START;
    const publisher = new MetricsPublisher(metrics, analyzer.controllers, () => virtualNow, {
      version: 'test',
      sources: [SOURCES.simulator],
      wallClock: () => WALL,
      speed: SPEED,
    });
    analyzer.listen(publisher);
    // The simulated fleet until some operation has starved for ten simulated minutes.
    const starvation = analyzer.controllers[0]!.starvation;
    for (const r of new World({ model: MODEL, objects: 10, durationMs: 24 * 3_600_000, seed: 5, observe: 'mixed', startMs: START }).attempts()) {
      analyzer.attempt(r);
      virtualNow = r.timeMs;
      if (Math.max(...starvation.currentLongestSeconds(virtualNow)) > 600) break;
    }
    publisher.refresh();
    const s = await scrape(registry);
    strictEqual(valueOf(s, 'reconcile_shadow_source_last_record_timestamp_seconds', { source: 'simulator' }), WALL / 1000);
    const virtual = starvation.currentLongestSeconds(virtualNow);
    strictEqual(Math.max(...virtual) > 600, true);
    deepStrictEqual(
      named(s, 'reconcile_shadow_operation_starved_seconds').map((x) => x.value),
      [...virtual].map((v) => v / SPEED),
    );
  });

  it('recreation ages, durations and thresholds are wall-clock seconds', async () => {
    const { registry, metrics } = createMetrics();
    const settings = { stuckThresholdsMs: { default: 30_000 } };
    const publisher = new RecreationMetrics(metrics, {
      maxStuckSeries: 50,
      kinds: ['Job'],
      stuckThresholdMs: trackerOptions(settings).stuckThresholdMs,
      speed: SPEED,
    });
    const shadow = shadowOf(JOB_TASK_CONFIG, publisher, settings);
    // Job c1 recreated: deleted at 102 s, gone at 104, recreated at 105, complete at 160 (simulated seconds).
    const old = { cluster: 'c1', uid: 'old', generation: 1, created: at(0), complete: at(30) };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    shadow.observe(job('ADDED', at(1), old));
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2, reconciled: { status: 'False', since: at(100) } }));
    shadow.observe(job('MODIFIED', at(102), { ...old, deletion: at(102) }));
    shadow.observe(job('DELETED', at(104), { ...old, deletion: at(102) }));
    shadow.observe(job('ADDED', at(105), { cluster: 'c1', uid: 'new', generation: 2, created: at(105) }));
    shadow.observe(job('MODIFIED', at(160), { cluster: 'c1', uid: 'new', generation: 2, created: at(105), complete: at(160) }));
    // Job c2: its recreation starts at 200 s and is still in deletion at 290 s, past the 30 s threshold.
    shadow.observe(job('ADDED', at(171), { cluster: 'c2', uid: 'c2-old', generation: 1, created: at(171) }));
    shadow.observe(cluster(at(200), { id: 'c2', generation: 2 }));
    publisher.update(shadow.snapshot(at(290)));
    const s = await scrape(registry);
    const wall = (simulated: number): number => simulated / SPEED;
    deepStrictEqual(
      ['deletion', 'creation', 'availability', 'total'].map((phase) => valueOf(s, 'reconcile_shadow_recreation_duration_seconds_sum', { kind: 'Job', phase })),
      [2, 1, 55, 60].map(wall),
    );
    strictEqual(valueOf(s, 'reconcile_shadow_recreation_oldest_seconds', { kind: 'Job' }), wall(90));
    strictEqual(valueOf(s, 'reconcile_shadow_recreation_stuck_threshold_seconds', { kind: 'Job' }), wall(30));
    strictEqual(valueOf(s, 'reconcile_shadow_recreation_stuck_seconds', { kind: 'Job', namespace: 'hf-c2', name: 'validate-c2' }), wall(90));
  });
});
