/**
 * `sources.simulator`: the embedded demo's simulated fleet and adapter world (source.ts) as a registry component.
 * It brings its own clock, `speed` times the wall clock, which the analysis and the recreation analyzer follow; with
 * `recreations: true` it also needs a recreation analyzer, on the example task config.
 */
import { join } from 'node:path';
import type { SourceComponent } from '../collector/component.js';
import { REFUSED_BY_ANALYZER } from '../collector/records.js';
import { packageRoot } from '../lib/package-root.js';
import { DEFAULT_ADAPTER_WORLD } from './adapter-world.js';
import { VirtualClock } from './virtual-clock.js';

/** The example task config: the validation Job the adapter world manages. */
export const EXAMPLE_TASK_CONFIG = join(packageRoot(), 'examples', 'adapter-task-config.yaml');
/** The designed recreate rule, proposed beside the example's unchanged task config. */
export const EXAMPLE_PROPOSALS = join(packageRoot(), 'examples', 'recreation-proposals.yaml');

const MINUTE = 60_000;
/** How often the worlds are advanced to the clock's now. */
const TICK_MS = 200;

/**
 * The demo's adapter world: clusters change every 6 simulated minutes on average and 40 % of the Job deletions are
 * held by a finalizer, and a recreation counts as stuck after 3 simulated minutes, so a recreation in flight, a
 * finished one and a stuck one all show within the demo's first 15 s (15 simulated minutes at 60×).
 */
const DEMO_ADAPTER_WORLD = { meanChangeMs: 6 * MINUTE, holdProbability: 0.4 };
const DEMO_STUCK_THRESHOLD_MS = 3 * MINUTE;

const schema = {
  kind: 'object',
  doc: 'the embedded demo: a simulated fleet (and adapter world) on a sped-up clock',
  fields: {
    objects: { kind: 'integer', default: 40, min: 1, unit: 'objects', doc: 'simulated objects per model' },
    seed: { kind: 'integer', default: 1, doc: 'the same seed tells the same story' },
    observe: {
      kind: 'enum',
      values: ['sequential', 'phased', 'mixed'],
      default: 'mixed',
      doc: 'the loop the simulated operator runs; mixed: half the objects each',
    },
    speed: { kind: 'number', default: 60, min: 0.001, doc: 'simulated seconds per wall-clock second' },
    recreations: { kind: 'boolean', default: true, doc: 'also simulate an adapter recreating Jobs, some held by a finalizer' },
  },
} as const;

export const simulator: SourceComponent<typeof schema> = {
  kind: 'simulator',
  title: 'the embedded demo: a simulated fleet and adapter world',
  schema,
  reasons: [...REFUSED_BY_ANALYZER],
  clock: (config) => new VirtualClock(Date.now(), config.speed),
  recreations: (config) =>
    config.recreations ? { taskConfig: EXAMPLE_TASK_CONFIG, proposals: EXAMPLE_PROPOSALS, stuckThresholdMs: DEMO_STUCK_THRESHOLD_MS } : undefined,
  async create(config, sinks, _hooks, context) {
    const { SimulatorSource } = await import('./source.js');
    const adapterWorld = config.recreations ? { ...DEFAULT_ADAPTER_WORLD, ...DEMO_ADAPTER_WORLD, startMs: context.clock.now() } : undefined;
    return new SimulatorSource(
      context.models,
      { objects: config.objects, seed: config.seed, observe: config.observe, tickMs: TICK_MS, ...(adapterWorld ? { adapterWorld } : {}) },
      context.clock,
      sinks,
    );
  },
};
