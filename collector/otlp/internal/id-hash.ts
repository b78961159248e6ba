/**
 * Hashes of span identities for the assembler's tables: a trace id (4 words) and a span id (2 words), murmur3's steps.
 * The trace's part is computed once per span and extended by whichever span id the table is keyed by (the span's own,
 * its parent's). Seeded per process, so a sender cannot choose ids that all land in one bucket.
 */

const SEED = (Math.random() * 0x1_0000_0000) | 0;

/** The running state after the trace id's words ids[at..+4]; finish it with traceHash or pairHash. */
export function traceState(ids: Uint32Array, at: number): number {
  let h = mix(SEED, ids[at]!);
  h = mix(h, ids[at + 1]!);
  h = mix(h, ids[at + 2]!);
  return mix(h, ids[at + 3]!);
}

/** The hash of the trace id alone. */
export function traceHash(state: number): number {
  return finish(state);
}

/** The hash of the trace id and the span id (first, second). */
export function pairHash(state: number, first: number, second: number): number {
  return finish(mix(mix(state, first), second));
}

function mix(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
