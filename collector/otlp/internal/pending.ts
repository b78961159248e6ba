/**
 * What the span assembler holds while an attempt waits for its spans: the attempt (its root, its children as
 * columns), the table that finds it by (traceId, root span id), and the orders attempts give way in. A child is copied
 * out of its request's SpanBatch into its attempt's columns, so a pending attempt holds its own spans' values and
 * nothing of the request they came in (a request's other spans may have been handed on long before).
 */
import type { Timer } from './scheduler.js';
import { ID_WORDS, TIME_WORDS, type SpanBatch } from './span-batch.js';
import type { AttributeValue } from './span.js';

/** A root span, as its attempt keeps it. */
export interface PendingRoot {
  readonly name: string;
  readonly startHigh: number;
  readonly startLow: number;
  readonly endHigh: number;
  readonly endLow: number;
  readonly statusCode: number;
  readonly statusMessage: string;
  readonly attributes: ReadonlyMap<string, AttributeValue>;
  /** The request it came in, for rejections. */
  readonly where: string;
  readonly bytes: number;
}

/** Number words per child: span id (2), start (2), end (2), status code, arrival order. */
const CHILD_NUMBERS = 8;
/** Reference words per child: name, status message, attributes, request. */
const CHILD_REFERENCES = 4;
const FIRST_CHILDREN = 8;
/** Bits of the filter that spares most children a look at every other child of the attempt (a power of two). */
const FILTER_BITS = 1024;

/**
 * The children that arrived for one attempt, in arrival order, as two flat arrays (numbers and references) rather
 * than an object per child. Handed-on attempts give theirs back (release) to be reused by later ones, so an attempt's
 * children cost no allocation once the assembler has warmed up.
 */
export class Children {
  count = 0;
  /** heldBytes of all of them. */
  bytes = 0;
  private numbers = new Float64Array(FIRST_CHILDREN * CHILD_NUMBERS);
  private readonly references: (string | ReadonlyMap<string, AttributeValue> | undefined)[] = [];
  /** A bit per child so far (filterBit): most new children find theirs clear, and only the others look further. */
  private readonly filter = new Uint32Array(FILTER_BITS / 32);

  /** Copies span `i` of `batch` in as the next child. `seq`: its arrival order among all spans. */
  push(batch: SpanBatch, i: number, where: string, seq: number): void {
    const k = this.count++;
    if ((k + 1) * CHILD_NUMBERS > this.numbers.length) this.grow();
    const ids = batch.ids;
    const times = batch.times;
    const w = i * ID_WORDS + 4;
    const t = i * TIME_WORDS;
    const n = this.numbers;
    const at = k * CHILD_NUMBERS;
    n[at] = ids[w]!;
    n[at + 1] = ids[w + 1]!;
    n[at + 2] = times[t]!;
    n[at + 3] = times[t + 1]!;
    n[at + 4] = times[t + 2]!;
    n[at + 5] = times[t + 3]!;
    n[at + 6] = batch.statusCodes[i]!;
    n[at + 7] = seq;
    const r = this.references;
    const rt = k * CHILD_REFERENCES;
    r[rt] = batch.names[i]!;
    r[rt + 1] = batch.statusMessages[i]!;
    r[rt + 2] = batch.attributes[i]!;
    r[rt + 3] = where;
    this.bytes += batch.heldBytes[i]!;
    const bit = filterBit(ids[w]!, ids[w + 1]!);
    this.filter[bit >>> 5] = this.filter[bit >>> 5]! | (1 << (bit & 31));
  }

  /** Whether a child with span id words (first, second) arrived. */
  has(first: number, second: number): boolean {
    const bit = filterBit(first, second);
    if ((this.filter[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    const n = this.numbers;
    for (let at = 0; at < this.count * CHILD_NUMBERS; at += CHILD_NUMBERS) if (n[at] === first && n[at + 1] === second) return true;
    return false;
  }

  /** Forgets every child (and lets go of their strings), keeping the room for the next attempt. */
  release(): void {
    this.references.fill(undefined, 0, this.count * CHILD_REFERENCES);
    this.filter.fill(0);
    this.count = 0;
    this.bytes = 0;
  }

  /** Child k's span id words, into `to` at `at`. */
  spanId(k: number, to: Uint32Array, at: number): void {
    to[at] = this.numbers[k * CHILD_NUMBERS]!;
    to[at + 1] = this.numbers[k * CHILD_NUMBERS + 1]!;
  }

  startHigh(k: number): number {
    return this.numbers[k * CHILD_NUMBERS + 2]!;
  }

  startLow(k: number): number {
    return this.numbers[k * CHILD_NUMBERS + 3]!;
  }

  endHigh(k: number): number {
    return this.numbers[k * CHILD_NUMBERS + 4]!;
  }

  endLow(k: number): number {
    return this.numbers[k * CHILD_NUMBERS + 5]!;
  }

  statusCode(k: number): number {
    return this.numbers[k * CHILD_NUMBERS + 6]!;
  }

  name(k: number): string {
    return this.references[k * CHILD_REFERENCES] as string;
  }

  statusMessage(k: number): string {
    return this.references[k * CHILD_REFERENCES + 1] as string;
  }

  attributes(k: number): ReadonlyMap<string, AttributeValue> {
    return this.references[k * CHILD_REFERENCES + 2] as ReadonlyMap<string, AttributeValue>;
  }

  where(k: number): string {
    return this.references[k * CHILD_REFERENCES + 3] as string;
  }

  /**
   * The children's indexes in start order; children that started at the same nanosecond, in arrival order. An
   * exporter sends them in the order they end, which is nearly always the order they started: that is checked first.
   */
  byStart(): number[] {
    const order = new Array<number>(this.count);
    let sorted = true;
    for (let k = 0; k < this.count; k++) {
      order[k] = k;
      if (k > 0 && this.startsAfter(k - 1, k)) sorted = false;
    }
    return sorted ? order : order.sort((a, b) => (this.startsAfter(a, b) ? 1 : -1));
  }

  /** Child a starts after child b, or at the same nanosecond and arrived after it. */
  private startsAfter(a: number, b: number): boolean {
    const n = this.numbers;
    const x = a * CHILD_NUMBERS;
    const y = b * CHILD_NUMBERS;
    if (n[x + 2] !== n[y + 2]) return n[x + 2]! > n[y + 2]!;
    if (n[x + 3] !== n[y + 3]) return n[x + 3]! > n[y + 3]!;
    return n[x + 7]! > n[y + 7]!;
  }

  private grow(): void {
    const numbers = new Float64Array(this.numbers.length * 2);
    numbers.set(this.numbers);
    this.numbers = numbers;
  }
}

/** A child's bit in the filter, from both words of its span id (ids that count up share their first word). */
function filterBit(first: number, second: number): number {
  return Math.imul(first ^ Math.imul(second, 0x9e3779b1), 0x85ebca6b) >>> (32 - Math.log2(FILTER_BITS));
}

export type OrderName = 'opened' | 'settling';

interface Place {
  prev?: PendingAttempt;
  next?: PendingAttempt;
  listed: boolean;
}

/** Everything about one attempt while it waits, in one place. */
export class PendingAttempt {
  /** The trace id's 4 words, then the root span id's 2. */
  readonly ids = new Uint32Array(6);
  readonly hash: number;
  /** The next attempt in the same table bucket. */
  nextInBucket: PendingAttempt | undefined;
  root: PendingRoot | undefined;
  readonly children: Children;
  /** From the root's `reconcile.operation_count`; undefined while settling (no count) or before the root. */
  expected: number | undefined;
  /** A root attribute that makes the whole attempt invalid, reported when it is handed on. */
  rootProblem: string | undefined;
  settle: Timer | undefined;
  deadline!: Timer;
  /** Handed on or dropped. */
  gone = false;
  /** Where it sits in the orders pending attempts give way in (AttemptOrder). */
  readonly places: Record<OrderName, Place> = { opened: { listed: false }, settling: { listed: false } };

  constructor(batchIds: Uint32Array, traceAt: number, rootAt: number, hash: number, children: Children) {
    this.children = children;
    const ids = this.ids;
    ids[0] = batchIds[traceAt]!;
    ids[1] = batchIds[traceAt + 1]!;
    ids[2] = batchIds[traceAt + 2]!;
    ids[3] = batchIds[traceAt + 3]!;
    ids[4] = batchIds[rootAt]!;
    ids[5] = batchIds[rootAt + 1]!;
    this.hash = hash;
  }

  /** Spans held: the root, when in, and the children. */
  get spans(): number {
    return this.children.count + (this.root ? 1 : 0);
  }

  get bytes(): number {
    return this.children.bytes + (this.root?.bytes ?? 0);
  }

  is(ids: Uint32Array, traceAt: number, rootAt: number): boolean {
    const own = this.ids;
    return (
      own[4] === ids[rootAt] &&
      own[5] === ids[rootAt + 1] &&
      own[0] === ids[traceAt] &&
      own[1] === ids[traceAt + 1] &&
      own[2] === ids[traceAt + 2] &&
      own[3] === ids[traceAt + 3]
    );
  }
}

/**
 * The pending attempts by (traceId, root span id): buckets by their pairHash (id-hash.ts), chained through the
 * attempts.
 */
export class PendingTable {
  private readonly buckets = new Map<number, PendingAttempt>();
  size = 0;

  /** The attempt whose trace id is ids[traceAt..+4] and root span id ids[rootAt..+2]; `hash` is their pairHash. */
  find(ids: Uint32Array, traceAt: number, rootAt: number, hash: number): PendingAttempt | undefined {
    for (let p = this.buckets.get(hash); p; p = p.nextInBucket) if (p.is(ids, traceAt, rootAt)) return p;
    return undefined;
  }

  add(p: PendingAttempt): void {
    p.nextInBucket = this.buckets.get(p.hash);
    this.buckets.set(p.hash, p);
    this.size++;
  }

  delete(p: PendingAttempt): void {
    const first = this.buckets.get(p.hash);
    if (first === p) {
      if (p.nextInBucket) this.buckets.set(p.hash, p.nextInBucket);
      else this.buckets.delete(p.hash);
    } else {
      let q = first;
      while (q && q.nextInBucket !== p) q = q.nextInBucket;
      if (!q) return;
      q.nextInBucket = p.nextInBucket;
    }
    p.nextInBucket = undefined;
    this.size--;
  }
}

/**
 * Pending attempts in one order, oldest first, as a list threaded through the attempts themselves: an attempt leaves
 * from anywhere in O(1), and one that is handed on is not held a moment longer (an array with lazy deletion held every
 * attempt behind a long-waiting first one, with all its spans, for up to maxWaitMs).
 */
export class AttemptOrder {
  private head: PendingAttempt | undefined;
  private tail: PendingAttempt | undefined;

  constructor(private readonly name: OrderName) {}

  push(p: PendingAttempt): void {
    const place = p.places[this.name];
    if (place.listed) return;
    place.listed = true;
    place.prev = this.tail;
    place.next = undefined;
    if (this.tail) this.tail.places[this.name].next = p;
    else this.head = p;
    this.tail = p;
  }

  remove(p: PendingAttempt): void {
    const place = p.places[this.name];
    if (!place.listed) return;
    if (place.prev) place.prev.places[this.name].next = place.next;
    else this.head = place.next;
    if (place.next) place.next.places[this.name].prev = place.prev;
    else this.tail = place.prev;
    place.listed = false;
    place.prev = undefined;
    place.next = undefined;
  }

  /** The oldest attempt that is not `except`. */
  firstOther(except: PendingAttempt | undefined): PendingAttempt | undefined {
    let p = this.head;
    if (p === except && p) p = p.places[this.name].next;
    return p;
  }

  /** Every attempt, oldest first (a copy: handing them on changes the list). */
  all(): PendingAttempt[] {
    const out: PendingAttempt[] = [];
    for (let p = this.head; p; p = p.places[this.name].next) out.push(p);
    return out;
  }
}
