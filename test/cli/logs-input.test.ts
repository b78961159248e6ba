/**
 * The offline log path: `reconcile-shadow journal --logs`, `analyze --logs` and `report --logs`, all through the one
 * log source.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parseAttemptLine } from '../../collector/journal.js';
import { REPO } from '../support/paths.js';
import { runCli } from '../support/run-command.js';

const PHASED_LOG = join(REPO, 'test/fixtures/logs/phased.log');
const REAL_SEQUENTIAL = join(REPO, 'test/fixtures/logs/real/sequential.operator.log.gz');
const summarySchema = new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(join(REPO, 'docs/summary.schema.json'), 'utf8')) as object);

describe('reconcile-shadow journal --logs', function () {
  this.timeout(60_000);

  it('writes the attempts a log proves as journal lines with their origin, and says what it knows and its books on stderr', async () => {
    const r = await runCli(['journal', '--logs', PHASED_LOG]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 9);
    const first = JSON.parse(lines[0]!) as { origin: unknown; model: string };
    assert.deepEqual([first.model, first.origin], ['phased', { source: 'logs', reconcileID: 'p0000001', where: `${PHASED_LOG}:1` }]);
    const parsed = parseAttemptLine(lines[3]!, 4, { file: 'out' });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.record.origin, { source: 'logs', reconcileID: 'p0000004', where: `${PHASED_LOG}:5` });
    assert.deepEqual(r.stderr.split('\n'), [
      "model: hypershift-hostedcluster, operator build head: --operator-version: not given, the operator's version is unknown; using the model of build head",
      'logs: loop: the operator Deployment is not read; no line has proved a loop yet; attempts wait for a line of their operator run that only one loop writes, and are dropped as loop_unknown if none comes',
      `logs: ${PHASED_LOG}: 14 lines: 14 analyzed, 0 dropped, 0 ignored; 9 attempts (noted: loop_inherited 4, status_update_error 2); loop phased (input)`,
      '',
    ]);
  });

  it('reads a gzipped capture of the real logger; its journal analyzes exactly as the log does', async () => {
    const journal = await runCli(['journal', '--logs', REAL_SEQUENTIAL, '--loop', 'sequential']);
    assert.equal(journal.code, 0, journal.stderr);
    const lines = journal.stdout.trim().split('\n');
    assert.equal(lines.length, 3139);
    assert.ok(lines.every((l, i) => parseAttemptLine(l, i + 1, { file: 'out' }).ok));
    const viaJournal = await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--journal', '-', '--format', 'jsonl'], journal.stdout);
    const viaLog = await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--logs', REAL_SEQUENTIAL, '--loop', 'sequential', '--format', 'jsonl']);
    assert.equal(viaLog.code, 0, viaLog.stderr);
    assert.equal(viaJournal.stdout, viaLog.stdout);
  });

  it('refuses bad arguments and names a file it cannot read', async () => {
    assert.equal((await runCli(['journal', '--logs', PHASED_LOG, '--loop', 'legacy'])).code, 2);
    assert.equal((await runCli(['journal'])).code, 2);
    const missing = await runCli(['journal', '--logs', '/nonexistent/operator.log']);
    assert.deepEqual([missing.code, /^cannot read log \/nonexistent\/operator\.log: /m.test(missing.stderr)], [1, true]);
    assert.equal((await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--logs', PHASED_LOG, '--journal', '-'])).code, 2, 'one input: a journal or a log');
  });

  it('prints a progress line per tenth of a large file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logs-'));
    try {
      const path = join(dir, 'big.log');
      // 17 MiB of another controller's lines around one attempt
      const noise = JSON.stringify({ level: 'info', ts: '2026-11-01T10:00:00Z', msg: 'Reconciling', controller: 'nodepool', padding: 'x'.repeat(900) });
      writeFileSync(path, `${readFileSync(PHASED_LOG, 'utf8')}${`${noise}\n`.repeat(Math.ceil((17 * 1024 * 1024) / (noise.length + 1)))}`);
      const r = await runCli(['journal', '--logs', path]);
      const progress = r.stderr.split('\n').filter((l) => l.startsWith(`logs: ${path}: `) && l.includes('%'));
      assert.deepEqual(
        progress.map((l) => l.slice(`logs: ${path}: `.length).split(' ')[0]),
        ['10%', '20%', '30%', '40%', '50%', '60%', '70%', '80%', '90%', '100%'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('analyze --logs and report --logs', function () {
  this.timeout(60_000);

  it('analyze --logs: the report carries the log source’s books, loop, sampled periods, unmapped sample and lower-bound statement', async () => {
    const r = await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--logs', join(REPO, 'test/fixtures/logs/sampled.log'), '--loop', 'sequential', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { input: { received: unknown; sources: { source: string; unit: string; received: number; analyzed: number; loop: unknown; sampledPeriods: unknown; caveats: string[] }[] } };
    assert.ok(summarySchema(report), JSON.stringify(summarySchema.errors));
    const [logs] = report.input.sources;
    assert.deepEqual([logs!.source, logs!.unit, logs!.received, logs!.analyzed], ['logs', 'lines', 202, 202]);
    assert.deepEqual(report.input.received, { logs: 202 });
    assert.deepEqual(logs!.loop, { configured: 'sequential', current: 'sequential', decidedBy: 'config', statement: 'configured: the sequential loop' });
    assert.deepEqual(logs!.sampledPeriods, [{ from: '2026-11-01T10:00:00Z', until: '2026-11-01T10:00:02Z', messages: ['Reconciler error'], peakLines: 101 }]);
    assert.ok(logs!.caveats[0]!.startsWith('Counts from logs are lower bounds in sampled periods'));
  });

  it('report --logs decides from the log as from a journal', async () => {
    const r = await runCli(['report', '--model', 'hypershift-hostedcluster', '--logs', REAL_SEQUENTIAL, '--format', 'markdown']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /hostedcluster/);
    assert.match(r.stderr, /logs: .*sequential\.operator\.log\.gz: 3175 lines: 3139 analyzed, 0 dropped, 36 ignored/);
  });
});
