import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ErrorMapper, NonOperationErrors, parseLogSummary, parseReconcileError } from '../../collector/readings/error-mapping.js';
import { HYPERSHIFT_OPERATOR } from '../../collector/hypershift/operator-loop.js';
import { resolveModel } from '../../sidecar/files.js';
import { formatsIn, inLoop } from '../../model/effects.js';
import type { LoopKind, ReconcileModel } from '../../model/types.js';
import { REPO } from '../support/paths.js';

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
    assert.deepEqual(ops(builtin, 'failed to reconcile control plane operator: deployments.apps "control-plane-operator" is forbidden'), [
      'ControlPlaneOperator',
    ]);
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
    assert.deepEqual(parseReconcileError(`critical error: [${e1}, ${e2}]; blocked operations: [A, B]`, builtin), {
      critical: true,
      errors: [e1, e2],
      blocked: ['A', 'B'],
    });
    assert.deepEqual(parseReconcileError('critical error: failed to parse release image version: x', builtin), {
      critical: true,
      errors: ['failed to parse release image version: x'],
    });
    assert.deepEqual(parseReconcileError('failed to reconcile network policies: x', builtin), {
      critical: false,
      errors: ['failed to reconcile network policies: x'],
    });
    assert.deepEqual(parseLogSummary('critical failures: [PullSecretSync]; blocked operations: [X, Y]'), { critical: ['PullSecretSync'], blocked: ['X', 'Y'] });
  });
});

describe('ErrorMapper.mapEach: every selection of formats mapped with one pass of the regexes', () => {
  /** The old way: one mapper per loop, of the model with only that loop's formats. */
  const loopOnly = (loop: LoopKind): ReconcileModel => ({ ...model, operations: model.operations.map((op) => ({ ...op, errors: formatsIn(op, loop) })) });
  const perLoop: Record<LoopKind, ErrorMapper> = { sequential: new ErrorMapper(loopOnly('sequential')), phased: new ErrorMapper(loopOnly('phased')) };
  const formats = model.operations.flatMap((o) => o.errors.map((f) => f.format));
  const fill = (format: string, value: string): string => format.replace(/%%/g, '%').replace(/%[-+# 0]*\d*(?:\.\d+)?[wvsqdxXtTfegp]/g, value);
  /** The real operators' error texts (not written by this project), and every format filled plainly and wrapped around another. */
  function messages(): string[] {
    const out = new Set<string>();
    for (const log of ['real/sequential.operator.log.gz', 'real/phased.operator.log.gz']) {
      for (const line of gunzipSync(readFileSync(join(REPO, 'test/fixtures/logs', log)))
        .toString('utf8')
        .split('\n')) {
        if (!line.startsWith('{')) continue;
        const { error } = JSON.parse(line) as { error?: unknown };
        if (typeof error === 'string') out.add(error);
      }
    }
    for (const [k, f] of formats.entries()) {
      out.add(fill(f, 'x'));
      out.add(fill(f, 'a: b'));
      out.add(fill(f, fill(formats[(k * 7 + 3) % formats.length]!, 'context deadline exceeded')));
    }
    return [...out];
  }

  it("equals one mapper per loop on the real operators' errors and on every format, wrapped and plain", () => {
    const all = messages();
    let matched = 0;
    for (const message of all) {
      const [sequential, phased] = builtin.mapEach(message, [(f) => inLoop(f, 'sequential'), (f) => inLoop(f, 'phased')]);
      assert.deepEqual(sequential, perLoop.sequential.map(message), message);
      assert.deepEqual(phased, perLoop.phased.map(message), message);
      assert.deepEqual(
        builtin.map(message, (f) => inLoop(f, 'phased')),
        phased,
        message,
      );
      if (sequential.length + phased.length > 0) matched++;
    }
    // the corpus exercises the mapping: most of it maps, and the real logs gave their own texts
    assert.ok(all.length > 3 * formats.length, `${all.length} messages`);
    assert.ok(matched > 2 * formats.length, `${matched} of ${all.length} mapped`);
  });

  it("picks the outermost reading among the selection's own formats: a swallowing one when only another loop has a plain one", () => {
    const m: ReconcileModel = {
      name: 't',
      controller: 't',
      operations: [
        { name: 'Secret', errors: [{ format: 'failed to reconcile %s secret: %w' }] },
        { name: 'HCP', errors: [{ format: 'failed to reconcile hostedcontrolplane: %w', only: 'phased' }] },
      ],
      phased: [
        { kind: 'op', op: 'Secret' },
        { kind: 'op', op: 'HCP' },
      ],
    };
    const message = 'failed to reconcile hostedcontrolplane: failed to reconcile kms secret: boom';
    const [sequential, phased] = new ErrorMapper(m).mapEach(message, [(f) => inLoop(f, 'sequential'), (f) => inLoop(f, 'phased')]);
    // the sequential loop has only Secret's format, whose %s swallows the outer layer: still its reading
    assert.deepEqual(
      sequential!.map((x) => x.operation),
      ['Secret'],
    );
    assert.deepEqual(
      phased!.map((x) => x.operation),
      ['HCP'],
    );
  });
});

describe('NonOperationErrors: errors that are no operation’s, by shape', () => {
  const nonOperation = new NonOperationErrors(HYPERSHIFT_OPERATOR.nonOperationErrors);

  it("recognises the Reconcile() wrapper's status-update conflict and Get, not an operation's own conflicts", () => {
    assert.equal(
      nonOperation.matches(
        'Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io "hc-1": the object has been modified; please apply your changes to the latest version and try again',
      ),
      true,
    );
    assert.equal(nonOperation.matches('failed to get cluster "clusters/hc-1": context deadline exceeded'), true);
    assert.equal(nonOperation.matches('hostedclusters.hypershift.openshift.io "hc-1" not found'), true);
    assert.equal(nonOperation.matches('Operation cannot be fulfilled on secrets "hc-1-kubeconfig": the object has been modified'), false);
    assert.equal(
      nonOperation.matches(
        'failed to update status: Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io "hc-1": the object has been modified',
      ),
      false,
    );
  });
});
