import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { join } from 'node:path';
import { ValidationError } from '../../lib/validation-error.js';
import { parseModel } from '../../model/load.js';
import { resolveModel } from '../../sidecar/files.js';
import { CONTRACT_CASES, REPO } from '../support/paths.js';

const base = readFileSync(join(REPO, 'examples/database-operator/model.yaml'), 'utf8');

function problems(text: string): string[] {
  try {
    parseModel(text, 'model.yaml');
  } catch (e) {
    if (e instanceof ValidationError) return [...e.problems];
    throw e;
  }
  return [];
}

describe('model format', () => {
  it('loads the built-in HyperShift model: 70 operations, 21 groups, one phased-only op, its per-loop rules', () => {
    const m = resolveModel('hypershift-hostedcluster');
    assert.equal(m.controller, 'hostedcluster');
    assert.equal(m.operations.length, 70);
    const groups = m.phased.flatMap((s) => (s.kind === 'group' ? [s.group] : []));
    assert.equal(groups.length, 21);
    assert.deepEqual(
      m.phased.flatMap((s) => (s.kind === 'group' && s.blockable ? [s.group] : [])),
      ['KubeconfigAndPasswordSync', 'PlatformOIDCAndCSI', 'MonitoringAndCLISecrets', 'OperatorDeployments', 'RBACAndPolicies', 'PublicEndpointExposed'],
    );
    assert.deepEqual(
      m.phased.flatMap((s) => (s.kind === 'group' && s.skipWhenBlocked ? [s.group] : [])),
      ['ManagedHSMVersionCheck'],
    );
    assert.deepEqual(
      m.operations.filter((o) => o.only).map((o) => `${o.name}:${o.only}`),
      ['ManagedHSMVersionCheck:phased'],
    );
    assert.deepEqual(
      m.operations.filter((o) => o.onError).map((o) => `${o.name}:${JSON.stringify(o.onError)}`),
      ['PayloadArch:{"phased":"continue"}', 'LookupReleaseImage:{"phased":"continue"}', 'SecurityContextUID:{"phased":"endGroup"}'],
    );
    assert.deepEqual(
      m.operations.flatMap((o) => (o.causes ?? []).map((c) => `${o.name}->${c.op}:${c.outcome}${c.error ? `:${c.error}` : ''}`)),
      [
        'PayloadArch->ValidationGates:stop',
        'LookupReleaseImage->ReleaseImageVersion:error:release image is not available',
        'DefaultIngressDomain->ControlPlaneOperator:error:failed to reconcile control plane operator: %w',
      ],
    );
    assert.deepEqual(m.operations.find((o) => o.name === 'SSHKeySync')?.errors, [
      { format: 'failed to get hostedcluster SSHKey secret %s: %w' },
      { format: 'failed to set referenced resource annotation: %w' },
      { format: 'failed to reconcile controlplane SSHKey secret: %w', only: 'sequential' },
      { format: 'hostedcluster SSHKey secret %q must have a id_rsa.pub key', only: 'phased' },
      { format: 'failed to delete unused SSHKey secret: %w', only: 'phased' },
    ]);
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
        'spec.operations[6].retries: unknown field (allowed: name, errors, only, onError, causes, recovery, writes, description)',
        'spec.phased[4].category: must be one of critical | nonCritical, got "optional"',
        'spec.phased[5].ops[1]: operation "EnsureSecrets" appears more than once (first at spec.phased[2].ops[0])',
      ],
    );
    const seqOnly = base.replace('    - name: EnsureService\n', '    - name: EnsureService\n      only: sequential\n');
    assert.match(problems(seqOnly)[0]!, /spec\.phased\[3\]\.ops\[1\]: operation "EnsureService" is marked only: sequential/);
  });

  it('refuses a document that is not a model, with the YAML parser’s position', () => {
    assert.deepEqual(problems('apiVersion: v1\nkind: Pod\n'), [
      'model.yaml:1 apiVersion: must be "reconcile-shadow/v1", got "v1"',
      'model.yaml:2 kind: must be "ReconcileModel", got "Pod"',
      'model.yaml:1 metadata: required mapping with a name',
      'model.yaml:1 spec: required mapping with controller, operations and phased',
    ]);
    assert.match(problems('spec: [unclosed\n')[0]!, /^model\.yaml:\d+ \(document\): /);
  });

  it('accepts an op that exists only in the phased loop and leaves it out of the sequential order', () => {
    const text = base
      .replace('    - name: UpdateStatus\n', '    - name: PruneOldBackups\n      only: phased\n    - name: UpdateStatus\n')
      .replace('ops: [EnsureBackupSchedule]', 'ops: [EnsureBackupSchedule, PruneOldBackups]');
    const m = parseModel(text);
    assert.equal(m.operations.find((o) => o.name === 'PruneOldBackups')?.only, 'phased');
  });

  it('reads what an operation writes, absent when the model does not say, and names a bad value with its line', () => {
    const text = base
      .replace('    - name: EnsureService\n', '    - name: EnsureService\n      writes: objects\n')
      .replace('    - name: UpdateStatus\n', '    - name: UpdateStatus\n      writes: status\n');
    const m = parseModel(text);
    assert.deepEqual(
      m.operations.map((o) => [o.name, o.writes]),
      [
        ['FetchCluster', undefined],
        ['ValidateSpec', undefined],
        ['EnsureSecrets', undefined],
        ['EnsureBackupSchedule', undefined],
        ['EnsureStatefulSet', undefined],
        ['EnsureService', 'objects'],
        ['UpdateStatus', 'status'],
      ],
    );
    const bad = base.replace('    - name: EnsureService\n', '    - name: EnsureService\n      writes: secrets\n');
    const line = bad.split('\n').findIndex((l) => l.includes('writes: secrets')) + 1;
    assert.deepEqual(problems(bad), [`model.yaml:${line} spec.operations[5].writes: must be one of none | status | objects, got "secrets"`]);
  });
});

/** A model with each place an error can be: fail-fast steps, a chain and a collect group, a skip-when-blocked group. */
const RULES = `apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: rules}
spec:
  controller: widget
  operations:
    - name: Fetch
      errors: ["failed to fetch: %w"]
    - name: Lookup
      errors: ["failed to look up: %w"]
    - name: Gate
      errors: ["invalid: %s"]
    - name: Sync
      errors: ["failed to sync: %w"]
    - name: Version
      errors: ["version unknown", "failed to parse version: %w"]
    - name: Parse
      errors: ["failed to parse: %w"]
    - name: Deploy
      errors: ["failed to deploy: %w"]
    - name: Check
      only: phased
      errors: []
  phased:
    - op: Fetch
    - op: Lookup
    - op: Gate
    - {group: Core, category: critical, ops: [Sync]}
    - {group: Version, category: critical, ops: [Version]}
    - {group: Check, category: critical, ops: [Check]}
    - {group: Deployments, category: nonCritical, blockable: true, mode: collect, ops: [Parse, Deploy]}
`;

/** RULES with the text after `- name: <op>` (its errors line) replaced, or any other replacement. */
function rules(...edits: [string, string][]): string {
  return edits.reduce((text, [from, to]) => {
    assert.ok(text.includes(from), from);
    return text.replace(from, to);
  }, RULES);
}
const lineOf = (text: string, fragment: string): number => text.split('\n').findIndex((l) => l.includes(fragment)) + 1;

describe('model format: per-loop behaviour', () => {
  it('reads effects per loop, formats per loop, variants, consequences (error or stop) and skipWhenBlocked', () => {
    const m = parseModel(
      rules(
        [
          '    - name: Lookup\n      errors: ["failed to look up: %w"]',
          '    - name: Lookup\n      errors: [{format: "failed to look up: %w", only: sequential}]\n      onError: {phased: continue}\n      causes: [{op: Version, error: "version unknown"}, {op: Deploy, outcome: stop}]',
        ],
        ['errors: ["invalid: %s"]', 'errors: ["invalid: %s", {format: "secret missing: %w", onError: {phased: continue}, causes: []}]'],
        ['errors: ["failed to parse: %w"]', 'errors: ["failed to parse: %w"]\n      onError: {phased: endGroup, sequential: continue}'],
        ['ops: [Check]}', 'skipWhenBlocked: true, ops: [Check]}'],
      ),
    );
    const op = (name: string) => m.operations.find((o) => o.name === name)!;
    assert.deepEqual(op('Lookup'), {
      name: 'Lookup',
      errors: [{ format: 'failed to look up: %w', only: 'sequential' }],
      onError: { phased: 'continue' },
      causes: [
        { op: 'Version', outcome: 'error', error: 'version unknown' },
        { op: 'Deploy', outcome: 'stop' },
      ],
    });
    assert.deepEqual(op('Gate').errors, [{ format: 'invalid: %s' }, { format: 'secret missing: %w', onError: { phased: 'continue' }, causes: [] }]);
    assert.deepEqual(op('Parse').onError, { phased: 'endGroup', sequential: 'continue' });
    assert.deepEqual(op('Fetch'), { name: 'Fetch', errors: [{ format: 'failed to fetch: %w' }] }, 'an old-style op has no new fields');
    assert.deepEqual(
      m.phased.flatMap((s) => (s.kind === 'group' ? [`${s.group}:${s.skipWhenBlocked}`] : [])),
      ['Core:false', 'Version:false', 'Check:true', 'Deployments:false'],
    );
  });

  it('still loads the models written before per-loop behaviour', () => {
    assert.equal(parseModel(RULES).operations.length, 8);
    assert.equal(resolveModel(join(REPO, 'examples/database-operator/model.yaml')).operations.length, 7);
    assert.equal(
      resolveModel(join(CONTRACT_CASES, 'model.yaml')).operations.every(
        (o) => o.onError === undefined && o.causes === undefined && o.errors.every((f) => Object.keys(f).join() === 'format'),
      ),
      true,
    );
  });

  it('refuses an effect its place cannot have, naming the place and what it allows', () => {
    const text = rules(
      ['errors: ["failed to fetch: %w"]', 'errors: ["failed to fetch: %w"]\n      onError: {sequential: endGroup, phased: endGroup}'],
      ['errors: ["failed to sync: %w"]', 'errors: ["failed to sync: %w"]\n      onError: {phased: end}'],
      ['errors: ["failed to parse: %w"]', 'errors: [{format: "failed to parse: %w", onError: {phased: end}}]'],
    );
    assert.deepEqual(problems(text), [
      `model.yaml:${lineOf(text, '{sequential: endGroup')} spec.operations[0].onError.sequential: "endGroup" is not allowed in the sequential loop: use end | continue`,
      `model.yaml:${lineOf(text, '{sequential: endGroup')} spec.operations[0].onError.phased: "endGroup" is not allowed in a fail-fast step of the phased loop: use end | continue`,
      `model.yaml:${lineOf(text, '{phased: end}')} spec.operations[3].onError.phased: "end" is not allowed in group Core (a group's function cannot end the attempt): use endGroup | continue`,
      `model.yaml:${lineOf(text, 'onError: {phased: end}}')} spec.operations[5].errors[0].onError.phased: "end" is not allowed in group Deployments (a group's function cannot end the attempt): use endGroup | continue`,
    ]);
  });

  it('refuses unknown keys and values in onError and in a format, and a format that is neither string nor mapping', () => {
    const text = rules([
      'errors: ["failed to fetch: %w"]',
      'errors: ["failed to fetch: %w", 42, {format: "x: %w", retry: true}]\n      onError: {legacy: end, phased: skip}',
    ]);
    const at = lineOf(text, 'retry: true');
    assert.deepEqual(problems(text), [
      `model.yaml:${at} spec.operations[0].errors[1]: must be a Go format string or a {format, only, onError, causes} mapping`,
      `model.yaml:${at} spec.operations[0].errors[2].retry: unknown field (allowed: format, only, onError, causes)`,
      `model.yaml:${at + 1} spec.operations[0].onError.legacy: unknown field (allowed: sequential, phased)`,
      `model.yaml:${at + 1} spec.operations[0].onError.phased: must be one of end | endGroup | continue, got "skip"`,
    ]);
  });

  it('refuses rules for a loop that never runs the op or never has the format', () => {
    const text = rules(
      [
        '      only: phased\n      errors: []',
        '      only: phased\n      errors: [{format: "c: %w", only: sequential}]\n      onError: {sequential: continue}',
      ],
      ['errors: ["failed to deploy: %w"]', 'errors: [{format: "failed to deploy: %w", only: phased, onError: {sequential: continue}}]'],
    );
    assert.deepEqual(problems(text), [
      `model.yaml:${lineOf(text, 'only: phased, onError')} spec.operations[6].errors[0].onError.sequential: this format exists only in the phased loop`,
      `model.yaml:${text.split('\n').indexOf('      onError: {sequential: continue}') + 1} spec.operations[7].onError.sequential: the sequential loop never runs "Check" (only: phased)`,
      `model.yaml:${lineOf(text, '"c: %w"')} spec.operations[7].errors[0].only: "Check" exists only in the phased loop`,
    ]);
  });

  it('refuses a consequence that cannot happen: unknown, itself, earlier in a loop, not a format of it, or after an error that ends every loop', () => {
    const text = rules(
      [
        'errors: ["failed to look up: %w"]',
        'errors: ["failed to look up: %w"]\n      onError: {phased: continue}\n      causes: [{op: Nope, error: "x"}, {op: Lookup, error: "failed to look up: %w"}, {op: Fetch, error: "failed to fetch: %w"}, {op: Version, error: "version gone"}, {op: Check, outcome: stop}]',
      ],
      [
        'errors: ["failed to sync: %w"]',
        'errors: ["failed to sync: %w"]\n      causes: [{op: Deploy, outcome: stop, error: "failed to deploy: %w"}, {op: Deploy}, {op: Deploy, outcome: skip}]',
      ],
      ['errors: ["invalid: %s"]', 'errors: ["invalid: %s"]\n      causes: [{op: Sync, error: "failed to sync: %w"}]'],
    );
    const lookup = lineOf(text, '{op: Nope');
    const sync = lineOf(text, '{op: Deploy, outcome: stop');
    assert.deepEqual(problems(text), [
      `model.yaml:${sync} spec.operations[3].causes[0].error: a stop carries no error (leave out error, or outcome)`,
      `model.yaml:${sync} spec.operations[3].causes[1].error: required`,
      `model.yaml:${sync} spec.operations[3].causes[2].outcome: must be one of error | stop, got "skip"`,
    ]);
    const loaded = text.replace(/\n {6}causes: \[\{op: Deploy, outcome: stop.*\]/, '');
    assert.deepEqual(problems(loaded), [
      `model.yaml:${lookup} spec.operations[1].causes[0].op: unknown operation "Nope"`,
      `model.yaml:${lookup} spec.operations[1].causes[1].op: an operation cannot be its own consequence`,
      `model.yaml:${lookup} spec.operations[1].causes[2].op: "Fetch" runs before "Lookup" in the phased loop: a consequence runs later`,
      `model.yaml:${lookup} spec.operations[1].causes[3].error: not one of the formats of "Version"`,
      `model.yaml:${lineOf(loaded, '{op: Sync')} spec.operations[2].causes: an error of "Gate" ends the attempt in every loop that runs it, so nothing runs after it to fail (set onError)`,
    ]);
  });

  it('refuses a consequence the sequential loop runs first, or one outside the phased loop', () => {
    const text = rules(
      ['    - name: Version\n      errors: ["version unknown", "failed to parse version: %w"]\n', ''],
      ['    - name: Fetch\n', '    - name: Version\n      errors: ["version unknown", "failed to parse version: %w"]\n    - name: Fetch\n'],
      [
        'errors: ["failed to look up: %w"]',
        'errors: ["failed to look up: %w"]\n      onError: {phased: continue, sequential: continue}\n      causes: [{op: Version, error: "version unknown"}]',
      ],
    );
    assert.deepEqual(problems(text), [
      `model.yaml:${lineOf(text, 'causes: [{op: Version')} spec.operations[2].causes[0].op: "Version" runs before "Lookup" in the sequential loop: a consequence runs later`,
    ]);
    const gone = rules(
      ['    - name: Sync\n', '    - name: Sync\n      only: sequential\n'],
      ['    - {group: Core, category: critical, ops: [Sync]}\n', ''],
      [
        'errors: ["failed to look up: %w"]',
        'errors: ["failed to look up: %w"]\n      onError: {sequential: continue}\n      causes: [{op: Sync, error: "failed to sync: %w"}]',
      ],
    );
    assert.deepEqual(problems(gone), [
      `model.yaml:${lineOf(gone, 'causes: [{op: Sync')} spec.operations[1].causes[0].op: "Lookup" and "Sync" must both run in the phased loop`,
    ]);
  });

  it('refuses skipWhenBlocked on a blockable group, and a value that is not a boolean', () => {
    const text = rules(
      ['blockable: true, mode: collect', 'blockable: true, skipWhenBlocked: true, mode: collect'],
      ['ops: [Check]}', 'skipWhenBlocked: yes, ops: [Check]}'],
    );
    assert.deepEqual(problems(text), [
      `model.yaml:${lineOf(text, 'skipWhenBlocked: yes')} spec.phased[5].skipWhenBlocked: must be true or false, got "yes"`,
      `model.yaml:${lineOf(text, 'skipWhenBlocked: true')} spec.phased[6].skipWhenBlocked: only a group that is not blockable can skip itself when blocked (a blockable group is not run at all)`,
    ]);
  });

  it('reads a recovery path per loop and refuses one that cannot run: unknown, earlier, outside the loop, in a group, after an error that goes on', () => {
    const m = parseModel(rules(['errors: ["invalid: %s"]', 'errors: ["invalid: %s"]\n      recovery: {sequential: [Deploy], phased: [Sync]}']));
    assert.deepEqual(m.operations.find((o) => o.name === 'Gate')?.recovery, { sequential: ['Deploy'], phased: ['Sync'] });
    const text = rules(
      ['errors: ["invalid: %s"]', 'errors: ["invalid: %s"]\n      recovery: {sequential: [Fetch, Nope, Check]}'],
      ['errors: ["failed to sync: %w"]', 'errors: ["failed to sync: %w"]\n      recovery: {phased: [Deploy]}'],
      ['errors: ["failed to look up: %w"]', 'errors: ["failed to look up: %w"]\n      onError: {sequential: continue}\n      recovery: {sequential: [Deploy]}'],
    );
    const at = (fragment: string): number => lineOf(text, fragment);
    assert.deepEqual(problems(text), [
      `model.yaml:${at('recovery: {sequential: [Deploy]}')} spec.operations[1].recovery.sequential: an error of "Lookup" never ends the sequential loop, so no recovery path runs before it returns`,
      `model.yaml:${at('recovery: {sequential: [Fetch')} spec.operations[2].recovery.sequential[0]: "Fetch" runs before "Gate" in the sequential loop: a recovery path runs what the loop has not reached`,
      `model.yaml:${at('recovery: {sequential: [Fetch')} spec.operations[2].recovery.sequential[1]: unknown operation "Nope"`,
      `model.yaml:${at('recovery: {sequential: [Fetch')} spec.operations[2].recovery.sequential[2]: the sequential loop never runs "Check"`,
      `model.yaml:${at('recovery: {phased: [Deploy]}')} spec.operations[3].recovery.phased: "Sync" is in group Core: its error ends the group, not the attempt`,
    ]);
    const empty = rules(['errors: ["invalid: %s"]', 'errors: ["invalid: %s"]\n      recovery: {phased: [], always: [Deploy]}']);
    assert.deepEqual(problems(empty), [
      `model.yaml:${lineOf(empty, 'recovery:')} spec.operations[2].recovery.always: unknown field (allowed: sequential, phased)`,
      `model.yaml:${lineOf(empty, 'recovery:')} spec.operations[2].recovery.phased: must be a non-empty list of operation names`,
    ]);
  });
});

describe('model format: the README', () => {
  it('its per-loop example says what the built-in model says: the same rules on the same formats and operations', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### When an operation behaves differently in the two loops'));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const example = parse(block) as {
      operations: { name: string; errors: unknown[]; onError?: unknown; causes?: unknown[]; writes?: string }[];
      phased: Record<string, unknown>[];
    };
    const builtin = resolveModel('hypershift-hostedcluster');
    const normal = (c: { op: string; outcome?: string; error?: string }): object => ({
      op: c.op,
      outcome: c.outcome ?? 'error',
      ...(c.error === undefined ? {} : { error: c.error }),
    });
    for (const op of example.operations) {
      const real = builtin.operations.find((o) => o.name === op.name)!;
      assert.deepEqual(op.onError, real.onError, op.name);
      if (op.writes !== undefined) assert.equal(op.writes, real.writes, op.name);
      assert.deepEqual((op.causes as { op: string }[] | undefined)?.map(normal), real.causes, op.name);
      for (const e of op.errors) {
        const { causes, ...rest } = typeof e === 'string' ? { format: e } : (e as { format: string; causes?: { op: string }[] });
        const expected = causes === undefined ? rest : { ...rest, causes: causes.map(normal) };
        assert.deepEqual(
          real.errors.find((f) => f.format === rest.format),
          expected,
          `${op.name}: ${rest.format}`,
        );
      }
    }
    const hsm = builtin.phased.find((s) => s.kind === 'group' && s.group === 'ManagedHSMVersionCheck');
    assert.deepEqual(example.phased, [{ group: 'ManagedHSMVersionCheck', category: 'critical', skipWhenBlocked: true, ops: ['ManagedHSMVersionCheck'] }]);
    assert.ok(hsm?.kind === 'group' && hsm.skipWhenBlocked && hsm.category === 'critical');
  });
});
