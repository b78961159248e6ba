/**
 * Decisions on the simulator's seeded ground-truth world (a second, independent source of planted truths beside
 * planted-world.ts), observed on the phased loop only, as a canary fleet without a baseline would be:
 * - faults: pull secret missing (GetPullSecretBytes + PullSecretSync fail together), global config missing
 *   (GlobalConfigSync), SSH key missing (SSHKeySync), CPO deployment conflicts (ControlPlaneOperator);
 * - truth 1 (ordering): RestoredFromBackup fails whenever PullSecretSync failed earlier in the attempt, which only
 *   the phased order (PullSecretSync first) makes possible;
 * - truth 2 (classification): HostedControlPlane fails whenever the non-critical GlobalConfigSync failed.
 * Only verdicts, findings and flagged sets are asserted: the built-in model follows upstream and its details move.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { ControllerDecisions } from '../../../analyzer/decisions/decide.js';
import { resolveModel } from '../../../sidecar/files.js';
import { HYPERSHIFT_GROUND_TRUTH, scenarioAttempts } from '../../../simulator/scenarios.js';
import { World } from '../../../simulator/world.js';
import { REPO } from '../../support/paths.js';
import { decide, groundTruthAttempts, HYPERSHIFT } from './ground-truth.js';

const label = (p: { first: string; then: string }): string => `${p.first} → ${p.then}`;

describe('decisions on the seeded ground-truth world (phased loop only)', function () {
  // simulated fleets of tens of thousands of attempts, analyzed and decided
  this.timeout(60_000);
  let c: ControllerDecisions;
  before(() => {
    c = decide(HYPERSHIFT, groundTruthAttempts()).controllers[0]!;
  });

  it('the world carries the planted truths, and only in the order that exposes them', () => {
    const records = groundTruthAttempts();
    const outcome = (r: (typeof records)[number], op: string): string | undefined => r.operations.find((o) => o.name === op)?.outcome;
    const pullSecretThenRestore = records.filter((r) => outcome(r, 'PullSecretSync') === 'error' && outcome(r, 'RestoredFromBackup') !== undefined);
    assert.ok(pullSecretThenRestore.length > 100);
    assert.ok(pullSecretThenRestore.every((r) => outcome(r, 'RestoredFromBackup') === 'error'));
    assert.ok(records.every((r) => outcome(r, 'RestoredFromBackup') !== 'error' || outcome(r, 'PullSecretSync') === 'error'));
    assert.ok(records.every((r) => outcome(r, 'HostedControlPlane') !== 'error' || outcome(r, 'GlobalConfigSync') === 'error'));
    assert.ok(records.some((r) => outcome(r, 'HostedControlPlane') === 'error'));
    const sequential = [...scenarioAttempts(HYPERSHIFT, HYPERSHIFT_GROUND_TRUTH, { objects: 4, durationMs: 6 * 3_600_000, seed: 1, observe: 'sequential' })];
    assert.ok(sequential.every((r) => outcome(r, 'RestoredFromBackup') !== 'error'));
  });

  it('finds the reordered pair that depends on its order, and the dependence behind the classification check', () => {
    assert.deepEqual(c.ordering.reordered.filter((p) => p.status === 'dependent').map(label), ['PullSecretSync → RestoredFromBackup']);
    assert.ok(c.ordering.reordered.every((p) => p.loop === 'phased'));
    assert.ok(c.ordering.dependentOther.some((p) => label(p) === 'GlobalConfigSync → HostedControlPlane' && p.loop === 'phased'));
    // Inconclusive pairs are so for lack of data only.
    assert.ok(c.ordering.reordered.filter((p) => p.status === 'inconclusive').every((p) => p.table.a + p.table.b < c.thresholds.minFailedObservations));
  });

  it('flags the non-critical group whose failure causes downstream failures, and no other', () => {
    assert.deepEqual(
      c.groups.filter((g) => g.finding === 'should-be-critical').map((g) => g.group),
      ['GlobalConfigSync'],
    );
    // Critical groups are never flagged: they block as the sequential loop stops.
    assert.ok(c.groups.filter((g) => g.category === 'critical').every((g) => g.finding === 'ok'));
  });

  it('says not-ready for the harm, not for work the design blocks, and that nothing could be compared', () => {
    assert.equal(c.verdict.status, 'not-ready');
    assert.deepEqual(
      c.verdict.reasons.filter((r) => r.status === 'not-ready').map((r) => r.kind),
      ['reordered-dependence', 'non-critical-downstream'],
    );
    assert.match(c.verdict.reasons[0]!.message, /^RestoredFromBackup depends on PullSecretSync failing earlier/);
    assert.ok(c.verdict.reasons.some((r) => r.kind === 'no-baseline' && r.status === 'inconclusive'));
    // The phased loop blocks CLISecrets behind failed critical groups: time it waits, by design, and not harm.
    const cli = c.starvationComparison.operations.find((o) => o.operation === 'CLISecrets')!;
    assert.ok(cli.byDesignShare > 0 && cli.byDesignShare === cli.phasedShare);
    assert.equal(cli.finding, 'ok');
    assert.ok(c.verdict.newlyBlockedAttempts > 0);
  });

  it('plans the rollout without the flagged group and without moves that free nothing', () => {
    assert.deepEqual(
      c.rollout.steps.filter((s) => s.action === 'keep-critical').map((s) => s.group),
      ['GlobalConfigSync'],
    );
    const moves = c.rollout.steps.filter((s) => s.action === 'move');
    assert.ok(moves.length > 0);
    assert.ok(moves.every((s) => s.frees.ops > 0));
    assert.deepEqual(
      moves.map((s) => s.step),
      moves.map((_, i) => i + 1),
    );
    assert.equal(c.rollout.fixFirst.map((f) => f.subject).join(), 'PullSecretSync → RestoredFromBackup');
  });

  it('says inconclusive on the first 10 attempts of the same world, the missing attempts first', () => {
    const ten = decide(HYPERSHIFT, groundTruthAttempts().slice(0, 10)).controllers[0]!;
    assert.equal(ten.verdict.status, 'inconclusive');
    assert.deepEqual(ten.verdict.reasons[0], {
      kind: 'too-few-attempts',
      rule: 'data-size',
      status: 'inconclusive',
      early: false,
      message: '10 attempts ran the phased loop (1,000 needed: 990 more)',
    });
    assert.ok(ten.ordering.reordered.every((p) => p.status === 'inconclusive'));
    assert.equal(ten.ordering.tested, 0);
  });
});

describe('decisions on sequential-only data (the review’s step 0)', function () {
  // simulated fleets of tens of thousands of attempts, analyzed and decided
  this.timeout(60_000);
  it('is inconclusive, first because no attempt ran the phased loop', () => {
    const c = decide(
      HYPERSHIFT,
      scenarioAttempts(HYPERSHIFT, HYPERSHIFT_GROUND_TRUTH, { objects: 10, durationMs: 6 * 3_600_000, seed: 1, observe: 'sequential' }),
    ).controllers[0]!;
    assert.equal(c.verdict.status, 'inconclusive');
    assert.equal(c.verdict.reasons[0]!.kind, 'no-phased-attempts');
    assert.ok(c.ordering.reordered.every((p) => p.status === 'inconclusive'));
    assert.ok(c.verdict.reasons.every((r) => r.status === 'inconclusive'));
  });
});

describe('decisions on a healthy candidate (the database operator example, half the fleet on each loop)', function () {
  // simulated fleets of tens of thousands of attempts, analyzed and decided
  this.timeout(60_000);
  it('says ready when every op fails the same under both loops and the non-critical failures are judged', () => {
    const model = resolveModel(join(REPO, 'examples/database-operator/model.yaml'));
    const faults = [
      {
        name: 'backup-bucket-missing',
        onsetPerHour: 0.1,
        meanMinutes: 30,
        effects: [{ op: 'EnsureBackupSchedule', outcome: 'error' as const, cause: 'bucket "{name}-backups" not found' }],
      },
      {
        name: 'status-conflict',
        onsetPerHour: 0.2,
        meanMinutes: 1,
        effects: [{ op: 'UpdateStatus', outcome: 'error' as const, cause: 'the object has been modified' }],
      },
    ];
    const world = new World({ model, objects: 120, durationMs: 30 * 3_600_000, seed: 3, observe: 'mixed', faults, transientErrorRate: 0 });
    const c = decide(model, world.attempts()).controllers[0]!;
    assert.deepEqual(c.verdict.reasons, []);
    assert.equal(c.verdict.status, 'ready');
    assert.ok(c.verdict.benefit.creditedOpRuns > 0);
    assert.ok(c.comparison.operations.every((o) => o.finding === 'same'));
    assert.deepEqual(
      c.groups.map((g) => `${g.group}:${g.finding}`),
      ['Credentials:ok', 'Workload:ok', 'Backups:ok', 'Status:ok'],
    );
    // Status runs after Backups whatever Backups' category, and nothing runs after Status: neither move frees anything.
    assert.deepEqual(c.rollout.steps, []);
    assert.deepEqual(
      c.rollout.notProposed.map((n) => n.group),
      ['Backups', 'Status'],
    );
  });
});
