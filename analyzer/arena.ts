/**
 * Zeroed byte arrays for an attempt's own results (its outcomes, what it observed, its variants), cut from shared
 * 64 KiB chunks. A Uint8Array of more than 64 bytes lives off the V8 heap: `new Uint8Array(70)` costs a malloc, a
 * finalizer and a GC sweep for the HyperShift model's 70 ops, where a view on a chunk costs the view object.
 * A chunk is never reused: each array is fresh zeroed memory that stays valid as long as anyone holds it (it keeps
 * its chunk alive), so nothing about the results changes, only where their bytes live.
 */
const CHUNK_BYTES = 1 << 16;

let chunk = new ArrayBuffer(CHUNK_BYTES);
let used = 0;

/** A zeroed array of `length` bytes of its own. */
export function zeroedBytes(length: number): Uint8Array {
  if (used + length > chunk.byteLength) {
    if (length > CHUNK_BYTES >> 4) return new Uint8Array(length); // a model too large to share chunks usefully
    chunk = new ArrayBuffer(CHUNK_BYTES);
    used = 0;
  }
  const bytes = new Uint8Array(chunk, used, length);
  used += length;
  return bytes;
}
