/**
 * Journal replay as a live source: reads a journal file once, as fast as the analyzer takes it, and hands each
 * attempt on. Bad lines are rejections naming file:line, like `analyze`. A file that cannot be read to its end is a
 * failure the source reports (and it is down from then on); a finished replay stays up: it did what it was asked.
 */
import { createReadStream } from 'node:fs';
import type { SourceHooks } from '../component.js';
import { readJournal } from './reader.js';
import type { RecordSink, Source } from '../records.js';

export interface JournalSourceOptions {
  readonly path: string;
}

export class JournalSource implements Source {
  readonly kind = 'journal' as const;
  private stopped = false;
  /** Resolves when the whole file has been replayed, the source stopped, or reading failed (reported to the hooks). */
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: JournalSourceOptions,
    private readonly sink: RecordSink,
    private readonly hooks?: Pick<SourceHooks, 'state' | 'error'>,
  ) {}

  start(): Promise<void> {
    const file = this.options.path;
    const stream = createReadStream(file, { highWaterMark: 1 << 20 });
    // Fail start when the file cannot be opened; later read errors end the replay and are reported through the hooks.
    return new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.once('open', () => {
        stream.off('error', reject);
        // Yield between chunks so the metrics endpoint stays responsive during a long replay.
        this.done = readJournal(stream, this.sink, { file, stopped: () => this.stopped, afterChunk: () => new Promise<void>((r) => setImmediate(r)) }).catch(
          (e: unknown) => {
            stream.destroy();
            this.hooks?.state(false);
            this.hooks?.error(e);
          },
        );
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}
