/** The log source's types other folders use (the CLI hands its files to the source as named streams). */
import type { Readable } from 'node:stream';

/** One operator log to read, merged by time with the others. */
export interface NamedStream {
  readonly stream: Readable;
  /** Names its lines in `where` (`name:line`). */
  readonly name: string;
}
