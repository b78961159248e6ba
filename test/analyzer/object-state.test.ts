/**
 * The per-object state of a shadow, kept compact (slots, slabs of rows, shared start times), against the plain
 * statement of what it keeps, written out here: a map of rows in order of last use, and per object a start time or
 * NaN per op. Random sequences of attempts, evictions and reads must give the same answers from both.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { UNKNOWN } from '../../analyzer/compiled-model.js';
import { OutcomeHistory } from '../../analyzer/outcome-history.js';
import { StarvationTracker } from '../../analyzer/starvation.js';
import { FUZZ_RUNS } from '../fuzz/runs.js';

const OPS = 5;

/** The history as a Map: insertion order is recency (an attempt re-inserts its object), rows are arrays. */
class PlainHistory {
  readonly rows = new Map<string, number[]>();
  touch(key: string): number[] {
    const row = this.rows.get(key) ?? new Array<number>(OPS).fill(UNKNOWN);
    this.rows.delete(key);
    this.rows.set(key, row);
    return row;
  }
}

type HistoryStep = { kind: 'attempt'; key: string; op: number; value: number } | { kind: 'forget'; key: string } | { kind: 'evictOldest' };

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i');
const historyStep: fc.Arbitrary<HistoryStep> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('attempt' as const), key, op: fc.integer({ min: 0, max: OPS - 1 }), value: fc.integer({ min: 0, max: 11 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('evictOldest' as const) }) },
);

/** The tracker as first written: per object a start time per op, NaN when the op is not starving. */
class PlainStarvation {
  readonly starts = new Map<number, number[]>();
  readonly longestMs = new Array<number>(OPS).fill(0);
  readonly longestObject = new Array<string | undefined>(OPS).fill(undefined);

  update(slot: number, object: string, timeMs: number, starving: readonly number[], ran: readonly number[]): void {
    let starts = this.starts.get(slot);
    if (!starts) {
      if (starving.length === 0) return;
      starts = new Array<number>(OPS).fill(NaN);
      this.starts.set(slot, starts);
    }
    for (let op = 0; op < OPS; op++) if (ran[op] === 1) starts[op] = NaN;
    for (const op of starving) {
      if (Number.isNaN(starts[op])) starts[op] = timeMs;
      const length = timeMs - starts[op]!;
      // Of equal streaks, the smaller object name: the longest streak's object does not depend on the input's order.
      if (length > this.longestMs[op]! || (length === this.longestMs[op]! && length > 0 && object < this.longestObject[op]!)) {
        this.longestMs[op] = length;
        this.longestObject[op] = object;
      }
    }
    if (starts.every((s) => Number.isNaN(s))) this.starts.delete(slot);
  }

  currentLongestSeconds(nowMs: number): number[] {
    const out = new Array<number>(OPS).fill(0);
    for (const starts of this.starts.values())
      for (let op = 0; op < OPS; op++) if (!Number.isNaN(starts[op]!) && (nowMs - starts[op]!) / 1000 > out[op]!) out[op] = (nowMs - starts[op]!) / 1000;
    return out;
  }
}

type StarvationStep = { kind: 'attempt'; slot: number; timeMs: number; starving: number[]; ran: boolean[] } | { kind: 'forget'; slot: number };

const starvationStep: fc.Arbitrary<StarvationStep> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('attempt' as const),
      slot: fc.integer({ min: 0, max: 5 }),
      // few distinct times, so streaks often share a start; sometimes earlier than the last, sometimes none
      timeMs: fc.oneof(
        { weight: 20, arbitrary: fc.integer({ min: 0, max: 12 }).map((t) => 1_700_000_000_000 + t * 1000) },
        { weight: 1, arbitrary: fc.constant(NaN) },
      ),
      starving: fc.uniqueArray(fc.integer({ min: 0, max: OPS - 1 }), { maxLength: OPS }),
      ran: fc.array(fc.boolean(), { minLength: OPS, maxLength: OPS }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), slot: fc.integer({ min: 0, max: 5 }) }) },
);

describe('compact per-object state equals its plain statement', () => {
  it('outcome history: rows, slots reused after forgetting, least recently seen object', () =>
    fc.assert(
      fc.property(fc.array(historyStep, { maxLength: 60 }), (steps) => {
        const history = new OutcomeHistory(OPS);
        const plain = new PlainHistory();
        for (const step of steps) {
          if (step.kind === 'attempt') {
            const slot = history.slotOf(step.key);
            history.rows[slot * OPS + step.op] = step.value;
            plain.touch(step.key)[step.op] = step.value;
          } else {
            const forgotten = step.kind === 'forget' ? step.key : history.leastRecent();
            assert.equal(forgotten, step.kind === 'forget' ? step.key : plain.rows.keys().next().value);
            if (forgotten === undefined) continue;
            history.forget(forgotten);
            plain.rows.delete(forgotten);
          }
          assert.equal(history.objects, plain.rows.size);
          assert.equal(history.leastRecent(), plain.rows.keys().next().value);
        }
        for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) assert.deepEqual(history.lookup(k) && [...history.lookup(k)!], plain.rows.get(k), k);
      }),
      { numRuns: FUZZ_RUNS },
    ));

  it('starvation: longest streaks and their objects, open streaks at any time, objects with state', () =>
    fc.assert(
      fc.property(fc.array(starvationStep, { maxLength: 40 }), fc.integer({ min: 0, max: 20 }), (steps, now) => {
        const tracker = new StarvationTracker(OPS);
        const plain = new PlainStarvation();
        for (const step of steps) {
          if (step.kind === 'forget') {
            tracker.forget(step.slot);
            plain.starts.delete(step.slot);
          } else {
            const ran = step.ran.map((r) => (r ? 1 : 0));
            tracker.update(step.slot, `o${step.slot}`, step.timeMs, step.starving, Uint8Array.from(ran));
            plain.update(step.slot, `o${step.slot}`, step.timeMs, step.starving, ran);
          }
          assert.equal(tracker.objects, plain.starts.size);
        }
        assert.deepEqual([...tracker.longestMs], plain.longestMs);
        assert.deepEqual(tracker.longestObject, plain.longestObject);
        assert.deepEqual([...tracker.currentLongestSeconds(1_700_000_000_000 + now * 1000)], plain.currentLongestSeconds(1_700_000_000_000 + now * 1000));
      }),
      { numRuns: FUZZ_RUNS },
    ));
});
