/** The engine's public contract: every reference case (test/fixtures/contract) reproduces its expected rows exactly. */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_CASES as CONTRACT } from '../support/paths.js';
import { runCli } from '../support/run-command.js';

const cases = readdirSync(CONTRACT)
  .filter((f) => f.endsWith('.journal.jsonl'))
  .map((f) => f.replace('.journal.jsonl', ''))
  .sort();

describe('contract: analyze --format jsonl', () => {
  it('finds the eight reference cases', () => {
    assert.deepEqual(cases, [
      'phased-observed-cpo-fails',
      'prediction-from-history',
      'pull-secret-missing',
      'release-version-unparseable',
      'ssh-key-missing',
      'validation-gate-stop',
      'world-phased',
      'world-sequential',
    ]);
  });

  for (const name of cases) {
    it(`reproduces ${name}.expected.jsonl exactly`, async () => {
      const result = await runCli([
        'analyze',
        '--model',
        join(CONTRACT, 'model.yaml'),
        '--journal',
        join(CONTRACT, `${name}.journal.jsonl`),
        '--format',
        'jsonl',
      ]);
      assert.equal(result.stderr, '');
      assert.equal(result.code, 0);
      const expected = readFileSync(join(CONTRACT, `${name}.expected.jsonl`), 'utf8');
      const got = result.stdout.split('\n');
      const want = expected.split('\n');
      assert.equal(got.length, want.length, 'row count');
      want.forEach((row, i) => assert.equal(got[i], row, `row ${i + 1}`));
    });
  }
});
