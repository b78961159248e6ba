/**
 * Splits a byte stream into lines without ever holding more than one line (capped) in memory.
 * A line longer than the cap is reported as too long and skipped up to its newline, never truncated into a record.
 */
import type { Readable } from 'node:stream';

export interface LineHandler {
  line(text: string, lineNo: number): void;
  tooLong(lineNo: number, bytes: number): void;
  /** When given, asked first with the line's bytes (a trailing CR included): false skips the line unread. */
  select?(bytes: Buffer, lineNo: number): boolean;
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflowing = false;
  private lineNo = 0;

  constructor(
    private readonly handler: LineHandler,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  get linesSeen(): number {
    return this.lineNo;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      this.take(chunk.subarray(start, nl), true);
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start), false);
  }

  /** Hands on a last line that had no trailing newline. */
  end(): void {
    if (this.pendingBytes > 0 || this.overflowing) this.finishLine();
  }

  private take(part: Buffer, complete: boolean): void {
    if (!this.overflowing) {
      if (this.pendingBytes + part.length > this.maxLineBytes) {
        this.overflowing = true;
        this.pending = [];
      } else if (part.length > 0) {
        // Copy: the caller's chunk may be reused once push() returns.
        this.pending.push(complete && this.pending.length === 0 ? part : Buffer.from(part));
      }
    }
    this.pendingBytes += part.length;
    if (complete) this.finishLine();
  }

  private finishLine(): void {
    this.lineNo++;
    if (this.overflowing) this.handler.tooLong(this.lineNo, this.pendingBytes);
    else {
      const buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
      if (!this.handler.select || this.handler.select(buf, this.lineNo)) {
        let text = buf.toString('utf8');
        if (text.endsWith('\r')) text = text.slice(0, -1);
        this.handler.line(text, this.lineNo);
      }
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.overflowing = false;
  }
}

/** Feeds a whole stream through a splitter; resolves when the stream ends. */
export async function splitStream(stream: Readable, handler: LineHandler, maxLineBytes?: number): Promise<number> {
  const splitter = new LineSplitter(handler, maxLineBytes);
  for await (const chunk of stream) splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  splitter.end();
  return splitter.linesSeen;
}
