/**
 * Follows a log file the way `tail -F` does, across both rotation styles:
 * - rename + create (logrotate's default, kubelet's): the old file is read to its end, then the new one from 0;
 * - copytruncate: the file shrinks (or is rewritten past our offset) under the same inode; reading restarts at 0.
 * Truncation is seen either as a size below the offset or as changed bytes just before the offset (a file truncated
 * and refilled between two polls), so no line is read from the middle.
 *
 * Reading happens in poll(), run on a timer and on directory events; both are injectable so tests drive it step by
 * step. A last line without its newline waits in the splitter for the rest; it is handed on unfinished only when its
 * file rotates away (and is then refused as invalid JSON by the classifier, never dropped silently).
 */
import { watch, type FSWatcher } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { LineSplitter } from '../../input/lines.js';

/** Where reading stands: a position to resume from after a restart (the offset is always at a line start). */
export interface FilePosition {
  readonly ino: number;
  readonly offset: number;
}

export interface LineConsumer {
  line(text: string, where: string): void;
  tooLong(where: string, bytes: number): void;
}

export interface FileFollowerOptions {
  readonly path: string;
  /** Where to start in the file found at start(): its first byte, or its current end. */
  readonly startAt: 'beginning' | 'end';
  /** Resume here when the file at start() is still the same inode and long enough; otherwise `startAt` applies. */
  readonly resumeFrom?: FilePosition;
  readonly maxLineBytes: number;
  /** Watch the directory for changes (inotify) in addition to the timer. */
  readonly watch: boolean;
  readonly onError: (error: Error) => void;
}

export type RotationKind = 'renamed' | 'truncated';

const READ_CHUNK_BYTES = 64 * 1024;
/** Bytes before the offset compared on each poll to notice a file truncated and refilled in between. */
const SIGNATURE_BYTES = 64;

export class FileFollower {
  readonly rotations: Record<RotationKind, number> = { renamed: 0, truncated: 0 };
  private handle: FileHandle | undefined;
  private ino = -1;
  private offset = 0;
  /** Offset just after the last newline read: where a restart can resume. */
  private committed = 0;
  private splitter: LineSplitter;
  private signature: Buffer = Buffer.alloc(0);
  private opened = false;
  private watcher: FSWatcher | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly options: FileFollowerOptions,
    private readonly consumer: LineConsumer,
  ) {
    this.splitter = this.newSplitter(0);
  }

  /** Opens the file (if it exists yet), reads what is there and starts watching. */
  async start(): Promise<void> {
    if (this.options.watch) {
      try {
        const name = basename(this.options.path);
        this.watcher = watch(dirname(this.options.path), { persistent: false }, (_event, file) => {
          if (file === null || file === name) void this.poll();
        });
        this.watcher.on('error', (e) => this.options.onError(e));
      } catch (e) {
        // inotify limits or an unwatchable filesystem: the timer alone keeps the file followed.
        this.options.onError(e as Error);
      }
    }
    await this.poll();
  }

  /** Reads everything available, handling rotation. Concurrent calls share one run (and one re-run). */
  poll(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.step();
        } while (this.again && !this.closed);
      } catch (e) {
        this.options.onError(e as Error);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  position(): FilePosition | undefined {
    return this.handle ? { ino: this.ino, offset: this.committed } : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    await this.running;
    await this.handle?.close();
    this.handle = undefined;
  }

  private async step(): Promise<void> {
    if (this.closed) return;
    if (!this.handle && !(await this.openCurrent())) return;
    const current = await statOrUndefined(this.options.path);
    if (current && current.ino !== this.ino) {
      // Renamed away and replaced: finish the old file, then start the new one.
      await this.readToEnd();
      this.splitter.end();
      await this.handle!.close();
      this.handle = undefined;
      this.rotations.renamed++;
      if (!(await this.openCurrent())) return;
    } else if (current && (current.size < this.offset || !(await this.signatureHolds()))) {
      this.splitter.end();
      this.rotations.truncated++;
      this.resetTo(0, 0);
    }
    await this.readToEnd();
  }

  /** Opens the file now at the path; false when there is none yet. */
  private async openCurrent(): Promise<boolean> {
    let handle: FileHandle;
    try {
      handle = await open(this.options.path, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
    const st = await handle.stat();
    this.handle = handle;
    this.ino = st.ino;
    let start = 0;
    if (!this.opened) {
      const resume = this.options.resumeFrom;
      if (resume && resume.ino === st.ino && resume.offset <= st.size) start = resume.offset;
      else if (this.options.startAt === 'end') start = st.size;
    }
    this.opened = true;
    this.resetTo(start, start === 0 ? 0 : await this.countLines(start));
    if (start > 0) this.signature = await this.readSignature();
    return true;
  }

  private resetTo(offset: number, linesBefore: number): void {
    this.offset = offset;
    this.committed = offset;
    this.signature = Buffer.alloc(0);
    this.splitter = this.newSplitter(linesBefore);
  }

  private newSplitter(linesBefore: number): LineSplitter {
    const path = this.options.path;
    return new LineSplitter(
      {
        line: (text, lineNo) => this.consumer.line(text, `${path}:${linesBefore + lineNo}`),
        tooLong: (lineNo, bytes) => this.consumer.tooLong(`${path}:${linesBefore + lineNo}`, bytes),
      },
      this.options.maxLineBytes,
    );
  }

  private async readToEnd(): Promise<void> {
    const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await this.handle!.read(buf, 0, buf.length, this.offset);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      const nl = chunk.lastIndexOf(10);
      if (nl >= 0) this.committed = this.offset + nl + 1;
      this.offset += bytesRead;
      this.splitter.push(chunk);
    }
    this.signature = await this.readSignature();
  }

  private async readSignature(): Promise<Buffer> {
    const length = Math.min(SIGNATURE_BYTES, this.offset);
    const buf = Buffer.alloc(length);
    if (length > 0) await this.handle!.read(buf, 0, length, this.offset - length);
    return buf;
  }

  private async signatureHolds(): Promise<boolean> {
    if (this.signature.length === 0) return true;
    return (await this.readSignature()).equals(this.signature);
  }

  /** Newlines before `offset`, so `file:line` stays true when reading starts mid-file. */
  private async countLines(offset: number): Promise<number> {
    const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let lines = 0;
    for (let at = 0; at < offset;) {
      const { bytesRead } = await this.handle!.read(buf, 0, Math.min(buf.length, offset - at), at);
      if (bytesRead === 0) break;
      for (let i = buf.indexOf(10, 0); i >= 0 && i < bytesRead; i = buf.indexOf(10, i + 1)) lines++;
      at += bytesRead;
    }
    return lines;
  }
}

async function statOrUndefined(path: string): Promise<{ ino: number; size: number } | undefined> {
  try {
    return await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
