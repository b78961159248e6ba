/** The evidence listener, counted by hand on the five-op model (tiny-model.ts). */
import { strict as assert } from 'node:assert';
import { ShadowAnalyzer } from '../../../analyzer/analyzer.js';
import { ControllerEvidence, DecisionEvidence, type EvidenceOptions } from '../../../analyzer/decisions/evidence.js';
import { StarvationTimeline } from '../../../analyzer/decisions/timeline.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { attempt, PHASED_OK, SEQUENTIAL_OK, TINY } from './tiny-model.js';

function collect(records: AttemptRecord[], options: EvidenceOptions = {}): ControllerEvidence {
  const analyzer = new ShadowAnalyzer([TINY]);
  const evidence = new DecisionEvidence(options);
  analyzer.listen(evidence);
  for (const r of records) analyzer.attempt(r);
  return evidence.controller('widget')!;
}

const op = (name: string): number => TINY.operations.findIndex((o) => o.name === name);
const group = (e: ControllerEvidence, name: string) => e.groups[e.cm.groups.findIndex((g) => g.name === name)]!;

describe('decision evidence', () => {
  it('counts a pair only when both ops succeeded in the object’s previous attempt', () => {
    const e = collect([
      attempt('phased', 'x', PHASED_OK), // no previous attempt: nothing counted
      attempt('phased', 'x', 'Fetch B! A C D'), // B starts failing, A still fine
      attempt('phased', 'x', 'Fetch B! A! C D'), // B was already failing: no pair with B counts
      attempt('phased', 'x', PHASED_OK), // A and B were failing: only pairs among Fetch, C, D count
    ]);
    assert.deepEqual(e.table(op('B'), op('A')), { a: 0, b: 1, c: 0, d: 0 });
    assert.deepEqual(e.table(op('A'), op('C')), { a: 0, b: 1, c: 0, d: 1 });
    assert.deepEqual(e.table(op('Fetch'), op('B')), { a: 0, b: 0, c: 1, d: 0 });
    assert.deepEqual(e.table(op('C'), op('D')), { a: 0, b: 0, c: 0, d: 3 });
    // Only pairs in the order the loop ran them.
    assert.deepEqual(e.table(op('A'), op('B')), { a: 0, b: 0, c: 0, d: 0 });
    assert.equal(e.failureRuns[op('B')], 1);
    assert.equal(e.failureRuns[op('A')], 1);
  });

  it('gets no after-failure observation from the sequential loop, and starts over when an object changes loop', () => {
    const e = collect([
      attempt('sequential', 'y', SEQUENTIAL_OK),
      attempt('sequential', 'y', 'Fetch A!'),
      attempt('phased', 'z', PHASED_OK),
      attempt('sequential', 'z', SEQUENTIAL_OK), // other loop: no previous attempt to compare with
      attempt('sequential', 'z', 'Fetch A B!'),
    ]);
    for (const first of TINY.operations.map((o) => o.name)) {
      for (const later of TINY.operations.map((o) => o.name)) {
        const t = e.table(op(first), op(later));
        assert.equal(t.a + t.b, 0, `${first} -> ${later}`);
      }
    }
    assert.deepEqual(e.table(op('Fetch'), op('A')), { a: 0, b: 0, c: 1, d: 1 });
    assert.deepEqual(e.table(op('A'), op('B')), { a: 0, b: 0, c: 1, d: 0 });
  });

  it('noise floor: flips between consecutive attempts with the same generation only', () => {
    const e = collect([
      attempt('phased', 'n', PHASED_OK, 1),
      attempt('phased', 'n', 'Fetch B A! C D', 1),
      attempt('phased', 'n', PHASED_OK, 1),
      attempt('phased', 'n', 'Fetch B A! C D', 2), // spec changed: not an A/A comparison
      attempt('phased', 'n', 'Fetch B A~ C D', 2), // skipped: not compared
    ]);
    assert.equal(e.noiseComparisons[op('A')], 2);
    assert.equal(e.noiseFlips[op('A')], 2);
    assert.equal(e.noiseComparisons[op('Fetch')], 3);
    assert.equal(e.noiseFlips[op('Fetch')], 0);
  });

  it('groups: failures per attempt and per run, judged when something ran after the failure', () => {
    const e = collect([
      attempt('phased', 'g', PHASED_OK),
      attempt('phased', 'g', 'Fetch B A! C D'),
      attempt('phased', 'g', 'Fetch B A! C D'),
      attempt('phased', 'g', PHASED_OK),
      attempt('phased', 'g', 'Fetch B A! C D'),
      attempt('sequential', 's', 'Fetch A!'),
      attempt('sequential', 's', 'Fetch A!'),
    ]);
    const first = group(e, 'First');
    assert.deepEqual([first.failedAttempts, first.failureRuns, first.judgedRuns], [5, 3, 2]);
  });

  it('work: what a failure kept from running in each loop, and what reclassifying its group would free', () => {
    const e = collect([
      attempt('sequential', 's', 'Fetch A!'), // the phased loop would run B, C and D (predicted ok)
      attempt('phased', 'p', 'Fetch B A C!'), // Core failed: the phased loop blocks Tail; the sequential loop ran D before C
    ]);
    const first = group(e, 'First');
    assert.equal(first.sequentialSkippedOps, 3);
    assert.deepEqual([first.unblockedOps, first.unblockingAttempts, first.unblockedByOp[op('B')], first.unblockedByOp[op('C')]], [3, 1, 1, 1]);
    const core = group(e, 'Core');
    assert.deepEqual([core.soleBlockedOps, core.soleBlockingAttempts, core.soleBlockedGroups[e.cm.groups.findIndex((g) => g.name === 'Tail')]], [1, 1, 1]);
    assert.equal(core.failedAttempts, 1);
    assert.equal(core.judgedRuns, 0);
    assert.equal(e.newlyBlockedAttempts, 1);
    assert.equal(e.attempts, 2);
  });

  it('forgets the least recently seen object past the memory bound', () => {
    const e = collect(
      [attempt('phased', 'one', PHASED_OK), attempt('phased', 'two', PHASED_OK), attempt('phased', 'one', 'Fetch B! A C D'), attempt('phased', 'one', PHASED_OK)],
      { maxTrackedObjects: 1 },
    );
    // `one` was forgotten when `two` arrived, so its failing attempt had nothing to compare with.
    assert.deepEqual(e.table(op('B'), op('A')), { a: 0, b: 0, c: 0, d: 0 });
    assert.equal(e.forgottenObjects, 2);
    assert.equal(e.trackedObjects, 1);
  });
});

describe('starvation timeline', () => {
  it('merges neighbouring buckets when full, keeping sums and per-op maxima, and samples once per bucket', () => {
    const t = new StarvationTimeline(2, 4);
    let samples = 0;
    const sample = (values: number[]) => () => {
      samples++;
      return Float64Array.from(values);
    };
    const start = Date.parse('2026-11-29T00:00:00Z');
    t.add(start, 1, sample([5, 0]));
    t.add(start + 30_000, 2, sample([99, 99])); // same bucket: not sampled again
    t.add(start + 60_000, 0, sample([1, 7]));
    t.add(start + 180_000, 4, sample([0, 2]));
    t.add(start + 240_000, 1, sample([3, 0])); // a fifth minute: the buckets double to 2 minutes
    assert.equal(t.bucketWidthMs, 120_000);
    assert.equal(samples, 4);
    assert.deepEqual(
      t.points().map((p) => [p.startMs - start, p.attempts, p.starvedOps, [...p.longestSeconds]]),
      [
        [0, 3, 3, [5, 7]],
        [120_000, 1, 4, [0, 2]],
        [240_000, 1, 1, [3, 0]],
      ],
    );
  });
});
