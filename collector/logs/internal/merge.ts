/**
 * Several logs of one operator, read as one: the logs of its replicas and of their container restarts (a
 * must-gather's `current.log` and `previous.log` per pod). Each input is split into lines and unframed on its own
 * (a CRI `P` fragment belongs to its own file), then the inputs' lines are merged in the order of their time: the
 * line's `ts` (the time the log source reads, whatever the framing), a line without one keeping its place after the
 * line before it in its input. Lines of equal time keep the order of the inputs as given (a replica's previous log
 * before its current one), and each input's lines keep their order, so one input is read exactly as alone.
 *
 * Leader election is why this order is the analysis's: only the leader reconciles, so the attempts of the inputs do
 * not overlap in time, and their merge is each object's history in the order it happened.
 */
import { LineSplitter } from '../../input/lines.js';
import { unwrapLineFrames } from './line-frames.js';
import type { NamedStream } from '../types.js';

/** What the merge hands on: a line (or a line too long to read) of input `input`, in time order. */
export interface MergedLineConsumer {
  line(text: string, where: string, input: number): void;
  tooLong(where: string, bytes: number, input: number): void;
  /** Input `input` has no more lines. */
  inputEnded(input: number): void;
}

type Queued =
  | { readonly text: string; readonly where: string; readonly key: number }
  | { readonly text: undefined; readonly where: string; readonly bytes: number; readonly key: number };

class MergeInput {
  readonly queue: Queued[] = [];
  /** Where in the queue the next line to hand on is (the queue is emptied once read through). */
  head = 0;
  done = false;
  private key = -Infinity;
  private lastTime: string | undefined;
  private lastTimeMs = NaN;
  private readonly chunks: AsyncIterator<unknown>;
  private readonly splitter: LineSplitter;
  private readonly timeField: string;

  constructor(named: NamedStream, timeField: string, maxLineBytes: number) {
    this.chunks = (named.stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    this.timeField = `"${timeField}":`;
    const frames = unwrapLineFrames(
      {
        line: (text, where) => this.queue.push({ text, where, key: (this.key = Math.max(this.key, this.timeOf(text))) }),
        tooLong: (where, bytes) => this.queue.push({ text: undefined, where, bytes, key: this.key }),
      },
      maxLineBytes,
    );
    this.splitter = new LineSplitter(
      {
        line: (text, lineNo) => frames.line(text, `${named.name}:${lineNo}`),
        tooLong: (lineNo, bytes) => frames.tooLong(`${named.name}:${lineNo}`, bytes),
      },
      maxLineBytes,
    );
  }

  get pending(): boolean {
    return this.head < this.queue.length;
  }

  /** Reads chunks until a line is queued or the input ends. */
  async fill(afterChunk: (() => Promise<void> | void) | undefined): Promise<void> {
    if (this.head > 0) {
      this.queue.length = 0;
      this.head = 0;
    }
    while (!this.pending && !this.done) {
      const next = await this.chunks.next();
      if (next.done) {
        this.splitter.end();
        this.done = true;
      } else {
        const chunk = next.value;
        this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
        await afterChunk?.();
      }
    }
  }

  /** The line's `ts` in milliseconds, or -Infinity when it has none (it then sorts with the line before it). */
  private timeOf(text: string): number {
    if (text.charCodeAt(0) !== 0x7b) return -Infinity;
    const at = text.indexOf(this.timeField);
    if (at < 0) return -Infinity;
    let from = at + this.timeField.length;
    if (text.charCodeAt(from) === 0x20) from++;
    if (text.charCodeAt(from) === 0x22) {
      const end = text.indexOf('"', from + 1);
      const value = text.slice(from + 1, end);
      if (value !== this.lastTime) {
        this.lastTime = value;
        this.lastTimeMs = Date.parse(value);
      }
      return Number.isNaN(this.lastTimeMs) ? -Infinity : this.lastTimeMs;
    }
    const seconds = parseFloat(text.slice(from, from + 32));
    return Number.isFinite(seconds) ? seconds * 1000 : -Infinity;
  }
}

/**
 * Reads every input to its end and hands their lines on in time order. `afterChunk` is awaited after each chunk
 * read (backpressure downstream); `stopped` ends the reading early.
 */
export async function mergeByTime(
  inputs: readonly NamedStream[],
  consumer: MergedLineConsumer,
  options: { readonly timeField: string; readonly maxLineBytes: number; readonly afterChunk?: () => Promise<void> | void; readonly stopped: () => boolean },
): Promise<void> {
  const all = inputs.map((named) => new MergeInput(named, options.timeField, options.maxLineBytes));
  const open = new Set(all.keys());
  while (open.size > 0) {
    if (options.stopped()) return;
    let best = -1;
    for (const i of [...open]) {
      const input = all[i]!;
      if (!input.pending) await input.fill(options.afterChunk);
      if (!input.pending) {
        open.delete(i);
        consumer.inputEnded(i);
        continue;
      }
      if (best < 0 || input.queue[input.head]!.key < all[best]!.queue[all[best]!.head]!.key) best = i;
    }
    if (best < 0) return;
    // hand on the best input's lines while they come before every other input's head (on a tie: if given first)
    const input = all[best]!;
    let bound = Infinity;
    let earlierAtBound = false;
    for (const i of open) {
      if (i === best) continue;
      const key = all[i]!.queue[all[i]!.head]!.key;
      if (key < bound) [bound, earlierAtBound] = [key, i < best];
      else if (key === bound && i < best) earlierAtBound = true;
    }
    while (input.pending) {
      const q = input.queue[input.head]!;
      if (q.key > bound || (q.key === bound && earlierAtBound)) break;
      input.head++;
      if (q.text === undefined) consumer.tooLong(q.where, q.bytes, best);
      else consumer.line(q.text, q.where, best);
    }
  }
}
