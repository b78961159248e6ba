/**
 * Short ASCII strings read from protobuf bodies, made once: operation names, attribute keys, controllers, objects and
 * models come again in every attempt, and a string per span and per attribute was most of what decoding allocated.
 * A direct-mapped cache: the slot comes from the length and the first and last eight bytes, and a hit is confirmed
 * against the slot's own copy of the bytes, so it costs one pass over them and allocates nothing; a miss makes the
 * string and takes the slot (whatever held it is forgotten), so the cache never grows, whatever a sender writes. A
 * string from the cache is equal to the one decoding would have made; only its identity is shared.
 */

/** Strings longer than this are not cached: names and keys are shorter, and long texts are rarely repeated. */
export const MAX_CACHED_LENGTH = 64;

/** The encoder behind Buffer#toString('latin1'), without its argument checks (see decode-protobuf.ts). */
interface Latin1Slice {
  latin1Slice(start: number, end: number): string;
}

export class AsciiStrings {
  private readonly strings: (string | undefined)[];
  /** Each slot's bytes, MAX_CACHED_LENGTH apart. */
  private readonly bytes: Uint8Array;
  private readonly mask: number;

  constructor(bits = 12) {
    this.strings = new Array<string | undefined>(1 << bits).fill(undefined);
    this.bytes = new Uint8Array((1 << bits) * MAX_CACHED_LENGTH);
    this.mask = (1 << bits) - 1;
  }

  /**
   * The string of the ASCII bytes buf[start, end), or undefined when one of them is not ASCII (the caller decodes
   * those as UTF-8).
   */
  get(buf: Uint8Array & Latin1Slice, start: number, end: number): string | undefined {
    const length = end - start;
    if (length > MAX_CACHED_LENGTH) return ascii(buf, start, end) ? buf.latin1Slice(start, end) : undefined;
    const slot = slotOf(buf, start, end) & this.mask;
    const cached = this.strings[slot];
    const bytes = this.bytes;
    const at = slot * MAX_CACHED_LENGTH;
    if (cached !== undefined && cached.length === length) {
      let i = 0;
      while (i < length && bytes[at + i] === buf[start + i]) i++;
      // equal to the bytes of a cached string, so ASCII too
      if (i === length) return cached;
    }
    if (!ascii(buf, start, end)) return undefined;
    const made = buf.latin1Slice(start, end);
    this.strings[slot] = made;
    for (let i = 0; i < length; i++) bytes[at + i] = buf[start + i]!;
    return made;
  }
}

function ascii(buf: Uint8Array, start: number, end: number): boolean {
  let high = 0;
  for (let i = start; i < end; i++) high |= buf[i]!;
  return high < 0x80;
}

/** Mixes the length and up to eight bytes from each end: names that share both ends rarely share a length too. */
function slotOf(buf: Uint8Array, start: number, end: number): number {
  let h = Math.imul(end - start, 0x9e3779b1);
  const head = Math.min(end, start + 8);
  for (let i = start; i < head; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  for (let i = Math.max(head, end - 8); i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}
