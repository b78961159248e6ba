/**
 * The offline log path: `reconcile-shadow journal --logs`, `analyze --logs` and `report --logs`, all through the one
 * log source.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { parseAttemptLine } from '../../collector/journal/format.js';
import { REPO } from '../support/paths.js';
import { runCli } from '../support/run-command.js';
import { withTimestamps, writeMustGather } from '../collector/logs/as-users-hold.js';

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
    assert.equal(
      (await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--logs', PHASED_LOG, '--journal', '-'])).code,
      2,
      'one input: a journal or a log',
    );
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
      // several inputs: a line per tenth of all their bytes
      const two = await runCli(['journal', '--logs', PHASED_LOG, '--logs', path]);
      const both = `logs: ${PHASED_LOG}, ${path}: `;
      assert.deepEqual(
        two.stderr
          .split('\n')
          .filter((l) => l.startsWith(both) && l.includes('%'))
          .map((l) => l.slice(both.length).split(' ')[0]),
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
    const r = await runCli([
      'analyze',
      '--model',
      'hypershift-hostedcluster',
      '--logs',
      join(REPO, 'test/fixtures/logs/sampled.log'),
      '--loop',
      'sequential',
      '--format',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as {
      input: {
        received: unknown;
        sources: { source: string; unit: string; received: number; analyzed: number; loop: unknown; sampledPeriods: unknown; caveats: string[] }[];
      };
    };
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

describe('--logs as users hold them: stdin gzipped, several files, a must-gather folder', function () {
  this.timeout(60_000);
  const lines = gunzipSync(readFileSync(REAL_SEQUENTIAL)).toString('utf8').trimEnd().split('\n');
  /** journal lines without where each attempt's first line is (the only thing the inputs' names change) */
  const attempts = (stdout: string): unknown[] =>
    stdout
      .trim()
      .split('\n')
      .map((l) => {
        const a = JSON.parse(l) as { origin: Record<string, unknown> };
        delete a.origin.where;
        return a;
      });
  let dir: string;
  let plainJournal: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'logs-input-'));
    plainJournal ??= (await runCli(['journal', '--logs', REAL_SEQUENTIAL])).stdout;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('journal --logs -: a gzipped, timestamp-prefixed capture on stdin gives the plain log’s attempts', async () => {
    const r = await runCli(['journal', '--logs', '-'], Readable.from([gzipSync(Buffer.from(withTimestamps(lines).join('\n') + '\n'))]));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(attempts(r.stdout), attempts(plainJournal));
    assert.match(r.stderr, /^logs: -: 3175 lines: 3139 analyzed, 0 dropped, 36 ignored/m);
  });

  it('report --logs DIR: a must-gather gives the plain log’s report, and says which files it read and which it skipped', async () => {
    const folder = writeMustGather(dir, lines);
    const plain = await runCli(['report', '--model', 'hypershift-hostedcluster', '--logs', REAL_SEQUENTIAL, '--format', 'json']);
    const fromFolder = await runCli(['report', '--model', 'hypershift-hostedcluster', '--logs', dir, '--format', 'json']);
    assert.equal(fromFolder.code, 0, fromFolder.stderr);
    assert.equal(fromFolder.stdout, plain.stdout);
    const markdown = await Promise.all(
      [REAL_SEQUENTIAL, dir].map((input) => runCli(['report', '--model', 'hypershift-hostedcluster', '--logs', input, '--format', 'markdown'])),
    );
    assert.equal(markdown[1]!.stdout, markdown[0]!.stdout);
    const said = fromFolder.stderr
      .split('\n')
      .filter((l) => /^logs: (read|skipped) /.test(l) || l.startsWith(`logs: ${dir}: `) || /^logs: .*: \d+ attempts$/.test(l));
    const at = (p: string): string => join(dir, p);
    assert.deepEqual(said, [
      `logs: ${dir}: 4 log(s) of hypershift/*/operator to read, 3 other log(s) skipped, 1 other file(s)`,
      ...folder.operatorLogs.map(
        (p, i) => `logs: read ${at(p)} (pod operator-5f8d9c7b6-${i < 2 ? 'axaq' : 'bxbq'}, ${i % 2 === 0 ? 'previous' : 'current'} container)`,
      ),
      `logs: skipped ${at(folder.others[3]!)}: another container: hypershift/external-dns-6c9f-zz/external-dns (the operator's is hypershift/*/operator)`,
      `logs: skipped ${at(folder.others[2]!)}: another container: hypershift/operator-5f8d9c7b6-axaq/init-environment (the operator's is hypershift/*/operator)`,
      `logs: skipped ${at(folder.others[1]!)}: a kubelet-rotated file (oc adm inspect --rotated-pod-logs): older lines of hypershift/operator-5f8d9c7b6-axaq/operator; give it with --logs FILE to read it too`,
      ...folder.operatorLogs.map((p, i) => `logs: ${at(p)}: ${folder.attemptsPer[i]} attempts`),
    ]);
    assert.match(fromFolder.stderr, /^logs: 4 files: 3184 lines: 3139 analyzed, 0 dropped, 45 ignored \(not_json 3, other_message 39, run 3\)/m);
    // analyze --format json names them in the logs source of its input section
    const analyzed = await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--logs', dir, '--format', 'json']);
    const caveats = (JSON.parse(analyzed.stdout) as { input: { sources: { caveats: string[] }[] } }).input.sources[0]!.caveats;
    assert.equal(
      caveats.at(-2),
      `Read 4 file(s), merged by time, each one operator process (only the leader replica reconciles): ${folder.operatorLogs.map((p, i) => `${at(p)} (${folder.attemptsPer[i]} attempts)`).join(', ')}.`,
    );
    assert.ok(caveats.at(-1)!.startsWith(`Skipped 3 file(s): ${at(folder.others[3]!)} (another container`));
  });

  it('--logs is repeatable: a replica’s previous and current logs, given in either order, read as one folder reads them', async () => {
    const folder = writeMustGather(dir, lines);
    const files = folder.operatorLogs.map((p) => join(dir, p));
    const viaFolder = await runCli(['journal', '--logs', dir]);
    const viaFiles = await runCli(['journal', ...[...files].reverse().flatMap((f) => ['--logs', f])]);
    assert.equal(viaFiles.code, 0, viaFiles.stderr);
    assert.deepEqual(attempts(viaFiles.stdout), attempts(viaFolder.stdout));
    assert.deepEqual(attempts(viaFolder.stdout), attempts(plainJournal));
  });

  it('refuses a folder without the operator’s logs, a file given twice, stdin twice, an input that fails mid-way and a bad --container, naming them', async () => {
    mkdirSync(join(dir, 'namespaces/clusters/pods/x/other/other/logs'), { recursive: true });
    writeFileSync(join(dir, 'namespaces/clusters/pods/x/other/other/logs/current.log'), 'x\n');
    const empty = await runCli(['journal', '--logs', dir]);
    assert.equal(empty.code, 1);
    assert.ok(
      empty.stderr.endsWith(
        `cannot read log ${dir}: ${dir}: no log of the operator's container in it (looked for namespaces/hypershift/pods/<pod>/operator/operator/logs/{current,previous}.log, as a must-gather keeps them)\n`,
      ),
      empty.stderr,
    );
    const other = await runCli(['journal', '--logs', dir, '--container', 'clusters/other']);
    assert.deepEqual(
      [other.code, other.stderr.split('\n').find((l) => l.startsWith('logs: read '))],
      [5, `logs: read ${join(dir, 'namespaces/clusters/pods/x/other/other/logs/current.log')} (pod x, current container)`],
    );
    const twice = await runCli(['journal', '--logs', PHASED_LOG, '--logs', PHASED_LOG]);
    // After the line that names the model and its operator build.
    assert.deepEqual(
      [twice.code, twice.stderr.split('\n').slice(1)],
      [1, [`cannot read log ${PHASED_LOG}, ${PHASED_LOG}: ${PHASED_LOG} is given twice; its attempts would count twice`, '']],
    );
    assert.equal((await runCli(['journal', '--logs', '-', '--logs', '-'])).code, 1);
    const comma = await runCli(['journal', '--logs', `${PHASED_LOG},${PHASED_LOG}`]);
    assert.deepEqual([comma.code, comma.stderr.trimEnd().endsWith('; to give several logs, repeat the flag: --logs a --logs b')], [1, true]);
    const broken = new Readable({ read: () => broken.destroy(new Error('stdin went away')) });
    const failing = await runCli(['journal', '--logs', '-', '--logs', PHASED_LOG], broken);
    assert.deepEqual([failing.code, failing.stderr.split('\n').at(-2)], [1, `cannot read log -, ${PHASED_LOG}: -: stdin went away`]);
    const bad = await runCli(['journal', '--logs', PHASED_LOG, '--container', 'operator']);
    assert.deepEqual(
      [bad.code, bad.stderr.split('\n')[0]],
      [2, 'reconcile-shadow journal: --container "operator": expected <namespace>/<container>, e.g. hypershift/operator'],
    );
    assert.equal(
      (await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--journal', '-', '--container', 'a/b'])).code,
      2,
      '--container needs --logs',
    );
  });

  it('says when two files’ attempts overlap in time: one operator’s replicas take turns, so they may be two operators’', async () => {
    const phased = join(REPO, 'test/fixtures/logs/real/phased.operator.log.gz');
    const r = await runCli(['analyze', '--model', 'hypershift-hostedcluster', '--logs', REAL_SEQUENTIAL, '--logs', phased, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const said = `${phased} and ${REAL_SEQUENTIAL} both have attempts between 2026-11-01T00:00:13Z and 2026-11-01T01:59:56Z: one operator's replicas take turns (leader election), so these may be two operators' logs; their attempts are read interleaved by time`;
    assert.ok(r.stderr.includes(`\nlogs: ${said}\n`), r.stderr);
    const caveats = (JSON.parse(r.stdout) as { input: { sources: { caveats: string[] }[] } }).input.sources[0]!.caveats;
    assert.equal(caveats.at(-1), `${said[0]!.toUpperCase()}${said.slice(1)}.`);
  });
});
