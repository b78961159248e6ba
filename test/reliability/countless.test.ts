/**
 * Complete attempts without `reconcile.operation_count` from real exporters, fast version (`make soak` runs it for 60 s
 * at 25,000 spans/s and the default 8 MiB store): here the store is 1 MiB, so it fills at any rate above ~2,600
 * spans/s, which a busy machine still gives, and no attempt may come out `partial`.
 */
import { strict as assert } from 'node:assert';
import { COUNTLESS_CHECKS, runCountless, type CountlessFigures } from './countless.js';
import { deployedContainer } from './sidecar-process.js';

describe('reliability: attempts without an operation count, the pending store full (5 s)', function () {
  this.timeout(90_000);
  let figures: CountlessFigures;

  before(async () => {
    figures = await runCountless({
      durationMs: 5_000,
      rate: 25_000,
      minRate: 5_000,
      maxPendingBytes: 1024 * 1024,
      clients: 2,
      pipelinesPerClient: 8,
      cpuLimitCores: deployedContainer().cpuLimitCores,
      settleTimeoutMs: 15_000,
    });
  });

  for (const check of COUNTLESS_CHECKS) {
    it(check.name, () => {
      const { pass, detail } = check.evaluate(figures, {});
      assert.ok(pass, detail);
    });
  }
});
