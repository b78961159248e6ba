/**
 * Shards of an input by object: each object's history is independent of every other's, so the objects can be split
 * among workers or machines, each analysing its own objects' attempts in input order, and their partial summaries
 * merged exactly (analyzer/partial). An object belongs to shard `hash mod count`, where `hash` is `objectHash`: a
 * documented, stable function (docs/partial.md), so every process that reads the same input agrees on the owner.
 */

/** Shard `index` of `count` (0-based, as a Kubernetes Indexed Job numbers its pods). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export const WHOLE: Shard = Object.freeze({ index: 0, count: 1 });
/** More shards than this would only split a fleet into shards of no objects. */
export const MAX_SHARDS = 65_536;

/**
 * The shard hash of an object: FNV-1a (32-bit) over the UTF-16 code units of `controller`, a NUL and `object`, then
 * murmur3's finalizer, so that the low bits a `mod` keeps depend on every character.
 */
export function objectHash(controller: string, object: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < controller.length; i++) h = Math.imul(h ^ controller.charCodeAt(i), 0x01000193);
  h = Math.imul(h, 0x01000193); // the NUL between the two (h ^ 0 = h)
  for (let i = 0; i < object.length; i++) h = Math.imul(h ^ object.charCodeAt(i), 0x01000193);
  return finalize(h);
}

/**
 * `objectHash` of a controller and an object given as byte ranges of `bytes`, when every byte of both is ASCII (a
 * byte is then its UTF-16 code unit); undefined otherwise (decode them and use objectHash).
 */
export function objectHashOfAscii(
  bytes: Uint8Array,
  controllerStart: number,
  controllerEnd: number,
  objectStart: number,
  objectEnd: number,
): number | undefined {
  let h = 0x811c9dc5;
  for (let i = controllerStart; i < controllerEnd; i++) {
    const b = bytes[i]!;
    if (b >= 0x80) return undefined;
    h = Math.imul(h ^ b, 0x01000193);
  }
  h = Math.imul(h, 0x01000193);
  for (let i = objectStart; i < objectEnd; i++) {
    const b = bytes[i]!;
    if (b >= 0x80) return undefined;
    h = Math.imul(h ^ b, 0x01000193);
  }
  return finalize(h);
}

/** The shard hash of an input line that names no object (a line that is not JSON, too long, ...): its line number. */
export function lineHash(lineNo: number): number {
  return finalize(lineNo);
}

function finalize(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export function ownsHash(shard: Shard, hash: number): boolean {
  return hash % shard.count === shard.index;
}

/** `i/n` as typed on a command line; throws a message naming what is accepted. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!(count >= 1 && count <= MAX_SHARDS && index >= 0 && index < count)) {
    throw new RangeError(
      `--shard ${JSON.stringify(text)}: expected i/n with 0 <= i < n <= ${MAX_SHARDS} (e.g. 0/4 ... 3/4, as an Indexed Job's JOB_COMPLETION_INDEX)`,
    );
  }
  return { index, count };
}
