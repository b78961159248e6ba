/**
 * The collector's bounded memories: a fixed number of the latest items, the oldest forgotten first. The readings'
 * memos, the log source's handed-on reconcileIDs and the OTLP assembler's resent-span memory all keep what came last
 * and forget in the order things came, on paths run per line or per span, so nothing here allocates per item once the
 * ring is full: its array grows to the capacity, then each new item overwrites the oldest in place.
 */

/** The latest `capacity` items in the order they came (never `undefined`: push answers `undefined` for "none forgotten"). */
export class BoundedRing<T extends NonNullable<unknown>> {
  private readonly items: T[] = [];
  /** Where the oldest item is once the ring is full (the next to be overwritten). */
  private oldest = 0;

  constructor(readonly capacity: number) {}

  /** Items held: up to the capacity. */
  get size(): number {
    return this.items.length;
  }

  /**
   * Keeps `item` as the newest. When the ring was full, answers the oldest item, which is forgotten (at capacity 0 or
   * less, `item` itself); else `undefined`.
   */
  push(item: T): T | undefined {
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return undefined;
    }
    if (this.capacity <= 0) return item;
    const forgotten = this.items[this.oldest]!;
    this.items[this.oldest] = item;
    if (++this.oldest === this.capacity) this.oldest = 0;
    return forgotten;
  }
}

/**
 * A Map that forgets its oldest key past the capacity: the order is when a key was first set (setting a held key again
 * changes its value, not its place). The order lives in a ring of keys: taking the oldest through the Map's own
 * iteration would walk the slots of every entry deleted before it.
 */
export class BoundedMap<K extends NonNullable<unknown>, V> {
  private readonly entries = new Map<K, V>();
  private readonly order: BoundedRing<K>;

  constructor(capacity: number) {
    this.order = new BoundedRing<K>(capacity);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    const size = this.entries.size;
    this.entries.set(key, value);
    // one hash lookup whether or not the key was held: a held key's size does not change
    if (this.entries.size === size) return;
    const forgotten = this.order.push(key);
    if (forgotten !== undefined) this.entries.delete(forgotten);
  }
}
