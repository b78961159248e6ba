/** Output helpers for commands: a buffered writer that respects backpressure, and the command I/O contract. */
import type { Writable } from 'node:stream';

export interface CommandIO {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: NodeJS.ReadableStream;
}

export const EXIT = {
  ok: 0,
  /** The input could not be read or the command failed while running. */
  failure: 1,
  /** Bad arguments. */
  usage: 2,
  /** A model or config file is invalid; nothing was analyzed. */
  invalidConfig: 3,
  /** --strict: the analysis completed but some input lines were rejected. */
  rejectedInput: 4,
} as const;

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
    if (!this.out.write(chunk)) await new Promise<void>((resolve) => this.out.once('drain', resolve));
  }
}
