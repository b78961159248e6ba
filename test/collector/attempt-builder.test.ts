import assert from 'node:assert/strict';
import { AttemptBuilder } from '../../collector/readings/attempt-builder.js';
import type { AttemptTexts, BuiltAttempt } from '../../collector/readings/types.js';
import { HYPERSHIFT_OPERATOR } from '../../collector/hypershift/operator-loop.js';
import { resolveModel } from '../../sidecar/files.js';
import type { GroupStep, LoopKind, ReconcileModel } from '../../model/types.js';
import {
  ALL_BLOCKED,
  CPO_ERROR,
  GET_HCP_ERROR,
  GRACE_PERIOD_ERROR,
  KMS_ARN_ERROR,
  KUBECONFIG_STATUS_ERROR,
  PAYLOAD_ARCH_ERROR,
  PHASE_8B_BLOCKED,
  PULL_SECRET_BYTES_ERROR,
  PULL_SECRET_SYNC_ERROR,
  RELEASE_VERSION_ERROR,
  SHARED_FORMAT_ERROR,
  SSH_KEY_ERROR,
  SSH_KEY_GET_ERROR,
  UNWRAPPED_ERROR,
} from '../fixtures/logs/generate.js';
import { conflictText } from '../fixtures/logs/zap-writer.js';

const LOGGED = new Set(['PayloadArch', 'ValidationGates']);
const builderFor = (model: ReconcileModel): AttemptBuilder =>
  new AttemptBuilder(model, { nonOperationErrors: HYPERSHIFT_OPERATOR.nonOperationErrors, loggedContinues: LOGGED });
const model = resolveModel('hypershift-hostedcluster');
const builder = builderFor(model);
const HCP_ERROR = 'failed to reconcile hostedcontrolplane: Internal error occurred: admission webhook denied';
const CONFLICT = conflictText('alpha');

// Expectations are read from the model file, independently of the builder's own indexing.
const sequentialOps = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
const failFastOps = model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : []));
const groups = model.phased.filter((s): s is GroupStep => s.kind === 'group');
const opsOf = (...names: string[]): string[] => groups.filter((g) => names.includes(g.group)).flatMap((g) => g.ops);
const criticalGroups = groups.filter((g) => g.category === 'critical').map((g) => g.group);
const phasedOrder = model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : s.ops));
/** Fail-fast steps whose error the phased loop goes on after without a log line: no line says whether they failed. */
const silentInPhased = model.operations
  .filter((o) => !LOGGED.has(o.name) && failFastOps.includes(o.name) && [o.onError, ...o.errors.map((f) => f.onError)].some((e) => e?.phased === 'continue'))
  .map((o) => o.name);
const phasedClean = phasedOrder.filter((op) => !silentInPhased.includes(op));
const failFastClean = failFastOps.filter((op) => !silentInPhased.includes(op));
const before = (list: readonly string[], op: string): string[] => list.slice(0, list.indexOf(op));

function both(texts: Partial<AttemptTexts>, b = builder): Readonly<Record<LoopKind, BuiltAttempt>> {
  return b.buildBoth(b.interpret({ success: false, ...texts }));
}

const build = (loop: LoopKind, texts: Partial<AttemptTexts>, b = builder): BuiltAttempt => both(texts, b)[loop];

/** The loop only one reading fits, or `none` when both (or neither) fit. */
function proves(texts: Partial<AttemptTexts>, b = builder): LoopKind | 'none' {
  const { sequential, phased } = both(texts, b);
  return sequential.consistent === phased.consistent ? 'none' : sequential.consistent ? 'sequential' : 'phased';
}

/** `name=outcome` in record order, errors with their message when they carry one. */
function outcomes(b: BuiltAttempt): string[] {
  return b.operations.map((o) => `${o.name}=${o.outcome}${o.error === undefined ? '' : `(${o.error})`}`);
}

/** The expected records in phased order: every listed op with its outcome. */
function inPhasedOrder(expected: Record<string, string>, order: readonly string[] = phasedOrder): string[] {
  return order.filter((op) => op in expected).map((op) => `${op}=${expected[op]}`);
}

const okAll = (ops: readonly string[]): Record<string, string> => Object.fromEntries(ops.map((op) => [op, 'ok']));
const skipAll = (ops: readonly string[]): Record<string, string> => Object.fromEntries(ops.map((op) => [op, 'skip']));
const skipWhenBlocked = groups.filter((g) => g.skipWhenBlocked).map((g) => g.group);

describe('AttemptBuilder: what the lines of one attempt prove', () => {
  describe('sequential loop', () => {
    it('successfully reconciled: every operation the sequential loop runs succeeded', () => {
      const b = build('sequential', { success: true });
      assert.deepEqual(
        outcomes(b),
        sequentialOps.map((op) => `${op}=ok`),
      );
      assert.equal(b.consistent, true);
    });

    it('an error on X: the operations before X succeeded, X failed, nothing after it is stated', () => {
      const b = build('sequential', { error: SSH_KEY_ERROR });
      assert.deepEqual(outcomes(b), [...before(sequentialOps, 'SSHKeySync').map((op) => `${op}=ok`), `SSHKeySync=error(${SSH_KEY_ERROR})`]);
      assert.deepEqual(b.unmapped, []);
    });

    it("the Reconcile() wrapper's [err, conflict]: the operation's error counts, the conflict is never an outcome", () => {
      const b = build('sequential', { error: `[${KUBECONFIG_STATUS_ERROR}, ${CONFLICT}]`, errorCauses: [KUBECONFIG_STATUS_ERROR, CONFLICT] });
      assert.deepEqual(outcomes(b), [
        ...before(sequentialOps, 'KubeconfigStatus').map((op) => `${op}=ok`),
        `KubeconfigStatus=error(${KUBECONFIG_STATUS_ERROR})`,
      ]);
      assert.equal(b.nonOperation, 1);
      assert.deepEqual(b.unmapped, []);
    });

    it('a conflict after a clean run is one clean attempt; a conflict alone states nothing', () => {
      assert.deepEqual(
        outcomes(build('sequential', { success: true, error: CONFLICT, errorCauses: [CONFLICT] })),
        sequentialOps.map((op) => `${op}=ok`),
      );
      const alone = build('sequential', { error: CONFLICT, errorCauses: [CONFLICT] });
      assert.deepEqual([alone.operations, alone.consistent, alone.nonOperation], [[], true, 1]);
    });

    it('the gates\' silent stop ("reconciliation is blocked"): the operations before them succeeded, ValidationGates stopped', () => {
      const b = build('sequential', { progress: [{ op: 'ValidationGates', outcome: 'stop' }] });
      assert.deepEqual(outcomes(b), [...before(sequentialOps, 'ValidationGates').map((op) => `${op}=ok`), 'ValidationGates=stop']);
    });

    it('an unwrapped error states nothing; a shared format states only what every candidate agrees on', () => {
      const unwrapped = build('sequential', { error: UNWRAPPED_ERROR });
      assert.deepEqual([unwrapped.operations, unwrapped.unmapped[0]?.why], [[], 'no_format']);
      const shared = build('sequential', { error: SHARED_FORMAT_ERROR });
      // BubbleUpPreDeletionConds, Delete or PersistStatus: only the operations before the earliest are certain
      assert.deepEqual(
        outcomes(shared),
        before(sequentialOps, 'BubbleUpPreDeletionConds').map((op) => `${op}=ok`),
      );
      assert.equal(shared.ambiguous, true);
      assert.deepEqual(shared.unmapped, [
        {
          message: SHARED_FORMAT_ERROR,
          why: 'ambiguous',
          detail: "a format shared by BubbleUpPreDeletionConds, Delete, PersistStatus; the attempt's other lines do not say which",
        },
      ]);
      const kms = build('sequential', { error: KMS_ARN_ERROR });
      assert.deepEqual(
        outcomes(kms),
        before(sequentialOps, 'DereferenceAWSRoles').map((op) => `${op}=ok`),
        'DereferenceAWSRoles or KMSRoleARNFromSecret',
      );
    });

    it('two operations in one error, or a phased-only text, do not fit the sequential loop', () => {
      const two = build('sequential', { error: `[${KUBECONFIG_STATUS_ERROR}, ${SSH_KEY_ERROR}]` });
      assert.deepEqual(
        [two.consistent, two.operations, two.inconsistency],
        [false, [], "the sequential loop returns one operation's error, but the text carries errors of KubeconfigStatus, SSHKeySync"],
      );
      const critical = build('sequential', { error: `critical error: ${RELEASE_VERSION_ERROR}; blocked operations: [${PHASE_8B_BLOCKED}]` });
      assert.deepEqual(
        [critical.consistent, critical.inconsistency],
        [false, 'a phased-loop line (its summary, or "critical error: …") in a sequential attempt'],
      );
    });
  });

  describe('phased loop', () => {
    it('successfully reconciled: every operation placed in the phased loop succeeded', () => {
      assert.deepEqual(
        outcomes(build('phased', { success: true })),
        phasedClean.map((op) => `${op}=ok`),
      );
    });

    it('a lone error on a fail-fast step: the fail-fast steps before it succeeded, nothing else is stated', () => {
      assert.deepEqual(outcomes(build('phased', { error: GRACE_PERIOD_ERROR })), [
        ...before(failFastOps, 'ParseDestroyGracePeriod').map((op) => `${op}=ok`),
        `ParseDestroyGracePeriod=error(${GRACE_PERIOD_ERROR})`,
      ]);
      const status = build('phased', { error: KUBECONFIG_STATUS_ERROR });
      assert.deepEqual(outcomes(status), [
        ...before(failFastOps, 'KubeconfigStatus').map((op) => `${op}=ok`),
        `KubeconfigStatus=error(${KUBECONFIG_STATUS_ERROR})`,
      ]);
      // shared by GetHCP and PauseCheck: only what both readings agree on (nothing comes before GetHCP)
      assert.deepEqual(outcomes(build('phased', { error: GET_HCP_ERROR })), []);
    });

    it('no critical failure, [e1, e2] (no summary line: logSummary() is empty): the mapped ops failed, every other op succeeded', () => {
      const b = build('phased', { error: `[${SSH_KEY_GET_ERROR}, ${CPO_ERROR}]`, errorCauses: [SSH_KEY_GET_ERROR, CPO_ERROR] });
      assert.deepEqual(
        outcomes(b),
        inPhasedOrder({ ...okAll(phasedClean), SSHKeySync: `error(${SSH_KEY_GET_ERROR})`, ControlPlaneOperator: `error(${CPO_ERROR})` }),
      );
    });

    it("an unknown element without a critical failure is a non-critical group's: critical groups succeeded, non-critical ones are unknown", () => {
      const b = build('phased', { error: `[${SSH_KEY_GET_ERROR}, ${UNWRAPPED_ERROR}]`, errorCauses: [SSH_KEY_GET_ERROR, UNWRAPPED_ERROR] });
      assert.deepEqual(outcomes(b), inPhasedOrder({ ...okAll([...failFastClean, ...opsOf(...criticalGroups)]), SSHKeySync: `error(${SSH_KEY_GET_ERROR})` }));
    });

    it("an unknown lone error may be any step's: nothing is stated", () => {
      assert.deepEqual(build('phased', { error: UNWRAPPED_ERROR }).operations, []);
    });

    it('critical failures: the failed groups, the other critical groups ok, blocked and non-critical groups left out', () => {
      const b = build('phased', {
        summary: `critical failures: [CPOImageAndNamespace, PullSecretSync]; blocked operations: [${ALL_BLOCKED}]`,
        error: `critical error: [${PULL_SECRET_BYTES_ERROR}, ${PULL_SECRET_SYNC_ERROR}]; blocked operations: [${ALL_BLOCKED}]`,
      });
      assert.deepEqual(
        outcomes(b),
        inPhasedOrder({
          ...okAll([...failFastClean, ...opsOf('PlatformCredentials', 'SecretEncryptionSync', 'CoreHCPChain', 'ReleaseImageVersion')]),
          // it skips itself once a critical group has failed (skipWhenBlocked)
          ...skipAll(opsOf(...skipWhenBlocked)),
          // A chain group stops at its failing op: GetCPOImage and ControlPlaneNamespace did not run.
          GetPullSecretBytes: `error(${PULL_SECRET_BYTES_ERROR})`,
          PullSecretSync: `error(${PULL_SECRET_SYNC_ERROR})`,
        }),
      );
    });

    it('a critical chain group fails midway: the ops before the failing one succeeded, the rest did not run', () => {
      const b = build('phased', { error: `critical error: ${HCP_ERROR}; blocked operations: [${ALL_BLOCKED}]` });
      const stated = outcomes(b).filter((o) => opsOf('CoreHCPChain').some((op) => o.startsWith(`${op}=`)));
      assert.deepEqual(stated, ['AutoscalerAndNTHNeeded=ok', `HostedControlPlane=error(${HCP_ERROR})`]);
      assert.ok(outcomes(b).includes('PullSecretSync=ok'), 'a fully mapped critical text names every failed critical group');
    });

    it('the summary alone (its Reconciler error sampled away): a failed one-operation group is its operation', () => {
      const b = build('phased', { summary: `critical failures: [ReleaseImageVersion]; blocked operations: [${PHASE_8B_BLOCKED}]` });
      const others = criticalGroups.filter((g) => g !== 'ReleaseImageVersion' && !skipWhenBlocked.includes(g));
      assert.deepEqual(
        outcomes(b),
        inPhasedOrder({ ...okAll([...failFastClean, ...opsOf(...others)]), ...skipAll(opsOf(...skipWhenBlocked)), ReleaseImageVersion: 'error' }),
      );
      const multi = build('phased', { summary: `critical failures: [CPOImageAndNamespace]; blocked operations: [${ALL_BLOCKED}]` });
      assert.ok(!outcomes(multi).some((o) => opsOf('CPOImageAndNamespace').some((op) => o.startsWith(`${op}=`))));
    });

    it('a blocked list must be the blockable groups after the first critical failure', () => {
      const late = build('phased', { error: `critical error: ${RELEASE_VERSION_ERROR}; blocked operations: [${ALL_BLOCKED}]` });
      assert.deepEqual(
        [late.consistent, late.inconsistency],
        [false, `blocked groups [${ALL_BLOCKED}] are not the blockable groups after the first critical failure`],
      );
      assert.equal(build('phased', { error: `critical error: ${RELEASE_VERSION_ERROR}; blocked operations: [${PHASE_8B_BLOCKED}]` }).consistent, true);
    });

    it('a text at odds with its shape fits no reading: a critical group\'s error without "critical error:", a fail-fast step\'s in an aggregate', () => {
      const bare = build('phased', { error: PULL_SECRET_SYNC_ERROR });
      assert.deepEqual(
        [bare.consistent, bare.inconsistency],
        [false, 'PullSecretSync is in critical group PullSecretSync, whose failure would make the text "critical error: …"'],
      );
      const nonCritical = build('phased', { error: `critical error: ${SSH_KEY_GET_ERROR}` });
      assert.equal(nonCritical.inconsistency, 'SSHKeySync is in non-critical group SSHKeySync, and a critical failure drops non-critical errors from the text');
      const failFast = build('phased', { error: `[${GET_HCP_ERROR}, ${SSH_KEY_GET_ERROR}]`, errorCauses: [GET_HCP_ERROR, SSH_KEY_GET_ERROR] });
      assert.equal(failFast.inconsistency, "a fail-fast step's error or stop ends the phased loop at once; nothing else can be in its texts");
    });

    it('names in the blocked or critical lists that the model does not know are reported', () => {
      const b = build('phased', {
        summary: 'critical failures: [NoSuchGroup]; blocked operations: [Elsewhere]',
        error: `critical error: ${RELEASE_VERSION_ERROR}; blocked operations: [Elsewhere]`,
      });
      assert.deepEqual(b.unknownNames, [
        { list: 'blocked operations', name: 'Elsewhere' },
        { list: 'critical failures', name: 'NoSuchGroup' },
      ]);
    });
  });

  describe('shared formats are never credited to one operation silently', () => {
    const REFERENCED = 'failed to set referenced resource annotation: secrets "hc-1-etcd-encryption-key" not found';

    it('the summary names the failed critical group: the shared message is settled on it', () => {
      const b = build('phased', {
        summary: `critical failures: [SecretEncryptionSync]; blocked operations: [${ALL_BLOCKED}]`,
        error: `critical error: ${REFERENCED}; blocked operations: [${ALL_BLOCKED}]`,
      });
      assert.deepEqual([b.resolved, b.ambiguous], [true, false]);
      assert.ok(outcomes(b).includes(`SecretEncryptionSync=error(${REFERENCED})`));
      assert.ok(outcomes(b).includes('PullSecretSync=ok'));
    });

    it('without the summary the critical candidates stay open: neither is stated, what both readings agree on is', () => {
      const b = build('phased', { error: `critical error: ${REFERENCED}; blocked operations: [${ALL_BLOCKED}]` });
      assert.equal(b.ambiguous, true);
      assert.ok(!outcomes(b).some((o) => o.startsWith('PullSecretSync=') || o.startsWith('SecretEncryptionSync=')));
      assert.ok(outcomes(b).includes('PlatformCredentials=ok') && outcomes(b).includes('CAPICluster=ok'));
      assert.equal(b.unmapped[0]?.detail, "a format shared by PullSecretSync, SecretEncryptionSync; the attempt's other lines do not say which");
    });

    it('in a non-critical text the critical candidates are ruled out by the shape', () => {
      const b = build('phased', { error: REFERENCED });
      assert.deepEqual([b.ambiguous, b.consistent], [true, true]);
      assert.ok(
        outcomes(b).includes('PullSecretSync=ok') && outcomes(b).includes('SecretEncryptionSync=ok'),
        'a critical group that failed would have made the text critical',
      );
    });
  });

  describe('which loop the lines prove (auto)', () => {
    it('a summary line, a critical text or errors of two operations exist only in the phased loop', () => {
      assert.equal(proves({ summary: `critical failures: [ReleaseImageVersion]; blocked operations: [${PHASE_8B_BLOCKED}]` }), 'phased');
      assert.equal(proves({ error: `critical error: ${RELEASE_VERSION_ERROR}; blocked operations: [${PHASE_8B_BLOCKED}]` }), 'phased');
      assert.equal(proves({ error: `[${SSH_KEY_GET_ERROR}, ${CPO_ERROR}]`, errorCauses: [SSH_KEY_GET_ERROR, CPO_ERROR] }), 'phased');
    });

    it("an error and the wrapper's conflict are not two operations' errors: no proof", () => {
      assert.equal(proves({ error: `[${SSH_KEY_GET_ERROR}, ${CONFLICT}]`, errorCauses: [SSH_KEY_GET_ERROR, CONFLICT] }), 'none');
    });

    it('a critical group\'s error without "critical error:" can only be the sequential loop\'s', () => {
      assert.equal(proves({ error: PULL_SECRET_BYTES_ERROR }), 'sequential');
    });

    it('a lone error in a non-critical group, a fail-fast error, a clean run or a silent stop prove nothing', () => {
      assert.equal(proves({ error: SSH_KEY_GET_ERROR }), 'none');
      assert.equal(proves({ error: KMS_ARN_ERROR }), 'none');
      assert.equal(proves({ success: true }), 'none');
      assert.equal(proves({ progress: [{ op: 'ValidationGates', outcome: 'stop' }] }), 'none');
      assert.equal(proves({ error: UNWRAPPED_ERROR }), 'none');
    });

    const PULL_SECRET_UNAVAILABLE = 'pull secret unavailable: secrets "pull-secret" not found';

    it('per-loop effects from the model: an error the loop goes on after proves the loop where it does', () => {
      // PayloadArch fails, goes on (phased), and its consequence stops the loop at the gates
      assert.equal(
        proves({
          progress: [
            { op: 'PayloadArch', outcome: 'error', error: PAYLOAD_ARCH_ERROR },
            { op: 'ValidationGates', outcome: 'stop' },
          ],
        }),
        'phased',
      );
      // the SecretNotFound gate only logs in the phased loop, and returns the message in the legacy loop
      assert.equal(proves({ success: true, progress: [{ op: 'ValidationGates', outcome: 'error', error: PULL_SECRET_UNAVAILABLE }] }), 'phased');
      assert.equal(proves({ error: PULL_SECRET_UNAVAILABLE }), 'sequential');
      assert.equal(proves({ error: 'failed to lookup release image: context deadline exceeded' }), 'sequential');
      // a format only one loop writes (the legacy SSH key write's wrap)
      assert.equal(proves({ error: SSH_KEY_ERROR }), 'sequential');
    });

    it('an error the loop went on after is stated; an operation that may fail without a trace is left out', () => {
      const b = build('phased', { success: true, progress: [{ op: 'ValidationGates', outcome: 'error', error: PULL_SECRET_UNAVAILABLE }] });
      assert.deepEqual(outcomes(b), inPhasedOrder({ ...okAll(phasedClean), ValidationGates: `error(${PULL_SECRET_UNAVAILABLE})` }));
      const arch = build('phased', {
        progress: [
          { op: 'PayloadArch', outcome: 'error', error: PAYLOAD_ARCH_ERROR },
          { op: 'ValidationGates', outcome: 'stop' },
        ],
      });
      assert.deepEqual(outcomes(arch), [
        ...before(failFastOps, 'ValidationGates')
          .filter((op) => !silentInPhased.includes(op))
          .map((op) => `${op}=${op === 'PayloadArch' ? `error(${PAYLOAD_ARCH_ERROR})` : 'ok'}`),
        'ValidationGates=stop',
      ]);
      const sampled = build('phased', { success: true, incomplete: true });
      assert.ok(!outcomes(sampled).some((o) => o.startsWith('PayloadArch=') || o.startsWith('ValidationGates=')), 'its log line may be what was sampled away');
    });
  });
});
