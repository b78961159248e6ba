/**
 * The engine replays two large journals exactly as the engine did when the golden files were captured (before the
 * second performance work, 2026-12-01): every `analyze --format jsonl` row, the `--format json` summary byte for byte,
 * and, with a cap of 7 tracked objects, the rows, the summary, the evicted objects in order and the open starvation.
 * - simulated: the simulator's seeded world, 40 HostedClusters for 6 hours, half the fleet on each loop;
 * - random: this file's own generator, independent of the simulator and of the loops: any subset of the operations
 *   observed, in any order, any outcome, error texts of the model's formats (variants included), other texts or none,
 *   times that sometimes repeat or go back.
 * Both use golden/hypershift-hostedcluster.yaml, a copy of the built-in model as of commit 8fe8f35, so a change to the
 * built-in model does not move the goldens. The simulated journal's own hash is checked first: if the simulator's
 * output changes, that is reported as such, not as an engine change.
 * Rows are compared by SHA-256, per block of 1,000 rows, so a failure names the first rows that differ.
 * Re-capture (only from an engine known to be right): UPDATE_GOLDEN=1 npx mocha --no-config --import=tsx <this file>
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Analyzer } from '../../analyzer/analyzer.js';
import { attemptRow } from '../../analyzer/engine.js';
import { formatAttemptLine } from '../../collector/journal/format.js';
import { readJournal } from '../../collector/journal/reader.js';
import type { AttemptRecord, OperationRecord } from '../../collector/records.js';
import { GO_VERB } from '../../model/go-format.js';
import { loadModelFile } from '../../sidecar/files.js';
import type { LoopKind, Outcome, ReconcileModel } from '../../model/types.js';
import { World } from '../../simulator/world.js';
import { REPO } from '../support/paths.js';
import { runCli } from '../support/run-command.js';

const GOLDEN = join(REPO, 'test', 'analyzer', 'golden');
const MODEL_FILE = join(GOLDEN, 'hypershift-hostedcluster.yaml');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const BLOCK = 1000;
const CAP = 7;

interface RowsDigest {
  readonly rows: number;
  readonly sha256: string;
  /** SHA-256 of each block of BLOCK rows, in order. */
  readonly blocks: readonly string[];
}

interface Golden {
  readonly journal: { readonly lines: number; readonly sha256: string };
  readonly jsonl: RowsDigest;
  readonly capped: RowsDigest & { readonly evicted: { readonly count: number; readonly sha256: string }; readonly starvedSeconds: readonly number[] };
}

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

function digestRows(text: string): RowsDigest {
  const rows = text.split('\n');
  if (rows.at(-1) === '') rows.pop();
  const blocks: string[] = [];
  for (let i = 0; i < rows.length; i += BLOCK) blocks.push(sha256(rows.slice(i, i + BLOCK).join('\n')));
  return { rows: rows.length, sha256: sha256(text), blocks };
}

function assertSameRows(got: RowsDigest, want: RowsDigest, what: string): void {
  const differs = want.blocks.findIndex((b, i) => got.blocks[i] !== b);
  assert.ok(differs < 0, `${what}: rows ${differs * BLOCK + 1}-${(differs + 1) * BLOCK} differ from the golden`);
  assert.deepEqual(got, want, what);
}

/** 1 MiB pieces, as a file read hands them on. */
function pieces(journal: Buffer): Readable {
  const out: Buffer[] = [];
  for (let off = 0; off < journal.length; off += 1 << 20) out.push(journal.subarray(off, off + (1 << 20)));
  return Readable.from(out);
}

/** A small seeded generator (mulberry32), so the random journal does not depend on any code under test. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomJournal(model: ReconcileModel, attempts: number, seed: number): AttemptRecord[] {
  const next = generator(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const objects = Array.from({ length: 30 }, (_, i) => `ns-${i % 4}/hc-${i}`);
  const words = ['x', 'registry down', 'connection refused', '42', 'context deadline exceeded', ''];
  let timeMs = Date.parse('2026-11-01T00:00:00Z');
  const records: AttemptRecord[] = [];
  for (let k = 0; k < attempts; k++) {
    const step = next();
    timeMs += step < 0.05 ? -Math.floor(next() * 60_000) : step < 0.15 ? 0 : Math.floor(next() * 20_000);
    const density = pick([0.05, 0.3, 0.7, 0.95, 1]);
    const operations: OperationRecord[] = [];
    for (const op of model.operations) {
      if (next() >= density) continue;
      const roll = next();
      const outcome: Outcome = roll < 0.04 ? 'error' : roll < 0.05 ? 'stop' : roll < 0.07 ? 'skip' : 'ok';
      const kind = next();
      if (outcome !== 'error' || kind < 0.15) {
        operations.push({ name: op.name, outcome });
        continue;
      }
      const format = op.errors.length > 0 && kind < 0.8 ? pick(op.errors).format : `${pick(words)}: unexpected`;
      operations.push({ name: op.name, outcome, error: format.replace(GO_VERB, (verb) => (verb === '%%' ? '%' : pick(words))) });
    }
    if (next() < 0.3) operations.sort(() => (next() < 0.5 ? -1 : 1));
    const time = new Date(timeMs).toISOString();
    const loop: LoopKind = next() < 0.5 ? 'sequential' : 'phased';
    records.push({
      time,
      timeMs,
      controller: model.controller,
      object: pick(objects),
      generation: Math.floor(next() * 5),
      loop,
      operations,
      origin: { source: 'journal' },
    });
  }
  return records;
}

function simulatedJournal(model: ReconcileModel): AttemptRecord[] {
  return [...new World({ model, objects: 40, durationMs: 6 * 3600_000, seed: 1717, observe: 'mixed' }).attempts()];
}

/** The analyzer with CAP tracked objects, fed by the journal reader as `analyze` feeds it. */
async function replayCapped(model: ReconcileModel, journal: Buffer): Promise<{ rows: string; summary: string; evicted: string[]; starvedSeconds: number[] }> {
  const analyzer = new Analyzer([model], undefined, CAP);
  const shadow = analyzer.controllers[0]!;
  const rows: string[] = [];
  const evicted: string[] = [];
  let lastMs = 0;
  analyzer.listen({
    attempt: (_s, a) => {
      rows.push(attemptRow(shadow.cm, a) + '\n');
      lastMs = Math.max(lastMs, a.record.timeMs);
    },
    evicted: (_s, object) => evicted.push(object),
  });
  await readJournal(pieces(journal), analyzer, { file: 'golden', knownOperations: shadow.knownOperations });
  return {
    rows: rows.join(''),
    summary: JSON.stringify(analyzer.summary(), null, 2) + '\n',
    evicted,
    starvedSeconds: [...shadow.starvation.currentLongestSeconds(lastMs)],
  };
}

describe('golden replay: the engine reproduces the captured rows and summaries of two large journals', function () {
  this.timeout(120_000);
  const model = loadModelFile(MODEL_FILE);
  const journals: Record<string, () => AttemptRecord[]> = {
    simulated: () => simulatedJournal(model),
    random: () => randomJournal(model, 12_000, 20261201),
  };

  for (const [name, make] of Object.entries(journals)) {
    it(`${name} journal`, async () => {
      const journal = Buffer.from(
        make()
          .map((r) => formatAttemptLine(r) + '\n')
          .join(''),
      );
      const lines = journal.reduce((n, byte) => n + (byte === 10 ? 1 : 0), 0);
      const analyze = (format: string): Promise<{ code: number; stdout: string; stderr: string }> =>
        runCli(['analyze', '--model', MODEL_FILE, '--journal', '-', '--format', format], pieces(journal));
      const jsonl = await analyze('jsonl');
      const json = await analyze('json');
      const capped = await replayCapped(model, journal);
      for (const run of [jsonl, json]) assert.deepEqual([run.code, run.stderr], [0, '']);
      const got: Golden = {
        journal: { lines, sha256: sha256(journal) },
        jsonl: digestRows(jsonl.stdout),
        capped: {
          ...digestRows(capped.rows),
          evicted: { count: capped.evicted.length, sha256: sha256(capped.evicted.join('\n')) },
          starvedSeconds: capped.starvedSeconds,
        },
      };
      const files = {
        golden: join(GOLDEN, `${name}.json`),
        summary: join(GOLDEN, `${name}.summary.json`),
        cappedSummary: join(GOLDEN, `${name}.capped.summary.json`),
      };
      if (UPDATE) {
        writeFileSync(files.golden, JSON.stringify(got, null, 1) + '\n');
        writeFileSync(files.summary, json.stdout);
        writeFileSync(files.cappedSummary, capped.summary);
      }
      const want = JSON.parse(readFileSync(files.golden, 'utf8')) as Golden;
      assert.deepEqual(
        got.journal,
        want.journal,
        `the ${name} journal is not the one the golden was captured from (a change to its generator, not to the engine)`,
      );
      assertSameRows(got.jsonl, want.jsonl, 'analyze --format jsonl');
      assert.equal(json.stdout, readFileSync(files.summary, 'utf8'), 'analyze --format json');
      assertSameRows(got.capped, want.capped, `rows with ${CAP} tracked objects`);
      assert.deepEqual(got.capped.evicted, want.capped.evicted, 'evicted objects, in order');
      assert.deepEqual(got.capped.starvedSeconds, want.capped.starvedSeconds, 'open starvation at the last attempt');
      assert.equal(capped.summary, readFileSync(files.cappedSummary, 'utf8'), `summary with ${CAP} tracked objects`);
    });
  }
});
