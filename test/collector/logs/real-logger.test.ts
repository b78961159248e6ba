/**
 * The log source against logs written by controller-runtime's real zap setup (test/fixtures/logs/real, README there):
 * joined by reconcileID with the journal each log replays, per attempt that wrote lines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { resolveModel } from '../../../model/load.js';
import type { ReconcileModel } from '../../../model/types.js';
import { REPO } from '../../support/paths.js';
import { upstreamModel } from '../../fixtures/logs/upstream-model.js';
import { againstTruth, loopAccuracy, readLog, reconcileIdsIn, type Figures, type SourceRun, type TruthAttempt } from './against-truth.js';

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
  const journal = jsonl<TruthAttempt>(`${name}.journal.jsonl.gz`);
  const manifest = jsonl<{ i: number; reconcileID: string }>(`${name}.manifest.jsonl.gz`);
  const lines = text(`${name}.operator.log.gz`).trimEnd().split('\n');
  return { lines, truth: new Map(manifest.map((m) => [m.reconcileID, journal[m.i]!])), withLines: reconcileIdsIn(lines, 'hostedcluster') };
}

async function run(f: Fixture, name: string, model: ReconcileModel): Promise<{ run: SourceRun; figures: Figures }> {
  const source = await readLog(Readable.from(f.lines.map((l) => `${l}\n`)), name, model);
  return { run: source, figures: againstTruth(source.records, f.truth, f.withLines) };
}

const CASES = [
  // name, attempts that wrote lines, lines accepted (every hostedcluster line of an attempt), lines ignored
  { name: 'sequential', attempts: 3139, accepted: 3139, ignored: { not_json: 0, other_message: 35, other_controller: 0, run: 1 } },
  { name: 'phased', attempts: 3196, accepted: 4246, ignored: { not_json: 0, other_message: 35, other_controller: 0, run: 1 } },
] as const;

describe('log source against the real logger (controller-runtime zap), --loop auto', function () {
  this.timeout(60_000);

  for (const c of CASES) {
    describe(`${c.name}.operator.log`, () => {
      const fixture = load(c.name);

      it('with the built-in model: every attempt that wrote lines derived once, the loop right, nothing claimed against the journal', async () => {
        const { run: r, figures } = await run(fixture, `${c.name}.operator.log`, resolveModel('hypershift-hostedcluster'));
        assert.deepEqual([figures.withLines, figures.derived, figures.doubled], [c.attempts, c.attempts, 0]);
        assert.ok(loopAccuracy(figures) >= 0.995, `loop accuracy ${loopAccuracy(figures)}`);
        assert.deepEqual([figures.falseOk, figures.falseError, figures.falseOther], [0, 0, 0]);
        assert.deepEqual([r.report.received, r.report.analyzed, r.report.dropped, r.report.ignored], [c.accepted, c.accepted, { invalid_json: 0, invalid_record: 0, line_too_long: 0, loop_unknown: 0, late_line: 0 }, c.ignored]);
        assert.deepEqual(r.rejections, []);
        assert.equal(r.report.loop.current, c.name);
      });

      it('with the per-loop model (PR #7908 effects, shared formats): the same, with exact figures', async () => {
        const { run: r, figures } = await run(fixture, `${c.name}.operator.log`, upstreamModel());
        assert.deepEqual([figures.derived, figures.doubled, figures.loopWrong, figures.falseOk, figures.falseError, figures.falseOther], [c.attempts, 0, 0, 0, 0, 0]);
        // ManagedHSMVersionCheck (HEAD) is in the model and not in the journal's: claimed, counted apart
        assert.equal(figures.outsideJournal, c.name === 'phased' ? 1987 : 0);
        const notes = Object.fromEntries(Object.entries(r.report.notes).filter(([, n]) => n > 0));
        if (c.name === 'phased') {
          // the six phased attempts that return "failed to lookup release image" (the journal's, not upstream's, phased loop)
          assert.deepEqual([notes.loop_contradicted, notes.inconsistent_lines], [6, 6]);
        } else assert.equal(notes.loop_contradicted, undefined);
      });
    });
  }
});
