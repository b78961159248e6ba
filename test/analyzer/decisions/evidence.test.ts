/** The evidence listener, counted by hand on the five-op model (tiny-model.ts): every count is one loop's. */
import { strict as assert } from 'node:assert';
import { Analyzer } from '../../../analyzer/analyzer.js';
import {
  copyCounters,
  emptyCounters,
  gapStratum,
  mergeCounters,
  pairStrata,
  pooledTable,
  type ControllerCounters,
} from '../../../analyzer/decisions/counters.js';
import { DecisionEvidence, type EvidenceOptions } from '../../../analyzer/decisions/evidence.js';
import { StarvationTimeline } from '../../../analyzer/decisions/timeline.js';
import { compileModel } from '../../../analyzer/compiled-model.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { plantedWorld } from './planted-world.js';
import { smallWorld, SMALL, SMALL_REVERSED } from './planted-models.js';
import { attempt, PHASED_OK, SEQUENTIAL_OK, TINY } from './tiny-model.js';

function collect(records: readonly AttemptRecord[], options: EvidenceOptions = {}, model = TINY): ControllerCounters {
  const analyzer = new Analyzer([model]);
  const evidence = new DecisionEvidence(options);
  analyzer.listen(evidence);
  for (const r of records) analyzer.attempt(r);
  return evidence.controller(model.controller)!.snapshot();
}

const N = TINY.operations.length;
const op = (name: string): number => TINY.operations.findIndex((o) => o.name === name);
const groupIndex = (name: string): number => compileModel(TINY).groups.findIndex((g) => g.name === name);
const table = (c: ControllerCounters, loop: 'sequential' | 'phased', first: string, then: string) =>
  pooledTable(pairStrata(c.loops[loop], N, op(first), op(then)));

describe('decision evidence', () => {
  it('counts a pair only when both ops succeeded in the object’s previous attempt, in the stratum of the gap since it', () => {
    const c = collect([
      attempt('phased', 'x', PHASED_OK), // no previous attempt: nothing counted
      attempt('phased', 'x', 'Fetch B! A C D'), // B starts failing, A still fine
      attempt('phased', 'x', 'Fetch B! A! C D'), // B was already failing: no pair with B counts
      attempt('phased', 'x', PHASED_OK), // A and B were failing: only pairs among Fetch, C, D could count
    ]);
    assert.deepEqual(table(c, 'phased', 'B', 'A'), { a: 0, b: 1, c: 0, d: 0 });
    assert.deepEqual(table(c, 'phased', 'A', 'C'), { a: 0, b: 1, c: 0, d: 1 });
    // Only pairs in the order the loop ran them.
    assert.deepEqual(table(c, 'phased', 'A', 'B'), { a: 0, b: 0, c: 0, d: 0 });
    // Only pairs whose second op can run after the first one failed: a fail-fast step's failure ends the attempt,
    // and Core's (critical) blocks Tail, so these could never be tested and are not counted.
    assert.deepEqual(table(c, 'phased', 'Fetch', 'B'), { a: 0, b: 0, c: 0, d: 0 });
    assert.deepEqual(table(c, 'phased', 'C', 'D'), { a: 0, b: 0, c: 0, d: 0 });
    // The attempts are 10 s apart: every count is in the 8–16 s stratum.
    assert.equal(gapStratum(10_000), 4);
    assert.equal(pairStrata(c.loops.phased, N, op('A'), op('C')).length, 1);
    assert.equal(c.loops.phased.pairs[((4 * N + op('A')) * N + op('C')) * 4], 1);
    assert.equal(c.loops.phased.failureRuns[op('B')], 1);
    assert.equal(c.loops.phased.failureRuns[op('A')], 1);
  });

  it('never pools the loops: each table fills from its own loop’s attempts, and an object that changes loop starts over', () => {
    const c = collect([
      attempt('sequential', 'y', SEQUENTIAL_OK),
      attempt('sequential', 'y', 'Fetch A!'),
      attempt('phased', 'z', PHASED_OK),
      attempt('sequential', 'z', SEQUENTIAL_OK), // other loop: no previous attempt to compare with
      attempt('sequential', 'z', 'Fetch A B!'),
      attempt('phased', 'z', 'Fetch B! A C D'), // its previous attempt ran the other loop: nothing to compare with
      attempt('phased', 'w', PHASED_OK),
      attempt('phased', 'w', 'Fetch B! A C D'),
    ]);
    // The sequential loop runs nothing after a failure: no pair of its own can ever be tested, so none is counted.
    assert.equal(
      c.loops.sequential.pairs.reduce((x, y) => x + y, 0),
      0,
    );
    // The phased tables hold w's change only: B before A, C, D (B failed), A before C, D (both fine).
    assert.deepEqual(table(c, 'phased', 'B', 'A'), { a: 0, b: 1, c: 0, d: 0 });
    assert.equal(
      c.loops.phased.pairs.reduce((x, y) => x + y, 0),
      5,
    );
    assert.deepEqual(
      [c.loops.sequential.attempts, c.loops.sequential.objects, c.loops.phased.attempts, c.loops.phased.objects, c.objectsInBothLoops],
      [4, 2, 4, 2, 1],
    );
    assert.deepEqual([c.loops.sequential.failureRuns[op('A')], c.loops.sequential.failureRuns[op('B')], c.loops.phased.failureRuns[op('B')]], [1, 1, 2]);
  });

  it('noise floor: flips between consecutive attempts with the same generation only, per loop', () => {
    const c = collect([
      attempt('phased', 'n', PHASED_OK, 1),
      attempt('phased', 'n', 'Fetch B A! C D', 1),
      attempt('phased', 'n', PHASED_OK, 1),
      attempt('phased', 'n', 'Fetch B A! C D', 2), // spec changed: not an A/A comparison
      attempt('phased', 'n', 'Fetch B A~ C D', 2), // skipped: not compared
    ]);
    assert.equal(c.loops.phased.noiseComparisons[op('A')], 2);
    assert.equal(c.loops.phased.noiseFlips[op('A')], 2);
    assert.equal(c.loops.phased.noiseComparisons[op('Fetch')], 3);
    assert.equal(c.loops.phased.noiseFlips[op('Fetch')], 0);
    assert.equal(
      c.loops.sequential.noiseComparisons.reduce((x, y) => x + y, 0),
      0,
    );
  });

  it('groups: failures per attempt and per run, judged when something ran after the failure, per loop', () => {
    const c = collect([
      attempt('phased', 'g', PHASED_OK),
      attempt('phased', 'g', 'Fetch B A! C D'),
      attempt('phased', 'g', 'Fetch B A! C D'),
      attempt('phased', 'g', PHASED_OK),
      attempt('phased', 'g', 'Fetch B A! C D'),
      attempt('sequential', 's', 'Fetch A!'),
      attempt('sequential', 's', 'Fetch A!'),
    ]);
    const first = groupIndex('First');
    const counts = (loop: 'sequential' | 'phased'): number[] => [
      c.loops[loop].groupFailedAttempts[first]!,
      c.loops[loop].groupFailureRuns[first]!,
      c.loops[loop].groupJudgedRuns[first]!,
    ];
    assert.deepEqual(counts('phased'), [3, 2, 2]);
    assert.deepEqual(counts('sequential'), [2, 1, 0]);
  });

  it('loop comparison: runs both loops make, from a healthy or unknown last outcome, with each object’s cluster', () => {
    const c = collect([
      attempt('phased', 'p1', PHASED_OK), // every op: a run (no last outcome yet)
      attempt('phased', 'p1', 'Fetch B A! C D'), // the sequential loop stops at A: only Fetch and A are runs of both; A fails
      attempt('phased', 'p1', 'Fetch B A! C D'), // A failed last time: not counted again; Fetch is
      attempt('phased', 'p1', PHASED_OK), // A still not counted (its last outcome was an error)
      attempt('phased', 'p2', 'Fetch B A! C D'), // a first run of A, failing
      attempt('phased', 'p2', PHASED_OK),
    ]);
    const phased = c.loops.phased;
    const runs = (name: string): [number, number] => [phased.commonRuns[op(name)]!, phased.commonFailures[op(name)]!];
    assert.deepEqual(runs('Fetch'), [6, 0]);
    assert.deepEqual(runs('A'), [3, 2]);
    assert.deepEqual(runs('B'), [3, 0]);
    assert.deepEqual(runs('D'), [3, 0]);
    // A: p1 ran it twice with one failure (1/2), p2 once with one (1/1).
    assert.equal(phased.clusters[op('A')], 2);
    assert.equal(phased.clusterSquares[op('A')], 1.5);
    assert.equal(
      c.loops.sequential.commonRuns.reduce((x, y) => x + y, 0),
      0,
    );
  });

  it('starvation in time, what the phased loop unblocks and whether it would succeed, and what each category decides', () => {
    const c = collect([
      attempt('sequential', 's', 'Fetch A!'), // the phased loop would run B, C and D (predicted ok)
      attempt('sequential', 's', SEQUENTIAL_OK), // 10 s later: the sequential loop kept B, C and D waiting 10 s
      attempt('phased', 'p', 'Fetch B A C!'), // Core failed: Tail (D) blocked by design, the sequential loop ran D
      attempt('phased', 'p', 'Fetch B A C!'),
      attempt('phased', 'p', PHASED_OK), // D waited 20 s behind Core
      attempt('phased', 'p', 'Fetch B! A C D'), // Second failed and Tail still ran; the sequential loop stops at B
    ]);
    const ms = (xs: Float64Array): number[] => ['B', 'C', 'D'].map((name) => xs[op(name)]!);
    assert.deepEqual(ms(c.sequentialStarvedMs), [10_000, 10_000, 10_000]);
    assert.deepEqual(ms(c.phasedStarvedMs), [0, 0, 20_000]);
    assert.deepEqual(ms(c.phasedByDesignMs), [0, 0, 20_000]);
    assert.deepEqual(ms(c.phasedLongestMs), [0, 0, 20_000]);
    assert.equal(c.objectMs, 40_000);
    assert.equal(c.newlyBlockedAttempts, 2);
    assert.deepEqual(
      ['B', 'C', 'D'].map((name) => c.unblocked[op(name)]),
      [1, 2, 2],
    );
    const ok = (blocker: string, name: string): number => c.unblockedOk[op(blocker) * N + op(name)]!;
    assert.deepEqual([ok('A', 'B'), ok('A', 'C'), ok('A', 'D'), ok('B', 'C'), ok('B', 'D')], [1, 1, 1, 1, 1]);
    assert.equal(c.freedOk[groupIndex('Core') * N + op('D')], 2);
    assert.equal(c.freedOk[groupIndex('Second') * N + op('D')], 1);
    assert.deepEqual([c.freeingAttempts[groupIndex('Core')], c.freeingAttempts[groupIndex('Second')]], [2, 1]);
    assert.deepEqual([c.sequentialSkippedOps[groupIndex('First')], c.sequentialSkippedOps[groupIndex('Second')]], [3, 2]);
  });

  it('forgets the least recently seen object past the memory bound, its cluster folded in', () => {
    const c = collect(
      [
        attempt('phased', 'one', PHASED_OK),
        attempt('phased', 'two', PHASED_OK),
        attempt('phased', 'one', 'Fetch B! A C D'),
        attempt('phased', 'one', PHASED_OK),
      ],
      { maxObjects: 1 },
    );
    // `one` was forgotten when `two` arrived, so its failing attempt had nothing to compare with.
    assert.deepEqual(table(c, 'phased', 'B', 'A'), { a: 0, b: 0, c: 0, d: 0 });
    assert.equal(c.forgottenObjects, 2);
    // Fetch: one cluster per stretch of an object: one, two, one again.
    assert.equal(c.loops.phased.clusters[op('Fetch')], 3);
    assert.equal(c.loops.phased.objects, 3);
  });
});

describe('merging partial evidence', () => {
  it('two halves of a fleet (split by object) merge into exactly the evidence of the whole', () => {
    const records = [...plantedWorld({ ...smallWorld(4, SMALL_REVERSED), durationMs: 6 * 3_600_000 })];
    const objects = [...new Set(records.map((r) => r.object))];
    const half = new Set(objects.filter((_, i) => i % 2 === 0));
    const whole = collect(records, {}, SMALL);
    const merged = collect(
      records.filter((r) => half.has(r.object)),
      {},
      SMALL,
    );
    mergeCounters(
      merged,
      collect(
        records.filter((r) => !half.has(r.object)),
        {},
        SMALL,
      ),
    );
    const plain = (c: ControllerCounters): unknown =>
      JSON.parse(
        JSON.stringify(c, (_k, v: unknown) =>
          v instanceof Float64Array ? [...v].map((x) => Number(x.toPrecision(12))) : v instanceof Uint32Array ? [...v] : v,
        ),
      );
    assert.ok(whole.loops.phased.commonFailures[SMALL.operations.findIndex((o) => o.name === 'Report')]! > 0);
    assert.deepEqual(plain(merged), plain(whole));
  });

  it('refuses to merge counters of different models, and leaves a copy untouched', () => {
    const small = emptyCounters(compileModel(SMALL));
    assert.throws(() => mergeCounters(small, emptyCounters(compileModel(TINY))), /different models/);
    const copy = copyCounters(small);
    copy.loops.phased.attempts++;
    assert.equal(small.loops.phased.attempts, 0);
  });
});

describe('starvation timeline', () => {
  const start = Date.parse('2026-11-29T00:00:00Z');
  type Attempt = readonly [offsetMs: number, starved: number, longest: readonly number[]];
  const ATTEMPTS: readonly Attempt[] = [
    [0, 1, [5, 0]],
    [30_000, 2, [6, 0]],
    [60_000, 0, [1, 7]],
    [180_000, 4, [0, 2]],
    [240_000, 1, [3, 0]], // a fifth minute: the buckets double to 2 minutes
  ];
  const timeline = (attempts: readonly Attempt[]): StarvationTimeline => {
    const t = new StarvationTimeline(2, 4);
    for (const [offset, starved, longest] of attempts) {
      const bucket = t.add(start + offset, starved);
      longest.forEach((v, op) => (bucket[op] = Math.max(bucket[op]!, v)));
    }
    return t;
  };
  const points = (t: StarvationTimeline) => t.points().map((p) => [p.startMs - start, p.attempts, p.starvedOps, [...p.longestSeconds]]);
  const WHOLE = [
    [0, 3, 3, [6, 7]],
    [120_000, 1, 4, [0, 2]],
    [240_000, 1, 1, [3, 0]],
  ];

  it('merges neighbouring buckets when full, keeping sums and per-op maxima, on buckets aligned to the epoch', () => {
    const t = timeline(ATTEMPTS);
    assert.equal(t.bucketWidthMs, 120_000);
    assert.deepEqual(points(t), WHOLE);
  });

  it('does not depend on the order of the attempts, and two parts merge into the whole', () => {
    assert.deepEqual(points(timeline([...ATTEMPTS].reverse())), WHOLE);
    const odd = timeline(ATTEMPTS.filter((_, i) => i % 2 === 1));
    assert.equal(odd.bucketWidthMs, 60_000); // 30 s and 180 s fit in four minutes
    const even = timeline(ATTEMPTS.filter((_, i) => i % 2 === 0));
    even.merge(odd.state());
    assert.deepEqual(points(even), WHOLE);
    odd.merge(timeline(ATTEMPTS.filter((_, i) => i % 2 === 0)).state());
    assert.deepEqual(points(odd), WHOLE);
  });

  it('an attempt older than the first opens buckets before it; times either side of the epoch fit in two buckets', () => {
    const t = timeline([
      [120_000, 1, [0, 0]],
      [0, 1, [0, 0]],
    ]);
    assert.deepEqual(points(t), [
      [0, 1, 1, [0, 0]],
      [60_000, 0, 0, [0, 0]],
      [120_000, 1, 1, [0, 0]],
    ]);
    const epoch = new StarvationTimeline(1, 2);
    epoch.add(-1, 0);
    epoch.add(10 * 365 * 86_400_000, 0);
    assert.deepEqual(
      epoch.points().map((p) => [p.startMs + epoch.bucketWidthMs, p.attempts]),
      [
        [0, 1],
        [epoch.bucketWidthMs, 1],
      ],
    );
    assert.throws(() => new StarvationTimeline(1, 1), /at least 2 buckets/);
  });
});
