/**
 * Journal replay: the whole `analyze` command over a 1M-attempt journal, streamed from a generator (a 40k-line day
 * replayed 25 times, so no 3 GB file is written), vs line split + JSON.parse of the same stream in the same process.
 * RSS is sampled along the way: flat means streamed, not loaded whole.
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import { analyzeCommand } from '../cli/analyze.js';
import { LineSplitter } from '../collector/lines.js';
import { atLeast, type BenchResult } from './harness.js';
import { fleetDay, journalLines } from './data.js';

const TARGET_ATTEMPTS = 1_000_000;

function stream(day: Buffer, times: number, onChunk: () => void): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < times; i++) {
        onChunk();
        // Hand it on in 1 MiB pieces, as a file read would.
        for (let off = 0; off < day.length; off += 1 << 20) yield day.subarray(off, off + (1 << 20));
      }
    })(),
  );
}

export async function benchJournal(): Promise<BenchResult & { rssMiB: number[] }> {
  const lines = journalLines(fleetDay());
  const day = Buffer.from(lines.join('\n') + '\n');
  const times = Math.ceil(TARGET_ATTEMPTS / lines.length);
  const attempts = times * lines.length;
  const rss: number[] = [];

  let start = process.hrtime.bigint();
  const code = await analyzeCommand(['--model', 'hypershift-hostedcluster', '--journal', '-', '--format', 'json'], {
    stdin: stream(day, times, () => rss.push(Math.round(process.memoryUsage().rss / 2 ** 20))),
    stdout: new Writable({ write: (_c, _e, cb) => cb() }),
    stderr: new PassThrough(),
  });
  if (code !== 0) throw new Error(`analyze exited ${code}`);
  const figure = attempts / (Number(process.hrtime.bigint() - start) / 1e9);

  let parsed = 0;
  start = process.hrtime.bigint();
  const splitter = new LineSplitter({ line: (t) => void (parsed += (JSON.parse(t) as { operations: unknown[] }).operations.length > 0 ? 1 : 0), tooLong: () => undefined });
  for await (const chunk of stream(day, times, () => undefined)) splitter.push(chunk as Buffer);
  splitter.end();
  const baseline = attempts / (Number(process.hrtime.bigint() - start) / 1e9);

  const growth = Math.max(...rss.slice(2)) - rss[2]!;
  const result = atLeast('journal replay (analyze, whole CLI)', 'attempts/s', figure, baseline, 0.5, `${attempts} attempts; RSS ${rss[2]} -> ${Math.max(...rss.slice(2))} MiB after the first 2 passes (growth ${growth} MiB)`);
  return { ...result, met: result.met && growth < 64, rssMiB: rss };
}
