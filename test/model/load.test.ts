import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelError, parseModel, resolveModel } from '../../model/load.js';
import { CONTRACT_CASES, REPO } from '../support/paths.js';

const base = readFileSync(join(REPO, 'examples/database-operator/model.yaml'), 'utf8');

function problems(text: string): string[] {
  try {
    parseModel(text, 'model.yaml');
  } catch (e) {
    if (e instanceof ModelError) return [...e.problems];
    throw e;
  }
  return [];
}

describe('model format', () => {
  it('loads the built-in HyperShift model: 71 operations, 21 groups, the one-loop ops marked', () => {
    const m = resolveModel('hypershift-hostedcluster');
    assert.equal(m.controller, 'hostedcluster');
    assert.equal(m.operations.length, 71);
    const groups = m.phased.flatMap((s) => (s.kind === 'group' ? [s.group] : []));
    assert.equal(groups.length, 21);
    assert.deepEqual(m.phased.flatMap((s) => (s.kind === 'group' && s.blockable ? [s.group] : [])), ['KubeconfigAndPasswordSync', 'PlatformOIDCAndCSI', 'MonitoringAndCLISecrets', 'OperatorDeployments', 'RBACAndPolicies', 'PublicEndpointExposed']);
    assert.deepEqual(m.operations.filter((o) => o.only).map((o) => `${o.name}:${o.only}`), ['AWSSubnets:sequential', 'ManagedHSMVersionCheck:phased']);
    assert.deepEqual(m.operations.find((o) => o.name === 'SSHKeySync')?.errors.map((e) => e.format), ['failed to get hostedcluster SSHKey secret %s: %w', 'failed to reconcile controlplane SSHKey secret: %w', 'failed to delete unused SSHKey secret: %w']);
  });

  it('loads the contract model written as JSON', () => {
    assert.equal(resolveModel(join(CONTRACT_CASES, 'model.yaml')).name, 'oracle-hostedcluster');
  });

  it('names file, line and field of an unknown operation', () => {
    const text = base.replace('ops: [EnsureStatefulSet, EnsureService]', 'ops: [EnsureStatefulSet, EnsureServise]');
    const line = text.split('\n').findIndex((l) => l.includes('EnsureServise')) + 1;
    assert.deepEqual(problems(text), [
      `model.yaml:${line} spec.phased[3].ops[1]: unknown operation "EnsureServise"`,
      `model.yaml:20 spec.operations[5].name: operation "EnsureService" is not placed in spec.phased (mark it only: sequential if the phased loop dropped it)`,
    ]);
  });

  it('refuses an operation placed twice, a bad category, an unknown key and a sequential-only op in phased', () => {
    const text = base
      .replace('ops: [UpdateStatus]', 'ops: [UpdateStatus, EnsureSecrets]')
      .replace('category: nonCritical\n      blockable: true', 'category: optional\n      blockable: true')
      .replace('    - name: UpdateStatus\n', '    - name: UpdateStatus\n      retries: 3\n');
    assert.deepEqual(
      problems(text).map((p) => p.replace(/^model\.yaml:\d+ /, '')),
      [
        'spec.operations[6].retries: unknown field (allowed: name, errors, only, onError, causes, description)',
        'spec.phased[4].category: must be one of critical | nonCritical, got "optional"',
        'spec.phased[5].ops[1]: operation "EnsureSecrets" appears more than once (first at spec.phased[2].ops[0])',
      ],
    );
    const seqOnly = base.replace('    - name: EnsureService\n', '    - name: EnsureService\n      only: sequential\n');
    assert.match(problems(seqOnly)[0]!, /spec\.phased\[3\]\.ops\[1\]: operation "EnsureService" is marked only: sequential/);
  });

  it('refuses a document that is not a model, with the YAML parser’s position', () => {
    assert.deepEqual(problems('apiVersion: v1\nkind: Pod\n'), ['model.yaml:1 apiVersion: must be "reconcile-shadow/v1", got "v1"', 'model.yaml:2 kind: must be "ReconcileModel", got "Pod"', 'model.yaml:1 metadata: required mapping with a name', 'model.yaml:1 spec: required mapping with controller, operations and phased']);
    assert.match(problems('spec: [unclosed\n')[0]!, /^model\.yaml:\d+ \(document\): /);
  });

  it('accepts an op that exists only in the phased loop and leaves it out of the sequential order', () => {
    const text = base.replace('    - name: UpdateStatus\n', '    - name: PruneOldBackups\n      only: phased\n    - name: UpdateStatus\n').replace('ops: [EnsureBackupSchedule]', 'ops: [EnsureBackupSchedule, PruneOldBackups]');
    const m = parseModel(text);
    assert.equal(m.operations.find((o) => o.name === 'PruneOldBackups')?.only, 'phased');
  });
});
