/**
 * Reads operator logs once through the one log source, into any sink: the path behind `journal --logs`,
 * `analyze --logs` and `report --logs`. The inputs are files (plain or gzip, by their bytes), stdin (`-`), and
 * folders searched for the operator's container logs as a must-gather lays them out (collector/logs/inputs.ts);
 * several are merged by time, each one operator process (collector/logs/internal/merge.ts). On stderr: which files are read
 * and which skipped, what the source knows about the loop (one line at start), a progress line per tenth of large
 * inputs, and the books at the end; the summary's logs source names the files too.
 */
import { createReadStream, statSync } from 'node:fs';
import { pipeline, Transform, type Readable } from 'node:stream';
import { OperatorLogSource } from '../collector/logs/source.js';
import type { LogSourceStats } from '../collector/logs/types.js';
import {
  decompressed,
  findOperatorLogs,
  HYPERSHIFT_OPERATOR_CONTAINER,
  inputName,
  type OperatorContainer,
  type SkippedFile,
} from '../collector/logs/inputs.js';
import type { NamedStream } from '../collector/logs/types.js';
import type { RecordSink, SourceInputSummary } from '../collector/records.js';
import type { LoopSetting, ReconcileModel } from '../model/types.js';
import type { CommandIO } from './io.js';

/** Inputs at least this large (in bytes read, all files together) get progress lines. */
export const PROGRESS_MIN_BYTES = 16 * 1024 * 1024;

export interface LogInputOptions {
  /** Paths of files or folders, or `-` for stdin (once). */
  readonly files: readonly string[];
  readonly model: ReconcileModel;
  readonly loop: LoopSetting;
  /** In a folder, whose container logs are the operator's. Default HyperShift's (`hypershift`, `operator`). */
  readonly container?: OperatorContainer;
  /** Awaited after each chunk (a writer downstream drains). */
  readonly afterChunk?: () => Promise<void> | void;
}

interface Resolved {
  /** Files to read (`-` is stdin), in the order given, a folder's in its order. */
  readonly read: readonly string[];
  readonly skipped: readonly SkippedFile[];
}

/** The files to read: the paths given, a folder's operator logs in its place. Throws naming a path that cannot be used. */
async function resolveInputs(paths: readonly string[], container: OperatorContainer, io: CommandIO): Promise<Resolved> {
  if (paths.filter((p) => p === '-').length > 1) throw new Error('- (stdin) is given twice; it can be read once');
  const read: string[] = [];
  const skipped: SkippedFile[] = [];
  for (const path of paths) {
    if (path === '-' || !isDirectory(path)) {
      read.push(path);
      continue;
    }
    const found = await findOperatorLogs(path, container);
    io.stderr.write(
      `logs: ${path}: ${found.read.length} log(s) of ${container.namespace}/*/${container.container} to read, ${found.skipped.length} other log(s) skipped, ${found.otherFiles} other file(s)\n`,
    );
    for (const f of found.read) io.stderr.write(`logs: read ${f.path} (pod ${f.pod}, ${f.instance} container)\n`);
    for (const f of found.skipped) io.stderr.write(`logs: skipped ${f.path}: ${f.why}\n`);
    if (found.read.length === 0)
      throw new Error(
        `${path}: no log of the operator's container in it (looked for namespaces/${container.namespace}/pods/<pod>/${container.container}/${container.container}/logs/{current,previous}.log, as a must-gather keeps them)`,
      );
    read.push(...found.read.map((f) => f.path));
    skipped.push(...found.skipped);
  }
  const twice = read.find((p, i) => read.indexOf(p) !== i);
  if (twice !== undefined) throw new Error(`${twice} is given twice; its attempts would count twice`);
  return { read, skipped };
}

/** Whether `path` is a folder; throws naming it when it is neither a folder nor a file (with a hint for `a,b`). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (e) {
    const several = path.includes(',') ? '; to give several logs, repeat the flag: --logs a --logs b' : '';
    throw new Error(`${(e as Error).message}${several}`, { cause: e });
  }
}

/** Reads the logs to their end into `sink`; resolves with the source's books. Throws when an input cannot be read. */
export async function readLogInto(sink: RecordSink, options: LogInputOptions, io: CommandIO): Promise<LogSourceStats> {
  const { read, skipped } = await resolveInputs(options.files, options.container ?? HYPERSHIFT_OPERATOR_CONTAINER, io);
  const name = inputName(read);
  const total = read.includes('-') ? undefined : read.reduce((sum, f) => sum + statSync(f).size, 0);
  let bytesRead = 0;
  let shown = 0;
  // pipeline: a read failure reaches the counted stream, and with it the source, rather than leaving it waiting
  const counted = (raw: Readable): Readable =>
    pipeline(
      raw,
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytesRead += chunk.length;
          const tenth = total === undefined || total < PROGRESS_MIN_BYTES ? 0 : Math.floor((bytesRead / total) * 10);
          if (tenth > shown) {
            shown = tenth;
            io.stderr.write(
              `logs: ${name}: ${tenth * 10}% (${mib(bytesRead)} of ${mib(total!)} MiB, ${source.stats.lines} lines, ${source.stats.attempts} attempts)\n`,
            );
          }
          done(null, chunk);
        },
      }),
      () => undefined,
    );
  let failure: Error | undefined;
  const streams: NamedStream[] = read.map((file) => {
    const raw: Readable = file === '-' ? (io.stdin as Readable) : createReadStream(file, { highWaterMark: 1 << 20 });
    raw.once('error', (e: Error) => (failure ??= new Error(read.length > 1 ? `${file}: ${e.message}` : e.message)));
    const stream = decompressed(counted(raw));
    stream.once('error', (e: Error) => (failure ??= new Error(read.length > 1 ? `${file}: ${e.message}` : e.message)));
    return { stream, name: file };
  });
  // attempts per file, by where their first line is (`file:line`), and the span of their times
  const perFile = new Map(read.map((f) => [f, 0]));
  const spans = new Map<string, { from: number; until: number; fromText: string; untilText: string }>();
  const counting: RecordSink = {
    ...(sink.received ? { received: (kind, n) => sink.received!(kind, n) } : {}),
    attempt: (a) => {
      const where = a.origin.where ?? '';
      const file = where.slice(0, where.lastIndexOf(':'));
      perFile.set(file, (perFile.get(file) ?? 0) + 1);
      const span = spans.get(file);
      if (!span) spans.set(file, { from: a.timeMs, until: a.timeMs, fromText: a.time, untilText: a.time });
      else if (a.timeMs > span.until) [span.until, span.untilText] = [a.timeMs, a.time];
      sink.attempt(a);
    },
    reject: (r) => sink.reject(r),
    ...(sink.inputSummary
      ? { inputSummary: (kind, summary) => sink.inputSummary!(kind, () => withFiles(summary(), read, perFile, skipped, overlaps(spans))) }
      : {}),
  };
  const source: OperatorLogSource = new OperatorLogSource(
    {
      input: { streams },
      model: options.model,
      loop: options.loop,
      // read once to the end: no polling, nothing to flush on quiet
      scheduler: () => () => undefined,
      ...(options.afterChunk ? { afterChunk: options.afterChunk } : {}),
      onStarted: (loop) => io.stderr.write(`logs: loop: ${loop.statement}\n`),
    },
    counting,
  );
  await source.start();
  await source.ended;
  if (failure) throw failure;
  if (source.inputStats.lastError !== undefined) throw new Error(source.inputStats.lastError);
  if (read.length > 1) for (const f of read) io.stderr.write(`logs: ${f}: ${perFile.get(f)} attempts\n`);
  for (const line of overlaps(spans)) io.stderr.write(`logs: ${line}\n`);
  io.stderr.write(`${booksLine(read.length === 1 ? name : `${read.length} files`, source)}\n`);
  return source.stats;
}

/**
 * Files whose attempts overlap in time. Only the leader replica reconciles, so one operator's files never do: two
 * that do are two operators' logs (or one file twice under two names), and their attempts are interleaved by time.
 */
function overlaps(spans: ReadonlyMap<string, { from: number; until: number; fromText: string; untilText: string }>): string[] {
  const files = [...spans].sort((a, b) => a[1].from - b[1].from);
  const out: string[] = [];
  // the file whose attempts reach latest among those before
  let [before, a] = files[0] ?? ['', { from: 0, until: -Infinity, fromText: '', untilText: '' }];
  for (const [after, b] of files.slice(1)) {
    if (b.from < a.until)
      out.push(
        `${before} and ${after} both have attempts between ${b.fromText} and ${a.until < b.until ? a.untilText : b.untilText}: one operator's replicas take turns (leader election), so these may be two operators' logs; their attempts are read interleaved by time`,
      );
    if (b.until > a.until) [before, a] = [after, b];
  }
  return out;
}

/** The summary's logs source, naming the files read and skipped when there were several or any was skipped. */
function withFiles(
  summary: SourceInputSummary,
  read: readonly string[],
  perFile: ReadonlyMap<string, number>,
  skipped: readonly SkippedFile[],
  overlapping: readonly string[],
): SourceInputSummary {
  if (read.length === 1 && skipped.length === 0) return summary;
  const files = [
    `Read ${read.length} file(s), merged by time, each one operator process (only the leader replica reconciles): ${read.map((f) => `${f} (${perFile.get(f) ?? 0} attempts)`).join(', ')}.`,
    ...(skipped.length > 0 ? [`Skipped ${skipped.length} file(s): ${skipped.map((s) => `${s.path} (${s.why})`).join(', ')}.`] : []),
    ...overlapping.map((o) => `${o[0]!.toUpperCase()}${o.slice(1)}.`),
  ];
  return { ...summary, caveats: [...summary.caveats, ...files] };
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
