import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CommandResult } from '../support/run-command.js';
import { CONTRACT_CASES, REPO } from '../support/paths.js';

/** The recreations contract case (test/fixtures/contract/recreations/README.md). */
const CASE = join(CONTRACT_CASES, 'recreations');
const TASK_CONFIG = join(CASE, 'task-config.yaml');
const JOURNAL = join(CASE, 'journal.jsonl');

const run = (argv: string[], stdin = ''): Promise<CommandResult> => runCli(['recreations', ...argv], stdin);

type Row = Record<string, unknown>;
const key = (r: Row): string => `${String(r.namespace)}/${String(r.name)}/${String(r.oldUid)}`;

describe('reconcile-shadow recreations', () => {
  it('reproduces the contract: every recreation of expected.jsonl, exact durations, phases and ages', async () => {
    const r = await run(['--task-config', TASK_CONFIG, '--journal', JOURNAL, '--format', 'jsonl']);
    assert.equal(r.code, 0, r.stderr);
    const got = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    const expected = readFileSync(join(CASE, 'expected.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    assert.equal(got.length, expected.length);
    const byKey = new Map(got.map((row) => [key(row), row]));
    for (const want of expected) {
      const row = byKey.get(key(want));
      assert.ok(row, `missing recreation ${key(want)}`);
      // Same fields, same order, same values.
      assert.deepEqual(Object.keys(row), Object.keys(want));
      assert.deepEqual(row, want);
    }
    // And in the contract's order (namespace, name, trigger time).
    assert.deepEqual(got.map(key), expected.map(key));
  });

  it('reads the journal from stdin with --journal -', async () => {
    const r = await run(['--task-config', TASK_CONFIG, '--journal', '-', '--format', 'jsonl'], readFileSync(JOURNAL, 'utf8'));
    assert.equal(r.code, 0);
    assert.equal(r.stdout, readFileSync(join(CASE, 'expected.jsonl'), 'utf8'));
  });

  it('table: one line per recreation and the decision counts; json: timestamps and both predicted flows', async () => {
    const table = await run(['--task-config', TASK_CONFIG, '--journal', JOURNAL]);
    assert.equal(table.code, 0);
    const lines = table.stdout.split('\n');
    assert.match(lines[0]!, /^OBJECT\s+TRIGGER\s+STATE\s+DELETION/);
    assert.match(lines[1]!, /^Job hf-c000\/validate-c000\s+recreate_on_change\s+available\s+1s\s+1s\s+1m22s\s+1m26s\s+1m26s\s+1m35s$/);
    assert.ok(table.stdout.includes('recreations: 17 finished, 2 unfinished, 4 stuck, 0 rebuilt'));
    assert.ok(table.stdout.includes('decisions Job: create=23 skip=44 recreate=40'));

    const json = await run(['--task-config', TASK_CONFIG, '--journal', JOURNAL, '--format', 'json']);
    const report = JSON.parse(json.stdout) as { recreations: Row[]; summary: { predicted: Row; recreations: Row } };
    const first = report.recreations[0]!;
    assert.deepEqual(
      [first.triggeredAt, first.deletionRequestedAt, first.goneAt, first.createdAt, first.availableAt],
      ['2026-11-02T00:09:02.000Z', '2026-11-02T00:09:04.000Z', '2026-11-02T00:09:05.000Z', '2026-11-02T00:09:06.000Z', '2026-11-02T00:10:28.000Z'],
    );
    // Deleted in 1 s: the designed flow creates at the next Sentinel event, 10 s after the delete.
    assert.deepEqual(first.predictedUnreconciledSeconds, { blocking: 86, sentinel: 95 });
    assert.deepEqual(report.summary.recreations, { finished: 17, unfinished: 2, stuck: 4, rebuilt: 0 });
  });

  it('--stuck-threshold and --sentinel-interval change what is stuck and the prediction', async () => {
    const r = await run(['--task-config', TASK_CONFIG, '--journal', JOURNAL, '--format', 'json', '--stuck-threshold', '15m', '--sentinel-interval', '30s']);
    const report = JSON.parse(r.stdout) as { recreations: Row[] };
    assert.deepEqual(
      report.recreations.filter((x) => x.stuck).map((x) => x.totalSeconds ?? x.ageSeconds),
      [946, 9142, 9949, 1192],
    );
    assert.deepEqual(report.recreations[0]!.predictedUnreconciledSeconds, { blocking: 86, sentinel: 115 });
  });

  it('fails start on a broken CEL expression, naming file:line:column, resource, field and caret (exit 3)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recreations-'));
    const file = join(dir, 'task.yaml');
    writeFileSync(
      file,
      readFileSync(TASK_CONFIG, 'utf8')
        .replace(
          'recreate_on_change: true',
          'lifecycle:\n      delete:\n        when:\n          expression: |\n            resources.?job.hasValue()\n            && string(generation) != resources.job.metadata.(',
        )
        .replace(/\n {4}lifecycle:\n {6}delete:\n {8}propagationPolicy: Background\n {8}when: \{expression: "is_deleting"\}/, ''),
    );
    const r = await run(['--task-config', file, '--journal', JOURNAL]);
    assert.equal(r.code, 3);
    assert.equal(r.stdout, '');
    const lines = r.stderr.split('\n');
    assert.equal(lines[0], 'invalid task config:');
    assert.equal(lines[1], `${file}:28:61 resource "job" lifecycle.delete.when.expression: Expected IDENTIFIER, got LPAREN`);
    assert.ok(
      lines.some((l) => /\^$/.test(l)),
      r.stderr,
    );
  });

  it('bad journal lines are reported with file:line and counted; --strict makes them exit 4', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recreations-'));
    const journal = join(dir, 'journal.jsonl');
    const good = readFileSync(JOURNAL, 'utf8').split('\n').slice(0, 6).join('\n');
    writeFileSync(journal, `${good}\nnot json\n{"time":"2026-11-02T00:00:30Z","type":"object","event":"ADDED","object":{"kind":"Job"}}\n`);
    const r = await run(['--task-config', TASK_CONFIG, '--journal', journal, '--format', 'json']);
    assert.equal(r.code, 0);
    const errs = r.stderr.split('\n').filter((l) => l.startsWith(journal));
    assert.deepEqual(errs, [
      `${journal}:7: invalid_json: not JSON: Unexpected token 'o', "not json" is not valid JSON`,
      `${journal}:8: invalid_object: object.apiVersion: required string`,
    ]);
    const summary = (JSON.parse(r.stdout) as { summary: { rejected: Row; observations: number } }).summary;
    assert.deepEqual(summary.rejected, { invalid_json: 1, invalid_object: 1 });
    assert.equal(summary.observations, 6);
    const strict = await run(['--task-config', TASK_CONFIG, '--journal', journal, '--strict', '--format', 'jsonl']);
    assert.equal(strict.code, 4);
  });

  it('exit codes: 2 for bad arguments, 1 for an unreadable journal, 3 for a missing task config', async () => {
    assert.equal((await run(['--journal', JOURNAL])).code, 2);
    assert.equal((await run(['--task-config', TASK_CONFIG, '--journal', JOURNAL, '--format', 'xml'])).code, 2);
    assert.equal((await run(['--task-config', TASK_CONFIG, '--journal', JOURNAL, '--stuck-threshold', 'soon'])).code, 2);
    const missing = await run(['--task-config', TASK_CONFIG, '--journal', join(REPO, 'no-such-journal.jsonl')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no-such-journal\.jsonl: cannot read: ENOENT/);
    const noConfig = await run(['--task-config', join(REPO, 'no-such-task.yaml'), '--journal', JOURNAL]);
    assert.equal(noConfig.code, 3);
    assert.match(noConfig.stderr, /no-such-task\.yaml: cannot read/);
  });

  it('the example: the adapter config alone recreates by recreate_on_change; its proposals file adds the designed rule', async () => {
    const alone = await run(['--task-config', join(REPO, 'examples/adapter-task-config.yaml'), '--journal', JOURNAL, '--format', 'jsonl']);
    assert.equal(alone.code, 0);
    assert.equal(alone.stderr, '');
    const rows = (r: CommandResult): Row[] =>
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Row);
    assert.equal(rows(alone).length, 19);
    assert.ok(rows(alone).every((x) => x.trigger === 'recreate_on_change'));
    // The proposed recreate.when decides before the apply, so with it the trigger is the rule.
    const proposed = await run([
      '--task-config',
      join(REPO, 'examples/adapter-task-config.yaml'),
      '--proposals',
      join(REPO, 'examples/recreation-proposals.yaml'),
      '--journal',
      JOURNAL,
      '--format',
      'jsonl',
    ]);
    assert.equal(proposed.code, 0);
    assert.equal(rows(proposed).length, 19);
    assert.ok(rows(proposed).every((x) => x.trigger === 'rule'));
  });

  it("refuses a lifecycle.recreate in the adapter's task config, as the adapter's strict decoding does (exit 3)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recreations-'));
    const file = join(dir, 'task.yaml');
    writeFileSync(
      file,
      readFileSync(join(REPO, 'examples/adapter-task-config.yaml'), 'utf8').replace(
        '      delete:\n',
        '      recreate: {when: {expression: "true"}}\n      delete:\n',
      ),
    );
    const r = await run(['--task-config', file, '--journal', JOURNAL]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /task\.yaml:\d+ resources\[0\]\.lifecycle\.recreate: field recreate not found in type configloader\.ResourceLifecycle/);
  });
});

/**
 * The adapter's own dry-run inputs (test/fixtures/hyperfleet-adapter, upstream paths, commit 3f746a5): per resource,
 * the decision the adapter's code gives, and what upstream's dry run prints beside it.
 */
describe('reconcile-shadow recreations --dry-run-event', () => {
  const UP = join(REPO, 'test/fixtures/hyperfleet-adapter');
  const DRY = join(UP, 'test/testdata/dryrun');
  const K8S_ADAPTER = join(DRY, 'dryrun-kubernetes-adapter-config.yaml');
  const dryRun = async (taskConfig: string, api: string, discovery: string | undefined, adapterConfig = K8S_ADAPTER): Promise<string[]> => {
    const r = await run([
      '--task-config',
      taskConfig,
      '--adapter-config',
      adapterConfig,
      '--dry-run-event',
      join(DRY, 'event.json'),
      '--dry-run-api-responses',
      api,
      ...(discovery ? ['--dry-run-discovery', discovery] : []),
      '--format',
      'jsonl',
    ]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout
      .trim()
      .split('\n')
      .map((l) => {
        const row = JSON.parse(l) as Row;
        return `${String(row.resource)} ${String(row.kind)} ${String(row.namespace)}/${String(row.name)}: ${String(row.decision)} (upstream dry run: ${String(row.upstreamDryRun)}) ${String(row.reason)}`;
      });
  };

  it('kubernetes/dryrun-kubernetes-task-config.yaml: a failing non-required param does not fail the event; equal generations skip (k8sclient/apply.go ApplyManifest)', async () => {
    assert.deepEqual(
      await dryRun(
        join(DRY, 'kubernetes/dryrun-kubernetes-task-config.yaml'),
        join(DRY, 'dryrun-api-responses.json'),
        join(DRY, 'kubernetes/dryrun-kubernetes-discovery.json'),
      ),
      [
        'namespace0 Namespace /abc123: skip (upstream dry run: update) generation 5 unchanged',
        'configmap0 ConfigMap abc123/abc123-config: skip (upstream dry run: update) generation 5 unchanged',
      ],
    );
  });

  it('kubernetes-delete: ordered deletion in one event, the ConfigMap gone before the Namespace is decided (resource_executor.go executeResourceDelete)', async () => {
    assert.deepEqual(
      await dryRun(
        join(DRY, 'kubernetes-delete/dryrun-kubernetes-delete-task-config.yaml'),
        join(DRY, 'dryrun-delete-api-responses.json'),
        join(DRY, 'kubernetes-delete/dryrun-kubernetes-delete-discovery.json'),
      ),
      [
        'configmap0 ConfigMap abc123/abc123-config: delete (upstream dry run: delete) lifecycle.delete.when evaluated to true',
        'namespace0 Namespace /abc123: delete (upstream dry run: delete) lifecycle.delete.when evaluated to true',
      ],
    );
  });

  it('cel-showcase: every CEL pattern the adapter supports evaluates; the three resources are at their generation', async () => {
    const cel = join(DRY, 'cel-showcase');
    assert.deepEqual(
      await dryRun(
        join(cel, 'dryrun-cel-showcase-task-config.yaml'),
        join(cel, 'dryrun-cel-showcase-api-responses.json'),
        join(cel, 'dryrun-cel-showcase-discovery.json'),
      ),
      [
        'namespace0 Namespace /abc123: skip (upstream dry run: update) generation 5 unchanged',
        'configmap0 ConfigMap abc123/abc123-config: skip (upstream dry run: update) generation 5 unchanged',
        'configmap1 ConfigMap abc123/abc123-extra: skip (upstream dry run: update) generation 5 unchanged',
      ],
    );
    const r = await run([
      '--task-config',
      join(cel, 'dryrun-cel-showcase-task-config.yaml'),
      '--adapter-config',
      K8S_ADAPTER,
      '--dry-run-event',
      join(DRY, 'event.json'),
      '--dry-run-api-responses',
      join(cel, 'dryrun-cel-showcase-api-responses.json'),
      '--format',
      'json',
    ]);
    const params = (JSON.parse(r.stdout) as { event: { params: Row } }).event.params;
    assert.deepEqual(
      [params.sortedTags, params.firstNodePoolName, params.nodePoolsByReplicas, params.conditionSummary],
      [
        ['production', 'tier-1', 'us-east'],
        ['worker-pool'],
        ['infra-pool', 'worker-pool'],
        ['Reconciled', 'False', 'Provisioned', 'True', 'Degraded', 'False'],
      ],
    );
  });

  it("charts/examples/kubernetes, mounted as its values.yaml mounts it: with the chart's base_url both are at generation 77; without one the API answers {} and the manifest cannot render (missingkey=error)", async () => {
    const task = join(UP, 'mounted/kubernetes/adapter-task-config.yaml');
    const chart = join(UP, 'charts/examples/kubernetes');
    assert.deepEqual(await dryRun(task, join(DRY, 'dryrun-api-responses.json'), join(chart, 'dryrun-discovery.json'), join(chart, 'adapter-config.yaml')), [
      'namespace Namespace /abc123-k8s: skip (upstream dry run: update) generation 77 unchanged',
      'helloWorldJob Job abc123-k8s/hello-world-job: skip (upstream dry run: update) generation 77 unchanged',
    ]);
    assert.deepEqual(
      await dryRun(task, join(DRY, 'dryrun-delete-api-responses.json'), join(chart, 'dryrun-discovery.json'), join(chart, 'adapter-config.yaml')),
      [
        'namespace Namespace /abc123-k8s: delete (upstream dry run: delete) lifecycle.delete.when evaluated to true',
        'helloWorldJob Job abc123-k8s/hello-world-job: delete (upstream dry run: delete) lifecycle.delete.when evaluated to true',
      ],
    );
    const noBase = await dryRun(task, join(DRY, 'dryrun-api-responses.json'), join(chart, 'dryrun-discovery.json'));
    assert.match(noBase[0]!, /^namespace Namespace null\/null: error .* map has no entry for key "generation"$/);
  });

  it('test/testdata/task-config.yaml without a base_url: the precondition is not met, so every resource is skipped', async () => {
    assert.deepEqual(await dryRun(join(UP, 'test/testdata/task-config.yaml'), join(DRY, 'dryrun-api-responses.json'), undefined), [
      "clusterNamespace Namespace null/null: skip (upstream dry run: skip) resources skipped: precondition 'clusterStatus' not met",
      "clusterConfigMap ConfigMap null/null: skip (upstream dry run: skip) resources skipped: precondition 'clusterStatus' not met",
    ]);
  });

  it('Maestro: the ManifestWork is found within its consumer and compared by generation (maestroclient/client.go ApplyResource, GetResource)', async () => {
    const maestro = join(DRY, 'maestro');
    assert.deepEqual(
      await dryRun(
        join(maestro, 'dryrun-maestro-adapter-task-config.yaml'),
        join(DRY, 'dryrun-api-responses.json'),
        join(maestro, 'dryrun-maestro-discovery.json'),
        join(DRY, 'dryrun-maestro-adapter-config.yaml'),
      ),
      ['resource0 ManifestWork cluster1/manifestwork-symbol000: skip (upstream dry run: update) generation 5 unchanged'],
    );
    // Its nested discoveries are found inside the discovered ManifestWork (manifest/generation.go DiscoverNestedManifest).
    const r = await run([
      '--task-config',
      join(maestro, 'dryrun-maestro-adapter-task-config.yaml'),
      '--adapter-config',
      join(DRY, 'dryrun-maestro-adapter-config.yaml'),
      '--dry-run-event',
      join(DRY, 'event.json'),
      '--dry-run-api-responses',
      join(DRY, 'dryrun-api-responses.json'),
      '--dry-run-discovery',
      join(maestro, 'dryrun-maestro-discovery.json'),
      '--format',
      'json',
    ]);
    assert.deepEqual((JSON.parse(r.stdout) as { event: { discovered: string[] } }).event.discovered, ['resource0', 'namespace0', 'configmap0']);
  });

  it('refuses the invalid upstream fixture at load, as the adapter does (exit 3)', async () => {
    const r = await run([
      '--task-config',
      join(DRY, 'kubernetes/dryrun-kubernetes-adatepr-task-config-invalid.yaml'),
      '--dry-run-event',
      join(DRY, 'event.json'),
    ]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /preconditions\[0\]\.name: "bad-cel": must start with lowercase letter/);
    assert.match(r.stderr, /undefined template variable "nonExistentVariable"/);
  });

  it('--journal and --dry-run-event are alternatives (exit 2)', async () => {
    assert.equal((await run(['--task-config', TASK_CONFIG])).code, 2);
    assert.equal((await run(['--task-config', TASK_CONFIG, '--journal', JOURNAL, '--dry-run-event', JOURNAL])).code, 2);
  });
});
