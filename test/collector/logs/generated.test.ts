/**
 * The log source against operator logs written by an emulation of the upstream code and controller-runtime's zap
 * (test/fixtures/logs/operator-log-generator.ts, which shares no code with the source), for the simulator's journals at
 * other seeds and status-update conflict rates, with an operator restart and a burst the zap sampler thins.
 */
import { resolveModel } from '../../../sidecar/files.js';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { AttemptRecord } from '../../../collector/records.js';
import type { LoopKind, LoopSetting } from '../../../model/types.js';
import { World } from '../../../simulator/world.js';
import { generateOperatorLog, type GeneratedLog, type GeneratorOptions } from '../../fixtures/logs/operator-log-generator.js';
import { againstTruth, loopAccuracy, readLog, type Figures, type SourceRun } from './against-truth.js';

const model = resolveModel('hypershift-hostedcluster');
const HOUR = 3_600_000;
const POST_MERGE = 'openshift/hypershift: 3ee9615567acffaf3e3ee25c2ca2942d650565cf. Latest supported OCP: 5.1.0';
const PRE_MERGE = 'openshift/hypershift: ca7fdfff29037ba096e0da7df648c5e0fc2504ac. Latest supported OCP: 4.23.0';

function journalOf(loop: LoopKind, seed: number): AttemptRecord[] {
  return [...new World({ model, objects: 8, durationMs: 2 * HOUR, seed, observe: loop }).attempts()];
}

async function derive(
  journal: readonly AttemptRecord[],
  options: GeneratorOptions,
  loop: LoopSetting = 'auto',
): Promise<{ log: GeneratedLog; run: SourceRun; figures: Figures }> {
  const log = generateOperatorLog(journal, options);
  const run = await readLog(Readable.from(log.lines.map((l) => `${l}\n`)), 'generated.log', model, { loop });
  const truth = new Map(log.manifest.map((m) => [m.reconcileID, journal[m.i]!]));
  const withLines = new Set(log.manifest.filter((m) => m.written > 0).map((m) => m.reconcileID));
  return { log, run, figures: againstTruth(run.records, truth, withLines) };
}

const sum = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((a, b) => a + b, 0);

describe('log source against independently generated operator logs (--loop auto)', function () {
  this.timeout(60_000);

  const SCENARIOS: readonly { loop: LoopKind; seed: number; conflictRate: number }[] = [
    { loop: 'sequential', seed: 3, conflictRate: 0.02 },
    { loop: 'sequential', seed: 41, conflictRate: 0.25 },
    { loop: 'phased', seed: 3, conflictRate: 0.25 },
    { loop: 'phased', seed: 29, conflictRate: 0.1 },
  ];

  for (const s of SCENARIOS) {
    it(`${s.loop} loop, seed ${s.seed}, ${s.conflictRate * 100} % conflicts, a restart and a sampled burst: every attempt that wrote lines derived once, no false claim`, async () => {
      const journal = journalOf(s.loop, s.seed);
      const { log, run, figures } = await derive(journal, {
        seed: s.seed,
        conflictRate: s.conflictRate,
        noise: 0.3,
        restartsAt: [Math.floor(journal.length / 2)],
        burst: { at: 60, attempts: 200 },
        version: POST_MERGE,
      });
      assert.ok(
        log.manifest.some((m) => m.sampledAway > 0),
        'the burst made the sampler drop lines',
      );
      assert.deepEqual([figures.derived, figures.doubled], [figures.withLines, 0]);
      assert.equal(loopAccuracy(figures), 1);
      assert.deepEqual([figures.falseOk, figures.falseError, figures.falseOther], [0, 0, 0]);
      assert.ok(figures.claims > 0);
      assert.equal(run.summary.received, run.summary.analyzed + sum(run.summary.dropped), 'received = analyzed + dropped');
      assert.ok(run.summary.sampledPeriods!.length > 0 && run.summary.notes.sampled! > 0, 'the burst is reported as sampled');
      assert.ok(run.summary.notes.status_update_error! > 0, 'conflicts were set aside');
    });
  }

  describe('a log whose lines prove no loop (clean runs only)', () => {
    // the clean attempts of a simulated fleet: both loops write `successfully reconciled` for them
    const journal = journalOf('sequential', 17).filter((a) => a.operations.every((o) => o.outcome === 'ok' || o.outcome === 'skip'));
    const options: GeneratorOptions = { seed: 17, conflictRate: 0.1, noise: 0.3, version: POST_MERGE };

    it('is not guessed: its lines are dropped as loop_unknown and counted', async () => {
      const { run, figures } = await derive(journal, options);
      assert.ok(figures.withLines > 50);
      assert.deepEqual([figures.derived, run.records.length], [0, 0]);
      assert.equal(run.summary.dropped.loop_unknown, run.summary.received);
      assert.equal(run.summary.loop.current, null);
    });

    it('a build from before the merge says it (its version line), and so does the configuration', async () => {
      const old = await derive(journal, { ...options, version: PRE_MERGE });
      assert.deepEqual([old.figures.derived, old.figures.loopWrong, old.figures.falseOk, old.figures.falseError], [old.figures.withLines, 0, 0, 0]);
      const configured = await derive(journal, options, 'sequential');
      assert.deepEqual([configured.figures.derived, configured.figures.falseOk, configured.figures.falseError], [configured.figures.withLines, 0, 0]);
    });
  });
});
