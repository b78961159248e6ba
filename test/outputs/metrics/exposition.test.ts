/**
 * The whole /metrics exposition for one fixed input, byte for byte against a checked-in golden file: the input is
 * two simulated fleets (the built-in HyperShift model and a small model with one-loop operations) through the
 * analyzer with a tracked-objects cap, every kind of origin (incomplete OTLP, sampled logs, status transitions),
 * rejections and received counts, and a simulated adapter world through the recreation analyzer; all clocks fixed.
 * Any change to what is exported, in what order, with which labels and values, shows here as a diff.
 *
 * When the exposition changes on purpose, regenerate the file and review the diff:
 *   UPDATE_GOLDEN=1 npx mocha --no-config --import=tsx test/outputs/metrics/exposition.test.ts
 */
import { strictEqual } from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { MetricsPublisher } from '../../../outputs/metrics/publisher.js';
import { CelRuntime } from '../../../analyzer/recreations/cel.js';
import { trackerOptions } from '../../../analyzer/recreations/config.js';
import { EXAMPLE_PROPOSALS, EXAMPLE_TASK_CONFIG } from '../../../simulator/component.js';
import { SOURCES } from '../../../sidecar/registry.js';
import { loadTaskConfigWithProposals } from '../../../sidecar/files.js';
import { RecreationMetrics } from '../../../outputs/metrics/recreations.js';
import { CompiledTaskConfig } from '../../../analyzer/recreations/rules.js';
import { RecreationAnalyzer } from '../../../analyzer/recreations/recreation-analyzer.js';
import { AdapterWorld, DEFAULT_ADAPTER_WORLD } from '../../../simulator/adapter-world.js';
import type { AttemptOrigin, AttemptRecord } from '../../../collector/records.js';
import { parseModel } from '../../../model/load.js';
import { resolveModel } from '../../../sidecar/files.js';
import { World } from '../../../simulator/world.js';
import { REPO } from '../../support/paths.js';

const GOLDEN = join(REPO, 'test', 'fixtures', 'metrics', 'exposition.prom');
const START = Date.parse('2026-11-01T00:00:00Z');
const HOUR = 3_600_000;
/** The analysis clock at the scrape: two hours after the fleets started. */
const NOW = START + 2 * HOUR;
/** The wall clock: some other time altogether, as when the analysis runs on a simulated clock. */
const WALL = Date.parse('2030-01-01T00:00:00Z');

/** A second controller, so series of two controllers interleave; `Audit` runs in the phased loop alone. */
const WIDGET = parseModel(`
apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: widget}
spec:
  controller: widget
  operations: [{name: Fetch}, {name: A}, {name: B}, {name: D}, {name: C}, {name: Audit, only: phased}]
  phased:
    - op: Fetch
    - {group: Core, category: critical, ops: [C]}
    - {group: Second, category: nonCritical, ops: [B]}
    - {group: First, category: nonCritical, ops: [A, Audit]}
    - {group: Tail, category: nonCritical, blockable: true, ops: [D]}
`);

/** Every 7th attempt as if it came from OTLP incomplete, every 11th from sampled logs, every 13th a status transition. */
function originOf(i: number): AttemptOrigin {
  if (i % 7 === 3) return { source: 'otlp', incomplete: true };
  if (i % 11 === 5) return { source: 'logs', sampled: true };
  if (i % 13 === 6) return { source: 'status', transition: true };
  return { source: 'simulator' };
}

function fleet(): AttemptRecord[] {
  const hypershift = [
    ...new World({ model: resolveModel('hypershift-hostedcluster'), objects: 30, durationMs: 2 * HOUR, seed: 11, observe: 'mixed', startMs: START }).attempts(),
  ];
  const widget = [...new World({ model: WIDGET, objects: 12, durationMs: 2 * HOUR, seed: 12, observe: 'mixed', startMs: START }).attempts()];
  return [...hypershift, ...widget].sort((a, b) => a.timeMs - b.timeMs).map((r, i) => ({ ...r, origin: originOf(i) }));
}

async function exposition(): Promise<string> {
  const { registry, metrics } = createMetrics();
  // A cap below the fleet's 30 objects, so evictions are counted.
  const analyzer = new Analyzer([resolveModel('hypershift-hostedcluster'), WIDGET], undefined, 25);
  // The journal is not a declared source: its series appear only with its rejection.
  const publisher = new MetricsPublisher(metrics, analyzer.controllers, () => NOW, {
    version: 'golden',
    sources: [SOURCES.simulator, SOURCES.otlp, SOURCES.logs, SOURCES.status],
    wallClock: () => WALL,
  });
  analyzer.listen(publisher);

  const records = fleet();
  analyzer.received('simulator', records.length);
  analyzer.received('otlp', 40);
  for (const r of records) analyzer.attempt(r);
  analyzer.attempt({ ...records[0]!, controller: 'nodepool', origin: { source: 'otlp' } });
  analyzer.attempt({ ...records[1]!, operations: [{ name: 'NoSuchOp', outcome: 'ok' }], origin: { source: 'logs' } });
  analyzer.reject({ source: 'logs', reason: 'unmapped_error', where: 'op.log:7', message: 'x', controller: 'hostedcluster' });
  analyzer.reject({ source: 'logs', reason: 'unmapped_error', where: 'op.log:9', message: 'x', controller: 'widget' });
  analyzer.reject({ source: 'otlp', reason: 'too_many_spans', where: 'request 3', message: 'y' });
  analyzer.reject({ source: 'journal', reason: 'invalid_json', where: 'j.jsonl:2', message: 'z' });

  const recreations = new RecreationMetrics(metrics, {
    maxStuckSeries: 2,
    kinds: ['Job'],
    stuckThresholdMs: () => 600_000,
    resourceTypes: ['cluster', 'nodepool'],
  });
  const shadow = new RecreationAnalyzer(
    CompiledTaskConfig.compile(loadTaskConfigWithProposals(EXAMPLE_TASK_CONFIG, EXAMPLE_PROPOSALS), new CelRuntime()),
    trackerOptions(),
    recreations,
  );
  const end = DEFAULT_ADAPTER_WORLD.startMs + 8 * HOUR;
  for (const o of new AdapterWorld({ ...DEFAULT_ADAPTER_WORLD, seed: 1 }).advance(end)) shadow.observe(o);

  publisher.refresh();
  recreations.update(shadow.snapshot(end));
  return registry.metrics();
}

describe('/metrics exposition (golden file)', () => {
  it('is byte for byte test/fixtures/metrics/exposition.prom for the fixed input', async () => {
    const text = await exposition();
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, text);
    strictEqual(text, readFileSync(GOLDEN, 'utf8'));
  });
});
