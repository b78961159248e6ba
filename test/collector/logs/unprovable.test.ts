/**
 * What the real-logger logs cannot prove, counted against the journals they replay (docs/log-source.md, "What a log
 * still cannot prove", lists these figures): attempts whose lines state no operation, operation outcomes left to the
 * engine, and `skip` read as `ok`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { resolveModel } from '../../../sidecar/files.js';
import { REPO } from '../../support/paths.js';
import { readLog, type TruthJournalLine, truthOfLine } from './against-truth.js';

const dir = join(REPO, 'test/fixtures/logs/real');
const text = (file: string): string => gunzipSync(readFileSync(join(dir, file))).toString('utf8');
const jsonl = <T>(file: string): T[] =>
  text(file)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

interface Unproven {
  /** Attempts whose lines state no operation, and the journal's operation outcomes in them. */
  readonly statingNothing: readonly [number, number];
  /** Of the other attempts, the journal's operation outcomes the derived attempt leaves out, by the top operations. */
  readonly leftOut: number;
  readonly leftOutMost: readonly [string, number][];
  /** Outcomes the journal has as `skip` that the log states as `ok`. */
  readonly skipAsOk: number;
  /** The journal's operation outcomes in all. */
  readonly outcomes: number;
}

async function unproven(name: string): Promise<Unproven> {
  const journal = jsonl<TruthJournalLine>(`${name}.journal.jsonl.gz`).map(truthOfLine);
  const manifest = jsonl<{ i: number; reconcileID: string }>(`${name}.manifest.jsonl.gz`);
  const run = await readLog(Readable.from([Buffer.from(text(`${name}.operator.log.gz`))]), name, resolveModel('hypershift-hostedcluster'));
  const derived = new Map(run.records.map((r) => [r.origin.reconcileID, r]));
  let nothing = 0;
  let nothingOutcomes = 0;
  let leftOut = 0;
  let skipAsOk = 0;
  let outcomes = 0;
  const byOp = new Map<string, number>();
  for (const m of manifest) {
    const truth = journal[m.i]!;
    const stated = new Map(derived.get(m.reconcileID)!.operations.map((o) => [o.name, o.outcome]));
    outcomes += truth.operations.length;
    if (stated.size === 0) {
      nothing++;
      nothingOutcomes += truth.operations.length;
      continue;
    }
    for (const o of truth.operations) {
      const s = stated.get(o.name);
      if (s === undefined) {
        leftOut++;
        byOp.set(o.name, (byOp.get(o.name) ?? 0) + 1);
      } else if (o.outcome === 'skip' && s === 'ok') skipAsOk++;
    }
  }
  const leftOutMost = [...byOp].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 2);
  return { statingNothing: [nothing, nothingOutcomes], leftOut, leftOutMost, skipAsOk, outcomes };
}

describe('what the real-logger logs cannot prove, against their journals', function () {
  this.timeout(60_000);

  it('sequential: 353 attempts state nothing; 75 outcomes left out of the others; 1216 skips read as ok', async () => {
    assert.deepEqual(await unproven('sequential'), {
      statingNothing: [353, 15_079],
      leftOut: 75,
      leftOutMost: [
        ['BubbleUpPreDeletionConds', 11],
        ['UnmanagedEtcdAvailability', 10],
      ],
      skipAsOk: 1216,
      outcomes: 127_814,
    });
  });

  it('phased: 85 attempts state nothing; 13,403 outcomes left out (the release lookup, groups after a critical failure); 1781 skips read as ok', async () => {
    assert.deepEqual(await unproven('phased'), {
      statingNothing: [85, 1765],
      leftOut: 13_403,
      leftOutMost: [
        ['LookupReleaseImage', 2725],
        ['AdditionalTrustBundle', 895],
      ],
      skipAsOk: 1781,
      outcomes: 150_924,
    });
  });
});
