/** What every command shares: its I/O, exit codes and their meanings, the rejection echo, a writer that respects backpressure. */
import type { Writable } from 'node:stream';
import type { Rejection } from '../collector/records.js';

export interface CommandIO {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: NodeJS.ReadableStream;
}

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  invalidConfig: 3,
  rejectedInput: 4,
  nothingAnalysed: 5,
} as const;
export type ExitName = keyof typeof EXIT;

/** What each exit code means, for every command's --help and the README (generated from here). */
export const EXIT_MEANINGS: Readonly<Record<ExitName, string>> = {
  ok: 'done',
  failure: 'an input could not be read or an output written (run: a source could not start)',
  usage: 'bad arguments: each problem is named on stderr',
  invalidConfig: 'a model, config, task config or thresholds file is invalid; nothing was analysed',
  rejectedInput: 'with --strict: the command completed but input lines were rejected',
  nothingAnalysed: 'nothing to analyse: the input was empty, or every line of it was rejected (one line on stderr says which)',
};

/** Rejections echoed to stderr one by one; past this, only counted (the summary and the report list them by reason). */
export const MAX_REJECTIONS_PRINTED = 100;

/** Echoes each rejection to stderr as `where: reason: message`, up to MAX_REJECTIONS_PRINTED, and counts them all. */
export class RejectionEcho {
  private seen = 0;

  constructor(private readonly stderr: Writable) {}

  get count(): number {
    return this.seen;
  }

  readonly reject = (r: Rejection): void => {
    if (this.seen++ < MAX_REJECTIONS_PRINTED) this.stderr.write(`${r.where}: ${r.reason}: ${r.message}\n`);
  };

  /** Says how many were not echoed, if any: `... 12 more rejected lines (counted in the summary)`. */
  finish(what: string): void {
    if (this.seen > MAX_REJECTIONS_PRINTED) this.stderr.write(`... ${this.seen - MAX_REJECTIONS_PRINTED} more ${what}\n`);
  }
}

/** Collects small writes into large ones and waits for `drain`, so a million-line output streams in flat memory. */
export class BufferedWriter {
  private parts: string[] = [];
  private size = 0;

  constructor(
    private readonly out: Writable,
    private readonly flushAt = 64 * 1024,
  ) {}

  get needsFlush(): boolean {
    return this.size >= this.flushAt;
  }

  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    if (this.out.write(chunk) || this.out.destroyed) return;
    // A stream that fails closes without draining: waiting for `drain` alone would never end.
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.out.off('drain', done);
        this.out.off('close', done);
        resolve();
      };
      this.out.once('drain', done);
      this.out.once('close', done);
    });
  }
}
