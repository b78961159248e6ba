/**
 * `report` over a 200k-attempt journal (issue 13: "a 200k-attempt journal still reports in under 10 s and 200 MB"):
 * the compiled CLI, run as a person runs it, in a process of its own so its CPU time and peak RSS are its own, next
 * to `analyze --format json` over the same file (the replay alone, without the decisions). The journal is the
 * simulator's HyperShift fleet (40 clusters, half on each loop, seed 42), written once to a temporary file.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatAttemptLine } from '../collector/journal.js';
import { packageRoot } from '../lib/package-root.js';
import { World } from '../simulator/world.js';
import { HYPERSHIFT } from './data.js';
import type { BenchResult } from './harness.js';

const ATTEMPTS = 200_000;
const MAX_SECONDS = 10;
const MAX_MIB = 200;

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

function measure(dir: string, args: string[]): { cpu: number; maxRssMiB: number } {
  const result = join(dir, 'measure.json');
  const cli = join(packageRoot(), 'dist', 'cli', 'main.js');
  const run = spawnSync(process.execPath, ['--require', join(dir, 'measure.cjs'), cli, ...args], { env: { ...process.env, MEASURE_OUT: result }, stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) throw new Error(`${args[0]} exited ${run.status}`);
  return JSON.parse(readFileSync(result, 'utf8')) as { cpu: number; maxRssMiB: number };
}

export async function benchDecisions(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-decisions-'));
  try {
    const journal = join(dir, 'journal.jsonl');
    await writeJournal(journal);
    writeFileSync(join(dir, 'measure.cjs'), MEASURE);
    const common = ['--model', 'hypershift-hostedcluster', '--journal', journal];
    const report = measure(dir, ['report', ...common, '--format', 'html', '--out', join(dir, 'report.html')]);
    const analyze = measure(dir, ['analyze', ...common, '--format', 'json']);
    const mib = Math.round(statSync(journal).size / 2 ** 20);
    return {
      name: 'report, 200k attempts (whole CLI, HTML)',
      unit: 's CPU',
      figure: report.cpu,
      baseline: analyze.cpu,
      ratio: report.cpu / analyze.cpu,
      target: `<= ${MAX_SECONDS} s, <= ${MAX_MIB} MiB`,
      met: report.cpu <= MAX_SECONDS && report.maxRssMiB <= MAX_MIB,
      notes: `${ATTEMPTS} attempts, ${mib} MiB journal; peak RSS ${Math.round(report.maxRssMiB)} MiB (analyze ${Math.round(analyze.maxRssMiB)} MiB); baseline: analyze --format json`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
