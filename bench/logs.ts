/** Log source: lines/s from controller-runtime JSON (zap) logs to attempts, against line split + JSON.parse. */
import { Readable } from 'node:stream';
import { OperatorLogSource } from '../collector/logs/source.js';
import { LineSplitter } from '../collector/lines.js';
import type { AttemptRecord } from '../collector/records.js';
import { generateOperatorLog } from '../test/fixtures/logs/operator-log-generator.js';
import { fleetDay, HYPERSHIFT } from './data.js';
import { atLeast, throughputSideBySide, type BenchResult } from './harness.js';

export async function benchLogs(): Promise<BenchResult> {
  const records = fleetDay().filter((r) => r.model === 'sequential');
  const { lines } = generateOperatorLog(records, { seed: 1, conflictRate: 0.05, noise: 0 });
  const text = Buffer.from(lines.join('\n') + '\n');
  let attempts = 0;
  const [figure, baseline] = await throughputSideBySide(
    lines.length,
    async () => {
      attempts = 0;
      const stdin = Readable.from([text]);
      const sink = { attempt: (_r: AttemptRecord) => void attempts++, reject: () => undefined };
      const source = new OperatorLogSource({ input: { stdin: true }, stdin, model: HYPERSHIFT, loop: 'sequential', quietFlushMs: 3_600_000, pollIntervalMs: 3_600_000 }, sink);
      await source.start();
      await source.ended;
      await source.stop();
    },
    () => {
      // the source reads a line that opens like JSON; the generated log starts with the operator's plain-text klog lines
      const splitter = new LineSplitter({ line: (t) => void (t.startsWith('{') && JSON.parse(t)), tooLong: () => undefined });
      splitter.push(text);
      splitter.end();
    },
  );
  return atLeast('log source', 'lines/s', figure, baseline, 0.6, `${lines.length} zap lines -> ${attempts} attempts`);
}
