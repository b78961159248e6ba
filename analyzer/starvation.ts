/**
 * Starvation: per object and operation, how long the operation has gone without running under the observed loop
 * while the other loop would have run it. A streak starts at the first attempt where the other loop would have run
 * the op and the observed loop did not, and ends when the observed loop runs it. Objects with no streak hold no
 * state beyond one number, so a healthy fleet costs next to nothing here.
 * Objects are the outcome history's slots (outcome-history.ts). An object with open streaks has a row of one entry
 * per op: 0 for no streak, else 1 + the index of the streak's start in the object's list of distinct start times.
 * Streaks mostly start together (every op a failure cuts off starts at that attempt), so an object holds a row and a
 * time or two rather than a time per op.
 */
export class StarvationTracker {
  /** Per history slot: its row, or NO_ROW when the object has no open streak. */
  private rowOf = new Int32Array(0).fill(NO_ROW);
  /** Rows, `opCount` entries each; a row is reused once its object has no open streak. */
  private streaks: Uint8Array | Uint16Array;
  /** Per row: the distinct start times (ms since epoch) its streaks refer to, or undefined for a free row. */
  private readonly startTimes: (number[] | undefined)[] = [];
  private readonly freeRows: number[] = [];
  private open = 0;
  /** The longest streak seen so far per op, in ms, and the object it was seen on (for the summary, not metrics). */
  readonly longestMs: Float64Array;
  readonly longestObject: (string | undefined)[];

  constructor(private readonly opCount: number) {
    this.longestMs = new Float64Array(opCount);
    this.longestObject = new Array<string | undefined>(opCount).fill(undefined);
    this.streaks = this.newStreaks(0);
  }

  /** Objects with an open streak. */
  get objects(): number {
    return this.open;
  }

  /**
   * One attempt of `object` (in history slot `slot`) at `timeMs`: `starving` are the ops the other loop would have
   * run and the observed loop did not; `observedRan` has 1 for each op the observed loop ran.
   */
  update(slot: number, object: string, timeMs: number, starving: readonly number[], observedRan: Uint8Array): void {
    let row = slot < this.rowOf.length ? this.rowOf[slot]! : NO_ROW;
    if (row === NO_ROW) {
      if (starving.length === 0) return;
      row = this.addRow(slot);
    }
    const n = this.opCount;
    const base = row * n;
    const streaks = this.streaks;
    for (let op = 0; op < n; op++) if (observedRan[op] === 1) streaks[base + op] = 0;
    let startIndex = 0;
    for (let k = 0; k < starving.length; k++) {
      const op = starving[k]!;
      let streak = streaks[base + op]!;
      if (streak === 0) {
        if (Number.isNaN(timeMs)) continue; // no time, no start: as a NaN start always read, no streak
        streak = startIndex ||= this.startIndex(row, timeMs);
        streaks[base + op] = streak;
      }
      const length = timeMs - this.startTimes[row]![streak - 1]!;
      // A tie goes to the smaller object name, so the longest streak's object does not depend on the input's order.
      const longest = this.longestMs[op]!;
      if (length > longest || (length === longest && length > 0 && object < this.longestObject[op]!)) {
        this.longestMs[op] = length;
        this.longestObject[op] = object;
      }
    }
    for (let op = 0; op < n; op++) if (streaks[base + op] !== 0) return;
    this.freeRow(slot, row);
  }

  /** Per op, the start (ms) of the open streak of the object in history slot `slot`, NaN where none is open; undefined when none is. */
  openSince(slot: number): Float64Array | undefined {
    const row = slot < this.rowOf.length ? this.rowOf[slot]! : NO_ROW;
    if (row === NO_ROW) return undefined;
    const n = this.opCount;
    const starts = this.startTimes[row]!;
    const since = new Float64Array(n).fill(NaN);
    for (let op = 0; op < n; op++) {
      const streak = this.streaks[row * n + op]!;
      if (streak !== 0) since[op] = starts[streak - 1]!;
    }
    return since;
  }

  /** Per op: the longest streak still open at `nowMs`, over all objects, in seconds. */
  currentLongestSeconds(nowMs: number): Float64Array {
    const n = this.opCount;
    const out = new Float64Array(n);
    for (let row = 0; row < this.startTimes.length; row++) {
      const starts = this.startTimes[row];
      if (!starts) continue;
      for (let op = 0; op < n; op++) {
        const s = this.streaks[row * n + op]!;
        if (s === 0) continue;
        const seconds = (nowMs - starts[s - 1]!) / 1000;
        if (seconds > out[op]!) out[op] = seconds;
      }
    }
    return out;
  }

  forget(slot: number): void {
    const row = slot < this.rowOf.length ? this.rowOf[slot]! : NO_ROW;
    if (row !== NO_ROW) this.freeRow(slot, row);
  }

  /**
   * 1 + the index of `timeMs` in the row's start times. A new time replaces the list with one of just the times still
   * referred to, and it: exactly as long as needed (a list grown by push holds room for 17).
   */
  private startIndex(row: number, timeMs: number): number {
    const known = this.startTimes[row]!.indexOf(timeMs);
    if (known >= 0) return known + 1;
    const kept = this.startsInUse(row);
    this.startTimes[row] = kept.concat(timeMs);
    return kept.length + 1;
  }

  /** The row's start times some streak still refers to, its streaks renumbered to them. */
  private startsInUse(row: number): number[] {
    const starts = this.startTimes[row]!;
    const n = this.opCount;
    const base = row * n;
    const renumbered = new Array<number>(starts.length + 1).fill(0);
    const kept: number[] = [];
    for (let op = 0; op < n; op++) {
      const s = this.streaks[base + op]!;
      if (s !== 0 && renumbered[s] === 0) renumbered[s] = kept.push(starts[s - 1]!);
    }
    for (let op = 0; op < n; op++) this.streaks[base + op] = renumbered[this.streaks[base + op]!]!;
    return kept;
  }

  private addRow(slot: number): number {
    if (slot >= this.rowOf.length) {
      const rowOf = new Int32Array(Math.max(64, slot + 1, this.rowOf.length * 2)).fill(NO_ROW);
      rowOf.set(this.rowOf);
      this.rowOf = rowOf;
    }
    let row = this.freeRows.pop();
    if (row === undefined) {
      row = this.startTimes.length;
      this.startTimes.push(undefined);
      if ((row + 1) * this.opCount > this.streaks.length) {
        const streaks = this.newStreaks(Math.max(64, row * 2) * this.opCount);
        streaks.set(this.streaks);
        this.streaks = streaks;
      }
    }
    this.startTimes[row] = [];
    this.rowOf[slot] = row;
    this.open++;
    return row;
  }

  private freeRow(slot: number, row: number): void {
    this.streaks.fill(0, row * this.opCount, (row + 1) * this.opCount);
    this.startTimes[row] = undefined;
    this.rowOf[slot] = NO_ROW;
    this.freeRows.push(row);
    this.open--;
  }

  /** An object's streaks refer to at most one start time per op, so one byte per entry serves up to 255 ops. */
  private newStreaks(length: number): Uint8Array | Uint16Array {
    return this.opCount < 256 ? new Uint8Array(length) : new Uint16Array(length);
  }
}

const NO_ROW = -1;
