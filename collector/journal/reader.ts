/**
 * Reads a journal stream into a sink, line by line, in flat memory: the one reading loop behind `analyze`, `report`
 * and the sidecar's journal source. Every non-empty line counts as received, then becomes an attempt or a rejection
 * naming file:line.
 */
import { parseAttemptLine } from './format.js';
import { namedObject } from './shard-lines.js';
import { LineSplitter, type LineHandler } from '../input/lines.js';
import type { AttemptRecord, RecordSink } from '../records.js';

export interface ReadJournalOptions {
  /** Names rejections (`file:line`). */
  readonly file: string;
  /** When given, an operation outside this set rejects its line. */
  readonly knownOperations?: ReadonlySet<string>;
  /** When given, a controller outside this set rejects its line (`unknown_controller`, with file:line). */
  readonly knownControllers?: ReadonlySet<string>;
  /** Called after each chunk; awaiting it lets a writer drain or the event loop breathe. */
  readonly afterChunk?: () => Promise<void> | void;
  /** Checked before each chunk: true stops reading early (a source being stopped). */
  readonly stopped?: () => boolean;
  /**
   * A shard's filter (collector/journal/shard-lines.ts), asked with each line's bytes before they are decoded: a line it does
   * not own is skipped unread, counted nowhere. `bytes` is undefined for a line too long to read.
   */
  readonly owns?: (lineNo: number, bytes: Buffer | undefined) => boolean;
}

export async function readJournal(input: AsyncIterable<unknown>, sink: RecordSink, options: ReadJournalOptions): Promise<void> {
  const splitter = new LineSplitter(journalLines(sink, options));
  for await (const chunk of input) {
    if (options.stopped?.()) return;
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    await options.afterChunk?.();
  }
  splitter.end();
}

/** What becomes of each journal line, however the lines were split (here, or by another thread that hands them on). */
export function journalLines(sink: RecordSink, options: Pick<ReadJournalOptions, 'file' | 'knownOperations' | 'knownControllers' | 'owns'>): LineHandler {
  const { file, owns } = options;
  const ctx = {
    file,
    ...(options.knownOperations ? { knownOperations: options.knownOperations } : {}),
    ...(options.knownControllers ? { knownControllers: options.knownControllers } : {}),
  };
  return {
    ...(owns ? { select: (bytes: Buffer, lineNo: number) => owns(lineNo, bytes) } : {}),
    line(text, lineNo) {
      if (text.trim() === '') return;
      sink.received?.('journal', 1);
      const parsed = parseAttemptLine(text, lineNo, ctx);
      const renamed = parsed.ok ? renamedObject(text, parsed.record) : undefined;
      if (renamed !== undefined) sink.reject({ source: 'journal', reason: 'invalid_record', where: `${file}:${lineNo}`, message: renamed });
      else if (parsed.ok) sink.attempt(parsed.record);
      else sink.reject(parsed.rejection);
    },
    tooLong(lineNo, bytes) {
      if (owns && !owns(lineNo, undefined)) return;
      sink.received?.('journal', 1);
      sink.reject({ source: 'journal', reason: 'line_too_long', where: `${file}:${lineNo}`, message: `line of ${bytes} bytes exceeds the limit` });
    },
  };
}

/**
 * A line that starts in the documented key order names its controller and object there (collector/journal/shard-lines.ts);
 * naming others later (a repeated key, which JSON.parse would take) makes it ambiguous: the problem, or undefined.
 */
function renamedObject(text: string, record: AttemptRecord): string | undefined {
  const named = namedObject(text);
  if (!named) return undefined;
  if (named.controller !== record.controller)
    return `controller: named ${JSON.stringify(named.controller)} first and ${JSON.stringify(record.controller)} later; a line names one`;
  if (named.object !== record.object) return `object: named ${JSON.stringify(named.object)} first and ${JSON.stringify(record.object)} later; a line names one`;
  return undefined;
}
