/**
 * Done when: on a seeded world with two planted truths the decisions find both, call every other pair and group
 * safe, consistent or inconclusive for the right reason (exact sets), and say `inconclusive` on 10 attempts.
 *
 * The world (simulator/scenarios.ts, HYPERSHIFT_GROUND_TRUTH), observed on the phased loop:
 * - faults: pull secret missing (GetPullSecretBytes + PullSecretSync fail together), global config missing
 *   (GlobalConfigSync), SSH key missing (SSHKeySync), CPO deployment conflicts (ControlPlaneOperator);
 * - truth 1 (ordering): RestoredFromBackup fails whenever PullSecretSync failed earlier in the attempt, which only
 *   the phased order (PullSecretSync first) makes possible;
 * - truth 2 (classification): HostedControlPlane fails whenever the non-critical GlobalConfigSync failed.
 * Nothing else depends on anything. Every expected set below follows from that list and the model, not from output.
 */
import { strict as assert } from 'node:assert';
import type { ControllerDecisions } from '../../../analyzer/decisions/report.js';
import { resolveModel } from '../../../model/load.js';
import { compileModel } from '../../../analyzer/compiled-model.js';
import { HYPERSHIFT_GROUND_TRUTH, scenarioAttempts } from '../../../simulator/scenarios.js';
import { World } from '../../../simulator/world.js';
import { join } from 'node:path';
import { REPO } from '../../support/paths.js';
import { decide, groundTruthAttempts, HYPERSHIFT } from './ground-truth.js';

const label = (p: { first: string; then: string }): string => `${p.first} → ${p.then}`;
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

describe('decisions on the seeded ground-truth world (done when)', () => {
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
    // The sequential loop runs RestoredFromBackup before PullSecretSync: the same consequence never fires there.
    const sequential = [...scenarioAttempts(HYPERSHIFT, HYPERSHIFT_GROUND_TRUTH, { objects: 4, durationMs: 6 * 3_600_000, seed: 1, observe: 'sequential' })];
    assert.ok(sequential.every((r) => outcome(r, 'RestoredFromBackup') !== 'error'));
  });

  it('finds the reordered pair that depends on its order, and calls exactly the pairs with data safe', () => {
    const by = (status: string): string[] => sorted(c.ordering.reordered.filter((p) => p.status === status).map(label));
    assert.deepEqual(by('dependent'), ['PullSecretSync → RestoredFromBackup']);
    // The faulting ops that run first in a reordered pair whose second op still runs after their failure (the
    // critical PullSecretSync and CPOImageAndNamespace block MonitoringAndCLISecrets, so they say nothing about CLISecrets).
    assert.deepEqual(by('safe'), ['ControlPlaneOperator → ClusterPrometheusRBAC', 'HostedControlPlane → ReleaseImageVersion', 'SSHKeySync → CLISecrets']);
    const inconclusive = c.ordering.reordered.filter((p) => p.status === 'inconclusive');
    assert.equal(inconclusive.length, compileModel(HYPERSHIFT).invertedPairs.length - 4);
    // Inconclusive only for lack of data: never seen after the first op failed often enough.
    assert.ok(inconclusive.every((p) => p.table.a + p.table.b < c.thresholds.minFailedObservations), 'an inconclusive pair had enough data');
    // The two with their first op failing often, but whose second op is blocked by the failure that follows it.
    assert.deepEqual(sorted(inconclusive.filter((p) => p.followsFailure && p.firstFailureRuns >= 10).map(label)), ['GlobalConfigSync → CLISecrets', 'RestoredFromBackup → CLISecrets']);
  });

  it('finds the dependence behind the classification check among pairs both loops run in the same order', () => {
    // GetPullSecretBytes fails together with PullSecretSync (one fault), so the data cannot tell them apart.
    assert.deepEqual(sorted(c.ordering.dependentSameOrder.map(label)), ['GetPullSecretBytes → PullSecretSync', 'GetPullSecretBytes → RestoredFromBackup', 'GlobalConfigSync → HostedControlPlane']);
  });

  it('flags the non-critical group whose failure causes downstream failures, and judges the rest', () => {
    const by = (status: string): string[] => sorted(c.groups.filter((g) => g.status === status).map((g) => g.group));
    assert.deepEqual(by('candidate-critical'), ['GlobalConfigSync']);
    // CoreHCPChain fails (through truth 2) and nothing that still runs after it fails.
    assert.deepEqual(by('candidate-non-critical'), ['CoreHCPChain']);
    // Critical groups with dependence stay critical; non-critical groups that failed with no dependence; and
    // PublicEndpointExposed, after which nothing runs.
    assert.deepEqual(by('consistent'), ['CPOImageAndNamespace', 'OperatorDeployments', 'PublicEndpointExposed', 'PullSecretSync', 'RestoredFromBackup', 'SSHKeySync']);
    const inconclusive = c.groups.filter((g) => g.status === 'inconclusive');
    assert.equal(inconclusive.length, c.groups.length - 8);
    assert.ok(inconclusive.every((g) => g.failureRuns === 0), 'only groups that never failed are inconclusive');
  });

  it('says not-ready, with the harm first', () => {
    assert.equal(c.verdict.status, 'not-ready');
    assert.deepEqual(
      c.verdict.reasons.map((r) => `${r.status}:${r.kind}`),
      // CLISecrets ran in the sequential loop before the CoreHCPChain failure that blocks it in the phased loop.
      ['not-ready:newly-blocked', 'not-ready:reordered-dependence', 'not-ready:non-critical-downstream', 'inconclusive:window-too-short', 'inconclusive:pair-not-judged'],
    );
    // Every CoreHCPChain failure (GlobalConfigSync stops the sequential loop after CLISecrets ran) and nothing else,
    // but where the pull-secret fault was active too: it stops the sequential loop at GetPullSecretBytes, before CLISecrets.
    const core = c.groups.find((g) => g.group === 'CoreHCPChain')!;
    const failed = (r: { operations: readonly { name: string; outcome: string }[] }, op: string): boolean => r.operations.some((o) => o.name === op && o.outcome === 'error');
    const both = groundTruthAttempts().filter((r) => failed(r, 'HostedControlPlane') && failed(r, 'GetPullSecretBytes')).length;
    assert.equal(c.verdict.newlyBlockedAttempts, core.failedAttempts - both);
    assert.match(c.verdict.reasons[0]!.message, new RegExp(`most often CLISecrets \\(${(core.failedAttempts - both).toLocaleString('en-US')}\\)$`));
    assert.match(c.verdict.reasons[1]!.message, /^RestoredFromBackup depends on PullSecretSync failing earlier/);
    assert.match(c.verdict.reasons[2]!.message, /^GlobalConfigSync is non-critical, but downstream failures follow its failures \(HostedControlPlane after GlobalConfigSync\)/);
  });

  it('plans the rollout: full evidence first by strength, then partial, then waits, then keep-critical', () => {
    const steps = c.rollout;
    assert.deepEqual(sorted(steps.filter((s) => s.action === 'move' && s.evidence === 'full').map((s) => s.group)), ['OperatorDeployments', 'PublicEndpointExposed', 'RestoredFromBackup', 'SSHKeySync']);
    assert.deepEqual(steps.filter((s) => s.evidence === 'partial').map((s) => s.group), ['CoreHCPChain']);
    assert.deepEqual(steps.filter((s) => s.action === 'keep-critical').map((s) => s.group), ['GlobalConfigSync']);
    const actions = steps.map((s) => (s.action === 'move' ? `move-${s.evidence}` : s.action));
    assert.deepEqual(actions, [...actions].sort((x, y) => ORDER.indexOf(x) - ORDER.indexOf(y)));
    const full = steps.filter((s) => s.evidence === 'full' && s.action === 'move');
    const judged = full.map((s) => c.groups.find((g) => g.group === s.group)!.judgedRuns);
    assert.deepEqual(judged, [...judged].sort((x, y) => y - x));
    assert.deepEqual(steps.filter((s) => s.action === 'move').map((s) => s.pr), ['PR 3', 'PR 4', 'PR 5', 'PR 6', 'PR 7']);
    assert.deepEqual(steps.map((s) => s.rank), steps.map((_, i) => i + 1));
    // SSHKeySync frees the most work of the full-evidence steps: everything after it in the sequential loop.
    const ssh = steps.find((s) => s.group === 'SSHKeySync')!;
    assert.ok(ssh.unblocked.ops > 0 && ssh.unblocked.top.length === 3);
  });

  it('says inconclusive on the first 10 attempts of the same world', () => {
    const ten = decide(HYPERSHIFT, groundTruthAttempts().slice(0, 10)).controllers[0]!;
    assert.equal(ten.verdict.status, 'inconclusive');
    assert.deepEqual(
      ten.verdict.reasons.map((r) => r.kind),
      ['too-few-attempts', 'too-few-objects', 'window-too-short', 'nothing-to-judge'],
    );
    assert.equal(ten.verdict.reasons[0]!.message, '10 attempts observed (1,000 needed)');
    assert.ok(ten.ordering.reordered.every((p) => p.status === 'inconclusive'));
    assert.equal(ten.ordering.tested, 0);
  });
});

describe('decisions on sequential-only data (the review’s step 0)', () => {
  it('is inconclusive and names the groups whose failures were never followed by anything', () => {
    const c = decide(HYPERSHIFT, scenarioAttempts(HYPERSHIFT, HYPERSHIFT_GROUND_TRUTH, { objects: 20, durationMs: 24 * 3_600_000, seed: 1, observe: 'sequential' })).controllers[0]!;
    assert.equal(c.verdict.status, 'inconclusive');
    assert.equal(c.ordering.tested, 0);
    assert.ok(c.ordering.reordered.every((p) => p.status === 'inconclusive'));
    // The groups whose own faults fire often enough (PullSecretSync is never reached: GetPullSecretBytes stops first).
    const notJudged = c.verdict.reasons.filter((r) => r.kind === 'group-not-judged').map((r) => r.message.split(' ')[0]);
    assert.deepEqual(sorted(notJudged as string[]), ['CPOImageAndNamespace', 'GlobalConfigSync', 'OperatorDeployments', 'SSHKeySync']);
    assert.ok(c.verdict.reasons.every((r) => r.status === 'inconclusive'));
  });
});

describe('decisions on a healthy candidate (the database operator example)', () => {
  it('says ready when the non-critical failures are judged and nothing is newly blocked or dependent', () => {
    const model = resolveModel(join(REPO, 'examples/database-operator/model.yaml'));
    const faults = [
      { name: 'backup-bucket-missing', onsetPerHour: 0.1, meanMinutes: 30, effects: [{ op: 'EnsureBackupSchedule', outcome: 'error' as const, cause: 'bucket "{name}-backups" not found' }] },
      { name: 'status-conflict', onsetPerHour: 0.2, meanMinutes: 1, effects: [{ op: 'UpdateStatus', outcome: 'error' as const, cause: 'the object has been modified' }] },
    ];
    const world = new World({ model, objects: 12, durationMs: 74 * 3_600_000, seed: 3, observe: 'phased', faults, transientErrorRate: 0 });
    const c = decide(model, world.attempts()).controllers[0]!;
    assert.deepEqual(c.verdict.reasons, []);
    assert.equal(c.verdict.status, 'ready');
    assert.equal(c.verdict.newlyBlockedOps, 0);
    assert.ok(c.verdict.unblockedOps > 0);
    assert.deepEqual(
      c.groups.map((g) => `${g.group}:${g.status}`),
      ['Credentials:inconclusive', 'Workload:inconclusive', 'Backups:consistent', 'Status:consistent'],
    );
    // Workload is critical and Backups blockable: the reordered pairs can never be seen, and never hold the verdict.
    assert.deepEqual(c.ordering.reordered.map((p) => `${label(p)}:${p.status}:${p.followsFailure}`), ['EnsureService → EnsureBackupSchedule:inconclusive:false', 'EnsureStatefulSet → EnsureBackupSchedule:inconclusive:false']);
    assert.deepEqual(c.rollout.map((s) => `${s.pr} ${s.group}`), ['PR 3 Backups', 'PR 4 Status']);
    assert.deepEqual(c.noiseFloor.operations.map((o) => o.op), ['UpdateStatus', 'EnsureBackupSchedule']);
  });
});

const ORDER = ['move-full', 'move-partial', 'wait', 'keep-critical'];
