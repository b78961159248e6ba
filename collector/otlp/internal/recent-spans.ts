/**
 * The spans already handed on in an attempt, remembered to tell a resent span (`duplicate_span`) from a late one: a
 * bounded set of (traceId, spanId) that forgets its oldest pairs first, and that allocates nothing per span.
 * The pairs are held per trace (an attempt's spans share one), each trace's span ids as words in one array, oldest
 * first: a trace's few dozen pairs sit together in memory, and the table of traces stays small, so lookups hit the
 * cache (one table of every pair, keyed by its 6 words, missed it on nearly every lookup and insert once it held its
 * 100,000 pairs). A trace of many pairs gets a Map as well, so no lookup scans more than a few dozen. The order to
 * forget them in is a ring of the pairs' traces. Before, the same shape held hex strings: a string per span, hashed
 * on every lookup.
 */
import { BoundedRing } from '../../../lib/bounded-ring.js';
import { pairHash, traceHash } from './id-hash.js';

/** Up to this many pairs a trace's span ids are looked for one by one; past it, through a Map. */
const SCANNED_PAIRS = 256;

/**
 * One trace's remembered span ids, oldest first, as pairs of words in one array: the trace's oldest pair is always
 * the oldest of all (the ring's order), so forgetting one only moves `head`.
 */
class RememberedTrace {
  /** The next trace with the same hash. */
  next: RememberedTrace | undefined;
  live = 0;
  /** Span id words (as small integers), two per pair; the live ones from `head`. */
  private pairs: number[] = [];
  private head = 0;
  /** For a trace of many pairs: spanKey() -> the pair's words (several pairs' words, two each, when keys collide). */
  private index: Map<number, number[]> | undefined;

  constructor(
    readonly hash: number,
    readonly w0: number,
    readonly w1: number,
    readonly w2: number,
    readonly w3: number,
  ) {}

  is(ids: Uint32Array, at: number): boolean {
    return this.w0 === ids[at] && this.w1 === ids[at + 1] && this.w2 === ids[at + 2] && this.w3 === ids[at + 3];
  }

  has(first: number, second: number): boolean {
    if (this.index) {
      const held = this.index.get(spanKey(first, second));
      if (held) for (let k = 0; k < held.length; k += 2) if (held[k] === first && held[k + 1] === second) return true;
      return false;
    }
    const p = this.pairs;
    for (let k = this.head; k < p.length; k += 2) if (p[k] === first && p[k + 1] === second) return true;
    return false;
  }

  add(first: number, second: number): void {
    this.pairs.push(first, second);
    this.live++;
    if (this.index) indexAdd(this.index, first, second);
    else if (this.live > SCANNED_PAIRS) {
      this.index = new Map();
      for (let k = this.head; k < this.pairs.length; k += 2) indexAdd(this.index, this.pairs[k]!, this.pairs[k + 1]!);
    }
  }

  forgetOldest(): void {
    const first = this.pairs[this.head]!;
    const second = this.pairs[this.head + 1]!;
    this.head += 2;
    this.live--;
    if (this.index) {
      const key = spanKey(first, second);
      const held = this.index.get(key)!;
      if (held.length === 2) this.index.delete(key);
      else {
        for (let k = 0; k < held.length; k += 2) {
          if (held[k] === first && held[k + 1] === second) {
            held.splice(k, 2);
            break;
          }
        }
      }
    }
    // a long-lived trace: drop the forgotten front now and then, so the array does not grow without end
    if (this.head >= 4 * SCANNED_PAIRS && this.head >= this.pairs.length / 2) {
      this.pairs = this.pairs.slice(this.head);
      this.head = 0;
    }
  }
}

function indexAdd(index: Map<number, number[]>, first: number, second: number): void {
  const key = spanKey(first, second);
  const held = index.get(key);
  if (held) held.push(first, second);
  else index.set(key, [first, second]);
}

/**
 * Both words of a span id mixed into one small integer, with the process's seed: neither word alone would do, as
 * ids that count up share their first word, and a sender cannot aim at collisions it cannot compute.
 */
function spanKey(first: number, second: number): number {
  return pairHash(0, first, second) | 0;
}

export class RecentSpans {
  /** Traces by their hash (as a small integer), chained on collision. */
  private readonly traces = new Map<number, RememberedTrace>();
  /** The trace of each remembered pair, in the order the pairs came. */
  private readonly ring: BoundedRing<RememberedTrace>;

  constructor(capacity: number) {
    this.ring = new BoundedRing(capacity);
  }

  /**
   * Whether the pair (trace ids[traceAt..+4], span span[spanAt..+2]) is remembered; `state` is traceState() of the
   * trace id.
   */
  has(state: number, ids: Uint32Array, traceAt: number, span: Uint32Array, spanAt: number): boolean {
    if (this.ring.size === 0) return false;
    return this.trace(traceHash(state) | 0, ids, traceAt)?.has(span[spanAt]! | 0, span[spanAt + 1]! | 0) ?? false;
  }

  /**
   * Remembers an attempt's spans: `count` span ids in `spans` (two words each), its root's first, then its children's,
   * which differ from each other (the assembler took no child twice). Each pair already remembered keeps its place; past
   * the capacity the oldest pairs are forgotten. One lookup of the trace and, when the trace had nothing remembered,
   * no look for each pair among the others.
   */
  addAttempt(state: number, ids: Uint32Array, traceAt: number, spans: Uint32Array, count: number): void {
    if (this.ring.capacity <= 0) return;
    const hash = traceHash(state) | 0;
    let trace = this.trace(hash, ids, traceAt);
    // a trace new here holds only this attempt's pairs, and of those only a child's can equal the root's
    const fresh = trace === undefined;
    const root0 = spans[0]! | 0;
    const root1 = spans[1]! | 0;
    for (let k = 0; k < count; k++) {
      const first = spans[2 * k]! | 0;
      const second = spans[2 * k + 1]! | 0;
      const checked = !fresh || (k > 0 && first === root0 && second === root1);
      if (checked && trace?.has(first, second)) continue;
      trace ??= this.newTrace(hash, ids, traceAt);
      trace.add(first, second);
      // the pair forgotten is never this one, so its trace keeps at least this pair and stays in the table
      const forgotten = this.ring.push(trace);
      if (forgotten) this.forget(forgotten);
    }
  }

  private newTrace(hash: number, ids: Uint32Array, traceAt: number): RememberedTrace {
    const trace = new RememberedTrace(hash, ids[traceAt]!, ids[traceAt + 1]!, ids[traceAt + 2]!, ids[traceAt + 3]!);
    trace.next = this.traces.get(hash);
    this.traces.set(hash, trace);
    return trace;
  }

  private trace(hash: number, ids: Uint32Array, at: number): RememberedTrace | undefined {
    for (let t = this.traces.get(hash); t; t = t.next) if (t.is(ids, at)) return t;
    return undefined;
  }

  /** Forgets the trace's oldest pair, and the trace with its last. */
  private forget(trace: RememberedTrace): void {
    trace.forgetOldest();
    if (trace.live > 0) return;
    const first = this.traces.get(trace.hash);
    if (first === trace) {
      if (trace.next) this.traces.set(trace.hash, trace.next);
      else this.traces.delete(trace.hash);
    } else {
      let t = first;
      while (t && t.next !== trace) t = t.next;
      if (t) t.next = trace.next;
    }
  }
}
