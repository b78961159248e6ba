/** `reconcile-shadow report`, run in-process as a person would run it (the lead wires it into cli/main.ts). */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CommandResult } from '../support/run-command.js';
import { REPO } from '../support/paths.js';

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

  it('writes the HTML report to stdout by default: five attempts are inconclusive', async () => {
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
    assert.match(r.stdout, /^# reconcile-shadow: switch readiness\n\n## postgrescluster \(model database-operator\)\n\n\*\*⚠️ INCONCLUSIVE\*\*: Inconclusive: no harm seen over 5 attempts from 3 objects over 1m00s/);
    assert.match(r.stdout, /\n- 5 attempts observed \(1,000 needed\)\n- 3 objects observed \(10 needed\)\n- observed for 1m00s \(3d needed\)\n- no group failed in 10 or more distinct runs/);
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

  it('--thresholds: a YAML file replaces the defaults it names', async () => {
    const thresholds = join(dir, 'thresholds.yaml');
    writeFileSync(thresholds, 'minAttempts: 5\nminObjects: 3\nminWindowMs: 1m\nmaterialFailures: 1\n');
    const r = await report(['--model', MODEL, '--journal', JOURNAL, '--format', 'markdown', '--thresholds', thresholds]);
    assert.equal(r.code, 0);
    // Enough traffic now, but the failures seen were all on the sequential loop: nothing ran after them.
    const reasons = [...r.stdout.matchAll(/^- (.+)$/gm)].map((m) => m[1]).filter((x) => /needed/.test(x!));
    assert.deepEqual(reasons, [
      'Credentials (critical): failed in 1 run, 0 with later ops observed after it (10 needed; only attempts the phased loop ran show this)',
      'Backups (non-critical): failed in 1 run, 0 with later ops observed after it (10 needed; only attempts the phased loop ran show this)',
    ]);
    assert.match(r.stdout, /\| minWindowMs \| 1m00s \| {2}\|/);
  });

  it('refuses a bad thresholds file with file:line and field, before reading the journal', async () => {
    const thresholds = join(dir, 'bad.yaml');
    writeFileSync(thresholds, 'minAttempts: 5\nminObjects: -1\nfalseDiscoveryRate: 2\n');
    const r = await report(['--model', MODEL, '--journal', join(dir, 'missing.jsonl'), '--thresholds', thresholds]);
    assert.equal(r.code, 3);
    assert.equal(r.stderr, `invalid thresholds:\n${thresholds}:2 minObjects: must be at least 0, got -1\n`);
    const range = join(dir, 'range.yaml');
    writeFileSync(range, 'falseDiscoveryRate: 2\n');
    const r2 = await report(['--model', MODEL, '--journal', JOURNAL, '--thresholds', range]);
    assert.equal(r2.code, 3);
    assert.equal(r2.stderr, `invalid thresholds:\n${range}: falseDiscoveryRate must be between 0 and 1, got 2\n`);
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
    assert.match(r.stdout, new RegExp(`### Input\\n\\n1 input lines rejected \\(invalid_record: 1\\); the first: ${journal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:6 invalid_record\\n`));
  });

  it('usage, model and input errors have their own exit codes', async () => {
    assert.equal((await report(['--model', MODEL])).code, 2);
    assert.equal((await report(['--model', MODEL, '--journal', JOURNAL, '--format', 'pdf'])).code, 2);
    const unknown = await report(['--model', MODEL, '--journal', JOURNAL, '--colour']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^Unknown option '--colour'/);
    const model = await report(['--model', join(dir, 'nope.yaml'), '--journal', JOURNAL]);
    assert.equal(model.code, 3);
    assert.match(model.stderr, /^invalid model:\n/);
    const missing = await report(['--model', MODEL, '--journal', join(dir, 'missing.jsonl')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^cannot read journal .*missing\.jsonl: ENOENT/);
  });
});
