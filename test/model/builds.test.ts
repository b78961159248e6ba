/**
 * Operator builds in a model (spec.builds, model/builds.ts): the differences read as data, checked with file:line like
 * every model field, applied to give each build's model, and chosen by the operator's version.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../../lib/validation-error.js';
import { buildForVersion, modelForBuild, selectBuild } from '../../model/builds.js';
import { modelDocument } from '../../model/document.js';
import { parseModel } from '../../model/load.js';
import { formatsIn } from '../../model/effects.js';
import { parseConfig } from '../../sidecar/config.js';
import { resolveModel } from '../../sidecar/files.js';
import { REPO } from '../support/paths.js';

const base = readFileSync(join(REPO, 'examples/database-operator/model.yaml'), 'utf8');

const BUILDS = `  builds:
    - name: v2
      commit: abc123
      versions: ["2.0", "2.1"]
      supported: ["2.1"]
    - name: v1
      commit: def456
      versions: ["1.9"]
      supported: ["2.1"]
      loops: [sequential]
      add:
        - after: EnsureStatefulSet
          operation: {name: EnsurePDB, only: sequential, errors: ["failed to reconcile pdb: %w"]}
      remove: [EnsureBackupSchedule]
      only: {EnsureService: phased}
      formats:
        - {op: EnsureSecrets, remove: "failed to reconcile credentials secret %s: %w"}
        - {op: EnsureSecrets, add: "failed to get secret %s: %w", only: sequential}
        - {op: UpdateStatus, format: "failed to update status: %w", only: phased}
      notes: ["a backport not merged at def456"]
`;

const withBuilds = (builds: string): string => `${base.trimEnd()}\n${builds}`;

function problems(text: string): string[] {
  try {
    parseModel(text, 'model.yaml');
  } catch (e) {
    if (e instanceof ValidationError) return [...e.problems];
    throw e;
  }
  return [];
}

const lineOf = (text: string, fragment: string): number => text.split('\n').findIndex((l) => l.includes(fragment)) + 1;

describe('model builds', () => {
  const model = parseModel(withBuilds(BUILDS), 'model.yaml');

  it('derives a build: ops added after their place, removed, in one loop; formats removed, added, restricted', () => {
    const v1 = modelForBuild(model, 'v1');
    assert.equal(v1.build, 'v1');
    assert.equal(v1.builds, undefined);
    assert.deepEqual(
      v1.operations.map((o) => `${o.name}${o.only ? `:${o.only}` : ''}`),
      ['FetchCluster', 'ValidateSpec', 'EnsureSecrets', 'EnsureStatefulSet', 'EnsurePDB:sequential', 'EnsureService:phased', 'UpdateStatus'],
    );
    assert.deepEqual(
      v1.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : [`${s.group}[${s.ops.join(',')}]`])),
      ['FetchCluster', 'ValidateSpec', 'Credentials[EnsureSecrets]', 'Workload[EnsureStatefulSet,EnsureService]', 'Status[UpdateStatus]'],
    );
    const op = (name: string) => v1.operations.find((o) => o.name === name)!;
    assert.deepEqual(op('EnsureSecrets').errors, [{ format: 'failed to get secret %s: %w', only: 'sequential' }]);
    assert.deepEqual(formatsIn(op('UpdateStatus'), 'sequential'), []);
    assert.deepEqual(
      formatsIn(op('UpdateStatus'), 'phased').map((f) => f.format),
      ['failed to update status: %w'],
    );
    const v2 = modelForBuild(model, 'v2');
    assert.deepEqual([v2.operations, v2.phased], [model.operations, model.phased]);
    assert.throws(() => modelForBuild(model, 'v3'), /model database-operator has no build "v3" \(builds: v2, v1\)/);
  });

  it('chooses a build by version, tag, branch, name or supported version, and says when it cannot', () => {
    const chosen = (v: string | undefined): string[] => {
      const c = buildForVersion(model, v, 'x');
      return [c.build ?? '-', c.statement];
    };
    assert.deepEqual(chosen('1.9.4'), ['v1', 'x: version 1.9, build v1 (upstream def456)']);
    assert.deepEqual(chosen('v2.1.0-multi'), ['v2', 'x: version 2.1, build v2 (upstream abc123)']);
    assert.deepEqual(chosen('release-1.9'), ['v1', 'x: version 1.9, build v1 (upstream def456)']);
    assert.deepEqual(chosen('v1'), ['v1', 'x: build v1 (upstream def456)']);
    assert.deepEqual(chosen('openshift/hypershift: abc. Latest supported OCP: 2.1.0'), [
      '-',
      'x: latest supported OCP 2.1 is builds v2 and v1 alike; using the model of build v2',
    ]);
    assert.deepEqual(chosen('3.0'), ['-', 'x: version 3.0 is no build the model knows (2.0, 2.1, 1.9); using the model of build v2']);
    assert.deepEqual(chosen('latest'), ['-', 'x: "latest" is no major.minor version; using the model of build v2']);
    assert.deepEqual(chosen(undefined), ['-', "x: not given, the operator's version is unknown; using the model of build v2"]);
    const unknown = selectBuild(model, undefined, 'x');
    assert.deepEqual([unknown.build, unknown.buildStatement], ['v2', "x: not given, the operator's version is unknown; using the model of build v2"]);
    const plain = parseModel(base, 'model.yaml');
    assert.equal(selectBuild(plain, '1.9', 'x'), plain);
  });

  it("a build's model round-trips through its document with its build and statement", () => {
    const m = selectBuild(model, '1.9', 'x');
    assert.deepEqual(parseModel(JSON.stringify(modelDocument(m)), 'doc'), m);
    assert.deepEqual(parseModel(JSON.stringify(modelDocument(model)), 'doc'), model);
    // As JSON too, key order included: a partial summary's merge compares models so.
    const builtin = resolveModel('hypershift-hostedcluster');
    for (const b of builtin.builds ?? []) {
      const derived = modelForBuild(builtin, b.name);
      assert.equal(JSON.stringify(modelDocument(parseModel(JSON.stringify(modelDocument(derived)), 'doc'))), JSON.stringify(modelDocument(derived)), b.name);
    }
  });

  it('names file, line and field of each bad build', () => {
    const bad = withBuilds(`  builds:
    - name: v2
      commit: abc123
      versions: ["2.0"]
      remove: [EnsureService]
    - name: v1
      commit: def456
      versions: ["2.0", "one"]
      loops: [parallel]
      remove: [EnsureServise]
      only: {UpdateStatus: both}
      add:
        - after: Nowhere
          operation: {name: Extra, errors: []}
      formats:
        - {op: EnsureSecrets, remove: "no such format"}
        - {op: EnsureSecrets, add: "failed to reconcile credentials secret %s: %w"}
        - {op: UpdateStatus, remove: "failed to update status: %w", add: "x"}
        - {op: Missing, remove: "x"}
      color: blue
`);
    const at = (fragment: string): number => lineOf(bad, fragment);
    assert.deepEqual(problems(bad), [
      `model.yaml:${at('color: blue')} spec.builds[1].color: unknown field (allowed: name, commit, versions, supported, loops, add, remove, only, formats, notes)`,
      `model.yaml:${at('versions: ["2.0", "one"]')} spec.builds[1].versions[0]: version 2.0 is already build "v2"'s`,
      `model.yaml:${at('versions: ["2.0", "one"]')} spec.builds[1].versions[1]: "one" is not a major.minor version`,
      `model.yaml:${at('loops: [parallel]')} spec.builds[1].loops[0]: must be sequential or phased, got "parallel"`,
      `model.yaml:${at('EnsureServise')} spec.builds[1].remove[0]: unknown operation "EnsureServise"`,
      `model.yaml:${at('UpdateStatus: both')} spec.builds[1].only.UpdateStatus: must be sequential or phased, got "both"`,
      `model.yaml:${at('after: Nowhere')} spec.builds[1].add[0].after: unknown operation "Nowhere"`,
      `model.yaml:${at('name: Extra')} spec.builds[1].add[0].operation.only: an operation a build adds must be only: sequential (the phased loop is the model's)`,
      `model.yaml:${at('no such format')} spec.builds[1].formats[0].remove: operation "EnsureSecrets" has no format "no such format"`,
      `model.yaml:${at('add: "failed to reconcile credentials')} spec.builds[1].formats[1].add: operation "EnsureSecrets" already has format "failed to reconcile credentials secret %s: %w" (remove it first to change its only)`,
      `model.yaml:${at('add: "x"')} spec.builds[1].formats[2]: needs exactly one of remove (a format of the operation), add (a new format) and format (one the build has in one loop only)`,
      `model.yaml:${at('op: Missing')} spec.builds[1].formats[3].op: unknown operation "Missing"`,
      `model.yaml:${at('- name: v2')} spec.builds[0]: the first build ("v2") is the model as written: it takes no add, remove, only or formats`,
    ]);
  });

  it("checks each build's model by the model's rules, at the build", () => {
    const text = base
      .replace('    - name: UpdateStatus\n', '    - name: UpdateStatus\n      recovery: {sequential: [Cleanup]}\n')
      .replace('ops: [UpdateStatus]', 'ops: [UpdateStatus, Cleanup]')
      .replace('  phased:', '    - name: Cleanup\n      errors: []\n  phased:');
    const bad = withBuilds(`  builds:
    - {name: v2, commit: abc123, versions: ["2.0"]}
    - {name: v1, commit: def456, versions: ["1.0"], only: {Cleanup: phased}}
`).replace(base.trimEnd(), text.trimEnd());
    assert.deepEqual(
      problems(bad).map((p) => p.replace(/^model\.yaml:\d+ /, '')),
      ['spec.builds[1]: build "v1": spec.operations[6].recovery.sequential[0]: the sequential loop never runs "Cleanup"'],
    );
  });

  it("the built-in model's builds: HEAD first, the release branches after, each a valid model", () => {
    const builtin = resolveModel('hypershift-hostedcluster');
    const sizes = (builtin.builds ?? []).map((b) => {
      const m = modelForBuild(builtin, b.name);
      return [b.name, m.operations.length, m.operations.filter((o) => o.only !== 'phased').length];
    });
    assert.deepEqual(sizes, [
      ['head', 70, 69],
      ['merge', 69, 69],
      ['release-5.0', 69, 69],
      ['release-4.22', 71, 69],
      ['release-4.21', 71, 68],
    ]);
  });

  it("the sidecar config's operatorVersion picks each model's build, and its absence is stated", () => {
    const config = (extra: string): [string | undefined, string | undefined] => {
      const m = parseConfig(`apiVersion: reconcile-shadow/v1\nkind: ShadowConfig\nmodels: [hypershift-hostedcluster]\nsources: {}\n${extra}`, 'c.yaml')
        .models[0]!;
      return [m.build, m.buildStatement];
    };
    assert.deepEqual(config('operatorVersion: "4.22"\n'), ['release-4.22', 'config operatorVersion: version 4.22, build release-4.22 (upstream 2f5225b64a5e)']);
    assert.deepEqual(config(''), ['head', "config operatorVersion: not given, the operator's version is unknown; using the model of build head"]);
  });
});
