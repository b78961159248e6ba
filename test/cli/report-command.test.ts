/** `reconcile-shadow report`, run in-process as a person would run it (the lead wires it into cli/main.ts). */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { formatAttemptLine } from '../../collector/journal/format.js';
import { runCli, type CommandResult } from '../support/run-command.js';
import { REPO } from '../support/paths.js';
import { plantedWorld } from '../analyzer/decisions/planted-world.js';
import { HOSTED_CLUSTER, hostedClusterReversed, hostedClusterWorld } from '../analyzer/decisions/planted-models.js';

const ajv = new Ajv({ allErrors: true, strict: true });
const decisionsSchema = ajv.compile(JSON.parse(readFileSync(join(REPO, 'docs/decisions.schema.json'), 'utf8')) as object);

const MODEL = join(REPO, 'examples/database-operator/model.yaml');
const JOURNAL = join(REPO, 'examples/database-operator/journal.jsonl');

const report = (argv: string[], stdin = ''): Promise<CommandResult> => runCli(['report', ...argv], stdin);

describe('reconcile-shadow report', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'report-command-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the HTML report to stdout by default: five sequential attempts are inconclusive', async () => {
    const r = await report(['--model', MODEL, '--journal', JOURNAL]);
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    assert.ok(r.stdout.startsWith('<!DOCTYPE html>'));
    assert.match(r.stdout, /<div class="verdict inconclusive" data-verdict="inconclusive">/);
    assert.equal(r.stdout.match(/<figure class="chart"/g)?.length, 6);
    assert.match(r.stdout, />no recreation data<\/text>/);
  });

  it('--format markdown: the same verdict and reasons, to paste into a review', async () => {
    const r = await report(['--model', MODEL, '--journal', JOURNAL, '--format', 'markdown']);
    assert.equal(r.code, 0);
    assert.match(
      r.stdout,
      /^# reconcile-shadow: switch readiness\n\n## postgrescluster \(model database-operator\)\n\n\*\*⚠️ INCONCLUSIVE\*\*: Inconclusive: not enough evidence over 5 attempts from 3 objects over 1m00s/,
    );
    assert.match(
      r.stdout,
      /\n- no attempt ran the phased loop: only attempts it runs show how it behaves after a failure; put part of the fleet on it \(a canary\)\n- too little to compare with: 5 attempts on 3 objects ran the sequential loop \(1,000 attempts and 10 objects needed\)\n- the sequential loop ran attempts in 1 of the 24 hours of the day \(24 needed; none at 00h, .*, 23h UTC\)\n/,
    );
    assert.match(r.stdout, /\n### Classification check: critical vs non-critical\n/);
  });

  it('--out: writes the file and prints one verdict line per controller; the journal can come from stdin', async () => {
    const file = join(dir, 'report.html');
    const r = await report(['--model', MODEL, '--journal', '-', '--out', file], readFileSync(JOURNAL, 'utf8'));
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'postgrescluster: inconclusive\n');
    const fromFile = await report(['--model', MODEL, '--journal', JOURNAL]);
    assert.equal(readFileSync(file, 'utf8'), fromFile.stdout);
  });

  it('--thresholds and --threshold: a YAML file replaces the defaults it names, each flag after it', async () => {
    const thresholds = join(dir, 'thresholds.yaml');
    writeFileSync(thresholds, 'minAttempts: 5\nminObjects: 3\nminWindow: 1m\nmaterialFailures: 1\nminHoursOfDay: 1\n');
    const r = await report([
      '--model',
      MODEL,
      '--journal',
      JOURNAL,
      '--format',
      'markdown',
      '--thresholds',
      thresholds,
      '--threshold',
      'minObjects=1',
      '--threshold',
      'falseDiscoveryRate=0.01',
    ]);
    assert.equal(r.code, 0);
    // Enough sequential traffic now, but nothing ran the phased loop: that alone holds the verdict.
    const reasons = [...r.stdout.matchAll(/^- (.+)$/gm)].map((m) => m[1]).slice(0, 2);
    assert.deepEqual(reasons, [
      'no attempt ran the phased loop: only attempts it runs show how it behaves after a failure; put part of the fleet on it (a canary)',
      'sequential: 5 attempts from 3 objects over 1m00s; phased: no attempt; 0 objects seen under both',
    ]);
    assert.match(r.stdout, /\| minWindow \| 1m00s \| observation window per loop before ready, with one resync interval of slack \(0: none\) \|/);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /\| minObjects \| 1 \| objects per loop \|/);
    assert.match(r.stdout, /\| falseDiscoveryRate \| 0\.01 \| /);
    assert.match(r.stdout, /\| minAttempts \| 5 \| /);
    const bad = await report(['--model', MODEL, '--journal', JOURNAL, '--threshold', 'minObjects=1', '--threshold', 'minObject=2', '--threshold', 'oops']);
    assert.equal(bad.code, 3);
    assert.equal(
      bad.stderr,
      `invalid thresholds:\n--threshold:2 minObject: unknown field (allowed: falseDiscoveryRate, minFailedObservations, minBaselineObservations, relativeMargin, absoluteMargin, materialFailures, minAttempts, minObjects, minHoursOfDay, minWindow, maxStarvationShare)\n--threshold:3 oops: expected name=value\n`,
    );
    const unknown = await report(['--model', MODEL, '--journal', JOURNAL, '--threshold', 'minObjects=1', '--threshold', 'minObject=2']);
    assert.match(unknown.stderr, /^invalid thresholds:\n--threshold:2 minObject: unknown field \(allowed: /);
  });

  it('--format json: the decisions as data, valid against docs/decisions.schema.json', async () => {
    const empty = await report(['--model', MODEL, '--journal', JOURNAL, '--format', 'json']);
    assert.equal(empty.code, 0);
    const small = JSON.parse(empty.stdout) as { controllers: { verdict: string; reasons: { kind: string }[] }[] };
    assert.ok(decisionsSchema(small), JSON.stringify(decisionsSchema.errors));
    assert.equal(small.controllers[0]!.verdict, 'inconclusive');
    // A model without builds states none.
    assert.equal('operatorBuild' in small.controllers[0]!, false);
    assert.equal(small.controllers[0]!.reasons[0]!.kind, 'no-phased-attempts');

    // A day of a planted HostedCluster fleet, half on each loop, with a reversed prerequisite: every section filled.
    const plant = hostedClusterReversed(HOSTED_CLUSTER);
    const journal = join(dir, 'planted.jsonl');
    writeFileSync(journal, [...plantedWorld(hostedClusterWorld(31, plant))].map(formatAttemptLine).join('\n') + '\n');
    const out = join(dir, 'decisions.json');
    const r = await report(['--model', 'hypershift-hostedcluster', '--journal', journal, '--format', 'json', '--out', out]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'hostedcluster: not-ready\n');
    const json = JSON.parse(readFileSync(out, 'utf8')) as {
      controllers: {
        verdict: string;
        loopComparison: { operation: string; finding: string; sequential: { runs: number }; phased: { runs: number }; p: number; q: number }[];
        ordering: { before: string; after: string; finding: string }[];
        classification: { finding: string }[];
        rollout: { fixFirst: { subject: string }[]; perDayBasis: string };
        operatorBuild?: unknown;
      }[];
    };
    assert.ok(decisionsSchema(json), JSON.stringify(decisionsSchema.errors?.slice(0, 5)));
    const c = json.controllers[0]!;
    assert.equal(c.verdict, 'not-ready');
    // The decisions say which operator build's model they were decided with, as the summary does.
    assert.deepEqual(c.operatorBuild, {
      name: 'head',
      statement: "--operator-version: not given, the operator's version is unknown; using the model of build head",
    });
    assert.deepEqual(
      c.loopComparison.filter((o) => o.finding === 'worse-under-phased').map((o) => o.operation),
      [plant.op],
    );
    assert.ok(c.loopComparison[0]!.sequential.runs > 0 && c.loopComparison[0]!.phased.runs > 0);
    assert.ok(c.ordering.length > 0 && c.ordering.every((p) => ['dependent', 'safe', 'inconclusive'].includes(p.finding)));
    assert.deepEqual(
      c.classification.filter((g) => g.finding === 'should-be-critical'),
      [],
    );
    assert.deepEqual(
      c.rollout.fixFirst.map((f) => f.subject),
      [plant.op],
    );
    assert.equal(c.rollout.perDayBasis, 'measured');
  });

  it('refuses a bad thresholds file with file:line and field, before reading the journal', async () => {
    const thresholds = join(dir, 'bad.yaml');
    writeFileSync(thresholds, 'minAttempts: 5\nminObjects: -1\nfalseDiscoveryRate: 2\n');
    const r = await report(['--model', MODEL, '--journal', join(dir, 'missing.jsonl'), '--thresholds', thresholds]);
    assert.equal(r.code, 3);
    assert.equal(
      r.stderr,
      `invalid thresholds:\n${thresholds}:2 minObjects: must be at least 0, got -1\n${thresholds}:3 falseDiscoveryRate: must be between 0 and 1, got 2\n`,
    );
    const range = join(dir, 'range.yaml');
    writeFileSync(range, 'falseDiscoveryRate: 2\n');
    const r2 = await report(['--model', MODEL, '--journal', JOURNAL, '--thresholds', range]);
    assert.equal(r2.code, 3);
    assert.equal(r2.stderr, `invalid thresholds:\n${range}:1 falseDiscoveryRate: must be between 0 and 1, got 2\n`);
    const r3 = await report(['--model', MODEL, '--journal', JOURNAL, '--thresholds', join(dir, 'nope.yaml')]);
    assert.equal(r3.code, 3);
    assert.match(r3.stderr, /^invalid thresholds:\n.*nope\.yaml: cannot read thresholds: ENOENT/);
  });

  it('reports bad journal lines with file:line and counts them in the report', async () => {
    const journal = join(dir, 'bad.jsonl');
    writeFileSync(journal, readFileSync(JOURNAL, 'utf8') + '{"time":"yesterday"}\n');
    const r = await report(['--model', MODEL, '--journal', journal, '--format', 'markdown']);
    assert.equal(r.code, 0);
    assert.equal(r.stderr, `${journal}:6: invalid_record: time: "yesterday" is not an RFC 3339 time\n`);
    assert.match(
      r.stdout,
      new RegExp(
        `### Input\\n\\n1 input lines rejected \\(invalid_record: 1\\); the first: ${journal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:6 invalid_record\\n`,
      ),
    );
  });

  it('usage, model and input errors have their own exit codes', async () => {
    assert.equal((await report(['--model', MODEL])).code, 2);
    const pdf = await report(['--model', MODEL, '--journal', JOURNAL, '--format', 'pdf']);
    assert.equal(pdf.code, 2);
    assert.equal(pdf.stderr.split('\n')[0], 'reconcile-shadow report: --format "pdf": expected one of html, markdown, json');
    const unknown = await report(['--model', MODEL, '--journal', JOURNAL, '--colour']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr.split('\n')[0], 'reconcile-shadow report: unknown flag --colour');
    const model = await report(['--model', join(dir, 'nope.yaml'), '--journal', JOURNAL]);
    assert.equal(model.code, 3);
    assert.match(model.stderr, /^invalid model:\n/);
    const missing = await report(['--model', MODEL, '--journal', join(dir, 'missing.jsonl')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^cannot read journal .*missing\.jsonl: ENOENT/);
  });
});
