/**
 * Journal replay on every core: the compiled `analyze --workers auto` over a journal file, against `--workers 1` (the
 * one-core figure) over the same file, both run as a person runs them, each in a process of its own, alternated
 * run by run (3 each) and the median wall time of each taken: the speed-up of more cores is a wall-clock figure.
 * The journal is the benchmark's fleet day (bench/data.ts) written DAYS times to a temporary file, so the process's
 * start-up is a small part of each run.
 *
 * Wall time on a shared machine depends on what else runs, so the notes also give, per run, the CPU seconds of each
 * thread (sampled from /proc while it runs). On an idle machine a run's wall time is at least its busiest thread's
 * and at least its CPU in all spread over every core (V8's compiler and GC threads compete for the cores the parts
 * use): the ratio of those bounds, one core's over all cores', is the speed-up an idle machine would show.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../lib/package-root.js';
import { fleetDay, journalLines } from './data.js';
import { atLeast, median, type BenchResult } from './harness.js';

const DAYS = 8;
const RUNS = 3;
const TARGET = 1.6;
const CLOCK_TICKS = 100;

interface Run {
  readonly wallSeconds: number;
  /** CPU seconds of every thread that used any, busiest first. */
  readonly threadSeconds: readonly number[];
}

async function writeJournal(file: string): Promise<number> {
  const day = journalLines(fleetDay()).join('\n') + '\n';
  const out = createWriteStream(file);
  for (let i = 0; i < DAYS; i++) if (!out.write(day)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return DAYS * day.split('\n').length - DAYS;
}

/** utime + stime of each thread of `pid`, by thread id (threads that ended since are missing). */
function threadTimes(pid: number): Map<string, number> {
  const times = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return times;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(tid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return times;
}

/** One run of the compiled CLI; its threads' CPU sampled every 50 ms (a thread's last 50 ms before it ends are lost). */
function run(args: readonly string[]): Promise<Run> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(packageRoot(), 'dist', 'cli', 'main.js'), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const seen = new Map<string, number>();
  const sample = setInterval(() => {
    for (const [tid, seconds] of threadTimes(child.pid!)) seen.set(tid, seconds);
  }, 50);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(sample);
      if (code !== 0) return reject(new Error(`analyze ${args.join(' ')} exited ${code}`));
      resolve({ wallSeconds: Number(process.hrtime.bigint() - started) / 1e9, threadSeconds: [...seen.values()].filter((s) => s > 0).sort((a, b) => b - a) });
    });
  });
}

export async function benchWorkers(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-workers-'));
  try {
    const journal = join(dir, 'journal.jsonl');
    const attempts = await writeJournal(journal);
    const args = (workers: string): string[] => [
      'analyze',
      '--model',
      'hypershift-hostedcluster',
      '--journal',
      journal,
      '--format',
      'json',
      '--workers',
      workers,
    ];
    const load = [loadavg()[0]!];
    await run(args('1')); // warm the page cache
    const one: Run[] = [];
    const all: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      one.push(await run(args('1')));
      all.push(await run(args('auto')));
    }
    load.push(loadavg()[0]!);
    const oneWall = median(one.map((r) => r.wallSeconds));
    const allWall = median(all.map((r) => r.wallSeconds));
    const oneCpu = median(one.map((r) => r.threadSeconds.reduce((a, b) => a + b, 0)));
    const oneBusiest = median(one.map((r) => r.threadSeconds[0]!));
    const busiest = median(all.map((r) => r.threadSeconds[0]!));
    const allCpu = median(all.map((r) => r.threadSeconds.reduce((a, b) => a + b, 0)));
    const cores = availableParallelism();
    const bound = (r: Run): number => Math.max(r.threadSeconds[0]!, r.threadSeconds.reduce((a, b) => a + b, 0) / cores);
    const idle = median(one.map(bound)) / median(all.map(bound));
    const threads = (r: Run): string => r.threadSeconds.map((s) => s.toFixed(1)).join('+');
    return atLeast(
      `journal replay on all cores (analyze --workers auto, ${cores} cores)`,
      'attempts/s',
      attempts / allWall,
      attempts / oneWall,
      TARGET,
      `${attempts} attempts, ${Math.round(statSync(journal).size / 2 ** 20)} MiB file; median wall ${allWall.toFixed(1)} s vs ${oneWall.toFixed(1)} s (load average ${load.map((l) => l.toFixed(1)).join(' -> ')}); CPU: one core ${oneCpu.toFixed(1)} s with the busiest thread ${oneBusiest.toFixed(1)} s, all cores ${allCpu.toFixed(1)} s with the busiest thread ${busiest.toFixed(1)} s (threads of the last run ${threads(all.at(-1)!)}), i.e. ${(oneBusiest / busiest).toFixed(2)}x busiest thread to busiest thread and ${idle.toFixed(2)}x max(busiest thread, CPU / ${cores} cores) to the same, the speed-up an idle machine would show`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
