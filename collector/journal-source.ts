/**
 * Journal replay as a live source: reads a journal file once, as fast as the analyzer takes it, and hands each
 * attempt on. Bad lines are rejections naming file:line, like `analyze`.
 */
import { createReadStream } from 'node:fs';
import { parseAttemptLine } from './journal.js';
import { LineSplitter } from './lines.js';
import type { RecordSink, Source } from './records.js';

export interface JournalSourceOptions {
  readonly path: string;
}

export class JournalSource implements Source {
  readonly kind = 'journal' as const;
  private stopped = false;
  /** Resolves when the whole file has been replayed (or the source stopped). */
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: JournalSourceOptions,
    private readonly sink: RecordSink,
  ) {}

  start(): Promise<void> {
    const file = this.options.path;
    const sink = this.sink;
    const splitter = new LineSplitter({
      line(text, lineNo) {
        if (text.trim() === '') return;
        sink.received?.('journal', 1);
        const parsed = parseAttemptLine(text, lineNo, { file });
        if (parsed.ok) sink.attempt(parsed.record);
        else sink.reject(parsed.rejection);
      },
      tooLong(lineNo, bytes) {
        sink.received?.('journal', 1);
        sink.reject({ source: 'journal', reason: 'line_too_long', where: `${file}:${lineNo}`, message: `line of ${bytes} bytes exceeds the limit` });
      },
    });
    const stream = createReadStream(file, { highWaterMark: 1 << 20 });
    // Fail start when the file cannot be opened; later read errors end the replay and are reported by `done`.
    return new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.once('open', () => {
        stream.off('error', reject);
        this.done = (async () => {
          for await (const chunk of stream) {
            if (this.stopped) break;
            splitter.push(chunk as Buffer);
            // Yield between chunks so the metrics endpoint stays responsive during a long replay.
            await new Promise<void>((r) => setImmediate(r));
          }
          if (!this.stopped) splitter.end();
        })();
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done.catch(() => undefined);
  }
}
