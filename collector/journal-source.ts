/**
 * Journal replay as a live source: reads a journal file once, as fast as the analyzer takes it, and hands each
 * attempt on. Bad lines are rejections naming file:line, like `analyze`.
 */
import { createReadStream } from 'node:fs';
import { readJournal } from './journal-reader.js';
import type { RecordSink, Source } from './records.js';

export interface JournalSourceOptions {
  readonly path: string;
}

export class JournalSource implements Source {
  readonly kind = 'journal' as const;
  private stopped = false;
  private failed = false;
  /** Resolves when the whole file has been replayed (or the source stopped); rejects when reading it failed. */
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: JournalSourceOptions,
    private readonly sink: RecordSink,
  ) {}

  start(): Promise<void> {
    const file = this.options.path;
    const stream = createReadStream(file, { highWaterMark: 1 << 20 });
    // Fail start when the file cannot be opened; later read errors end the replay and are reported by `done`.
    return new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.once('open', () => {
        stream.off('error', reject);
        // Yield between chunks so the metrics endpoint stays responsive during a long replay.
        this.done = readJournal(stream, this.sink, { file, stopped: () => this.stopped, afterChunk: () => new Promise<void>((r) => setImmediate(r)) }).catch((e: unknown) => {
          this.failed = true;
          throw e;
        });
        resolve();
      });
    });
  }

  /** False once the replay failed; a finished replay stays up: the source did what it was asked. */
  get up(): boolean {
    return !this.failed;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done.catch(() => undefined);
  }
}
