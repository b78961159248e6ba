/**
 * `--workers`, `--shard`, `analyze --format partial` and `merge`, run as a person runs them, on the journal and the
 * operator log of the real logger's capture (test/fixtures/logs/real, not written by this project's code) with bad
 * lines mixed into the journal: every output byte-identical to one run over the whole input, every rejected line
 * counted once with its file:line.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { REPO } from '../support/paths.js';
import { runCli, type CommandResult } from '../support/run-command.js';

const REAL = join(REPO, 'test/fixtures/logs/real');
const MODEL = 'hypershift-hostedcluster';

describe('analysis in shards and workers', function () {
  this.timeout(180_000);
  let dir: string;
  let journal: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'shards-'));
    const lines = gunzipSync(readFileSync(join(REAL, 'phased.journal.jsonl.gz')))
      .toString('utf8')
      .trim()
      .split('\n');
    // 120 bad lines among the good ones: more than the 100 echoed on stderr.
    const bad = (i: number): string =>
      [
        '{"time":"2026-11-29T10:00:00Z",',
        `{"time":"2026-11-29T10:00:00Z","controller":"nodepool","object":"clusters/np-${i}","model":"phased","operations":[]}`,
        `{"time":"2026-11-29T10:00:00Z","controller":"hostedcluster","object":"clusters/a-${i}","model":"phased","operations":[],"object":"clusters/b-${i}"}`,
      ][i % 3]!;
    const mixed = lines.flatMap((line, i) => (i % 25 === 3 && i / 25 < 120 ? [bad(i), line] : [line]));
    journal = join(dir, 'fleet.jsonl');
    writeFileSync(journal, mixed.join('\n') + '\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const same = (got: CommandResult, want: CommandResult, what: string): void => {
    assert.equal(got.code, want.code, `${what}: exit code`);
    assert.equal(got.stderr, want.stderr, `${what}: stderr`);
    assert.equal(got.stdout, want.stdout, `${what}: stdout`);
  };

  it('analyze --workers 2 prints what one worker prints, rejections echoed once each in input order', async () => {
    const one = await runCli(['analyze', '--model', MODEL, '--journal', journal, '--format', 'json', '--strict']);
    assert.equal(one.code, 4);
    const report = JSON.parse(one.stdout) as { input: { rejected: number; rejectedByReason: object; rejectionSample: { where: string }[] } };
    assert.equal(report.input.rejected, 120);
    assert.deepEqual(report.input.rejectedByReason, { invalid_json: 40, invalid_record: 40, unknown_controller: 40 });
    const echoed = one.stderr.trim().split('\n');
    assert.equal(echoed.length, 101);
    assert.equal(echoed[100], '... 20 more rejected lines (counted in the summary)');
    assert.match(echoed[0]!, new RegExp(`^${journal}:4: invalid_json: `));
    same(await runCli(['analyze', '--model', MODEL, '--journal', journal, '--format', 'json', '--strict', '--workers', '2']), one, 'analyze --workers 2');
  });

  it('nothing analysed: --workers and merge exit 5 as one run does; a shard of no objects still writes its partial', async () => {
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const one = await runCli(['analyze', '--model', MODEL, '--journal', empty]);
    assert.deepEqual([one.code, one.stderr], [5, `nothing analysed: ${empty} holds no attempt\n`]);
    same(await runCli(['analyze', '--model', MODEL, '--journal', empty, '--workers', '2']), one, 'analyze --workers 2');
    same(
      await runCli(['report', '--model', MODEL, '--journal', empty, '--workers', '2']),
      await runCli(['report', '--model', MODEL, '--journal', empty]),
      'report --workers 2',
    );
    const partial = await runCli(['analyze', '--model', MODEL, '--journal', empty, '--shard', '1/2', '--format', 'partial']);
    assert.deepEqual([partial.code, partial.stderr], [0, '']);
    const part = join(dir, 'empty.partial.json');
    writeFileSync(part, partial.stdout);
    assert.deepEqual(await runCli(['merge', part, '--format', 'json']), {
      code: 5,
      stdout: '',
      stderr: `journal ${empty}: shard 0 of 2 not merged: the report covers part of its objects\nnothing analysed: ${empty} holds no attempt\n`,
    });
  });

  it('a journal that cannot be read: --workers 2 says so as one run does', async () => {
    for (const file of [join(dir, 'missing.jsonl'), dir]) {
      const one = await runCli(['analyze', '--model', MODEL, '--journal', file]);
      assert.equal(one.code, 1);
      assert.match(one.stderr, /^cannot read journal .*: (ENOENT: no such file or directory, open|EISDIR: illegal operation on a directory, read)/);
      same(await runCli(['analyze', '--model', MODEL, '--journal', file, '--workers', '2']), one, `analyze --workers 2 ${file}`);
    }
  });

  it('report --workers 2 writes the same HTML', async () => {
    const one = await runCli(['report', '--model', MODEL, '--journal', journal, '--format', 'html']);
    assert.equal(one.code, 0, one.stderr);
    same(await runCli(['report', '--model', MODEL, '--journal', journal, '--format', 'html', '--workers', '2']), one, 'report --workers 2');
  });

  it('three shards (--shard i/3) merged read as report over the whole journal: json, markdown and html', async () => {
    const partials: string[] = [];
    let echoed = 0;
    for (let i = 0; i < 3; i++) {
      const r = await runCli(['analyze', '--model', MODEL, '--journal', journal, '--shard', `${i}/3`, '--format', 'partial']);
      assert.equal(r.code, 0, r.stderr);
      echoed += r.stderr.trim().split('\n').length;
      partials.push(join(dir, `shard-${i}.json`));
      writeFileSync(partials.at(-1)!, r.stdout);
    }
    assert.equal(echoed, 120, 'each rejected line echoed by exactly one shard');
    for (const format of ['json', 'markdown', 'html']) {
      const whole = await runCli(['report', '--model', MODEL, '--journal', journal, '--format', format]);
      const merged = await runCli(['merge', partials[2]!, partials[0]!, partials[1]!, '--format', format]);
      assert.deepEqual([merged.code, merged.stderr], [0, '']);
      assert.equal(merged.stdout, whole.stdout, format);
    }
    // Merged again as a partial, then decided: the same.
    const two = await runCli(['merge', partials[0]!, partials[1]!, '--format', 'partial']);
    assert.equal(two.stderr, `journal ${journal}: shard 2 of 3 not merged: the report covers part of its objects\n`);
    writeFileSync(join(dir, 'two.json'), two.stdout);
    const three = await runCli(['merge', join(dir, 'two.json'), partials[2]!, '--format', 'json']);
    assert.equal(three.stdout, (await runCli(['report', '--model', MODEL, '--journal', journal, '--format', 'json'])).stdout);
  });

  it('merge refuses a shard given twice, a summary that is no partial, and says what it accepts', async () => {
    const r = await runCli(['analyze', '--model', MODEL, '--journal', journal, '--shard', '1/2', '--format', 'partial']);
    const shard = join(dir, 'half.json');
    writeFileSync(shard, r.stdout);
    const twice = await runCli(['merge', shard, shard]);
    assert.deepEqual(
      [twice.code, twice.stderr],
      [1, `cannot merge ${shard}: both partials analysed journal ${journal}: both cover shard 1 of 2; merging them would count those objects twice\n`],
    );
    const summary = join(dir, 'summary.json');
    writeFileSync(summary, (await runCli(['analyze', '--model', MODEL, '--journal', journal, '--format', 'json'])).stdout);
    const notPartial = await runCli(['merge', summary]);
    assert.equal(notPartial.code, 1);
    assert.equal(
      notPartial.stderr,
      `invalid partial summary:\n${summary}:2 schema: expected "reconcile-shadow/partial/v1", got "reconcile-shadow/summary/v1" (a summary of analyze --format json cannot be merged; make partials with --format partial)\n`,
    );
    assert.equal((await runCli(['merge'])).code, 2);
    assert.equal((await runCli(['merge', shard, '--format', 'table'])).code, 2);
    assert.match((await runCli(['merge', join(dir, 'missing.json')])).stderr, /^cannot read .*missing\.json: ENOENT/);
  });

  it('a log: every shard reads it whole and keeps its objects; merged, the decisions of one run, books counted once', async () => {
    const log = join(REAL, 'sequential.operator.log.gz');
    const partials: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['analyze', '--model', MODEL, '--logs', log, '--loop', 'sequential', '--shard', `${i}/2`, '--format', 'partial']);
      assert.equal(r.code, 0, r.stderr);
      partials.push(join(dir, `log-${i}.json`));
      writeFileSync(partials.at(-1)!, r.stdout);
    }
    const whole = await runCli(['report', '--model', MODEL, '--logs', log, '--loop', 'sequential', '--format', 'json']);
    const merged = await runCli(['merge', ...partials, '--format', 'json']);
    assert.equal(merged.stdout, whole.stdout);
    const input = (JSON.parse(merged.stdout) as { input: { received: { logs: number } } }).input;
    assert.ok(input.received.logs > 0);
  });

  it('--workers: auto where the input can be split, and a usage error naming why where it cannot, as every bad argument is named', async () => {
    const cannot: [string[], RegExp][] = [
      [
        ['--journal', '-', '--workers', '2'],
        /^reconcile-shadow analyze: --workers 2: each worker reads the journal file itself, and stdin can be read only once \(give the file\); use --workers 1 \(or auto\)\n/,
      ],
      [
        ['--logs', join(REAL, 'sequential.operator.log.gz'), '--workers', '2'],
        /^reconcile-shadow analyze: --workers 2: a log is read in one pass \(an attempt spans lines\), by one worker; --shard i\/n splits its analysis among machines/,
      ],
      [
        ['--journal', journal, '--workers', '2', '--format', 'jsonl'],
        /^reconcile-shadow analyze: --workers 2: jsonl rows are written in input order, as each attempt is analysed/,
      ],
      [['--journal', journal, '--shard', '0/2', '--format', 'jsonl'], /^reconcile-shadow analyze: --shard: jsonl rows are written in input order/],
      [['--journal', journal, '--workers', 'many'], /^reconcile-shadow analyze: --workers "many": expected auto or a number from 1 to 64\n/],
      [['--journal', journal, '--shard', '2/2'], /^reconcile-shadow analyze: --shard "2\/2": expected i\/n with 0 <= i < n <= 65536/],
    ];
    for (const [args, message] of cannot) {
      const r = await runCli(['analyze', '--model', MODEL, ...args]);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message);
    }
    const small = readFileSync(journal, 'utf8').split('\n').slice(0, 40).join('\n');
    const auto = await runCli(['analyze', '--model', MODEL, '--journal', '-', '--workers', 'auto', '--format', 'json'], small);
    assert.equal(auto.stdout, (await runCli(['analyze', '--model', MODEL, '--journal', '-', '--format', 'json'], small)).stdout);
  });
});
