/**
 * `report` over a 200k-attempt journal (the target: a 200k-attempt journal still reports in under 10 s and 200 MB):
 * the compiled CLI, run as a person runs it, in a process of its own so its CPU time and peak RSS are its own, next
 * to `analyze --format json` over the same file (the replay alone, without the decisions). The journal is the
 * simulator's HyperShift fleet (40 clusters, half on each loop, seed 42), written once to a temporary file. The two
 * commands alternate, RUNS times each; the figure is the median CPU time and the highest peak RSS, as one run's CPU
 * time moves a lot on a shared machine (bench/README.md).
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatAttemptLine } from '../collector/journal/format.js';
import { packageRoot } from '../lib/package-root.js';
import { World } from '../simulator/world.js';
import { HYPERSHIFT } from './data.js';
import { median, type BenchResult } from './harness.js';

const ATTEMPTS = 200_000;
const MAX_SECONDS = 10;
const MAX_MIB = 200;
const RUNS = 3;

/** Preloaded into the measured process: at exit, its own CPU seconds and peak RSS, as JSON, to the file named. */
const MEASURE = `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(process.env.MEASURE_OUT, JSON.stringify({ cpu: (u.user + u.system) / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024 })); });`;

async function writeJournal(file: string): Promise<void> {
  const out = createWriteStream(file);
  let n = 0;
  for (const r of new World({ model: HYPERSHIFT, objects: 40, durationMs: 7 * 86_400_000, seed: 42, observe: 'mixed' }).attempts()) {
    if (n++ === ATTEMPTS) break;
    if (!out.write(formatAttemptLine(r) + '\n')) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

interface Measured {
  readonly cpu: number;
  readonly maxRssMiB: number;
}

/** The median CPU seconds of the runs and the highest peak RSS: a bound on memory holds in every run. */
function medianOf(runs: readonly Measured[]): Measured {
  return { cpu: median(runs.map((r) => r.cpu)), maxRssMiB: Math.max(...runs.map((r) => r.maxRssMiB)) };
}

function measure(dir: string, args: string[]): Measured {
  const result = join(dir, 'measure.json');
  const cli = join(packageRoot(), 'dist', 'cli', 'main.js');
  const run = spawnSync(process.execPath, ['--require', join(dir, 'measure.cjs'), cli, ...args], {
    env: { ...process.env, MEASURE_OUT: result },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`${args[0]} exited ${run.status}`);
  return JSON.parse(readFileSync(result, 'utf8')) as Measured;
}

export async function benchDecisions(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-decisions-'));
  try {
    const journal = join(dir, 'journal.jsonl');
    await writeJournal(journal);
    writeFileSync(join(dir, 'measure.cjs'), MEASURE);
    const common = ['--model', 'hypershift-hostedcluster', '--journal', journal];
    const reports: Measured[] = [];
    const analyses: Measured[] = [];
    for (let i = 0; i < RUNS; i++) {
      reports.push(measure(dir, ['report', ...common, '--format', 'html', '--out', join(dir, 'report.html')]));
      analyses.push(measure(dir, ['analyze', ...common, '--format', 'json']));
    }
    const report = medianOf(reports);
    const analyze = medianOf(analyses);
    const cpuRange = `${Math.min(...reports.map((r) => r.cpu)).toFixed(2)}–${Math.max(...reports.map((r) => r.cpu)).toFixed(2)}`;
    const mib = Math.round(statSync(journal).size / 2 ** 20);
    return {
      name: 'report, 200k attempts (whole CLI, HTML)',
      unit: 's CPU',
      figure: report.cpu,
      baseline: analyze.cpu,
      ratio: report.cpu / analyze.cpu,
      target: `<= ${MAX_SECONDS} s, <= ${MAX_MIB} MiB`,
      met: report.cpu <= MAX_SECONDS && report.maxRssMiB <= MAX_MIB,
      notes: `${ATTEMPTS} attempts, ${mib} MiB journal; medians of ${RUNS} runs each (report CPU ${cpuRange} s); highest peak RSS ${Math.round(report.maxRssMiB)} MiB (analyze ${Math.round(analyze.maxRssMiB)} MiB); baseline: analyze --format json`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
