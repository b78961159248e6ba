/**
 * Reads a journal stream into a sink, line by line, in flat memory: the one reading loop behind `analyze`, `report`
 * and the sidecar's journal source. Every non-empty line counts as received, then becomes an attempt or a rejection
 * naming file:line.
 */
import { parseAttemptLine } from './journal.js';
import { LineSplitter } from './lines.js';
import type { RecordSink } from './records.js';

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
}

export async function readJournal(input: AsyncIterable<unknown>, sink: RecordSink, options: ReadJournalOptions): Promise<void> {
  const { file } = options;
  const ctx = {
    file,
    ...(options.knownOperations ? { knownOperations: options.knownOperations } : {}),
    ...(options.knownControllers ? { knownControllers: options.knownControllers } : {}),
  };
  const splitter = new LineSplitter({
    line(text, lineNo) {
      if (text.trim() === '') return;
      sink.received?.('journal', 1);
      const parsed = parseAttemptLine(text, lineNo, ctx);
      if (parsed.ok) sink.attempt(parsed.record);
      else sink.reject(parsed.rejection);
    },
    tooLong(lineNo, bytes) {
      sink.received?.('journal', 1);
      sink.reject({ source: 'journal', reason: 'line_too_long', where: `${file}:${lineNo}`, message: `line of ${bytes} bytes exceeds the limit` });
    },
  });
  for await (const chunk of input) {
    if (options.stopped?.()) return;
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    await options.afterChunk?.();
  }
  splitter.end();
}
