/** `make bench`: every benchmark, its side-by-side baseline, ratio and target; results in bench/results.json. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../model/package-root.js';
import { benchCel } from './cel.js';
import { benchEngine } from './engine.js';
import { renderTable, type BenchResult } from './harness.js';
import { benchJournal } from './journal.js';
import { benchIdleRss, benchObjectMemory } from './memory.js';
import { benchLogs } from './logs.js';
import { benchMetrics } from './metrics.js';
import { benchOtlp } from './otlp.js';

const only = process.argv.slice(2);
const benches: [string, () => BenchResult | BenchResult[] | Promise<BenchResult | BenchResult[]>][] = [
  ['otlp', benchOtlp],
  ['engine', benchEngine],
  ['journal', benchJournal],
  ['logs', benchLogs],
  ['cel', benchCel],
  ['metrics', benchMetrics],
  ['memory', benchObjectMemory],
  ['idle', benchIdleRss],
];

const results: BenchResult[] = [];
for (const [name, bench] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  const started = Date.now();
  const rows = [await bench()].flat();
  results.push(...rows);
  for (const r of rows) process.stderr.write(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s${r.notes ? ` (${r.notes})` : ''}\n`);
}
console.log(renderTable(results));
writeFileSync(
  join(packageRoot(), 'bench', 'results.json'),
  JSON.stringify(results.map(({ name, unit, figure, baseline, ratio, target, met, notes }) => ({ name, unit, figure, baseline, ratio, target, met, notes })), null, 2) + '\n',
);
