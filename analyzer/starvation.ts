/**
 * Starvation: per object and operation, how long the operation has gone without running under the observed loop
 * while the other loop would have run it. A streak starts at the first attempt where the other loop would have run
 * the op and the observed loop did not, and ends when the observed loop runs it. Objects with no streak hold no
 * state, so a healthy fleet costs nothing here.
 */
export class StarvationTracker {
  /** Per object: streak start (ms since epoch) per op, NaN when the op is not starving. */
  private readonly starts = new Map<string, Float64Array>();
  /** The longest streak seen so far per op, in ms, and the object it was seen on (for reports, not metrics). */
  readonly longestMs: Float64Array;
  readonly longestObject: (string | undefined)[];

  constructor(private readonly opCount: number) {
    this.longestMs = new Float64Array(opCount);
    this.longestObject = new Array<string | undefined>(opCount).fill(undefined);
  }

  get objects(): number {
    return this.starts.size;
  }

  /**
   * One attempt of `object` at `timeMs`: `starving` are the ops the other loop would have run and the observed loop
   * did not; `observedRan` has 1 for each op the observed loop ran.
   */
  update(key: string, object: string, timeMs: number, starving: readonly number[], observedRan: Uint8Array): void {
    let starts = this.starts.get(key);
    if (!starts) {
      if (starving.length === 0) return;
      starts = new Float64Array(this.opCount).fill(NaN);
      this.starts.set(key, starts);
    }
    let open = 0;
    for (let op = 0; op < this.opCount; op++) if (observedRan[op] === 1) starts[op] = NaN;
    for (const op of starving) {
      if (Number.isNaN(starts[op]!)) starts[op] = timeMs;
      const length = timeMs - starts[op]!;
      // A tie goes to the smaller object name, so the longest streak's object does not depend on the input's order.
      const longest = this.longestMs[op]!;
      if (length > longest || (length === longest && length > 0 && object < this.longestObject[op]!)) {
        this.longestMs[op] = length;
        this.longestObject[op] = object;
      }
    }
    for (let op = 0; op < this.opCount; op++) if (!Number.isNaN(starts[op]!)) open++;
    if (open === 0) this.starts.delete(key);
  }

  /** Per op, the start (ms) of the object's open streak, NaN where none is open; undefined when none is. Not to be written. */
  openSince(key: string): Readonly<Float64Array> | undefined {
    return this.starts.get(key);
  }

  /** Per op: the longest streak still open at `nowMs`, over all objects, in seconds. */
  currentLongestSeconds(nowMs: number): Float64Array {
    const out = new Float64Array(this.opCount);
    for (const starts of this.starts.values()) {
      for (let op = 0; op < this.opCount; op++) {
        const start = starts[op]!;
        if (!Number.isNaN(start) && (nowMs - start) / 1000 > out[op]!) out[op] = (nowMs - start) / 1000;
      }
    }
    return out;
  }

  forget(key: string): void {
    this.starts.delete(key);
  }
}
