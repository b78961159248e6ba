/** The numbers in the report's sentences: signs that mean something, counts that read as English. */
import assert from 'node:assert/strict';
import { points, times } from '../../../analyzer/decisions/wording.js';

describe('decisions wording', () => {
  it('points: signed, one decimal under 10, and a difference that rounds to zero is 0 pp (never -0.0 pp)', () => {
    assert.deepEqual(
      [0.25, -0.035, 0.0996, -0.0004, 0.0004, 0, -0.00049, null].map((d) => points(d)),
      ['+25 pp', '-3.5 pp', '+10 pp', '0 pp', '0 pp', '0 pp', '0 pp', '-'],
    );
  });

  it('times: once, twice, then a count', () => {
    assert.deepEqual(
      [1, 2, 3, 12_000].map((n) => times(n)),
      ['once', 'twice', '3 times', '12,000 times'],
    );
  });
});
