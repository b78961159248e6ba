import { strict as assert } from 'node:assert';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { MetricsPublisher } from '../../../outputs/metrics/publisher.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { resolveModel } from '../../../sidecar/files.js';
import { World } from '../../../simulator/world.js';

async function seriesCount(registry: ReturnType<typeof createMetrics>['registry']): Promise<number> {
  const metrics = await registry.getMetricsAsJSON();
  return metrics.reduce((n, m) => n + (m.values as unknown[]).length, 0);
}

describe('metrics publisher', () => {
  it('10,000 more objects add no series: labels come only from the model and closed enums', async function () {
    // Analyzes an attempt for each of 10,000 objects: slow on a busy machine.
    this.timeout(30_000);
    const model = resolveModel('hypershift-hostedcluster');
    const { registry, metrics } = createMetrics();
    const analyzer = new Analyzer([model]);
    const publisher = new MetricsPublisher(metrics, analyzer.controllers, () => Date.parse('2026-11-02T00:00:00Z'), { version: 'test' });
    analyzer.listen(publisher);
    // A world whose 10 objects go through every fault the simulator knows, so every reachable series exists.
    const records: AttemptRecord[] = [...new World({ model, objects: 10, durationMs: 24 * 3600_000, seed: 5, observe: 'mixed' }).attempts()];
    for (const r of records) analyzer.attempt(r);
    publisher.refresh();
    const before = await seriesCount(registry);
    // The same attempts again, each on a fresh object name: 10,000 new objects.
    for (let i = 0; i < 10_000; i++) {
      const r = records[i % records.length]!;
      analyzer.attempt({ ...r, object: `clusters/extra-${i}` });
    }
    publisher.refresh();
    assert.equal(await seriesCount(registry), before);
    assert.equal(analyzer.controllers[0]!.trackedObjects, 10_010);
    const text = await registry.metrics();
    assert.equal(text.includes('extra-'), false);
  });

  it('counts rejections by source and bounded reason, and unmapped errors per controller', async () => {
    const { registry, metrics } = createMetrics();
    const analyzer = new Analyzer([resolveModel('hypershift-hostedcluster')]);
    analyzer.listen(new MetricsPublisher(metrics, analyzer.controllers, () => 0, { version: 'test' }));
    analyzer.received('logs', 3);
    analyzer.reject({ source: 'logs', reason: 'unmapped_error', where: 'op.log:7', message: 'x', controller: 'hostedcluster' });
    analyzer.reject({ source: 'logs', reason: 'invalid_json', where: 'op.log:9', message: 'y' });
    analyzer.attempt({ time: 't', timeMs: 0, controller: 'nodepool', object: 'a/b', loop: 'sequential', operations: [], origin: { source: 'logs' } });
    const text = await registry.metrics();
    assert.match(text, /\nreconcile_shadow_records_received_total\{source="logs"\} 3\n/);
    assert.match(text, /\nreconcile_shadow_records_dropped_total\{source="logs",reason="unmapped_error"\} 1\n/);
    assert.match(text, /\nreconcile_shadow_records_dropped_total\{source="logs",reason="invalid_json"\} 1\n/);
    assert.match(text, /\nreconcile_shadow_records_dropped_total\{source="logs",reason="unknown_controller"\} 1\n/);
    assert.match(text, /\nreconcile_shadow_unmapped_errors_total\{controller="hostedcluster"\} 1\n/);
    assert.match(text, /\nreconcile_shadow_info\{version="test",models="hypershift-hostedcluster"\} 1\n/);
  });

  it('a failing output is counted and never changes another output or the next record', () => {
    const model = resolveModel('hypershift-hostedcluster');
    const errors: unknown[] = [];
    const analyzer = new Analyzer([model], (e) => errors.push(e));
    let seen = 0;
    analyzer.listen({
      attempt: () => {
        throw new Error('publish broke');
      },
    });
    analyzer.listen({ attempt: () => void seen++ });
    const records = [...new World({ model, objects: 2, durationMs: 600_000, seed: 1, observe: 'sequential' }).attempts()];
    for (const r of records) analyzer.attempt(r);
    assert.equal(seen, records.length);
    assert.equal(errors.length, records.length);
    assert.equal(analyzer.summary().controllers[0]!.attempts.total, records.length);
  });
});

describe('tracked objects cap', () => {
  it('forgets the least recently seen object past the cap, and counts it', async () => {
    const model = resolveModel('hypershift-hostedcluster');
    const { registry, metrics } = createMetrics();
    const analyzer = new Analyzer([model], undefined, 3);
    analyzer.listen(new MetricsPublisher(metrics, analyzer.controllers, () => 0, { version: 'test' }));
    const [record] = new World({ model, objects: 1, durationMs: 600_000, seed: 2, observe: 'sequential' }).attempts();
    for (const name of ['a', 'b', 'c', 'a', 'd', 'e']) analyzer.attempt({ ...record!, object: `clusters/${name}` });
    // a was seen again before d arrived, so b goes first, then c.
    const shadow = analyzer.controllers[0]!;
    assert.equal(shadow.trackedObjects, 3);
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'e'].map((n) => shadow.history.lookup(`hostedcluster\u0000clusters/${n}`) !== undefined),
      [true, false, false, true, true],
    );
    assert.match(await registry.metrics(), /\nreconcile_shadow_tracked_objects_evicted_total\{controller="hostedcluster"\} 2\n/);
    assert.equal(analyzer.summary().controllers[0]!.attempts.total, 6);
  });
});
