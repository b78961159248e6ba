/**
 * The command as a user meets it: help on every command, the version, every bad flag value named, and the exit codes
 * the README documents, including 5 when nothing could be analysed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { helpText, parseCommandArgs, usageLine } from '../../cli/args.js';
import { COMMAND_SPECS } from '../../cli/commands.js';
import { EXIT } from '../../cli/io.js';
import { CONTRACT_CASES, REPO } from '../support/paths.js';
import { runCli } from '../support/run-command.js';

const EXAMPLE_MODEL = join(REPO, 'examples/database-operator/model.yaml');
const EXAMPLE_JOURNAL = join(REPO, 'examples/database-operator/journal.jsonl');
const HYPERSHIFT_JOURNAL = join(CONTRACT_CASES, 'world-sequential.journal.jsonl');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

describe('reconcile-shadow: help, version, arguments', function () {
  // Each command's module is loaded on its first run.
  this.timeout(30_000);
  for (const spec of COMMAND_SPECS) {
    it(`${spec.name} --help and -h print its usage, every flag, examples and exit codes, and exit 0`, async () => {
      for (const flag of ['--help', '-h']) {
        const r = await runCli([spec.name, flag]);
        assert.deepEqual([r.code, r.stderr], [0, ''], `${spec.name} ${flag}`);
        assert.equal(r.stdout, helpText(spec));
      }
      const text = helpText(spec);
      assert.ok(text.includes(`usage: ${usageLine(spec)}\n`));
      for (const name of Object.keys(spec.flags)) assert.match(text, new RegExp(`^  --${name}\\b`, 'm'), `--${name} in the help`);
      assert.ok(spec.examples.length > 0);
      assert.equal((await runCli(['help', spec.name])).stdout, text);
    });

    it(`${spec.name}: every example in its help parses`, () => {
      for (const example of spec.examples) {
        const words = example.replace(/\s*[<>].*$/, '').split(/\s+/);
        assert.deepEqual(words.slice(0, 2), ['reconcile-shadow', spec.name], example);
        assert.equal(parseCommandArgs(spec, words.slice(2)).help, false, example);
      }
    });
  }

  it('--version prints the package version; no command prints the command list on stderr and exits 2', async () => {
    assert.deepEqual(await runCli(['--version']), { code: 0, stdout: `reconcile-shadow ${VERSION}\n`, stderr: '' });
    const none = await runCli([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^reconcile-shadow <command> \[flags\]\n/);
    for (const spec of COMMAND_SPECS)
      assert.ok(
        none.stderr.split('\n').some((l) => l.startsWith(`  ${spec.name} `) && l.endsWith(` ${spec.summary}`)),
        spec.name,
      );
    assert.equal((await runCli(['--help'])).stdout, none.stderr);
    const unknown = await runCli(['analyse']);
    assert.deepEqual([unknown.code, unknown.stderr.split('\n')[0]], [2, 'reconcile-shadow: unknown command "analyse"']);
  });

  it('names every bad flag value with what is accepted (exit 2)', async () => {
    const cases: [string[], string][] = [
      [
        ['simulate', '--duration', '24x'],
        'reconcile-shadow simulate: --duration "24x": expected a duration such as 90s, 10m, 24h or 1h30m (units ms, s, m, h, d)',
      ],
      [['simulate', '--objects', 'abc'], 'reconcile-shadow simulate: --objects "abc": expected a whole number of at least 1'],
      [['simulate', '--observe', 'both'], 'reconcile-shadow simulate: --observe "both": expected one of sequential, phased, mixed'],
      [
        ['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--format', 'yaml'],
        'reconcile-shadow analyze: --format "yaml": expected one of table, markdown, json, jsonl, partial',
      ],
      [
        ['analyze', '--journal', EXAMPLE_JOURNAL],
        'reconcile-shadow analyze: --model <name|file> is required: the reconcile model: a built-in name (hypershift-hostedcluster) or a model YAML file',
      ],
      [['analyze', '--model', EXAMPLE_MODEL], 'reconcile-shadow analyze: give one of --journal or --logs'],
      [
        ['analyze', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--loop', 'phased'],
        'reconcile-shadow analyze: --loop applies only together with --logs',
      ],
      [['journal', '--logs', 'x.log', '--loop', 'legacy'], 'reconcile-shadow journal: --loop "legacy": expected one of auto, sequential, phased'],
      [
        ['recreations', '--task-config', 'x.yaml', '--journal', 'x.jsonl', '--stuck-threshold', 'soon'],
        'reconcile-shadow recreations: --stuck-threshold "soon": expected a duration such as 90s, 10m, 24h or 1h30m (units ms, s, m, h, d)',
      ],
      [
        ['report', '--model', EXAMPLE_MODEL, '--journal', EXAMPLE_JOURNAL, '--format', 'pdf'],
        'reconcile-shadow report: --format "pdf": expected one of html, markdown, json',
      ],
      [['run', '--config'], 'reconcile-shadow run: --config needs a value: <file>'],
      [['merge', '--format', 'html'], 'reconcile-shadow merge: needs at least 1 <partial.json> argument(s), got 0'],
    ];
    for (const [argv, first] of cases) {
      const r = await runCli(argv);
      const lines = r.stderr.split('\n');
      assert.deepEqual([r.code, lines[0], r.stdout], [EXIT.usage, first, ''], argv.join(' '));
      assert.equal(lines[1], `usage: ${usageLine(COMMAND_SPECS.find((s) => s.name === argv[0])!)}`);
    }
  });
});

describe('reconcile-shadow: nothing analysed exits 5 with a one-line reason', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rs-nothing-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an empty journal: analyze, report, journal and recreations', async () => {
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '\n\n');
    const analyze = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', empty]);
    assert.deepEqual([analyze.code, analyze.stderr], [5, `nothing analysed: ${empty} holds no attempt\n`]);
    const report = await runCli(['report', '--model', EXAMPLE_MODEL, '--journal', '-'], '');
    assert.deepEqual([report.code, report.stderr, report.stdout], [5, 'nothing analysed: stdin holds no attempt\n', '']);
    const journal = await runCli(['journal', '--logs', empty]);
    assert.deepEqual([journal.code, journal.stderr.split('\n').at(-2)], [5, `nothing analysed: ${empty} proves no attempt (its books are above)`]);
    const recreations = await runCli(['recreations', '--task-config', join(REPO, 'examples/adapter-task-config.yaml'), '--journal', empty]);
    assert.deepEqual([recreations.code, recreations.stderr.split('\n').at(-2)], [5, `nothing analysed: ${empty} holds no observation`]);
  });

  it('a model that rejects every line names the reasons and asks whether the model is the operator’s', async () => {
    // The example model under the HyperShift controller's name: every line's operations are unknown to it.
    const model = join(dir, 'wrong-model.yaml');
    writeFileSync(model, readFileSync(EXAMPLE_MODEL, 'utf8').replace('controller: postgrescluster', 'controller: hostedcluster'));
    const lines = readFileSync(HYPERSHIFT_JOURNAL, 'utf8').trim().split('\n').length;
    const r = await runCli(['analyze', '--model', model, '--journal', HYPERSHIFT_JOURNAL, '--format', 'json']);
    assert.equal(r.code, 5);
    const stderr = r.stderr.trim().split('\n');
    assert.equal(stderr.length, 100 + 2, 'the first 100 rejections, the count of the rest, the reason');
    assert.equal(stderr.at(-2), `... ${lines - 100} more rejected lines (counted in the summary)`);
    assert.equal(
      stderr.at(-1),
      `nothing analysed: all ${lines.toLocaleString('en-US')} lines of ${HYPERSHIFT_JOURNAL} were rejected (unknown_operation ${lines.toLocaleString('en-US')}): is --model the model of this operator?`,
    );
    assert.equal((JSON.parse(r.stdout) as { input: { rejected: number } }).input.rejected, lines, 'the report still says what was refused');
  });

  it('a journal of another controller is refused line by line with file:line, not the object name', async () => {
    const r = await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', HYPERSHIFT_JOURNAL]);
    assert.equal(r.code, 5);
    assert.equal(
      r.stderr.split('\n')[0],
      `${HYPERSHIFT_JOURNAL}:1: unknown_controller: controller: no model describes "hostedcluster" (the models describe postgrescluster)`,
    );
  });

  it('one good line among rejected ones is an analysis: exit 0, or 4 with --strict', async () => {
    const mixed = join(dir, 'mixed.jsonl');
    writeFileSync(mixed, `${readFileSync(EXAMPLE_JOURNAL, 'utf8').split('\n')[0]}\nnot json\n`);
    assert.equal((await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', mixed])).code, 0);
    assert.equal((await runCli(['analyze', '--model', EXAMPLE_MODEL, '--journal', mixed, '--strict'])).code, 4);
  });
});
