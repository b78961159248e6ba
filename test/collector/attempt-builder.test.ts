import assert from 'node:assert/strict';
import { ErrorMapper } from '../../collector/error-mapping.js';
import { AttemptBuilder, type AttemptTexts, type BuiltAttempt } from '../../collector/attempt-builder.js';
import { resolveModel } from '../../model/load.js';
import type { GroupStep, LoopKind } from '../../model/types.js';
import {
  ALL_BLOCKED,
  CPO_ERROR,
  GRACE_PERIOD_ERROR,
  KUBECONFIG_STATUS_ERROR,
  PHASE_8B_BLOCKED,
  PULL_SECRET_BYTES_ERROR,
  PULL_SECRET_SYNC_ERROR,
  RELEASE_VERSION_ERROR,
  SHARED_FORMAT_ERROR,
  SSH_KEY_ERROR,
  UNWRAPPED_ERROR,
} from '../fixtures/logs/generate.js';

const model = resolveModel('hypershift-hostedcluster');
const builder = new AttemptBuilder(model, new ErrorMapper(model));
const HCP_ERROR = 'failed to reconcile hostedcontrolplane: Internal error occurred: admission webhook denied';

// Expectations are read from the model file, independently of the builder's own indexing.
const sequentialOps = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
const failFastOps = model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : []));
const groups = model.phased.filter((s): s is GroupStep => s.kind === 'group');
const opsOf = (...names: string[]): string[] => groups.filter((g) => names.includes(g.group)).flatMap((g) => g.ops);
const criticalGroups = groups.filter((g) => g.category === 'critical').map((g) => g.group);
const phasedOrder = model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : s.ops));
const before = (list: readonly string[], op: string): string[] => list.slice(0, list.indexOf(op));

function build(loop: LoopKind, texts: Partial<AttemptTexts>): BuiltAttempt {
  return builder.build(loop, builder.interpret({ success: false, ...texts }));
}

/** `name=outcome` in record order, errors with their message when they carry one. */
function outcomes(b: BuiltAttempt): string[] {
  return b.operations.map((o) => `${o.name}=${o.outcome}${o.error === undefined ? '' : `(${o.error})`}`);
}

/** The expected records in phased order: every listed op with its outcome. */
function inPhasedOrder(expected: Record<string, string>): string[] {
  return phasedOrder.filter((op) => op in expected).map((op) => `${op}=${expected[op]}`);
}

const okAll = (ops: readonly string[]): Record<string, string> => Object.fromEntries(ops.map((op) => [op, 'ok']));

describe('AttemptBuilder: what the end lines of one attempt prove', () => {
  describe('sequential loop', () => {
    it('successfully reconciled: every operation the sequential loop runs succeeded', () => {
      const b = build('sequential', { success: true });
      assert.deepEqual(outcomes(b), sequentialOps.map((op) => `${op}=ok`));
      assert.ok(!sequentialOps.includes('ManagedHSMVersionCheck'));
    });

    it('Reconciler error on X: the operations before X succeeded, X failed, nothing after it is stated', () => {
      const b = build('sequential', { error: SSH_KEY_ERROR });
      assert.deepEqual(outcomes(b), [...before(sequentialOps, 'SSHKeySync').map((op) => `${op}=ok`), `SSHKeySync=error(${SSH_KEY_ERROR})`]);
      assert.deepEqual(b.unmapped, []);
    });

    it("the Reconcile() wrapper's aggregate [err, statusErr] (zap's errorCauses): the operation's error counts, the rest is unmapped", () => {
      const b = build('sequential', { error: `[${KUBECONFIG_STATUS_ERROR}, ${UNWRAPPED_ERROR}]`, errorCauses: [KUBECONFIG_STATUS_ERROR, UNWRAPPED_ERROR] });
      assert.deepEqual(outcomes(b).slice(-1), [`KubeconfigStatus=error(${KUBECONFIG_STATUS_ERROR})`]);
      assert.equal(b.operations.length, sequentialOps.indexOf('KubeconfigStatus') + 1);
      assert.deepEqual(b.unmapped, [{ message: UNWRAPPED_ERROR, why: 'no_format', detail: 'no error format of model hypershift-hostedcluster matches' }]);
    });

    it('two operations in one legacy error, or a phased-loop text, state nothing and are reported', () => {
      const two = build('sequential', { error: `[${KUBECONFIG_STATUS_ERROR}, ${SSH_KEY_ERROR}]` });
      assert.deepEqual(two.operations, []);
      assert.deepEqual(
        two.unmapped.map((u) => [u.why, u.detail]),
        [
          ['inconsistent', "the sequential loop returns one operation's error, but this text maps to KubeconfigStatus, SSHKeySync"],
          ['inconsistent', "the sequential loop returns one operation's error, but this text maps to KubeconfigStatus, SSHKeySync"],
        ],
      );
      const critical = build('sequential', { error: `critical error: ${RELEASE_VERSION_ERROR}; blocked operations: [${PHASE_8B_BLOCKED}]` });
      assert.deepEqual(critical.operations, []);
      assert.deepEqual(critical.unmapped, [{ message: RELEASE_VERSION_ERROR, why: 'inconsistent', detail: 'a phased-loop "critical error:" text, but the observed loop is sequential' }]);
    });

    it('an unwrapped or shared-format error states nothing: the attempt has no operations', () => {
      const unwrapped = build('sequential', { error: UNWRAPPED_ERROR });
      assert.deepEqual(unwrapped.operations, []);
      assert.equal(unwrapped.unmapped[0]!.why, 'no_format');
      const shared = build('sequential', { error: SHARED_FORMAT_ERROR });
      assert.deepEqual(shared.operations, []);
      assert.deepEqual(shared.unmapped[0], {
        message: SHARED_FORMAT_ERROR,
        why: 'ambiguous',
        detail: 'error formats of several operations match equally: BubbleUpPreDeletionConds, Delete, PersistStatus',
      });
    });

    it('an operation the sequential loop does not run is refused as outside the loop', () => {
      // ManagedHSMVersionCheck (only: phased) returns its callee's error unwrapped; give it a format for this case.
      const withFormat = { ...model, operations: model.operations.map((o) => (o.name === 'ManagedHSMVersionCheck' ? { ...o, errors: [{ format: 'managed HSM version check failed: %w' }] } : o)) };
      const phasedOnly = new AttemptBuilder(withFormat, new ErrorMapper(withFormat));
      const b = phasedOnly.build('sequential', phasedOnly.interpret({ success: false, error: 'managed HSM version check failed: too old' }));
      assert.deepEqual(b.operations, []);
      assert.deepEqual(b.unmapped[0], { message: 'managed HSM version check failed: too old', why: 'outside_loop', detail: 'maps to ManagedHSMVersionCheck, which the sequential loop does not run' });
    });
  });

  describe('phased loop', () => {
    it('successfully reconciled: every operation placed in the phased loop succeeded', () => {
      const b = build('phased', { success: true });
      assert.deepEqual(outcomes(b), phasedOrder.map((op) => `${op}=ok`));
      assert.ok(phasedOrder.includes('ManagedHSMVersionCheck'));
    });

    it('a lone error on a fail-fast step: the fail-fast steps before it succeeded, nothing else is stated', () => {
      assert.deepEqual(outcomes(build('phased', { error: GRACE_PERIOD_ERROR })), [...before(failFastOps, 'ParseDestroyGracePeriod').map((op) => `${op}=ok`), `ParseDestroyGracePeriod=error(${GRACE_PERIOD_ERROR})`]);
      const status = build('phased', { error: KUBECONFIG_STATUS_ERROR });
      assert.deepEqual(outcomes(status), [...before(failFastOps, 'KubeconfigStatus').map((op) => `${op}=ok`), `KubeconfigStatus=error(${KUBECONFIG_STATUS_ERROR})`]);
    });

    it('no critical failure, [e1, e2]: the mapped operations failed and every other operation succeeded', () => {
      const b = build('phased', { summary: '', error: `[${SSH_KEY_ERROR}, ${CPO_ERROR}]` });
      assert.deepEqual(outcomes(b), inPhasedOrder({ ...okAll(phasedOrder), SSHKeySync: `error(${SSH_KEY_ERROR})`, ControlPlaneOperator: `error(${CPO_ERROR})` }));
      assert.deepEqual(b.unmapped, []);
    });

    it('the same without its summary line (sampled away): the aggregate alone says the same', () => {
      const b = build('phased', { error: `[${SSH_KEY_ERROR}, ${CPO_ERROR}]` });
      assert.deepEqual(outcomes(b), inPhasedOrder({ ...okAll(phasedOrder), SSHKeySync: `error(${SSH_KEY_ERROR})`, ControlPlaneOperator: `error(${CPO_ERROR})` }));
    });

    it('an unmapped element without a critical failure: critical groups succeeded, non-critical ones are unknown', () => {
      const b = build('phased', { summary: '', error: `[${SSH_KEY_ERROR}, ${UNWRAPPED_ERROR}]`, errorCauses: [SSH_KEY_ERROR, UNWRAPPED_ERROR] });
      assert.deepEqual(outcomes(b), inPhasedOrder({ ...okAll([...failFastOps, ...opsOf(...criticalGroups)]), SSHKeySync: `error(${SSH_KEY_ERROR})` }));
      assert.equal(b.unmapped.length, 1);
    });

    it("without zap's errorCauses an unformatted element reads as the tail of the element before it (the text's limit)", () => {
      const b = build('phased', { summary: '', error: `[${SSH_KEY_ERROR}, ${UNWRAPPED_ERROR}]` });
      assert.ok(outcomes(b).includes(`SSHKeySync=error(${SSH_KEY_ERROR}, ${UNWRAPPED_ERROR})`));
      assert.deepEqual(b.unmapped, []);
    });

    it('critical failures with the summary: failed critical groups, the others ok, blocked and non-critical groups left out', () => {
      const b = build('phased', {
        summary: `critical failures: [CPOImageAndNamespace, PullSecretSync]; blocked operations: [${ALL_BLOCKED}]`,
        error: `critical error: [${PULL_SECRET_BYTES_ERROR}, ${PULL_SECRET_SYNC_ERROR}]; blocked operations: [${ALL_BLOCKED}]`,
      });
      assert.deepEqual(
        outcomes(b),
        inPhasedOrder({
          ...okAll([...failFastOps, ...opsOf('PlatformCredentials', 'SecretEncryptionSync', 'CoreHCPChain', 'ReleaseImageVersion', 'ManagedHSMVersionCheck')]),
          // A chain group stops at its failing op: GetCPOImage and ControlPlaneNamespace did not run.
          GetPullSecretBytes: `error(${PULL_SECRET_BYTES_ERROR})`,
          PullSecretSync: `error(${PULL_SECRET_SYNC_ERROR})`,
        }),
      );
      assert.deepEqual(b.unmapped, []);
      assert.deepEqual(b.unknownNames, []);
    });

    it('a critical chain group fails midway: the ops before the failing one succeeded, the rest did not run', () => {
      const b = build('phased', { error: `critical error: ${HCP_ERROR}; blocked operations: [${ALL_BLOCKED}]` });
      const stated = outcomes(b).filter((o) => opsOf('CoreHCPChain').some((op) => o.startsWith(`${op}=`)));
      assert.deepEqual(stated, ['AutoscalerAndNTHNeeded=ok', `HostedControlPlane=error(${HCP_ERROR})`]);
      // Without the summary, a fully mapped critical text still names every failed critical group.
      assert.ok(outcomes(b).includes('PullSecretSync=ok'));
    });

    it('the summary alone (its Reconciler error sampled away): a failed one-op group is its op; nothing else is guessed', () => {
      const b = build('phased', { summary: `critical failures: [ReleaseImageVersion]; blocked operations: [${PHASE_8B_BLOCKED}]` });
      assert.deepEqual(
        outcomes(b),
        inPhasedOrder({ ...okAll([...failFastOps, ...opsOf(...criticalGroups.filter((g) => g !== 'ReleaseImageVersion'))]), ReleaseImageVersion: 'error' }),
      );
      const multi = build('phased', { summary: `critical failures: [CPOImageAndNamespace]; blocked operations: [${ALL_BLOCKED}]` });
      assert.ok(!outcomes(multi).some((o) => opsOf('CPOImageAndNamespace').some((op) => o.startsWith(`${op}=`))));
      const empty = build('phased', { summary: '' });
      assert.deepEqual(outcomes(empty), inPhasedOrder(okAll([...failFastOps, ...opsOf(...criticalGroups)])));
    });

    it('an unmapped critical error without the summary: which critical groups failed is unknown', () => {
      const b = build('phased', { error: `critical error: [${UNWRAPPED_ERROR}, ${PULL_SECRET_SYNC_ERROR}]; blocked operations: [${ALL_BLOCKED}]` });
      assert.deepEqual(outcomes(b), inPhasedOrder({ ...okAll(failFastOps), PullSecretSync: `error(${PULL_SECRET_SYNC_ERROR})` }));
    });

    it('a text at odds with its shape is reported and settles no group', () => {
      const b = build('phased', { summary: '', error: PULL_SECRET_SYNC_ERROR });
      assert.deepEqual(outcomes(b), inPhasedOrder(okAll(failFastOps)));
      assert.deepEqual(b.unmapped, [
        { message: PULL_SECRET_SYNC_ERROR, why: 'inconsistent', detail: 'PullSecretSync is in critical group PullSecretSync, whose failure would make the text "critical error: …"' },
      ]);
      const nonCritical = build('phased', { error: `critical error: ${SSH_KEY_ERROR}` });
      assert.equal(nonCritical.unmapped[0]!.detail, 'SSHKeySync is in non-critical group SSHKeySync, and a critical failure drops non-critical errors from the text');
      const failFast = build('phased', { summary: '', error: GRACE_PERIOD_ERROR });
      assert.equal(failFast.unmapped[0]!.detail, "ParseDestroyGracePeriod is a fail-fast step, whose error ends the attempt before the loop's end");
    });

    it('names in the blocked or critical lists that the model does not know are reported', () => {
      const b = build('phased', { summary: 'critical failures: [NoSuchGroup]; blocked operations: [Elsewhere]', error: `critical error: ${RELEASE_VERSION_ERROR}; blocked operations: [Elsewhere]` });
      assert.deepEqual(b.unknownNames, [
        { list: 'blocked operations', name: 'Elsewhere' },
        { list: 'critical failures', name: 'NoSuchGroup' },
      ]);
      assert.ok(outcomes(b).includes(`ReleaseImageVersion=error(${RELEASE_VERSION_ERROR})`));
    });
  });

  describe('loop evidence (auto)', () => {
    const evidence = (texts: Partial<AttemptTexts>, sampled = false): LoopKind | undefined => builder.loopEvidence(builder.interpret({ success: false, ...texts }), sampled);

    it('a summary line, a critical text or two failing operations exist only in the phased loop', () => {
      assert.equal(evidence({ summary: '' }), 'phased');
      assert.equal(evidence({ error: `critical error: ${RELEASE_VERSION_ERROR}` }), 'phased');
      assert.equal(evidence({ error: `[${SSH_KEY_ERROR}, ${CPO_ERROR}]` }), 'phased');
    });

    it('a lone error on an operation the phased loop runs in a group comes from the sequential loop, unless sampled', () => {
      assert.equal(evidence({ error: SSH_KEY_ERROR }), 'sequential');
      assert.equal(evidence({ error: SSH_KEY_ERROR }, true), undefined);
      assert.equal(evidence({ error: 'failed to reconcile network policies: boom' }), 'sequential');
    });

    it('a fail-fast error, an unmapped one or a clean run says nothing', () => {
      assert.equal(evidence({ error: KUBECONFIG_STATUS_ERROR }), undefined);
      assert.equal(evidence({ error: UNWRAPPED_ERROR }), undefined);
      assert.equal(evidence({ success: true }), undefined);
    });
  });
});
