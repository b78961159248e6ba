/**
 * Memory: bytes per tracked object at 100k objects, measured as heap growth after a forced GC: for the reconcile
 * shadow (outcome history + starvation timers) and for the recreation shadow (the world the adapter would see, and a
 * recreation in flight); and the RSS of an idle sidecar (its own process, metrics server up, no input).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ControllerShadow } from '../analyzer/shadow.js';
import type { AttemptRecord } from '../collector/records.js';
import { packageRoot } from '../model/package-root.js';
import { at, cluster, job, JOB_TASK_CONFIG, shadowOf } from '../test/analyzer/recreations/world.js';
import type { BenchResult } from './harness.js';
import { fleetDay, HYPERSHIFT } from './data.js';

const OBJECTS = 100_000;

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run the benchmarks with node --expose-gc');
  collect();
  collect();
}

export function benchObjectMemory(): BenchResult {
  // Failing attempts, so each object also holds starvation timers (the costlier state).
  const failing = fleetDay().filter((r) => r.model === 'sequential' && r.operations.some((o) => o.outcome === 'error')).slice(0, 50);
  const shadow = new ControllerShadow(HYPERSHIFT);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < OBJECTS; i++) {
    const r: AttemptRecord = { ...failing[i % failing.length]!, object: `clusters/hc-${i}` };
    shadow.analyze(r);
  }
  gc();
  const perObject = (process.memoryUsage().heapUsed - before) / OBJECTS;
  if (shadow.trackedObjects !== OBJECTS) throw new Error('objects not tracked');
  return { name: 'memory per tracked object (100k objects)', unit: 'B/object', figure: perObject, baseline: null, ratio: null, target: '<= 1024 B/object', met: perObject <= 1024, notes: `${shadow.starvation.objects} objects with open starvation timers` };
}

/**
 * 100k HyperFleet clusters, each with its validation Job (the design's task config), each Job being recreated after
 * its cluster's generation moved: one tracked object = one Job, with its cluster's state and its in-flight recreation.
 */
export function benchRecreationMemory(): BenchResult {
  gc();
  const before = process.memoryUsage().heapUsed;
  const shadow = shadowOf(JOB_TASK_CONFIG, {}, { maxInFlight: OBJECTS });
  for (let i = 0; i < OBJECTS; i++) {
    const id = `c${i}`;
    shadow.observe(cluster(at(0), { id, generation: 1 }));
    shadow.observe(job('ADDED', at(1), { cluster: id, uid: `uid-${i}`, generation: 1, created: at(0), complete: at(1) }));
    shadow.observe(cluster(at(100), { id, generation: 2 }));
  }
  gc();
  const perObject = (process.memoryUsage().heapUsed - before) / OBJECTS;
  const inFlight = shadow.snapshot(at(100)).inFlight.get('Job')?.get('triggered') ?? 0;
  if (inFlight !== OBJECTS) throw new Error(`${inFlight} recreations in flight, expected ${OBJECTS}`);
  return { name: 'memory per recreation-tracked object (100k objects)', unit: 'B/object', figure: perObject, baseline: null, ratio: null, target: '<= 1024 B/object', met: perObject <= 1024, notes: `${inFlight} recreations in flight, each Job's cluster state included` };
}

export async function benchIdleRss(): Promise<BenchResult> {
  const root = packageRoot();
  const config = `apiVersion: reconcile-shadow/v1\nkind: ShadowConfig\nmodels: [hypershift-hostedcluster]\nlisten: {metrics: 127.0.0.1:0}\nsummary: {enabled: false}\n`;
  const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  writeFileSync(join(dir, 'idle.yaml'), config);
  const child = spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'run', '--config', join(dir, 'idle.yaml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  // Ready once it has printed its endpoints; then let it settle and read its RSS from /proc.
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('metrics http')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`sidecar exited ${code}: ${text}`)));
  });
  await new Promise((r) => setTimeout(r, 2000));
  const { readFileSync } = await import('node:fs');
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  const mib = rssKiB / 1024;
  return { name: 'idle sidecar RSS', unit: 'MiB', figure: mib, baseline: null, ratio: null, target: '<= 80 MiB', met: mib <= 80 };
}
