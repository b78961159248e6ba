/**
 * Log source: lines/s from controller-runtime JSON (zap) logs to attempts, against line split + JSON.parse; the notes
 * give the floor beside it (bench/logs-floor.ts: what any source must do per line, and nothing more).
 */
import { Readable } from 'node:stream';
import { OperatorLogSource } from '../collector/logs/source.js';
import { LineSplitter } from '../collector/input/lines.js';
import type { AttemptRecord } from '../collector/records.js';
import { generateOperatorLog } from '../test/fixtures/logs/operator-log-generator.js';
import { fleetDay, HYPERSHIFT } from './data.js';
import { floorPass } from './logs-floor.js';
import { atLeast, formatNumber, throughputSideBySide, type BenchResult } from './harness.js';

export async function benchLogs(): Promise<BenchResult> {
  const records = fleetDay().filter((r) => r.loop === 'sequential');
  const { lines } = generateOperatorLog(records, { seed: 1, conflictRate: 0.05, noise: 0 });
  const text = Buffer.from(lines.join('\n') + '\n');
  // the source reads a line that opens like JSON; the generated log starts with the operator's plain-text klog lines
  const splitAndParse = (): void => {
    const splitter = new LineSplitter({ line: (t) => void (t.startsWith('{') && JSON.parse(t)), tooLong: () => undefined });
    splitter.push(text);
    splitter.end();
  };
  let attempts = 0;
  let floorAttempts = 0;
  const [figure, baseline] = await throughputSideBySide(
    lines.length,
    async () => {
      attempts = 0;
      const stdin = Readable.from([text]);
      const sink = { attempt: (_r: AttemptRecord) => void attempts++, reject: () => undefined };
      const source = new OperatorLogSource(
        { input: { stdin: true }, stdin, model: HYPERSHIFT, loop: 'sequential', quietFlushMs: 3_600_000, pollIntervalMs: 3_600_000 },
        sink,
      );
      await source.start();
      await source.ended;
      await source.stop();
    },
    splitAndParse,
  );
  const [floor, floorBaseline] = await throughputSideBySide(lines.length, () => (floorAttempts = floorPass(text, () => undefined)), splitAndParse);
  if (floorAttempts !== attempts) throw new Error(`the floor made ${floorAttempts} attempts of the log, the source ${attempts}`);
  const floorNote = `floor (bench/logs-floor.ts) ${formatNumber(floor)} vs ${formatNumber(floorBaseline)} -> ${(floor / floorBaseline).toFixed(2)}x`;
  return atLeast('log source', 'lines/s', figure, baseline, 0.6, `${lines.length} zap lines -> ${attempts} attempts; ${floorNote}`);
}
