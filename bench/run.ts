/** `make bench`: every benchmark, its side-by-side baseline, ratio and target; results in bench/results.json. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../model/package-root.js';
import { benchEngine } from './engine.js';
import { renderTable, type BenchResult } from './harness.js';
import { benchJournal } from './journal.js';
import { benchIdleRss, benchObjectMemory } from './memory.js';
import { benchMetrics } from './metrics.js';

const only = process.argv.slice(2);
const benches: [string, () => BenchResult | Promise<BenchResult>][] = [
  ['engine', benchEngine],
  ['journal', benchJournal],
  ['metrics', benchMetrics],
  ['memory', benchObjectMemory],
  ['idle', benchIdleRss],
];

const results: BenchResult[] = [];
for (const [name, bench] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  const started = Date.now();
  const result = await bench();
  results.push(result);
  process.stderr.write(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s${result.notes ? ` (${result.notes})` : ''}\n`);
}
console.log(renderTable(results));
writeFileSync(
  join(packageRoot(), 'bench', 'results.json'),
  JSON.stringify(results.map(({ name, unit, figure, baseline, ratio, target, met, notes }) => ({ name, unit, figure, baseline, ratio, target, met, notes })), null, 2) + '\n',
);
