import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CommandResult } from '../support/run-command.js';
import { CONTRACT_CASES, REPO } from '../support/paths.js';

/** The shared contract case, copied into the repository (see its README). */
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
    const got = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Row);
    const expected = readFileSync(join(CASE, 'expected.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
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
    assert.deepEqual(report.recreations.filter((x) => x.stuck).map((x) => x.totalSeconds ?? x.ageSeconds), [946, 9142, 9949, 1192]);
    assert.deepEqual(report.recreations[0]!.predictedUnreconciledSeconds, { blocking: 86, sentinel: 115 });
  });

  it('fails start on a broken CEL expression, naming file:line:column, resource, field and caret (exit 3)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recreations-'));
    const file = join(dir, 'task.yaml');
    writeFileSync(
      file,
      readFileSync(TASK_CONFIG, 'utf8').replace(
        'recreate_on_change: true',
        'lifecycle:\n      recreate:\n        when:\n          expression: |\n            resources.?job.hasValue()\n            && string(generation) != resources.job.metadata.(',
      ).replace(/\n {4}lifecycle:\n {6}delete:\n {8}propagationPolicy: Background\n {8}when: \{expression: "is_deleting"\}/, ''),
    );
    const r = await run(['--task-config', file, '--journal', JOURNAL]);
    assert.equal(r.code, 3);
    assert.equal(r.stdout, '');
    const lines = r.stderr.split('\n');
    assert.equal(lines[0], 'invalid task config:');
    assert.equal(lines[1], `${file}:28:61 resource "job" lifecycle.recreate.when.expression: Expected IDENTIFIER, got LPAREN`);
    assert.ok(lines.some((l) => /\^$/.test(l)), r.stderr);
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

  it('prints notices for parts of the task config it does not use, and the example config shadows the simulator', async () => {
    const r = await run(['--task-config', join(REPO, 'examples/adapter-task-config.yaml'), '--journal', JOURNAL, '--format', 'jsonl']);
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    // The example discovers the same Jobs; its recreate.when rule decides first, so the trigger is the rule.
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Row);
    assert.equal(rows.length, 19);
    assert.ok(rows.every((x) => x.trigger === 'rule'));
  });
});
