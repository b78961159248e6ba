import assert from 'node:assert/strict';
import { ErrorMapper, NonOperationErrors, parseLogSummary, parseReconcileError } from '../../collector/error-mapping.js';
import { HYPERSHIFT_OPERATOR } from '../../collector/operator-loop.js';
import { resolveModel } from '../../sidecar/files.js';
import type { ReconcileModel } from '../../model/types.js';

const model = resolveModel('hypershift-hostedcluster');
const builtin = new ErrorMapper(model);
const ops = (mapper: ErrorMapper, message: string): string[] => mapper.map(message).map((m) => m.operation);

/** A model of two operations with the given formats, to pin one ranking rule at a time. */
function twoOps(a: string, b: string): ErrorMapper {
  const model: ReconcileModel = {
    name: 't',
    controller: 't',
    operations: [
      { name: 'A', errors: [{ format: a }] },
      { name: 'B', errors: [{ format: b }] },
    ],
    phased: [
      { kind: 'op', op: 'A' },
      { kind: 'op', op: 'B' },
    ],
  };
  return new ErrorMapper(model);
}

describe('ErrorMapper: a message to the operations whose outermost format matches it', () => {
  it('maps a wrapped chain to its outermost format, not to the format with the most literal text', () => {
    // B has more literal characters, but its %s swallows the outer layer of the chain
    const mapper = twoOps('failed to reconcile hostedcontrolplane: %w', 'failed to reconcile %s secret provider class: %w');
    assert.deepEqual(ops(mapper, 'failed to reconcile hostedcontrolplane: failed to reconcile kms secret provider class: secrets "kms" not found'), ['A']);
    assert.deepEqual(ops(mapper, 'failed to reconcile kms secret provider class: secrets "kms" not found'), ['B']);
    const chain = 'failed to reconcile hostedcontrolplane: failed to reconcile control plane operator secret provider class: secrets "kms" not found';
    assert.deepEqual(ops(builtin, chain), ['HostedControlPlane']);
  });

  it('returns every operation whose format describes the text, however specific: the text alone does not say which', () => {
    // the phased CPO step wraps DefaultIngressDomain's error; ControlPlaneOperator's own format describes it too
    const message = 'failed to reconcile control plane operator: failed to determine default ingress domain: ingresses.config.openshift.io "cluster" not found';
    assert.deepEqual(ops(builtin, message), ['DefaultIngressDomain', 'ControlPlaneOperator']);
    assert.deepEqual(ops(builtin, 'failed to reconcile control plane operator: deployments.apps "control-plane-operator" is forbidden'), ['ControlPlaneOperator']);
    // legacy: the SecretNotFound gate returns the condition's message, which PayloadArch's own error can also be
    assert.deepEqual(ops(builtin, 'pull secret unavailable: expected .dockerconfigjson key in secret "pull-secret"'), ['PayloadArch', 'ValidationGates']);
    const mapper = twoOps('failed to reconcile %s: %w', 'failed to reconcile %s secret provider class: %w');
    assert.deepEqual(ops(mapper, 'failed to reconcile kms secret provider class: boom'), ['A', 'B']);
  });

  it('keeps, per operation, its most specific matching format (the variant decides its effect)', () => {
    const matches = builtin.map('failed to reconcile platform credentials: secrets "creds" not found, failed to update status: conflict');
    assert.deepEqual(
      matches.map((m) => [m.operation, m.format.format]),
      [['PlatformCredentials', 'failed to reconcile platform credentials: %w, failed to update status: %w']],
    );
  });

  it('returns every operation of a format several share, with the format that matched', () => {
    const sharing = (format: string): string[] => model.operations.filter((o) => o.errors.some((f) => f.format === format)).map((o) => o.name);
    const matches = builtin.map('failed to update status: context deadline exceeded');
    assert.deepEqual(
      matches.map((m) => [m.operation, m.format.format]),
      sharing('failed to update status: %w').map((op) => [op, 'failed to update status: %w']),
    );
    assert.ok(matches.length >= 2);
    const referenced = sharing('failed to set referenced resource annotation: %w');
    assert.ok(referenced.length >= 6 && referenced.includes('PullSecretSync') && referenced.includes('SecretEncryptionSync'));
    assert.deepEqual(ops(builtin, 'failed to set referenced resource annotation: secrets "x" not found'), referenced);
  });

  it('maps nothing for an unwrapped callee error, and reads %% as a literal percent', () => {
    assert.deepEqual(builtin.map('secrets "pull-secret" not found'), []);
    assert.deepEqual(ops(twoOps('at 100%% of %s', 'at %d percent'), 'at 100% of quota'), ['A']);
  });

  it("splits an aggregate's text where a known format begins, keeping an element's own commas", () => {
    const a = 'failed to reconcile network policies: [a, b]';
    const b = 'failed to reconcile controlplane SSHKey secret: x, y';
    assert.deepEqual(builtin.splitAggregate(`[${a}, ${b}]`), [a, b]);
    assert.deepEqual(builtin.splitAggregate('not an aggregate'), ['not an aggregate']);
  });

  it('takes apart aggregate() and logSummary() texts', () => {
    const [e1, e2] = ['failed to get pull secret: x', 'failed to get pull secret clusters/ps: y'];
    assert.deepEqual(parseReconcileError(`critical error: [${e1}, ${e2}]; blocked operations: [A, B]`, builtin), { critical: true, errors: [e1, e2], blocked: ['A', 'B'] });
    assert.deepEqual(parseReconcileError('critical error: failed to parse release image version: x', builtin), { critical: true, errors: ['failed to parse release image version: x'] });
    assert.deepEqual(parseReconcileError('failed to reconcile network policies: x', builtin), { critical: false, errors: ['failed to reconcile network policies: x'] });
    assert.deepEqual(parseLogSummary('critical failures: [PullSecretSync]; blocked operations: [X, Y]'), { critical: ['PullSecretSync'], blocked: ['X', 'Y'] });
  });
});

describe('NonOperationErrors: errors that are no operation’s, by shape', () => {
  const nonOperation = new NonOperationErrors(HYPERSHIFT_OPERATOR.nonOperationErrors);

  it("recognises the Reconcile() wrapper's status-update conflict and Get, not an operation's own conflicts", () => {
    assert.equal(nonOperation.matches('Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io "hc-1": the object has been modified; please apply your changes to the latest version and try again'), true);
    assert.equal(nonOperation.matches('failed to get cluster "clusters/hc-1": context deadline exceeded'), true);
    assert.equal(nonOperation.matches('hostedclusters.hypershift.openshift.io "hc-1" not found'), true);
    assert.equal(nonOperation.matches('Operation cannot be fulfilled on secrets "hc-1-kubeconfig": the object has been modified'), false);
    assert.equal(nonOperation.matches('failed to update status: Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io "hc-1": the object has been modified'), false);
  });
});
