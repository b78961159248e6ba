/**
 * Reads an operator log once (a file, a `.gz` file, or stdin) through the one log source, into any sink: the path
 * behind `journal --logs`, `analyze --logs` and `report --logs`. On stderr: what the source knows about the loop (one
 * line at start), a progress line per tenth of a large file, and the books at the end.
 */
import { createReadStream, statSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { OperatorLogSource } from '../collector/logs/source.js';
import type { LogSourceStats, ObservedLoop } from '../collector/logs/assembler.js';
import type { RecordSink } from '../collector/records.js';
import type { ReconcileModel } from '../model/types.js';
import type { CommandIO } from './io.js';

/** Files at least this large get progress lines. */
export const PROGRESS_MIN_BYTES = 16 * 1024 * 1024;

export interface LogInputOptions {
  /** A path, or `-` for stdin; a path ending in `.gz` is gunzipped. */
  readonly file: string;
  readonly model: ReconcileModel;
  readonly loop: ObservedLoop;
  /** Awaited after each chunk (a writer downstream drains). */
  readonly afterChunk?: () => Promise<void> | void;
}

/** Reads the log to its end into `sink`; resolves with the source's books. Throws when the file cannot be read. */
export async function readLogInto(sink: RecordSink, options: LogInputOptions, io: CommandIO): Promise<LogSourceStats> {
  const { file } = options;
  const total = file === '-' ? undefined : statSync(file).size;
  let read = 0;
  let shown = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      const tenth = total === undefined || total < PROGRESS_MIN_BYTES ? 0 : Math.floor((read / total) * 10);
      if (tenth > shown) {
        shown = tenth;
        io.stderr.write(`logs: ${file}: ${tenth * 10}% (${mib(read)} of ${mib(total!)} MiB, ${source.stats.lines} lines, ${source.stats.attempts} attempts)\n`);
      }
      done(null, chunk);
    },
  });
  const raw: Readable = file === '-' ? (io.stdin as Readable) : createReadStream(file, { highWaterMark: 1 << 20 });
  let failure: Error | undefined;
  raw.once('error', (e: Error) => (failure = e));
  const counted = raw.pipe(counter);
  const stream = file.endsWith('.gz') ? counted.pipe(createGunzip()) : counted;
  stream.once('error', (e: Error) => (failure ??= e));
  const source: OperatorLogSource = new OperatorLogSource(
    {
      input: { stream, name: file },
      model: options.model,
      loop: options.loop,
      // read once to the end: no polling, nothing to flush on quiet
      scheduler: () => () => undefined,
      ...(options.afterChunk ? { afterChunk: options.afterChunk } : {}),
      onStarted: (loop) => io.stderr.write(`logs: loop: ${loop.statement}\n`),
    },
    sink,
  );
  await source.start();
  await source.ended;
  if (failure) throw failure;
  if (source.inputStats.lastError !== undefined) throw new Error(source.inputStats.lastError);
  io.stderr.write(`${booksLine(file, source)}\n`);
  return source.stats;
}

/** `logs: FILE: N lines: A analyzed, D dropped (…), I ignored (…); K attempts; loop X (…)`. */
function booksLine(file: string, source: OperatorLogSource): string {
  const s = source.stats;
  const dropped = Object.values(s.dropped).reduce((a, b) => a + b, 0);
  const ignored = Object.values(s.ignored).reduce((a, b) => a + b, 0);
  const detail = (counts: Record<string, number>): string =>
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  const loop = source.loopKnowledge();
  const notes = detail(s.notes);
  return [
    `logs: ${file}: ${s.lines} lines: ${s.analyzed} analyzed, ${dropped} dropped${dropped > 0 ? ` (${detail(s.dropped)})` : ''}, ${ignored} ignored${ignored > 0 ? ` (${detail(s.ignored)})` : ''}`,
    `${s.attempts} attempts${notes === '' ? '' : ` (noted: ${notes})`}`,
    `loop ${loop.current ?? 'unknown'} (${loop.decidedBy})`,
  ].join('; ');
}

const mib = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);
