/**
 * `make bench`: every benchmark, its side-by-side baseline, ratio and target; results in bench/results.json.
 * Each benchmark runs in a process of its own (this file again, with `--one <name>`), so none inherits the heap another
 * left behind: the OTLP bodies alone leave much RSS behind, and a later benchmark's garbage collection paid for it.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../lib/package-root.js';
import { benchCel } from './cel.js';
import { benchDecisions } from './decisions.js';
import { benchEngine } from './engine.js';
import { benchFleet } from './fleet.js';
import { renderTable, type BenchResult } from './harness.js';
import { benchJournal } from './journal.js';
import { benchIdleRss, benchObjectMemory, benchRecreationMemory } from './memory.js';
import { benchLogs } from './logs.js';
import { benchMetrics } from './metrics.js';
import { benchOtlp } from './otlp.js';
import { benchWorkers } from './workers.js';

const benches: Readonly<Record<string, () => BenchResult | BenchResult[] | Promise<BenchResult | BenchResult[]>>> = {
  otlp: benchOtlp,
  engine: benchEngine,
  journal: benchJournal,
  workers: benchWorkers,
  decisions: benchDecisions,
  fleet: benchFleet,
  logs: benchLogs,
  cel: benchCel,
  metrics: benchMetrics,
  memory: benchObjectMemory,
  'recreation-memory': benchRecreationMemory,
  idle: benchIdleRss,
};

/** Runs one benchmark here and writes its rows to stdout as JSON. */
async function one(name: string): Promise<void> {
  const bench = benches[name];
  if (!bench) throw new Error(`no benchmark ${name}; there are: ${Object.keys(benches).join(', ')}`);
  process.stdout.write(JSON.stringify([await bench()].flat()));
}

/** Runs one benchmark in a child process (its progress goes to our stderr) and returns its rows. */
function inChild(name: string): Promise<BenchResult[]> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--one', name], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as BenchResult[]) : reject(new Error(`benchmark ${name} exited ${code}`))));
  });
}

async function all(only: readonly string[]): Promise<void> {
  const unknown = only.filter((n) => !(n in benches));
  if (unknown.length > 0) throw new Error(`no benchmark ${unknown.join(', ')}; there are: ${Object.keys(benches).join(', ')}`);
  const results: BenchResult[] = [];
  for (const name of Object.keys(benches)) {
    if (only.length > 0 && !only.includes(name)) continue;
    const started = Date.now();
    const rows = await inChild(name);
    results.push(...rows);
    for (const r of rows) process.stderr.write(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s${r.notes ? ` (${r.notes})` : ''}\n`);
  }
  process.stdout.write(renderTable(results));
  writeFileSync(
    join(packageRoot(), 'bench', 'results.json'),
    JSON.stringify(
      results.map(({ name, unit, figure, baseline, ratio, target, met, notes }) => ({ name, unit, figure, baseline, ratio, target, met, notes })),
      null,
      2,
    ) + '\n',
  );
}

const args = process.argv.slice(2);
if (args[0] === '--one') await one(args[1] ?? '');
else await all(args);
