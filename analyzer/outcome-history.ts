/**
 * The objects one controller's analyzer (controller-analyzer.ts) keeps state for, and the last observed outcome of each of their ops.
 * Each object is given a slot, a small integer that indexes its row here and its starvation timers (starvation.ts):
 * one map lookup per attempt finds everything kept about the object, and the rows are slabs of typed arrays, not
 * objects of their own (an object's state is a key, a map entry and a few bytes per op). A forgotten object's slot is
 * reused. The objects are also kept in the order of their last attempt, a list linked through the slots, so the least
 * recently seen one is known without a second map.
 */
import { UNKNOWN } from './compiled-model.js';

const NO_SLOT = -1;
const FIRST_CAPACITY = 64;

export class OutcomeHistory {
  private readonly slots = new Map<string, number>();
  /** Per slot: its object's key, or undefined for a free slot. */
  private keys: (string | undefined)[] = [];
  /**
   * Per slot, a row of one byte per op: the last observed outcome code in the low two bits, the variant of its error
   * above them, UNKNOWN when never observed. Replaced by a larger copy as objects arrive, so read it after slotOf.
   */
  rows: Uint8Array;
  /** Recency: the previous and next slot in the order of last attempts, from `oldest` to `newest`. */
  private older: Int32Array;
  private newer: Int32Array;
  private oldest = NO_SLOT;
  private newest = NO_SLOT;
  private readonly free: number[] = [];

  constructor(private readonly opCount: number) {
    this.rows = new Uint8Array(FIRST_CAPACITY * opCount).fill(UNKNOWN);
    this.older = new Int32Array(FIRST_CAPACITY);
    this.newer = new Int32Array(FIRST_CAPACITY);
  }

  get objects(): number {
    return this.slots.size;
  }

  /** The slot of the object with this key, made (nothing known) on its first attempt; the object is now the newest. */
  slotOf(key: string): number {
    let slot = this.slots.get(key);
    if (slot === undefined) slot = this.add(key);
    else if (slot !== this.newest) this.unlink(slot);
    else return slot;
    this.linkNewest(slot);
    return slot;
  }

  /** The slot of the object with this key, or undefined when nothing is kept about it. */
  find(key: string): number | undefined {
    return this.slots.get(key);
  }

  /** The last observed outcomes of the object with this key, as a copy of its row (for inspection). */
  lookup(key: string): Uint8Array | undefined {
    const slot = this.slots.get(key);
    return slot === undefined ? undefined : this.rows.slice(slot * this.opCount, (slot + 1) * this.opCount);
  }

  /** The key of the object seen least recently, or undefined when there is none. */
  leastRecent(): string | undefined {
    return this.oldest === NO_SLOT ? undefined : this.keys[this.oldest];
  }

  forget(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    this.slots.delete(key);
    this.keys[slot] = undefined;
    this.unlink(slot);
    this.rows.fill(UNKNOWN, slot * this.opCount, (slot + 1) * this.opCount);
    this.free.push(slot);
  }

  private add(key: string): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.slots.size;
      if (slot === this.older.length) this.grow();
    }
    this.slots.set(key, slot);
    this.keys[slot] = key;
    return slot;
  }

  /** Doubles the capacity: a new slot's row is all UNKNOWN. */
  private grow(): void {
    const capacity = this.older.length * 2;
    const rows = new Uint8Array(capacity * this.opCount).fill(UNKNOWN, this.rows.length);
    rows.set(this.rows);
    this.rows = rows;
    const older = new Int32Array(capacity);
    older.set(this.older);
    this.older = older;
    const newer = new Int32Array(capacity);
    newer.set(this.newer);
    this.newer = newer;
  }

  private unlink(slot: number): void {
    const older = this.older[slot]!;
    const newer = this.newer[slot]!;
    if (older === NO_SLOT) this.oldest = newer;
    else this.newer[older] = newer;
    if (newer === NO_SLOT) this.newest = older;
    else this.older[newer] = older;
  }

  private linkNewest(slot: number): void {
    this.older[slot] = this.newest;
    this.newer[slot] = NO_SLOT;
    if (this.newest === NO_SLOT) this.oldest = slot;
    else this.newer[this.newest] = slot;
    this.newest = slot;
  }
}
