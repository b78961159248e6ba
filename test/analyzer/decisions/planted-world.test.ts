/**
 * Decisions on planted worlds (planted-world.ts): journals with a known truth, from a generator independent of the
 * simulator and of the engine, both loops observed on halves of the fleet. Done when:
 * - the null world is never `not-ready` and has no flags;
 * - a 30-attempt world is `inconclusive`, its first reason the data it lacks;
 * - the reversed-prerequisite world names the op as worse under the phased loop and flags no innocent group;
 * - the misclassified group is flagged.
 * Several seeds each; the statistics are not tuned to them (docs/decisions.md gives the false-alarm rate measured
 * on 300 seeds). On the built-in HostedCluster model the plants are picked from the model and only verdicts,
 * findings and flagged sets are asserted; exact counts are asserted on the small model of our own.
 */
import { strict as assert } from 'node:assert';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionReport, type ControllerDecisions } from '../../../analyzer/decisions/decide.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { plantedWorld, type Plant, type PlantedWorldOptions } from './planted-world.js';
import {
  HOSTED_CLUSTER,
  hostedClusterMisclassified,
  hostedClusterReversed,
  hostedClusterWorld,
  SMALL,
  SMALL_MISCLASSIFIED,
  SMALL_REVERSED,
  smallWorld,
} from './planted-models.js';

const NONE: Plant = { kind: 'none' };

function decide(records: Iterable<AttemptRecord>, model = SMALL): ControllerDecisions {
  const analyzer = new Analyzer([model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  for (const r of records) analyzer.attempt(r);
  return decisionReport(analyzer, evidence, DEFAULT_THRESHOLDS).controllers[0]!;
}

/** Everything the report flags, as `kind:subject`. */
function flags(c: ControllerDecisions): string[] {
  return [
    ...c.comparison.operations
      .filter((o) => o.finding === 'worse-under-phased' || o.finding === 'better-under-phased')
      .map((o) => `${o.finding}:${o.operation}`),
    ...c.starvationComparison.operations.filter((o) => o.finding !== 'ok').map((o) => `${o.finding}:${o.operation}`),
    ...[...c.ordering.reordered, ...c.ordering.dependentOther].filter((p) => p.status === 'dependent').map((p) => `dependent:${p.first}→${p.then}`),
    ...c.groups.filter((g) => g.finding === 'should-be-critical').map((g) => `should-be-critical:${g.group}`),
  ].sort();
}

const world = (o: PlantedWorldOptions): AttemptRecord[] => [...plantedWorld(o)];
const outcomeOf = (r: AttemptRecord, op: string): string | undefined => r.operations.find((x) => x.name === op)?.outcome;

describe('planted worlds: the generator', () => {
  it('splits the fleet in halves, one per loop, reproducibly from the seed', () => {
    const records = world(smallWorld(1, NONE));
    const loopOf = new Map(records.map((r) => [r.object, r.loop]));
    assert.equal(loopOf.size, 24);
    assert.equal([...loopOf.values()].filter((l) => l === 'phased').length, 12);
    assert.deepEqual(world(smallWorld(1, NONE)).slice(0, 50), records.slice(0, 50));
    assert.notDeepEqual(world(smallWorld(2, NONE)).slice(0, 50), records.slice(0, 50));
    assert.ok(records.every((r, i) => i === 0 || r.timeMs >= records[i - 1]!.timeMs));
  });

  it('plants the reversed prerequisite only where the op runs first: under the phased loop', () => {
    const records = world(smallWorld(1, SMALL_REVERSED));
    const planted = (r: AttemptRecord): boolean => r.operations.some((x) => x.name === 'Report' && x.error === 'Report: Config has not run yet');
    assert.ok(records.filter((r) => r.loop === 'phased').filter(planted).length > 500);
    assert.equal(records.filter((r) => r.loop === 'sequential').filter(planted).length, 0);
  });

  it('plants the misclassification only where the loop goes on after the group failed', () => {
    const records = world(smallWorld(1, SMALL_MISCLASSIFIED));
    const planted = records.filter((r) => r.operations.some((x) => x.error === 'Config: Secrets failed'));
    assert.ok(planted.length > 20);
    assert.ok(planted.every((r) => r.loop === 'phased' && outcomeOf(r, 'Secret') === 'error'));
    // The sequential loop stops at Secret's failure, before Config.
    assert.ok(records.filter((r) => r.loop === 'sequential' && outcomeOf(r, 'Secret') === 'error').every((r) => outcomeOf(r, 'Config') === undefined));
  });
});

describe('decisions on planted worlds: the small model', () => {
  for (const seed of [11, 12, 13]) {
    it(`seed ${seed}: the null world is never not-ready and has no flags`, () => {
      const c = decide(world(smallWorld(seed, NONE)));
      assert.notEqual(c.verdict.status, 'not-ready');
      assert.deepEqual(flags(c), []);
    });

    it(`seed ${seed}: the reversed prerequisite is named worse under the phased loop, with its prerequisite, and no group is flagged`, () => {
      const c = decide(world(smallWorld(seed, SMALL_REVERSED)));
      assert.deepEqual(flags(c), ['worse-under-phased:Report']);
      assert.equal(c.verdict.status, 'not-ready');
      assert.deepEqual(
        c.verdict.reasons.filter((r) => r.status === 'not-ready').map((r) => r.kind),
        ['worse-under-phased'],
      );
      const report = c.comparison.operations[0]!;
      assert.equal(report.operation, 'Report');
      assert.ok(report.suspects.some((s) => s.op === 'Config' && s.movement === 'now-after'));
      assert.deepEqual(
        c.rollout.fixFirst.map((f) => `${f.kind}:${f.subject}`),
        ['worse-under-phased:Report'],
      );
      // Benefits are credited only where the op would have succeeded, and never behind or of the failing op.
      assert.ok(c.verdict.benefit.fromWorseOps > 0);
      assert.equal(c.verdict.benefit.creditedOpRuns + c.verdict.benefit.wouldFail + c.verdict.benefit.fromWorseOps, c.verdict.benefit.unblockedOpRuns);
    });

    it(`seed ${seed}: the misclassified group is flagged, and nothing else`, () => {
      const c = decide(world(smallWorld(seed, SMALL_MISCLASSIFIED)));
      assert.deepEqual(flags(c), ['dependent:Secret→Config', 'should-be-critical:Secrets']);
      assert.equal(c.verdict.status, 'not-ready');
      assert.deepEqual(
        c.rollout.steps.filter((s) => s.action === 'keep-critical').map((s) => s.group),
        ['Secrets'],
      );
    });
  }

  it('a 30-attempt world is inconclusive, whatever was planted: first the attempts it lacks, and how many more', () => {
    for (const plant of [NONE, SMALL_REVERSED, SMALL_MISCLASSIFIED]) {
      const records = world(smallWorld(11, plant)).slice(0, 30);
      const c = decide(records);
      assert.equal(c.verdict.status, 'inconclusive', plant.kind);
      const phased = records.filter((r) => r.loop === 'phased').length;
      assert.equal(c.verdict.reasons[0]!.kind, 'too-few-attempts');
      assert.equal(c.verdict.reasons[0]!.message, `${phased} attempts ran the phased loop (1,000 needed: ${(1000 - phased).toLocaleString('en-US')} more)`);
      assert.deepEqual(
        c.verdict.reasons.slice(0, 2).map((r) => r.kind),
        ['too-few-attempts', 'too-few-objects'],
      );
      // A few minutes of data cover few hours of the day: coverage holds back ready too, after the gates.
      assert.ok(c.verdict.reasons.some((r) => r.kind === 'hours-not-covered'));
      assert.ok(c.verdict.reasons.every((r) => r.status === 'inconclusive'));
    }
  });

  it('counts exactly: the sequential loop’s runs and failures of Report, recounted from the journal', () => {
    const records = world(smallWorld(11, SMALL_REVERSED));
    // Sequential attempts that reached Report ran everything before it without error, so the phased loop (which runs
    // Report after the fail-fast steps and Core) would run it too: each is a run of both loops, counted when the
    // object's previous Report was not an error.
    const last = new Map<string, string>();
    let runs = 0;
    let failures = 0;
    for (const r of records.filter((x) => x.loop === 'sequential')) {
      const outcome = outcomeOf(r, 'Report');
      if (outcome === undefined) continue;
      if (last.get(r.object) !== 'error') {
        runs++;
        if (outcome === 'error') failures++;
      }
      last.set(r.object, outcome);
    }
    const report = decide(records).comparison.operations.find((o) => o.operation === 'Report')!;
    assert.deepEqual([report.sequential.runs, report.sequential.failures], [runs, failures]);
    assert.equal(report.sequential.objects, 12);
  });
});

describe('decisions on planted worlds: the HostedCluster model', () => {
  const reversed = hostedClusterReversed(HOSTED_CLUSTER);
  const misclassified = hostedClusterMisclassified(HOSTED_CLUSTER);

  for (const seed of [21, 22]) {
    it(`seed ${seed}: the null world is never not-ready and has no flags`, () => {
      const c = decide(world(hostedClusterWorld(seed, NONE)), HOSTED_CLUSTER);
      assert.notEqual(c.verdict.status, 'not-ready');
      assert.deepEqual(flags(c), []);
    });

    it(`seed ${seed}: the reversed prerequisite (${reversed.op} before ${reversed.prerequisite}) is named, no group is flagged`, () => {
      const c = decide(world(hostedClusterWorld(seed, reversed)), HOSTED_CLUSTER);
      assert.equal(c.verdict.status, 'not-ready');
      assert.deepEqual(flags(c), [`worse-under-phased:${reversed.op}`]);
      const op = c.comparison.operations.find((o) => o.operation === reversed.op)!;
      assert.ok(op.suspects.some((s) => s.op === reversed.prerequisite && s.movement === 'now-after'));
    });

    it(`seed ${seed}: the misclassified group (${misclassified.group}) is flagged`, () => {
      const c = decide(world(hostedClusterWorld(seed, misclassified)), HOSTED_CLUSTER);
      assert.equal(c.verdict.status, 'not-ready');
      assert.deepEqual(
        c.groups.filter((g) => g.finding === 'should-be-critical').map((g) => g.group),
        [misclassified.group],
      );
      assert.deepEqual(
        flags(c).filter((f) => !f.startsWith('dependent:')),
        [`should-be-critical:${misclassified.group}`],
      );
    });
  }
});
