/**
 * The PR #7908 scenarios on the built-in HyperShift model, with exact expected sets. Observed records are written
 * out operation by operation from the model's own order lists (data), never produced by the engine under test.
 */
import { strict as assert } from 'node:assert';
import type { AttemptRecord, OperationRecord } from '../../collector/records.js';
import { resolveModel } from '../../sidecar/files.js';
import type { Outcome } from '../../model/types.js';
import { ERROR } from '../../analyzer/compiled-model.js';
import { ControllerAnalyzer } from '../../analyzer/controller-analyzer.js';
import type { AttemptAnalysis } from '../../analyzer/engine.js';
import { BUILTIN_MODEL } from '../support/paths.js';

const model = resolveModel(BUILTIN_MODEL);
const sequentialOps = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
const phasedOps = model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : s.ops));
const groupOps = (group: string): string[] => model.phased.flatMap((s) => (s.kind === 'group' && s.group === group ? s.ops : []));
const BLOCKABLE = [
  'KubeconfigAndPasswordSync',
  'MonitoringAndCLISecrets',
  'OperatorDeployments',
  'PlatformOIDCAndCSI',
  'PublicEndpointExposed',
  'RBACAndPolicies',
];

/** An op's observed outcome: an outcome (an error gets a generic text), or an error with its exact text. */
type Observed = Outcome | { readonly error: string };

/** Ops in `order` up to and including `until`, all ok except the given outcomes, minus the skipped names. */
function ops(order: string[], outcomes: Record<string, Observed>, options: { until?: string; without?: string[] } = {}): OperationRecord[] {
  const end = options.until ? order.indexOf(options.until) + 1 : order.length;
  return order
    .slice(0, end)
    .filter((name) => !options.without?.includes(name))
    .map((name): OperationRecord => {
      const outcome = outcomes[name] ?? 'ok';
      if (typeof outcome === 'object') return { name, outcome: 'error', error: outcome.error };
      return outcome === 'error' ? { name, outcome, error: `failed in ${name}: boom` } : { name, outcome };
    });
}

function attempt(loop: 'sequential' | 'phased', operations: OperationRecord[], time = '2026-11-29T10:00:00Z', object = 'clusters/alpha'): AttemptRecord {
  return { time, timeMs: Date.parse(time), controller: 'hostedcluster', object, generation: 3, loop, operations, origin: { source: 'journal' } };
}

function names(shadow: ControllerAnalyzer, list: readonly number[]): string[] {
  return list.map((op) => shadow.cm.ops[op]!);
}
function ranIn(shadow: ControllerAnalyzer, run: { ran: Uint8Array }): Set<string> {
  return new Set(shadow.cm.ops.filter((_, i) => run.ran[i] === 1));
}
function blockedPairs(shadow: ControllerAnalyzer, a: AttemptAnalysis): string[] {
  return a.phased.blockedBy.map(([b, g]) => `${shadow.cm.groups[b]!.name}->${shadow.cm.groups[g]!.name}`).sort();
}

const AFTER_SSH_KEY = [
  'AdditionalTrustBundle',
  'AutoscalerAndNTHNeeded',
  'CAPICluster',
  'CAPIInfraCR',
  'CAPIManager',
  'CAPIProvider',
  'ClusterPrometheusRBAC',
  'ControlPlaneOperator',
  'CustomKubeconfigSync',
  'DefaultIngressDomain',
  'ETCDMemberRecovery',
  'GlobalConfigSync',
  'HostedControlPlane',
  'KarpenterOperator',
  'KubeadminPasswordSync',
  'KubeconfigSync',
  'MonitoringDashboard',
  'NetworkPolicies',
  'OpenShiftTrustedCAs',
  'PKIOperatorRBAC',
  'PlatformSpecific',
  'PublicEndpointExposed',
  'ReleaseImageVersion',
  'SREMetricsConfig',
  'SecurityContextUID',
  'ServiceAccountSigningKey',
  'UnmanagedEtcdMTLS',
];

describe('PR #7908 scenarios on the built-in model', () => {
  it('missing SSH key secret: sequential starves everything after SSHKeySync; phased only fails SSHKeySync', () => {
    const shadow = new ControllerAnalyzer(model);
    const a = shadow.analyze(attempt('sequential', ops(sequentialOps, { SSHKeySync: 'error' }, { until: 'SSHKeySync' })));
    assert.deepEqual(names(shadow, a.unblocked), AFTER_SSH_KEY);
    assert.deepEqual(names(shadow, a.newlyBlocked), []);
    assert.deepEqual(names(shadow, a.structural), ['ManagedHSMVersionCheck'], 'a one-loop op is structural, never unblocked');
    assert.equal(a.diverged, true);
    const phased = ranIn(shadow, a.phased);
    for (const op of ['SSHKeySync', 'HostedControlPlane', 'ControlPlaneOperator', 'PublicEndpointExposed']) assert.ok(phased.has(op), op);
    assert.deepEqual(
      a.phased.failedGroups.map((g) => shadow.cm.groups[g]!.name),
      ['SSHKeySync'],
    );
    assert.deepEqual(blockedPairs(shadow, a), []);
    assert.equal(shadow.cm.ops[a.sequential.endedBy], 'SSHKeySync');

    shadow.analyze(attempt('sequential', ops(sequentialOps, { SSHKeySync: 'error' }, { until: 'SSHKeySync' }), '2026-11-29T10:01:30Z'));
    const starved = shadow.starvation.currentLongestSeconds(Date.parse('2026-11-29T10:02:00Z'));
    assert.equal(starved[shadow.cm.opIndex.get('HostedControlPlane')!], 120);
    assert.equal(starved[shadow.cm.opIndex.get('SSHKeySync')!], 0);
    assert.equal(shadow.starvation.longestMs[shadow.cm.opIndex.get('ControlPlaneOperator')!], 90_000);
  });

  it('missing pull secret, observed sequential: the critical group fails and all six blockable groups are blocked', () => {
    const shadow = new ControllerAnalyzer(model);
    const a = shadow.analyze(attempt('sequential', ops(sequentialOps, { GetPullSecretBytes: 'error' }, { until: 'GetPullSecretBytes' })));
    assert.deepEqual(
      blockedPairs(shadow, a),
      BLOCKABLE.map((g) => `CPOImageAndNamespace->${g}`),
    );
    assert.deepEqual(names(shadow, a.newlyBlocked), []);
    const phased = ranIn(shadow, a.phased);
    for (const g of BLOCKABLE) for (const op of groupOps(g)) assert.equal(phased.has(op), false, op);
    for (const op of ['HostedControlPlane', 'CAPICluster', 'ReleaseImageVersion', 'ManagedHSMVersionCheck', 'SSHKeySync']) assert.ok(phased.has(op), op);
    // The legacy loop's pull secret recovery (reconcileLegacy()) wrote the HostedControlPlane before returning the error:
    // the phased loop is not credited with it, only with what the legacy loop never reached.
    const sequential = ranIn(shadow, a.sequential);
    for (const op of ['AutoscalerAndNTHNeeded', 'HostedControlPlane']) assert.ok(sequential.has(op), op);
    assert.equal(shadow.cm.ops[a.sequential.endedBy], 'GetPullSecretBytes');
    assert.deepEqual(names(shadow, a.unblocked), [
      'AWSResourceTags',
      'AdditionalTrustBundle',
      'AuditWebhookSync',
      'AvailableCond',
      'CAPICluster',
      'CAPIFinalizers',
      'CAPIInfraCR',
      'CustomKubeconfigStatus',
      'DefaultClusterIDs',
      'ETCDMemberRecovery',
      'GetPlatform',
      'GlobalConfigSync',
      'HostedClusterFinalizer',
      'IgnitionEndpoint',
      'IgnitionEndpointAvailable',
      'KubeVirtConds',
      'KubeadminPasswordStatus',
      'LookupReleaseImage',
      'PauseCheck',
      'PayloadArch',
      'PersistStatus',
      'PlatformCredentials',
      'PrivateConnectivityConds',
      'ProgressingCond',
      'PullSecretSync',
      'ReleaseImageVersion',
      'RestoredFromBackup',
      'SSHKeySync',
      'SecretEncryptionSync',
      'ServiceAccountSigningKey',
      'UnmanagedEtcdAvailability',
      'UnmanagedEtcdMTLS',
      'ValidReleaseImage',
      'ValidationConds',
      'ValidationGates',
      'VersionAndCopiedConds',
    ]);
  });

  it('missing pull secret, observed phased: both failed critical groups block each blockable group', () => {
    const shadow = new ControllerAnalyzer(model);
    const observed = ops(
      phasedOps,
      { GetPullSecretBytes: 'error', PullSecretSync: 'error' },
      { without: [...BLOCKABLE.flatMap(groupOps), 'GetCPOImage', 'ControlPlaneNamespace'] },
    );
    const a = shadow.analyze(attempt('phased', observed));
    assert.deepEqual(blockedPairs(shadow, a), [...BLOCKABLE.map((g) => `CPOImageAndNamespace->${g}`), ...BLOCKABLE.map((g) => `PullSecretSync->${g}`)].sort());
    assert.deepEqual(names(shadow, a.inconsistent), []);
    // Projected onto the sequential loop: it stops at the observed GetPullSecretBytes error; nothing it runs is lost.
    assert.equal(shadow.cm.ops[a.sequential.endedBy], 'GetPullSecretBytes');
    assert.deepEqual(names(shadow, a.newlyBlocked), []);
  });

  it('ReleaseImageVersion failure blocks only the later blockable groups', () => {
    const shadow = new ControllerAnalyzer(model);
    const later = ['OperatorDeployments', 'PublicEndpointExposed', 'RBACAndPolicies'];
    const observed = ops(phasedOps, { ReleaseImageVersion: 'error' }, { without: later.flatMap(groupOps) });
    const a = shadow.analyze(attempt('phased', observed));
    assert.deepEqual(
      blockedPairs(shadow, a),
      later.map((g) => `ReleaseImageVersion->${g}`),
    );
    const phased = ranIn(shadow, a.phased);
    for (const op of [
      ...groupOps('KubeconfigAndPasswordSync'),
      ...groupOps('PlatformOIDCAndCSI'),
      ...groupOps('MonitoringAndCLISecrets'),
      'ManagedHSMVersionCheck',
    ])
      assert.ok(phased.has(op), op);
    assert.deepEqual(names(shadow, a.unblocked), [
      'AutoscalerAndNTHNeeded',
      'CAPICluster',
      'CAPIInfraCR',
      'CustomKubeconfigSync',
      'HostedControlPlane',
      'KubeadminPasswordSync',
      'KubeconfigSync',
      'MonitoringDashboard',
      'OpenShiftTrustedCAs',
      'PlatformSpecific',
      'SREMetricsConfig',
    ]);
    assert.deepEqual(names(shadow, a.newlyBlocked), []);
  });

  it('a silent validation stop newly blocks the operations that moved behind the gate', () => {
    const shadow = new ControllerAnalyzer(model);
    const a = shadow.analyze(attempt('sequential', ops(sequentialOps, { ValidationGates: 'stop' }, { until: 'ValidationGates' })));
    assert.deepEqual(names(shadow, a.newlyBlocked), ['CLISecrets', 'GetCPOImage', 'GetPullSecretBytes']);
    assert.deepEqual(names(shadow, a.unblocked), []);
    assert.equal(shadow.cm.ops[a.phased.endedBy], 'ValidationGates');
  });

  it('reverse projection from a phased observation marks every unobserved outcome as predicted', () => {
    const shadow = new ControllerAnalyzer(model);
    const observed = ops(phasedOps, { SSHKeySync: 'error', ControlPlaneOperator: 'error' });
    const a = shadow.analyze(attempt('phased', observed));
    assert.deepEqual(names(shadow, a.unblocked), AFTER_SSH_KEY);
    assert.deepEqual(names(shadow, a.newlyBlocked), []);
    assert.equal(
      a.observed.reduce((n, v) => n + v, 0),
      phasedOps.length,
      'every phased op observed; no op exists in the sequential loop alone',
    );
    assert.deepEqual(names(shadow, a.derived), []);
  });

  it('predicts an unobserved op from the same object’s last observed outcome, and ok without history', () => {
    const shadow = new ControllerAnalyzer(model);
    shadow.analyze(attempt('phased', ops(phasedOps, { PullSecretSync: 'error' }, { without: BLOCKABLE.flatMap(groupOps) })));
    const seen = shadow.analyze(attempt('sequential', ops(sequentialOps, { CLISecrets: 'error' }, { until: 'CLISecrets' }), '2026-11-29T10:00:03Z'));
    assert.deepEqual(names(shadow, seen.newlyBlocked), ['CLISecrets'], 'PullSecretSync predicted error from history blocks phase 8');
    const fresh = shadow.analyze(
      attempt('sequential', ops(sequentialOps, { CLISecrets: 'error' }, { until: 'CLISecrets' }), '2026-11-29T10:00:06Z', 'clusters/beta'),
    );
    assert.deepEqual(names(shadow, fresh.newlyBlocked), []);
    assert.equal(fresh.phased.blockedBy.length, 0);
  });

  it('a legacy lookup failure projects a phased attempt that goes on and fails ReleaseImageVersion: only 8b is blocked', () => {
    const shadow = new ControllerAnalyzer(model);
    const a = shadow.analyze(
      attempt(
        'sequential',
        ops(sequentialOps, { LookupReleaseImage: { error: 'failed to lookup release image: manifest unknown' } }, { until: 'LookupReleaseImage' }),
      ),
    );
    assert.deepEqual(names(shadow, a.derived), ['ReleaseImageVersion']);
    const phasedRan = ranIn(shadow, a.phased);
    const notRun = phasedOps.filter((op) => !phasedRan.has(op));
    assert.deepEqual(notRun, ['OperatorDeployments', 'RBACAndPolicies', 'PublicEndpointExposed'].flatMap(groupOps), 'everything but the 8b groups runs');
    assert.deepEqual(blockedPairs(shadow, a), [
      'ReleaseImageVersion->OperatorDeployments',
      'ReleaseImageVersion->PublicEndpointExposed',
      'ReleaseImageVersion->RBACAndPolicies',
    ]);
    assert.equal(a.phased.endedBy, -1);
    assert.ok(phasedRan.has('ManagedHSMVersionCheck'), 'runs, as a skip: it returns nil once blocked');
    assert.deepEqual(names(shadow, a.newlyBlocked), []);
    assert.equal(a.unblocked.length, sequentialOps.length - sequentialOps.indexOf('LookupReleaseImage') - 1 - notRun.length);
  });

  it('the SecretNotFound gate error in legacy projects a phased loop that goes on; invalid configuration ends both', () => {
    const shadow = new ControllerAnalyzer(model);
    const gate = shadow.analyze(
      attempt(
        'sequential',
        ops(sequentialOps, { ValidationGates: { error: 'pull secret unavailable: secrets "pull-secret" not found' } }, { until: 'ValidationGates' }),
      ),
    );
    assert.equal(shadow.cm.ops[gate.sequential.endedBy], 'ValidationGates');
    assert.equal(gate.phased.endedBy, -1);
    assert.equal(ranIn(shadow, gate.phased).size, phasedOps.length, 'the phased loop runs everything');
    assert.deepEqual(names(shadow, gate.newlyBlocked), []);
    const invalid = shadow.analyze(
      attempt(
        'sequential',
        ops(sequentialOps, { ValidationGates: { error: 'configuration is invalid: spec.networking: bad' } }, { until: 'ValidationGates' }),
        '2026-11-29T10:00:05Z',
        'clusters/beta',
      ),
    );
    assert.equal(shadow.cm.ops[invalid.phased.endedBy], 'ValidationGates');
    assert.deepEqual(names(shadow, invalid.newlyBlocked), ['CLISecrets', 'GetCPOImage', 'GetPullSecretBytes']);
  });

  it('a SecurityContextUID failure under phased ends OperatorDeployments: the operators do not run', () => {
    const shadow = new ControllerAnalyzer(model);
    const deployments = groupOps('OperatorDeployments');
    const observed = ops(
      phasedOps,
      { SecurityContextUID: { error: 'failed to parse SecurityContext UID: strconv.ParseInt: parsing "": invalid syntax' } },
      { without: deployments.slice(1) },
    );
    const a = shadow.analyze(attempt('phased', observed));
    const phasedRan = ranIn(shadow, a.phased);
    for (const op of ['DefaultIngressDomain', 'ControlPlaneOperator', 'CAPIManager', 'CAPIProvider', 'KarpenterOperator'])
      assert.equal(phasedRan.has(op), false, op);
    for (const op of ['ClusterPrometheusRBAC', 'PKIOperatorRBAC', 'NetworkPolicies', 'PublicEndpointExposed'])
      assert.ok(phasedRan.has(op), `${op}: a non-critical failure blocks nothing`);
    assert.deepEqual(
      a.phased.failedGroups.map((g) => shadow.cm.groups[g]!.name),
      ['OperatorDeployments'],
    );
    assert.deepEqual(names(shadow, a.inconsistent), []);
    // the sequential projection ends at the parse error too, after the ops that precede it there
    assert.equal(shadow.cm.ops[a.sequential.endedBy], 'SecurityContextUID');
    assert.deepEqual(names(shadow, a.unblocked), ['NetworkPolicies', 'PKIOperatorRBAC', 'PlatformSpecific', 'PublicEndpointExposed']);
    assert.deepEqual(names(shadow, a.newlyBlocked), ['DefaultIngressDomain'], 'the legacy loop resolves the ingress domain before the UID');
  });

  it('a legacy payload-arch failure projects the phased gate’s silent stop; its pull-secret variant goes on', () => {
    const shadow = new ControllerAnalyzer(model);
    const arch = shadow.analyze(
      attempt(
        'sequential',
        ops(sequentialOps, { PayloadArch: { error: 'failed to look up image metadata for quay.io/ocp:4.19: unauthorized' } }, { until: 'PayloadArch' }),
      ),
    );
    assert.deepEqual(names(shadow, arch.derived), ['ValidationGates']);
    assert.equal(shadow.cm.ops[arch.phased.endedBy], 'ValidationGates');
    assert.deepEqual(names(shadow, arch.newlyBlocked), ['GetCPOImage', 'GetPullSecretBytes']);
    assert.deepEqual(names(shadow, arch.unblocked), [
      'AWSResourceTags',
      'CAPIFinalizers',
      'DefaultClusterIDs',
      'HostedClusterFinalizer',
      'LookupReleaseImage',
      'PauseCheck',
      'PersistStatus',
      'ProgressingCond',
      'ValidationGates',
    ]);
    const secret = shadow.analyze(
      attempt(
        'sequential',
        ops(sequentialOps, { PayloadArch: { error: 'pull secret unavailable: secrets "pull-secret" not found' } }, { until: 'PayloadArch' }),
        '2026-11-29T10:00:05Z',
        'clusters/beta',
      ),
    );
    assert.deepEqual(names(shadow, secret.derived), [], 'the gate goes on degraded: nothing derived');
    assert.equal(secret.phased.endedBy, -1);
  });

  it('a legacy default-ingress-domain failure projects a failing control plane operator inside OperatorDeployments', () => {
    const shadow = new ControllerAnalyzer(model);
    const a = shadow.analyze(
      attempt(
        'sequential',
        ops(
          sequentialOps,
          { DefaultIngressDomain: { error: 'failed to determine default ingress domain: ingresses.config.openshift.io "cluster" not found' } },
          { until: 'DefaultIngressDomain' },
        ),
      ),
    );
    assert.deepEqual(names(shadow, a.derived), ['ControlPlaneOperator']);
    const phasedRan = ranIn(shadow, a.phased);
    for (const op of ['ControlPlaneOperator', 'CAPIManager', 'CAPIProvider', 'KarpenterOperator', 'PublicEndpointExposed']) assert.ok(phasedRan.has(op), op);
    assert.deepEqual(
      a.phased.failedGroups.map((g) => shadow.cm.groups[g]!.name),
      ['OperatorDeployments'],
    );
    assert.deepEqual(names(shadow, a.unblocked), [
      'CAPIManager',
      'CAPIProvider',
      'ControlPlaneOperator',
      'KarpenterOperator',
      'NetworkPolicies',
      'OpenShiftTrustedCAs',
      'PKIOperatorRBAC',
      'PlatformSpecific',
      'PublicEndpointExposed',
      'SREMetricsConfig',
      'SecurityContextUID',
    ]);
  });

  it('ManagedHSMVersionCheck skips itself after a critical failure: never failing, never listed as blocked', () => {
    const shadow = new ControllerAnalyzer(model);
    shadow.analyze(
      attempt(
        'phased',
        ops(
          phasedOps,
          { ManagedHSMVersionCheck: { error: 'release image version 4.21.0 does not support Azure Managed HSM, which requires version 4.22.0 or newer' } },
          { without: ['OperatorDeployments', 'RBACAndPolicies', 'PublicEndpointExposed'].flatMap(groupOps) },
        ),
      ),
    );
    const later = shadow.analyze(
      attempt(
        'phased',
        ops(phasedOps, { PullSecretSync: 'error' }, { until: 'ReleaseImageVersion', without: BLOCKABLE.flatMap(groupOps) }),
        '2026-11-29T10:00:05Z',
      ),
    );
    assert.equal(later.outcomes[shadow.cm.opIndex.get('ManagedHSMVersionCheck')!], ERROR, 'predicted error from the history');
    assert.ok(ranIn(shadow, later.phased).has('ManagedHSMVersionCheck'));
    assert.deepEqual(
      later.phased.failedGroups.map((g) => shadow.cm.groups[g]!.name),
      ['PullSecretSync'],
    );
    assert.deepEqual(
      blockedPairs(shadow, later),
      BLOCKABLE.map((g) => `PullSecretSync->${g}`),
    );
  });

  it('secret-encryption bad input: a silent stop in legacy, a nil return from its group in phased that the loop goes on after', () => {
    const shadow = new ControllerAnalyzer(model);
    const a = shadow.analyze(attempt('sequential', ops(sequentialOps, { SecretEncryptionSync: 'stop' }, { until: 'SecretEncryptionSync' })));
    assert.equal(shadow.cm.ops[a.sequential.endedBy], 'SecretEncryptionSync');
    assert.equal(a.phased.endedBy, -1);
    assert.deepEqual(a.phased.failedGroups, [], 'a stop fails no group');
    assert.equal(ranIn(shadow, a.phased).size, phasedOps.length);
    assert.deepEqual(names(shadow, a.newlyBlocked), []);
  });
});
