import { strict as assert } from 'node:assert';
import { CelRuntime } from '../../../analyzer/recreations/cel.js';
import { trackerOptions } from '../../../analyzer/recreations/config.js';
import { EXAMPLE_TASK_CONFIG } from '../../../analyzer/recreations/live.js';
import { loadTaskConfigFile } from '../../../analyzer/recreations/load.js';
import { CompiledTaskConfig } from '../../../analyzer/recreations/rules.js';
import { RecreationShadow } from '../../../analyzer/recreations/shadow.js';
import type { FinishedRecreation } from '../../../analyzer/recreations/tracker.js';
import { formatObservationLine } from '../../../collector/objects/journal.js';
import type { Observation } from '../../../collector/objects/observation.js';
import { AdapterWorld, DEFAULT_ADAPTER_WORLD, SimulatedAdapterSource } from '../../../collector/objects/simulator.js';

const HOURS = 3_600_000;

describe('adapter world simulator', () => {
  it('is reproducible from its seed and yields observations in time order', () => {
    const run = (seed: number) => new AdapterWorld({ ...DEFAULT_ADAPTER_WORLD, seed }).advance(DEFAULT_ADAPTER_WORLD.startMs + 3 * HOURS).map(formatObservationLine);
    const a = run(3);
    assert.deepEqual(a, run(3));
    assert.notDeepEqual(a, run(4));
    const times = a.map((l) => Date.parse((JSON.parse(l) as { time: string }).time));
    assert.deepEqual(times, [...times].sort((x, y) => x - y));
    // Advancing in steps gives the same story as in one go.
    const world = new AdapterWorld({ ...DEFAULT_ADAPTER_WORLD, seed: 3 });
    const stepped: string[] = [];
    for (let t = 1; t <= 36; t++) stepped.push(...world.advance(DEFAULT_ADAPTER_WORLD.startMs + t * 300_000).map(formatObservationLine));
    assert.deepEqual(stepped, a);
  });

  it('shadowed with the example task config: recreations by the rule, some stuck behind finalizers, deletes with conflicts', () => {
    const finished: FinishedRecreation[] = [];
    const shadow = new RecreationShadow(CompiledTaskConfig.compile(loadTaskConfigFile(EXAMPLE_TASK_CONFIG), new CelRuntime()), trackerOptions(), { finished: (r) => finished.push(r) });
    const end = DEFAULT_ADAPTER_WORLD.startMs + 8 * HOURS;
    for (const o of new AdapterWorld({ ...DEFAULT_ADAPTER_WORLD, seed: 1 }).advance(end)) shadow.observe(o);
    // Seed 1, 8 hours: 202 recreations finished (37 of them stuck behind a finalizer), 3 still in flight (1 stuck).
    assert.deepEqual([finished.length, finished.filter((r) => r.stuck).length, [...shadow.inFlight()].length, shadow.snapshot(end).stuck.length], [202, 37, 3, 1]);
    assert.ok(finished.every((r) => r.trigger === 'rule' && r.deletionSeconds !== null && !r.rebuilt));
    // Deleted clusters: delete.when and the recreate rule both true, delete wins.
    assert.deepEqual(Object.fromEntries(shadow.stats.decisions.get('Job')!), { create: 225, skip: 669, recreate: 410, delete: 27, conflict: 18 });
    assert.equal(shadow.stats.objectsIgnored, 0);
  });

  it('as a source: hands on what happened up to the virtual now on each tick', () => {
    let wall = 0;
    const seen: Observation[] = [];
    const source = new SimulatedAdapterSource({ speed: 60, tickMs: 1000 }, { observe: (o) => seen.push(o), reject: () => assert.fail('no rejections') }, () => wall);
    assert.equal(source.now(), DEFAULT_ADAPTER_WORLD.startMs);
    wall = 60_000;
    source.tick();
    assert.equal(source.now(), DEFAULT_ADAPTER_WORLD.startMs + HOURS);
    const expected = new AdapterWorld(DEFAULT_ADAPTER_WORLD).advance(DEFAULT_ADAPTER_WORLD.startMs + HOURS);
    assert.deepEqual(seen.map(formatObservationLine), expected.map(formatObservationLine));
    assert.ok(seen.length > 20);
  });
});
