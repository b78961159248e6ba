/**
 * `--workers N|auto` and `--shard i/n` for `analyze` and `report`. `--shard i/n` keeps the objects of one shard of n
 * (collector/input/shard.ts; one pod of an Indexed Job). `--workers N` splits the (shard's) objects of a journal file among
 * N parts, this thread's and N - 1 worker threads', each of which reads the whole file, takes every Nth new object
 * (collector/journal/shard-lines.ts) and skips the other parts' lines without decoding them; their partial summaries merge
 * (analyzer/partial/merge.ts) into what one worker would have reported, byte for byte.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { decodePartial } from '../analyzer/partial/format.js';
import { mergeParts } from '../analyzer/partial/merge.js';
import { parseShard, type Shard } from '../collector/input/shard.js';
import { usageProblems, type CommandSpec, type Flags } from './args.js';
import { MAX_REJECTIONS_PRINTED, type CommandIO } from './io.js';
import { runShard, type EchoedRejection, type ShardOutcome, type ShardSpec } from './shard-run.js';
import type { WorkerReply } from './shard-worker.js';

export const MAX_WORKERS = 64;

/**
 * The number of workers `--workers` asks for; `auto` is every core, or 1 when the input cannot be split (`why`).
 * Throws a usage message for anything else, or for a number above 1 when the input cannot be split.
 */
export function workerCount(text: string, unsplittable: string | undefined): number {
  if (text === 'auto') return unsplittable === undefined ? Math.min(MAX_WORKERS, availableParallelism()) : 1;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= MAX_WORKERS)) throw new RangeError(`--workers ${JSON.stringify(text)}: expected auto or a number from 1 to ${MAX_WORKERS}`);
  if (n > 1 && unsplittable !== undefined) throw new RangeError(`--workers ${n}: ${unsplittable}; use --workers 1 (or auto)`);
  return n;
}

export interface SplitOptions {
  readonly workers: number;
  /** `--shard`, when given. */
  readonly shard: Shard | undefined;
}

/**
 * `--workers` and `--shard` of a command reading `--journal` or `--logs`; `unsplittable` says why the command's output
 * cannot be split, if so. Throws a usage message.
 */
export function splitOptions(
  values: { workers: string; shard?: string | undefined; journal?: string | undefined; logs?: readonly string[] | undefined },
  unsplittable?: string,
): SplitOptions {
  const why =
    unsplittable ??
    (values.logs !== undefined && values.logs.length > 0
      ? 'a log is read in one pass (an attempt spans lines), by one worker; --shard i/n splits its analysis among machines'
      : values.journal === '-'
        ? 'each worker reads the journal file itself, and stdin can be read only once (give the file)'
        : undefined);
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  if (shard && unsplittable !== undefined) throw new RangeError(`--shard: ${unsplittable}`);
  return { workers: workerCount(values.workers, why), shard };
}

/** splitOptions of a command's values, or the usage exit code once the problem is printed as readArgs prints one. */
export function readSplit<F extends Flags>(
  spec: CommandSpec<F>,
  values: { workers: string; shard?: string | undefined; journal?: string | undefined; logs?: readonly string[] | undefined },
  io: CommandIO,
  unsplittable?: string,
): SplitOptions | number {
  try {
    return splitOptions(values, unsplittable);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return usageProblems(spec, [e.message], io);
  }
}

/**
 * Analyses `shard` of the input in `workers` parts: this thread takes the first part, a worker thread each other one
 * (one isolate fewer to start, and to warm up the same code in, than a worker per part; this thread would only wait).
 * The workers are started first, so that they boot while this thread reads. Throws when the input cannot be read.
 */
export async function analyzeSharded(spec: Omit<ShardSpec, 'shard'>, shard: Shard, workers: number, io: CommandIO): Promise<ShardOutcome> {
  const part = (index: number): ShardSpec => ({ ...spec, shard, worker: { index, count: workers } });
  if (workers === 1) return runShard({ ...spec, shard }, io);
  const others = Array.from({ length: workers - 1 }, (_, j) => inWorker(part(j + 1), `worker ${j + 2} of ${workers}`, io));
  const outcomes = await Promise.all([runShard(part(0), io), ...others]);
  const partials = outcomes.map((o) => o.partial);
  return {
    partial: mergeParts(partials, partials[0]!.inputs),
    echoed: outcomes
      .flatMap((o) => o.echoed)
      .sort((a, b) => a.position - b.position)
      .slice(0, MAX_REJECTIONS_PRINTED),
  };
}

/** Echoes the rejections on stderr as one run would: the first ones, then how many more were only counted. */
export function echoRejections(io: CommandIO, echoed: readonly EchoedRejection[], rejected: number, countedIn: 'summary' | 'report'): void {
  io.stderr.write(echoed.map((e) => `${e.line}\n`).join(''));
  if (rejected > MAX_REJECTIONS_PRINTED) io.stderr.write(`... ${rejected - MAX_REJECTIONS_PRINTED} more rejected lines (counted in the ${countedIn})\n`);
}

/** Compiled, a worker runs shard-worker.js; from the TypeScript sources (tsx), it loads shard-worker.ts through tsx. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

function startWorker(spec: ShardSpec): Worker {
  if (!FROM_SOURCE) return new Worker(new URL('./shard-worker.js', import.meta.url), { workerData: spec });
  const entry = new URL('./shard-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`;
  return new Worker(bootstrap, { eval: true, workerData: spec });
}

function inWorker(spec: ShardSpec, name: string, io: CommandIO): Promise<ShardOutcome> {
  const worker = startWorker(spec);
  return new Promise((resolve, reject) => {
    let replied = false;
    worker.once('message', (reply: WorkerReply) => {
      replied = true;
      io.stderr.write(reply.stderr);
      if (!reply.ok) return reject(new Error(reply.error));
      try {
        resolve({ partial: decodePartial(reply.partial, name), echoed: reply.echoed });
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
    worker.once('error', (e: Error) => reject(new Error(`${name} failed: ${e.message}`)));
    worker.once('exit', (code) => {
      if (!replied) reject(new Error(`${name} exited with code ${code} before it finished`));
    });
  });
}
