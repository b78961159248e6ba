/**
 * Journal replay: the whole `analyze` command over a 1M-attempt journal, streamed from a generator (a 38k-line day
 * replayed 27 times, so no 4 GB file is written), vs line split + JSON.parse of the same days in the same process.
 * The two are interleaved day by day: before handing the command a day, the generator runs the baseline over that day
 * and keeps its CPU time apart, so both see the same load on a shared machine (run one after the other, minutes
 * apart, their ratio moved with the load; bench/README.md). RSS is sampled at every day: flat means streamed, not
 * loaded whole.
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import { analyzeCommand } from '../cli/analyze.js';
import { LineSplitter } from '../collector/input/lines.js';
import { atLeast, cpuSeconds, cpuTime, type BenchResult } from './harness.js';
import { fleetDay, journalLines } from './data.js';

const TARGET_ATTEMPTS = 1_000_000;

/** 1 MiB pieces, as a file read would hand them on. */
function* pieces(day: Buffer): Generator<Buffer> {
  for (let off = 0; off < day.length; off += 1 << 20) yield day.subarray(off, off + (1 << 20));
}

/** Line split + JSON.parse of one day: the baseline. Returns the lines parsed. */
function parseDay(day: Buffer): number {
  let parsed = 0;
  const splitter = new LineSplitter({
    line: (t) => void (parsed += (JSON.parse(t) as { operations: unknown[] }).operations.length > 0 ? 1 : 0),
    tooLong: () => undefined,
  });
  for (const piece of pieces(day)) splitter.push(piece);
  splitter.end();
  return parsed;
}

export async function benchJournal(): Promise<BenchResult & { rssMiB: number[] }> {
  const lines = journalLines(fleetDay());
  const day = Buffer.from(lines.join('\n') + '\n');
  const times = Math.ceil(TARGET_ATTEMPTS / lines.length);
  const attempts = times * lines.length;
  const rss: number[] = [];
  let baselineSeconds = 0;
  let parsed = 0;
  const days = Readable.from(
    (function* () {
      for (let i = 0; i < times; i++) {
        rss.push(Math.round(process.memoryUsage().rss / 2 ** 20));
        const start = cpuSeconds();
        parsed += parseDay(day);
        baselineSeconds += cpuSeconds() - start;
        yield* pieces(day);
      }
    })(),
  );

  const total = await cpuTime(async () => {
    const code = await analyzeCommand(['--model', 'hypershift-hostedcluster', '--journal', '-', '--format', 'json'], {
      stdin: days,
      stdout: new Writable({ write: (_c, _e, cb) => cb() }),
      stderr: new PassThrough(),
    });
    if (code !== 0) throw new Error(`analyze exited ${code}`);
  });
  if (parsed !== attempts) throw new Error('the baseline did not parse every line');
  const figure = attempts / (total - baselineSeconds);
  const baseline = attempts / baselineSeconds;

  const growth = Math.max(...rss.slice(2)) - rss[2]!;
  const result = atLeast(
    'journal replay (analyze, whole CLI)',
    'attempts/s',
    figure,
    baseline,
    0.7,
    `${attempts} attempts; RSS ${rss[2]} -> ${Math.max(...rss.slice(2))} MiB after the first 2 days (growth ${growth} MiB)`,
  );
  return { ...result, met: result.met && growth < 64, rssMiB: rss };
}
