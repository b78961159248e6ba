import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Ajv } from 'ajv';
import { formatAttemptLine } from '../../collector/journal/format.js';
import { resolveModel } from '../../sidecar/files.js';
import { World } from '../../simulator/world.js';
import { CONTRACT_CASES, REPO } from '../support/paths.js';
import { runCli } from '../support/run-command.js';

const EXAMPLE_MODEL = join(REPO, 'examples/database-operator/model.yaml');
const EXAMPLE_JOURNAL = join(REPO, 'examples/database-operator/journal.jsonl');
const ajv = new Ajv({ allErrors: true, strict: true });
const rowSchema = ajv.compile(JSON.parse(readFileSync(join(REPO, 'docs/attempt-row.schema.json'), 'utf8')) as object);
const summarySchema = ajv.compile(JSON.parse(readFileSync(join(REPO, 'docs/summary.schema.json'), 'utf8')) as object);

describe('reconcile-shadow analyze', () => {
  it('prints the README example as jsonl rows that pass the row schema', async () => {
    const r = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--format', 'jsonl']);
    assert.equal(r.code, 0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    assert.equal(rows.length, 5);
    for (const row of rows) assert.ok(rowSchema(row), JSON.stringify(rowSchema.errors));
    assert.deepEqual(rows[0], {
      time: '2026-11-29T09:00:00Z',
      object: 'db/orders',
      observedModel: 'sequential',
      diverged: true,
      unblocked: ['EnsureService', 'EnsureStatefulSet', 'UpdateStatus'],
      newlyBlocked: [],
    });
    assert.deepEqual(rows[3], {
      time: '2026-11-29T09:00:20Z',
      object: 'db/orders',
      observedModel: 'sequential',
      diverged: false,
      unblocked: [],
      newlyBlocked: [],
    });
  });

  it('json: the documented summary schema, with exact counts', async () => {
    const r = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--format', 'json']);
    const report = JSON.parse(r.stdout) as {
      controllers: {
        attempts: unknown;
        operations: { name: string; observed: number; outcomes: { error: number }; unblocked: number; topBlockers: unknown }[];
        blockedBy: unknown;
        reorderedPairs: unknown;
      }[];
    };
    assert.ok(summarySchema(report), JSON.stringify(summarySchema.errors));
    const c = report.controllers[0]!;
    assert.deepEqual(c.attempts, {
      total: 5,
      byObservedLoop: { sequential: 5, phased: 0 },
      bySource: { journal: 5 },
      diverged: 3,
      divergenceRate: 0.6,
      structural: 0,
      partial: 0,
    });
    const backup = c.operations.find((o) => o.name === 'EnsureBackupSchedule')!;
    assert.deepEqual([backup.observed, backup.outcomes.error, backup.unblocked], [3, 2, 0]);
    const sts = c.operations.find((o) => o.name === 'EnsureStatefulSet')!;
    assert.deepEqual(sts.topBlockers, [
      { blocker: 'EnsureBackupSchedule', count: 2 },
      { blocker: 'EnsureSecrets', count: 1 },
    ]);
    assert.deepEqual(c.blockedBy, [{ blocker: 'Credentials', blocked: 'Backups', count: 1 }]);
    assert.deepEqual(c.reorderedPairs, [
      { first: 'EnsureBackupSchedule', second: 'EnsureService', count: 1 },
      { first: 'EnsureBackupSchedule', second: 'EnsureStatefulSet', count: 1 },
    ]);
  });

  it('table and markdown carry the same sections', async () => {
    const table = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL]);
    const md = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--format', 'markdown']);
    assert.match(
      table.stdout,
      /^== postgrescluster \(model database-operator\)\n {2}attempts: 5 \(sequential 5, phased 0\)\n {2}diverged: 3 \(60\.0% of attempts\)/,
    );
    const cells = table.stdout.split('\n').map((l) =>
      l
        .trim()
        .split(/\s{2,}/)
        .join('|'),
    );
    assert.ok(cells.includes('EnsureStatefulSet|Workload|1|0|0.0%|3|0|3|EnsureBackupSchedule (2), EnsureSecrets (1)|10s'));
    assert.ok(cells.includes('Credentials|Backups|1'));
    assert.match(md.stdout, /^## postgrescluster \(model database-operator\)\n\n- attempts: 5/);
    assert.match(
      md.stdout,
      /\n\| EnsureStatefulSet \| Workload \| 1 \| 0 \| 0\.0% \| 3 \| 0 \| 3 \| EnsureBackupSchedule \(2\), EnsureSecrets \(1\) \| 10s \|\n/,
    );
    assert.match(md.stdout, /\n\| Credentials \| Backups \| 1 \|\n/);
  });

  it('reports bad lines with file:line and reason, keeps every good line, and exits 0 (4 with --strict)', async () => {
    const good = readFileSync(EXAMPLE_JOURNAL, 'utf8').trim().split('\n');
    const journal = [
      good[0],
      '{"time":"yesterday"',
      good[1],
      '{"time":"2026-11-29T09:00:30Z","controller":"postgrescluster","object":"db/x","model":"sequential","operations":[{"name":"EnsureSecretz","outcome":"ok"}]}',
      '',
      good[2],
      '{"time":"2026-11-29T09:00:31Z","controller":"postgrescluster","object":"db/x","model":"parallel","operations":[]}',
    ].join('\n');
    const r = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', '-', '--format', 'jsonl'], journal);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.trim().split('\n').length, 3);
    const errors = r.stderr.trim().split('\n');
    assert.equal(errors.length, 3);
    assert.match(errors[0]!, /^-:2: invalid_json: not JSON: /);
    assert.equal(errors[1], '-:4: unknown_operation: operations[0].name: unknown operation "EnsureSecretz"');
    assert.equal(errors[2], '-:7: invalid_record: model: must be sequential or phased, got "parallel"');
    const strict = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', '-', '--format', 'json', '--strict'], journal);
    assert.equal(strict.code, 4);
    const report = JSON.parse(strict.stdout) as { input: { received: unknown; rejected: number; rejectedByReason: unknown } };
    assert.deepEqual(report.input.received, { journal: 6 });
    assert.equal(report.input.rejected, 3);
    assert.deepEqual(report.input.rejectedByReason, { invalid_json: 1, unknown_operation: 1, invalid_record: 1 });
  });

  it('exit codes: 2 for bad arguments, 3 for an invalid model, 1 for an unreadable journal', async () => {
    assert.equal((await runCli(['analyze', '--journal', EXAMPLE_JOURNAL])).code, 2);
    assert.equal((await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--format', 'xml'])).code, 2);
    const bad = await runCli(['analyze', '--model', join(CONTRACT_CASES, 'model.yaml.missing'), '--journal', EXAMPLE_JOURNAL]);
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /no such model file, and not a built-in model \(hypershift-hostedcluster\)/);
    const missing = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', '/nonexistent/journal.jsonl']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^cannot read journal \/nonexistent\/journal\.jsonl: ENOENT/);
  });

  it('streams: reads a simulated journal from a generator, never from a whole file, and counts every attempt', async () => {
    const world = new World({ model: resolveModel('hypershift-hostedcluster'), objects: 30, durationMs: 2 * 3600_000, seed: 11, observe: 'mixed' });
    let lines = 0;
    const stdin = Readable.from(
      (function* () {
        for (const record of world.attempts()) {
          lines++;
          yield formatAttemptLine(record) + '\n';
        }
      })(),
    );
    const r = await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--journal', '-', '--format', 'json'], stdin);
    const report = JSON.parse(r.stdout) as {
      controllers: { attempts: { total: number; byObservedLoop: { sequential: number; phased: number } } }[];
      input: { rejected: number };
    };
    assert.ok(lines > 1000, `${lines} lines`);
    assert.equal(report.controllers[0]!.attempts.total, lines);
    assert.equal(report.input.rejected, 0);
    assert.ok(report.controllers[0]!.attempts.byObservedLoop.sequential > 0 && report.controllers[0]!.attempts.byObservedLoop.phased > 0);
  });

  it("--operator-version picks the built-in model's build and every format states it; without it, the newest build's, said so", async () => {
    const world = new World({ model: resolveModel('hypershift-hostedcluster'), objects: 3, durationMs: 600_000, seed: 5, observe: 'sequential' });
    const journal = [...world.attempts()].map((r) => formatAttemptLine(r) + '\n').join('');
    const json = await runCli(
      ['analyze', '--model', 'hypershift-hostedcluster', '--journal', '-', '--format', 'json', '--operator-version', '4.22.3'],
      journal,
    );
    const report = JSON.parse(json.stdout) as { controllers: { operatorBuild?: unknown }[] };
    assert.ok(summarySchema(report), JSON.stringify(summarySchema.errors));
    assert.deepEqual(report.controllers[0]!.operatorBuild, {
      name: 'release-4.22',
      statement: '--operator-version: version 4.22, build release-4.22 (upstream 2f5225b64a5e)',
    });
    const table = await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--journal', '-'], journal);
    assert.match(
      table.stdout,
      /^ {2}operator build: head \(--operator-version: not given, the operator's version is unknown; using the model of build head\)$/m,
    );
    const markdown = await runCli(
      ['analyze', '--model', 'hypershift-hostedcluster', '--journal', '-', '--format', 'markdown', '--operator-version', 'release-5.0'],
      journal,
    );
    assert.match(markdown.stdout, /^- operator build: release-5\.0 \(--operator-version: build release-5\.0 \(upstream a7fbf215c759\)\)$/m);
    // A model without builds says nothing of one.
    const example = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--format', 'json', '--operator-version', '4.22']);
    assert.equal((JSON.parse(example.stdout) as { controllers: Record<string, unknown>[] }).controllers[0]!.operatorBuild, undefined);
  });
});
