/**
 * Wilson and Newcombe intervals against the published worked examples: Newcombe (1998), "Interval estimation for the
 * difference between independent proportions", Statistics in Medicine 17, Table II, method 10 (hybrid score), and
 * the Wilson interval of 81/263 from the same author's companion paper on single proportions.
 */
import { strict as assert } from 'node:assert';
import { rateDifference, wilson } from '../../../analyzer/decisions/intervals.js';

const rounded = (i: { low: number; high: number }): [string, string] => [i.low.toFixed(4), i.high.toFixed(4)];

describe('confidence intervals', () => {
  it('Wilson: 81/263 is 0.2553 .. 0.3662; 0/10 is 0 .. 0.2775; no trials is 0 .. 1', () => {
    assert.deepEqual(rounded(wilson(81, 263)), ['0.2553', '0.3662']);
    assert.deepEqual(rounded(wilson(0, 10)), ['0.0000', '0.2775']);
    assert.deepEqual(wilson(0, 0), { low: 0, high: 1 });
  });

  it('Newcombe method 10 reproduces Table II', () => {
    assert.deepEqual(rounded(rateDifference(56, 70, 48, 80)), ['0.0524', '0.3339']);
    assert.deepEqual(rounded(rateDifference(9, 10, 3, 10)), ['0.1705', '0.8090']);
    assert.deepEqual(rounded(rateDifference(6, 7, 2, 7)), ['0.0582', '0.8062']);
    assert.deepEqual(rounded(rateDifference(5, 56, 0, 29)), ['-0.0381', '0.1926']);
    assert.deepEqual(rounded(rateDifference(0, 10, 0, 20)), ['-0.1611', '0.2775']);
  });
});
