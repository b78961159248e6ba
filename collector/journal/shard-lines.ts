/**
 * Which shard, and which worker of it, a journal line belongs to, decided before the line is decoded or parsed: a
 * reader skips the lines of other shards and workers at the cost of finding their ends, and every reader of the same
 * journal hands each line to exactly one shard and worker.
 *
 * A valid line goes with its object, so each object's attempts stay together and in order: to the shard of the
 * object's hash (collector/input/shard.ts), and within a shard to the workers in turn, each new object to the next worker
 * (every worker reads the same lines, so all of them agree on the turns; a hash would leave a small fleet's workers
 * unevenly loaded). A line in the journal's documented key order, `{"time":"…","controller":"…","object":"…"`, with
 * no escape in those three values, names its object in its first bytes (`namedObject`); the journal reader rejects
 * such a line when it names another controller or object later on (a repeated key), so that prefix is the line's
 * object whenever the line is accepted. Any other line is parsed to find its object, and a line that names none (not
 * JSON, too long to read, no controller or object) goes by its line number: it is counted, and rejected, exactly once.
 */
import { isRecord } from '../../lib/is-record.js';
import { lineHash, objectHash, objectHashOfAscii, ownsHash, WHOLE, type Shard } from '../input/shard.js';

export interface LineObject {
  readonly controller: string;
  readonly object: string;
}

const HEAD = '{"time":"';
const CONTROLLER = ',"controller":"';
const OBJECT = ',"object":"';
const HEAD_BYTES = Buffer.from(HEAD);
const CONTROLLER_BYTES = Buffer.from(CONTROLLER);
const OBJECT_BYTES = Buffer.from(OBJECT);
const QUOTE = 34;
const BACKSLASH = 92;

/** The controller and object a line names in the documented key order at its start, or undefined (see above). */
export function namedObject(text: string): LineObject | undefined {
  if (!text.startsWith(HEAD)) return undefined;
  const time = plainEnd(text, HEAD.length);
  if (time < 0 || !text.startsWith(CONTROLLER, time + 1)) return undefined;
  const controllerStart = time + 1 + CONTROLLER.length;
  const controllerEnd = plainEnd(text, controllerStart);
  if (controllerEnd < 0 || !text.startsWith(OBJECT, controllerEnd + 1)) return undefined;
  const objectStart = controllerEnd + 1 + OBJECT.length;
  const objectEnd = plainEnd(text, objectStart);
  if (objectEnd < 0) return undefined;
  return { controller: text.slice(controllerStart, controllerEnd), object: text.slice(objectStart, objectEnd) };
}

/** `namedObject` of a line's UTF-8 bytes, without decoding the rest of the line. */
export function namedObjectOfBytes(bytes: Buffer): LineObject | undefined {
  const spans = namedSpans(bytes);
  return spans && { controller: bytes.toString('utf8', spans[0], spans[1]), object: bytes.toString('utf8', spans[2], spans[3]) };
}

/** Where the controller and the object `namedObject` reads are in the bytes: [start, end) of each. */
function namedSpans(bytes: Buffer): [number, number, number, number] | undefined {
  if (!startsWith(bytes, HEAD_BYTES, 0)) return undefined;
  const time = plainEndOfBytes(bytes, HEAD_BYTES.length);
  if (time < 0 || !startsWith(bytes, CONTROLLER_BYTES, time + 1)) return undefined;
  const controllerStart = time + 1 + CONTROLLER_BYTES.length;
  const controllerEnd = plainEndOfBytes(bytes, controllerStart);
  if (controllerEnd < 0 || !startsWith(bytes, OBJECT_BYTES, controllerEnd + 1)) return undefined;
  const objectStart = controllerEnd + 1 + OBJECT_BYTES.length;
  const objectEnd = plainEndOfBytes(bytes, objectStart);
  return objectEnd < 0 ? undefined : [controllerStart, controllerEnd, objectStart, objectEnd];
}

/** objectHash of the object a line's bytes are about (read from its start when it can be), or undefined when none. */
function lineObjectHash(bytes: Buffer): number | undefined {
  const spans = namedSpans(bytes);
  const ascii = spans && objectHashOfAscii(bytes, ...spans);
  if (ascii !== undefined) return ascii;
  const object = spans ? namedObjectOfBytes(bytes) : parsedObject(bytes.toString('utf8'));
  return object && objectHash(object.controller, object.object);
}

/**
 * The lines of shard `shard`, and of worker `worker.index` of `worker.count` within it: `select` is a LineSplitter's
 * (or readJournal's `owns`) filter. Every line of the input must be asked about, in order: the workers' turns are
 * counted over the shard's lines.
 */
export class JournalRouter {
  /**
   * Objects of the shard by first sight, by their hash: the worker each went to. Two objects of one hash go to one
   * worker, which is all the turns need.
   */
  private readonly workers = new Map<number, number>();

  constructor(
    private readonly shard: Shard,
    private readonly worker: Shard = WHOLE,
  ) {}

  /** `bytes` is undefined for a line too long to read. */
  owns(lineNo: number, bytes: Buffer | undefined): boolean {
    const hash = bytes === undefined ? undefined : lineObjectHash(bytes);
    if (hash === undefined) {
      const byLine = lineHash(lineNo);
      return ownsHash(this.shard, byLine) && Math.floor(byLine / this.shard.count) % this.worker.count === this.worker.index;
    }
    if (!ownsHash(this.shard, hash)) return false;
    if (this.worker.count === 1) return true;
    let worker = this.workers.get(hash);
    if (worker === undefined) this.workers.set(hash, (worker = this.workers.size % this.worker.count));
    return worker === this.worker.index;
  }
}

/** The index of the quote that ends a JSON string starting at `from`, or -1 when it has an escape (or no end). */
function plainEnd(text: string, from: number): number {
  const end = text.indexOf('"', from);
  if (end < 0) return -1;
  for (let i = from; i < end; i++) if (text.charCodeAt(i) === BACKSLASH) return -1;
  return end;
}

function plainEndOfBytes(bytes: Buffer, from: number): number {
  const end = bytes.indexOf(QUOTE, from);
  if (end < 0) return -1;
  for (let i = from; i < end; i++) if (bytes[i] === BACKSLASH) return -1;
  return end;
}

function startsWith(bytes: Buffer, prefix: Buffer, at: number): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function parsedObject(text: string): LineObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.controller !== 'string' || typeof value.object !== 'string') return undefined;
  return { controller: value.controller, object: value.object };
}
