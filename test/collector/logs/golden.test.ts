/**
 * The log source derives exactly what it derived before its hot path was rewritten (main 6e38c1a): for the real
 * logger's logs, a generated log of two operator runs (one per loop, each with a restart and a burst the sampler thins)
 * and the hand-written fixtures, the derived journal lines, every rejection and the books equal the golden copies byte
 * for byte (test/fixtures/logs/golden/README.md says how they were captured).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GOLDEN_CASES, GOLDEN_DIR, derivedOutput } from './derived-output.js';

describe('log source: derived output equals the golden copies', function () {
  this.timeout(30_000);

  for (const c of GOLDEN_CASES) {
    it(`${c.log}, --loop ${c.loop}`, async () => {
      const expected = gunzipSync(readFileSync(join(GOLDEN_DIR, `${c.name}.derived.jsonl.gz`)))
        .toString('utf8')
        .split('\n');
      const actual = (await derivedOutput(c)).split('\n');
      // the first differing line, not a diff of megabytes
      const at = actual.findIndex((line, i) => line !== expected[i]);
      if (at >= 0 || actual.length !== expected.length) {
        const i = at >= 0 ? at : Math.min(actual.length, expected.length);
        assert.fail(`line ${i + 1} of ${expected.length} differs\n  expected: ${expected[i]?.slice(0, 2000)}\n  actual:   ${actual[i]?.slice(0, 2000)}`);
      }
      assert.ok(expected.length > 2, 'the golden copy holds attempts');
    });
  }
});
