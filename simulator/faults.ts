/**
 * The faults a simulated world is made of. Each fault comes and goes per object (onset rate, mean duration) and,
 * while active, makes some operations return an error (or stop the loop silently).
 */
import type { ReconcileModel } from '../model/types.js';

export interface FaultEffect {
  readonly op: string;
  readonly outcome: 'error' | 'stop';
  /** The wrapped cause (`%w`); `{name}` and `{namespace}` are filled in per object. */
  readonly cause: string;
}

export interface FaultSpec {
  readonly name: string;
  readonly effects: readonly FaultEffect[];
  readonly onsetPerHour: number;
  readonly meanMinutes: number;
}

/** The HyperShift faults the PR discussion names, with rates that give a few per object per week. */
export const HYPERSHIFT_FAULTS: readonly FaultSpec[] = [
  {
    name: 'ssh-key-missing',
    onsetPerHour: 0.02,
    meanMinutes: 90,
    effects: [{ op: 'SSHKeySync', outcome: 'error', cause: 'secrets "{name}-ssh-key" not found' }],
  },
  {
    name: 'pull-secret-missing',
    onsetPerHour: 0.01,
    meanMinutes: 45,
    effects: [
      { op: 'GetPullSecretBytes', outcome: 'error', cause: 'secrets "{name}-pull-secret" not found' },
      { op: 'PullSecretSync', outcome: 'error', cause: 'secrets "{name}-pull-secret" not found' },
    ],
  },
  { name: 'release-image-invalid', onsetPerHour: 0.005, meanMinutes: 60, effects: [{ op: 'ValidationGates', outcome: 'stop', cause: '' }] },
  {
    name: 'release-version-unparseable',
    onsetPerHour: 0.005,
    meanMinutes: 30,
    effects: [{ op: 'ReleaseImageVersion', outcome: 'error', cause: 'Invalid character(s) found in major number "v4"' }],
  },
  {
    name: 'audit-webhook-missing',
    onsetPerHour: 0.01,
    meanMinutes: 60,
    effects: [{ op: 'AuditWebhookSync', outcome: 'error', cause: 'secrets "{name}-audit-webhook" not found' }],
  },
  {
    name: 'secret-encryption-key-missing',
    onsetPerHour: 0.004,
    meanMinutes: 30,
    effects: [{ op: 'SecretEncryptionSync', outcome: 'error', cause: 'secrets "{name}-etcd-encryption-key" not found' }],
  },
  {
    name: 'cpo-deployment-conflict',
    onsetPerHour: 0.02,
    meanMinutes: 8,
    effects: [
      {
        op: 'ControlPlaneOperator',
        outcome: 'error',
        cause:
          'Operation cannot be fulfilled on deployments.apps "control-plane-operator": the object has been modified; please apply your changes to the latest version and try again',
      },
    ],
  },
  {
    name: 'kubeconfig-not-ready',
    onsetPerHour: 0.01,
    meanMinutes: 20,
    effects: [{ op: 'KubeconfigSync', outcome: 'error', cause: 'secrets "admin-kubeconfig" not found' }],
  },
  {
    name: 'hcp-update-conflict',
    onsetPerHour: 0.01,
    meanMinutes: 5,
    effects: [
      {
        op: 'HostedControlPlane',
        outcome: 'error',
        cause:
          'Operation cannot be fulfilled on hostedcontrolplanes.hypershift.openshift.io "{name}": the object has been modified; please apply your changes to the latest version and try again',
      },
    ],
  },
];

/** Ops that have nothing to do on most clusters (optional features), with the share of clusters that skip them. */
export const HYPERSHIFT_SKIPS: ReadonlyMap<string, number> = new Map([
  ['CustomKubeconfigStatus', 0.7],
  ['ServiceAccountSigningKey', 0.5],
  ['ETCDMemberRecovery', 0.9],
  ['KarpenterOperator', 0.7],
]);

/** Faults for a model: the HyperShift set where its ops exist, else one generic fault per operation. */
export function faultsFor(model: ReconcileModel): readonly FaultSpec[] {
  const names = new Set(model.operations.map((o) => o.name));
  const known = HYPERSHIFT_FAULTS.filter((f) => f.effects.every((e) => names.has(e.op)));
  if (known.length > 0) return known;
  return model.operations.map((o) => ({
    name: `${o.name}-failing`,
    onsetPerHour: 0.01,
    meanMinutes: 30,
    effects: [{ op: o.name, outcome: 'error' as const, cause: 'simulated failure' }],
  }));
}
