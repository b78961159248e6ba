/** Engine: attempts/s through projection + comparison (HyperShift model) vs JSON.parse of the same journal lines. */
import { parseAttemptLine } from '../collector/journal/format.js';
import { ControllerAnalyzer } from '../analyzer/controller-analyzer.js';
import { atLeast, throughputSideBySide, type BenchResult } from './harness.js';
import { fleetDay, HYPERSHIFT, journalLines } from './data.js';

export async function benchEngine(): Promise<BenchResult> {
  const lines = journalLines(fleetDay());
  const records = lines.map((l, i) => {
    const p = parseAttemptLine(l, i + 1, { file: 'bench' });
    if (!p.ok) throw new Error(p.rejection.message);
    return p.record;
  });
  let sink = 0;
  const [figure, baseline] = await throughputSideBySide(
    records.length,
    () => {
      const controller = new ControllerAnalyzer(HYPERSHIFT);
      for (const r of records) controller.analyze(r);
    },
    () => {
      for (const l of lines) sink += (JSON.parse(l) as { operations: unknown[] }).operations.length;
    },
  );
  if (sink < 0) throw new Error('unreachable');
  return atLeast('engine (projection + comparison)', 'attempts/s', figure, baseline, 2.0, `${records.length} attempts, 40 objects, mixed loops`);
}
