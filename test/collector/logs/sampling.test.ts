import assert from 'node:assert/strict';
import { SamplingDetector } from '../../../collector/logs/internal/sampling.js';

const T0 = Date.UTC(2026, 10, 1, 10) / 1000;
function see(d: SamplingDetector, second: number, n: number, message = 'Reconciler error', level = 'error'): void {
  for (let i = 0; i < n; i++) d.see({ level, message, second: T0 + second });
}

describe("SamplingDetector: where zap's sampler may have dropped lines", () => {
  it('flags both seconds of a pair in which one message reached the threshold, and nothing else', () => {
    const d = new SamplingDetector(100);
    see(d, 0, 100);
    see(d, 1, 1);
    see(d, 5, 3);
    d.closeAll();
    assert.deepEqual(
      [0, 1, 2, 5].map((s) => d.isSampled(T0 + s)),
      [true, true, false, false],
    );
    assert.deepEqual(d.periods(), [{ from: '2026-11-01T10:00:00Z', until: '2026-11-01T10:00:02Z', messages: ['Reconciler error'], peakLines: 101 }]);
    assert.equal(d.sampledSeconds, 2);
  });

  it('answers whether any second of a range is sampled, whatever the range spans (lines of one attempt 900 years apart)', () => {
    const d = new SamplingDetector(100);
    see(d, 0, 100);
    see(d, 1, 1);
    d.closeAll();
    const centuries = 900 * 365 * 86_400;
    assert.deepEqual(
      [
        [-5, -1],
        [-5, 0],
        [1, 3],
        [2, 3],
        [2, centuries],
        [-centuries, 1],
        [-centuries, -1],
      ].map(([a, b]) => d.anySampledIn(T0 + a!, T0 + b!)),
      [false, true, true, false, false, true, false],
    );
  });

  it('counts a window split across two seconds, stays quiet one line below, and counts messages and levels apart', () => {
    const d = new SamplingDetector(100);
    see(d, 10, 60);
    see(d, 11, 39);
    see(d, 20, 60);
    see(d, 21, 40);
    see(d, 30, 99, 'successfully reconciled', 'info');
    see(d, 30, 99);
    see(d, 40, 99);
    see(d, 40, 99, 'Reconciler error', 'info');
    d.closeAll();
    assert.deepEqual(
      [10, 11, 20, 21, 30, 40].map((s) => d.isSampled(T0 + s)),
      [false, false, true, true, false, false],
    );
  });

  it('judges a second only once the next one is complete, and merges touching periods', () => {
    const d = new SamplingDetector(10);
    see(d, 0, 5);
    d.closeThrough(T0 - 1);
    assert.equal(d.isSampled(T0), false);
    see(d, 1, 5);
    d.closeThrough(T0 + 0);
    assert.equal(d.isSampled(T0), true);
    see(d, 2, 10, 'successfully reconciled', 'info');
    see(d, 9, 10);
    d.closeAll();
    assert.deepEqual(d.periods(), [
      { from: '2026-11-01T10:00:00Z', until: '2026-11-01T10:00:04Z', messages: ['Reconciler error', 'successfully reconciled'], peakLines: 10 },
      { from: '2026-11-01T10:00:09Z', until: '2026-11-01T10:00:11Z', messages: ['Reconciler error'], peakLines: 10 },
    ]);
  });
});
