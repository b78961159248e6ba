/**
 * The fast overload test (`make soak` runs the same scenario for 60 s): the sidecar as deployed on a fifth of a core
 * (OVERLOAD_CPU_CORES, as in the soak), real OTel exporters producing 10× what it can analyze for 5 s. The clients must
 * reach at least 5× here (a loaded CI machine may not give them the CPU for 10× in so short a run); memory,
 * backpressure, retries, accounting and responsiveness are held to the same bounds as in the soak.
 */
import { strict as assert } from 'node:assert';
import { OVERLOAD_CHECKS, type Expectations } from './overload-checks.js';
import { OVERLOAD_CPU_CORES, runOverload, type OverloadFigures } from './overload.js';

const FAST_EXPECTATIONS: Expectations = { minRatio: 5, rssBoundBytes: 256 * 1024 * 1024, responsiveMs: 1000, retryAfterMs: 1000 };

describe('reliability: overload at 10x what the sidecar analyzes (5 s)', function () {
  this.timeout(120_000);
  let figures: OverloadFigures;

  before(async () => {
    figures = await runOverload({
      calibrateMs: 3_000,
      calibrationRate: 150_000,
      overloadMs: 5_000,
      factor: 10,
      clients: 2,
      pipelinesPerClient: 16,
      // pending attempts of lost spans expire after 2 s instead of 30 s, so the counters settle quickly
      otlp: { maxWait: '2s' },
      cpuLimitCores: OVERLOAD_CPU_CORES,
      settleTimeoutMs: 15_000,
    });
  });

  for (const check of OVERLOAD_CHECKS) {
    it(check.name, () => {
      const { pass, detail } = check.evaluate(figures, FAST_EXPECTATIONS);
      assert.ok(pass, detail);
    });
  }
});
