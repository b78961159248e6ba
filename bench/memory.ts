/**
 * Memory: bytes per tracked object at 100k objects, measured as growth after a forced GC: for the reconcile
 * shadow (outcome history + starvation timers, heap and typed arrays) and for the recreation shadow (the world the
 * adapter would see, and a recreation in flight; heap); and the RSS of an idle sidecar (its own process, metrics
 * server up, no input), next to a bare Node process's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControllerAnalyzer } from '../analyzer/controller-analyzer.js';
import type { AttemptRecord } from '../collector/records.js';
import { packageRoot } from '../lib/package-root.js';
import { parseObservationLine } from '../collector/objects/journal.js';
import type { Observation } from '../collector/objects/observation.js';
import { apiClusterRaw, at, cluster, job, JOB_TASK_CONFIG, listedJobRaw, shadowOf } from '../test/analyzer/recreations/world.js';
import type { BenchResult } from './harness.js';
import { fleetDay, HYPERSHIFT } from './data.js';

const OBJECTS = 100_000;

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run the benchmarks with node --expose-gc');
  collect();
  collect();
}

/**
 * The reconcile shadow's bytes per object count its typed arrays too: their contents live outside the V8 heap
 * (`arrayBuffers`), and the shadow keeps its rows in them.
 */
export function benchObjectMemory(): BenchResult {
  // Failing attempts, so each object also holds starvation timers (the costlier state).
  const failing = fleetDay()
    .filter((r) => r.loop === 'sequential' && r.operations.some((o) => o.outcome === 'error'))
    .slice(0, 50);
  const controller = new ControllerAnalyzer(HYPERSHIFT);
  gc();
  const before = process.memoryUsage();
  for (let i = 0; i < OBJECTS; i++) {
    const r: AttemptRecord = { ...failing[i % failing.length]!, object: `clusters/hc-${i}` };
    controller.analyze(r);
  }
  gc();
  const after = process.memoryUsage();
  const heap = (after.heapUsed - before.heapUsed) / OBJECTS;
  const arrays = (after.arrayBuffers - before.arrayBuffers) / OBJECTS;
  const perObject = heap + arrays;
  if (controller.trackedObjects !== OBJECTS) throw new Error('objects not tracked');
  return {
    name: 'memory per tracked object (100k objects)',
    unit: 'B/object',
    figure: perObject,
    baseline: null,
    ratio: null,
    target: '<= 512 B/object',
    met: perObject <= 512,
    notes: `heap ${heap.toFixed(0)} + typed arrays ${arrays.toFixed(0)} B; ${controller.starvation.objects} objects with open starvation timers`,
  };
}

/** Heap per object kept by a recreation shadow fed `observations(i)` for i < objects, and its recreations in flight. */
function recreationMemory(objects: number, observations: (i: number) => Observation[]): { perObject: number; inFlight: number } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const shadow = shadowOf(JOB_TASK_CONFIG, {}, { maxInFlight: objects });
  for (let i = 0; i < objects; i++) for (const o of observations(i)) shadow.observe(o);
  gc();
  const perObject = (process.memoryUsage().heapUsed - before) / objects;
  const inFlight = shadow.snapshot(at(100)).inFlight.get('Job')?.get('triggered') ?? 0;
  if (inFlight !== objects) throw new Error(`${inFlight} recreations in flight, expected ${objects}`);
  return { perObject, inFlight };
}

/** An observation as a journal line carries it, read back: every string fresh, as from any source. */
function fromLine(line: Record<string, unknown>): Observation {
  const parsed = parseObservationLine(JSON.stringify(line), 1, 'bench');
  if (!parsed.ok) throw new Error(parsed.rejection.message);
  return parsed.observation;
}

/**
 * 100k HyperFleet clusters, each with its validation Job (the design's task config), each Job being recreated after
 * its cluster's generation moved: one tracked object = one Job, with its cluster's state and its in-flight recreation.
 * Once with minimal objects (the row's figure), once with objects as an informer and the API deliver them.
 */
export function benchRecreationMemory(): BenchResult[] {
  const minimal = recreationMemory(OBJECTS, (i) => {
    const id = `c${i}`;
    return [
      cluster(at(0), { id, generation: 1 }),
      job('ADDED', at(1), { cluster: id, uid: `uid-${i}`, generation: 1, created: at(0), complete: at(1) }),
      cluster(at(100), { id, generation: 2 }),
    ];
  });
  const time = (s: number): string => new Date(at(s)).toISOString();
  const listedJob = (i: number): Record<string, unknown> =>
    listedJobRaw({ cluster: `c${i}`, uid: `6f1c2a3b-${String(i).padStart(6, '0')}-4d5e-8f90-a1b2c3d4e5f6`, generation: 1, created: at(0), complete: at(1) });
  // A fifth as many: each object is ~4 KiB of JSON written and read back.
  const listed = recreationMemory(OBJECTS / 5, (i) => [
    fromLine({ time: time(0), type: 'cluster', cluster: apiClusterRaw({ id: `c${i}`, generation: 1 }) }),
    fromLine({ time: time(1), type: 'object', event: 'ADDED', object: listedJob(i) }),
    fromLine({ time: time(100), type: 'cluster', cluster: apiClusterRaw({ id: `c${i}`, generation: 2, reconciled: { status: 'False', since: at(100) } }) }),
  ]);
  const sizes = `Job ${JSON.stringify(listedJob(0)).length} B of JSON, cluster ${JSON.stringify(apiClusterRaw({ id: 'c0', generation: 1 })).length} B`;
  const row = (name: string, m: { perObject: number; inFlight: number }, notes: string): BenchResult => ({
    name,
    unit: 'B/object',
    figure: m.perObject,
    baseline: null,
    ratio: null,
    target: '<= 1024 B/object',
    met: m.perObject <= 1024,
    notes: `${m.inFlight} recreations in flight, ${notes}`,
  });
  return [
    row('memory per recreation-tracked object (100k objects)', minimal, "each Job's cluster state included"),
    row('the same, objects as listed from the API servers (20k)', listed, `${sizes} (managedFields, pod template, status)`),
  ];
}

/** RSS of a process, split into anonymous memory (heaps, code) and file-backed pages (the node binary itself). */
interface Rss {
  readonly totalMiB: number;
  readonly anonMiB: number;
  readonly fileMiB: number;
}

function rssOf(pid: number): Rss {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  return { totalMiB: kib('VmRSS') / 1024, anonMiB: kib('RssAnon') / 1024, fileMiB: kib('RssFile') / 1024 };
}

/** Resolves once `ready` appears on the child's stderr. */
function printed(child: ChildProcess, ready: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes(ready)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`process exited ${code}: ${text}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How long an idle process is watched for V8's idle collection (its memory reducer runs some time after start; bench/README.md). */
const SETTLE_LIMIT_MS = 60_000;
/** Settled: lower than 2 s after start, and unchanged for this long. */
const SETTLED_FOR_MS = 5_000;

/**
 * The idle sidecar's RSS 2 s after it is up, and once settled: V8 grows the young generation while the process starts
 * and gives it back only when its memory reducer finds the process idle. Next to it, a bare Node process.
 */
export async function benchIdleRss(): Promise<BenchResult> {
  const root = packageRoot();
  const config = `apiVersion: reconcile-shadow/v1\nkind: ShadowConfig\nmodels: [hypershift-hostedcluster]\nlisten: {metrics: 127.0.0.1:0}\nconsole: {enabled: false}\n`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  writeFileSync(join(dir, 'idle.yaml'), config);
  const child = spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'run', '--config', join(dir, 'idle.yaml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  // Up once it has printed its endpoints; idle from then on (no source, no scrape).
  await printed(child, 'metrics http');
  await sleep(2000);
  const atStart = rssOf(child.pid!);
  // Sampled each second until it is lower than at start and has not moved for SETTLED_FOR_MS.
  let settled = atStart;
  let droppedAtMs: number | undefined;
  for (let waitedMs = 1000; waitedMs <= SETTLE_LIMIT_MS; waitedMs += 1000) {
    await sleep(1000);
    const sample = rssOf(child.pid!);
    if (Math.abs(sample.totalMiB - settled.totalMiB) > 0.1) droppedAtMs = sample.totalMiB < atStart.totalMiB ? waitedMs : undefined;
    settled = sample;
    if (droppedAtMs !== undefined && waitedMs - droppedAtMs >= SETTLED_FOR_MS) break;
  }
  await stop(child);
  rmSync(dir, { recursive: true, force: true });

  const bareNode = spawn(process.execPath, ['-e', 'process.stderr.write("ready\\n"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'ignore', 'pipe'] });
  await printed(bareNode, 'ready');
  await sleep(2000);
  const bare = rssOf(bareNode.pid!);
  await stop(bareNode);

  const split = (r: Rss): string => `${r.totalMiB.toFixed(1)} MiB (${r.anonMiB.toFixed(1)} anonymous, ${r.fileMiB.toFixed(1)} file-backed)`;
  const when = droppedAtMs === undefined ? `no idle collection within ${SETTLE_LIMIT_MS / 1000} s` : `settled ${(2000 + droppedAtMs) / 1000} s after it was up`;
  return {
    name: 'idle sidecar RSS',
    unit: 'MiB',
    figure: settled.totalMiB,
    baseline: null,
    ratio: null,
    target: '<= 64 MiB',
    met: settled.totalMiB <= 64,
    notes: `${when}: ${split(settled)}; 2 s after start ${split(atStart)}; a bare Node process ${split(bare)}`,
  };
}
