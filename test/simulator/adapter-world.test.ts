import { strict as assert } from 'node:assert';
import { CelRuntime } from '../../analyzer/recreations/cel.js';
import { trackerOptions } from '../../analyzer/recreations/config.js';
import { loadTaskConfigWithProposals } from '../../sidecar/files.js';
import { CompiledTaskConfig } from '../../analyzer/recreations/rules.js';
import { RecreationAnalyzer } from '../../analyzer/recreations/recreation-analyzer.js';
import type { FinishedRecreation } from '../../analyzer/recreations/tracker.js';
import { formatObservationLine } from '../../collector/objects/journal.js';
import type { Observation } from '../../collector/objects/observation.js';
import type { AttemptRecord } from '../../collector/records.js';
import { createMetrics } from '../../outputs/metrics/registry.js';
import { RecreationMetrics } from '../../outputs/metrics/recreations.js';
import { recreationsLine } from '../../outputs/console/live-summary.js';
import { RecreationPipeline } from '../../sidecar/recreations.js';
import { AdapterWorld, DEFAULT_ADAPTER_WORLD } from '../../simulator/adapter-world.js';
import { EXAMPLE_PROPOSALS, EXAMPLE_TASK_CONFIG } from '../../simulator/component.js';
import { SimulatorSource } from '../../simulator/source.js';
import { VirtualClock } from '../../simulator/virtual-clock.js';
import { parsePrometheusText, valueOf } from '../support/prometheus-text.js';

const HOURS = 3_600_000;

describe('adapter world simulator', () => {
  it('is reproducible from its seed and yields observations in time order', () => {
    const run = (seed: number) =>
      new AdapterWorld({ ...DEFAULT_ADAPTER_WORLD, seed }).advance(DEFAULT_ADAPTER_WORLD.startMs + 3 * HOURS).map(formatObservationLine);
    const a = run(3);
    assert.deepEqual(a, run(3));
    assert.notDeepEqual(a, run(4));
    const times = a.map((l) => Date.parse((JSON.parse(l) as { time: string }).time));
    assert.deepEqual(
      times,
      [...times].sort((x, y) => x - y),
    );
    // Advancing in steps gives the same story as in one go.
    const world = new AdapterWorld({ ...DEFAULT_ADAPTER_WORLD, seed: 3 });
    const stepped: string[] = [];
    for (let t = 1; t <= 36; t++) stepped.push(...world.advance(DEFAULT_ADAPTER_WORLD.startMs + t * 300_000).map(formatObservationLine));
    assert.deepEqual(stepped, a);
  });

  it('shadowed with the example task config: recreations by the rule, some stuck behind finalizers, deletes with conflicts', () => {
    const finished: FinishedRecreation[] = [];
    const shadow = new RecreationAnalyzer(
      CompiledTaskConfig.compile(loadTaskConfigWithProposals(EXAMPLE_TASK_CONFIG, EXAMPLE_PROPOSALS), new CelRuntime()),
      trackerOptions(),
      { finished: (r) => finished.push(r) },
    );
    const end = DEFAULT_ADAPTER_WORLD.startMs + 8 * HOURS;
    for (const o of new AdapterWorld({ ...DEFAULT_ADAPTER_WORLD, seed: 1 }).advance(end)) shadow.observe(o);
    // Seed 1, 8 hours: 202 recreations finished (37 of them stuck behind a finalizer), 3 still in flight (1 stuck).
    assert.deepEqual(
      [finished.length, finished.filter((r) => r.stuck).length, [...shadow.inFlight()].length, shadow.snapshot(end).stuck.length],
      [202, 37, 3, 1],
    );
    assert.ok(finished.every((r) => r.trigger === 'rule' && r.deletionSeconds !== null && !r.rebuilt));
    // Deleted clusters: delete.when and the recreate rule both true, delete wins.
    assert.deepEqual(Object.fromEntries(shadow.stats.decisions.get('Job')!), { create: 225, skip: 669, recreate: 410, delete: 27, conflict: 18 });
    assert.equal(shadow.stats.objectsIgnored, 0);
  });

  it('played by the simulator source: hands on what happened up to the virtual now on each tick', () => {
    let wall = 0;
    const seen: Observation[] = [];
    const attempts: AttemptRecord[] = [];
    const clock = new VirtualClock(DEFAULT_ADAPTER_WORLD.startMs, 60, () => wall);
    const sinks = {
      attempts: { attempt: (r: AttemptRecord) => attempts.push(r), reject: () => assert.fail('no rejections') },
      observations: { observe: (o: Observation) => seen.push(o), reject: () => assert.fail('no rejections') },
    };
    const source = new SimulatorSource([], { objects: 1, seed: 1, observe: 'mixed', tickMs: 1000, adapterWorld: DEFAULT_ADAPTER_WORLD }, clock, sinks);
    assert.equal(clock.now(), DEFAULT_ADAPTER_WORLD.startMs);
    wall = 60_000;
    source.tick();
    assert.equal(clock.now(), DEFAULT_ADAPTER_WORLD.startMs + HOURS);
    const expected = new AdapterWorld(DEFAULT_ADAPTER_WORLD).advance(DEFAULT_ADAPTER_WORLD.startMs + HOURS);
    assert.deepEqual(seen.map(formatObservationLine), expected.map(formatObservationLine));
    assert.ok(seen.length > 20);
    assert.deepEqual(attempts, [], 'no model, no fleet');
  });

  it('the demo: the adapter world through the recreation pipeline shows recreations, some stuck, in the metrics and the summary', async () => {
    let wall = 0;
    const metrics = createMetrics();
    const pipeline = new RecreationPipeline(
      { taskConfig: EXAMPLE_TASK_CONFIG, proposals: EXAMPLE_PROPOSALS, sentinelInterval: 10_000, maxInFlight: 10_000, maxStuckSeries: 50 },
      ['cluster'],
      (e) => assert.fail(String(e)),
      () => assert.fail('no rejections'),
    );
    const clock = new VirtualClock(DEFAULT_ADAPTER_WORLD.startMs, 60, () => wall);
    const publisher = new RecreationMetrics(metrics.metrics, {
      maxStuckSeries: pipeline.maxStuckSeries,
      kinds: pipeline.kinds,
      stuckThresholdMs: pipeline.stuckThresholdMs,
      resourceTypes: pipeline.resourceTypes,
      speed: 60,
    });
    pipeline.analyzer.listen(publisher);
    const source = new SimulatorSource([], { objects: 1, seed: 1, observe: 'mixed', tickMs: 1000, adapterWorld: DEFAULT_ADAPTER_WORLD }, clock, {
      attempts: { attempt: () => undefined, reject: () => undefined },
      observations: pipeline.analyzer,
    });
    // Six virtual hours.
    wall = 6 * 60_000;
    source.tick();
    publisher.update(pipeline.analyzer.snapshot(clock.now()));
    const s = parsePrometheusText(await metrics.registry.metrics());
    assert.deepEqual(
      [
        valueOf(s, 'reconcile_shadow_recreation_duration_seconds_count', { kind: 'Job', phase: 'total' }),
        valueOf(s, 'reconcile_shadow_recreation_stuck', { kind: 'Job' }),
        s.filter((x) => x.name === 'reconcile_shadow_recreation_stuck_seconds').length,
        valueOf(s, 'reconcile_shadow_lifecycle_decisions_total', { kind: 'Job', decision: 'conflict' }),
      ],
      [149, 3, 3, 14],
    );
    assert.equal(recreationsLine(pipeline.analyzer, clock.now()), 'recreations: 149 finished, 6 in flight (oldest 22m07s, 3 stuck), 0 evicted');
  });
});
