/**
 * The log source against logs written by controller-runtime's real zap setup (test/fixtures/logs/real, README there):
 * joined by reconcileID with the journal each log replays, per attempt that wrote lines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { resolveModel } from '../../../sidecar/files.js';
import type { ReconcileModel } from '../../../model/types.js';
import { REPO } from '../../support/paths.js';
import {
  againstTruth,
  loopAccuracy,
  readLog,
  reconcileIdsIn,
  type Figures,
  type SourceRun,
  type TruthAttempt,
  type TruthJournalLine,
  truthOfLine,
} from './against-truth.js';

const dir = join(REPO, 'test/fixtures/logs/real');
const text = (file: string): string => gunzipSync(readFileSync(join(dir, file))).toString('utf8');
const jsonl = <T>(file: string): T[] =>
  text(file)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

interface Fixture {
  readonly lines: string[];
  readonly truth: Map<string, TruthAttempt>;
  readonly withLines: Set<string>;
}

function load(name: 'sequential' | 'phased'): Fixture {
  const journal = jsonl<TruthJournalLine>(`${name}.journal.jsonl.gz`).map(truthOfLine);
  const manifest = jsonl<{ i: number; reconcileID: string }>(`${name}.manifest.jsonl.gz`);
  const lines = text(`${name}.operator.log.gz`).trimEnd().split('\n');
  return { lines, truth: new Map(manifest.map((m) => [m.reconcileID, journal[m.i]!])), withLines: reconcileIdsIn(lines, 'hostedcluster') };
}

async function run(f: Fixture, name: string, model: ReconcileModel): Promise<{ run: SourceRun; figures: Figures }> {
  const source = await readLog(Readable.from(f.lines.map((l) => `${l}\n`)), name, model);
  return { run: source, figures: againstTruth(source.records, f.truth, f.withLines) };
}

const NO_DROPS = { invalid_json: 0, invalid_record: 0, line_too_long: 0, loop_unknown: 0, late_line: 0 };

const CASES = [
  {
    name: 'sequential',
    // attempts that wrote lines; lines accepted (every hostedcluster line of an attempt); lines ignored
    attempts: 3139,
    accepted: 3139,
    ignored: { not_json: 0, other_message: 35, other_controller: 0, run: 1 },
    // 292 attempts return `release image is not available`, a text only the phased loop writes upstream: no reading of
    // the sequential loop fits them, so they state nothing
    notes: { loop_inherited: 1834, inconsistent_lines: 292, ambiguous_error: 26, unmapped_error: 53, status_update_error: 33 },
    outsideJournal: 0,
  },
  {
    name: 'phased',
    attempts: 3196,
    accepted: 4246,
    ignored: { not_json: 0, other_message: 35, other_controller: 0, run: 1 },
    // the journal's phased loop ends at a failed release lookup, upstream's goes on: those attempts prove the other loop
    // and are read under their run's, stating nothing
    notes: { loop_inherited: 2171, loop_contradicted: 7, inconsistent_lines: 11, ambiguous_error: 325, unmapped_error: 63, status_update_error: 33 },
    // ManagedHSMVersionCheck (HEAD) is in the model and not in the journal's: its claims are counted apart
    outsideJournal: 1982,
  },
] as const;

describe('log source against the real logger (controller-runtime zap), built-in model, --loop auto', function () {
  this.timeout(60_000);

  for (const c of CASES) {
    it(`${c.name}.operator.log: every attempt that wrote lines derived once, the loop right, nothing claimed against the journal`, async () => {
      const { run: r, figures } = await run(load(c.name), `${c.name}.operator.log`, resolveModel('hypershift-hostedcluster'));
      assert.deepEqual([figures.withLines, figures.derived, figures.doubled], [c.attempts, c.attempts, 0]);
      assert.equal(loopAccuracy(figures), 1);
      assert.deepEqual([figures.falseOk, figures.falseError, figures.falseOther, figures.outsideJournal], [0, 0, 0, c.outsideJournal]);
      assert.deepEqual([r.summary.received, r.summary.analyzed, r.summary.dropped, r.summary.ignored], [c.accepted, c.accepted, NO_DROPS, c.ignored]);
      assert.deepEqual(r.rejections, []);
      assert.deepEqual(Object.fromEntries(Object.entries(r.summary.notes).filter(([, n]) => n > 0)), c.notes);
      assert.equal(r.summary.loop.current, c.name);
    });
  }
});
