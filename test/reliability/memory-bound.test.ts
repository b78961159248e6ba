/**
 * The memory bound holds for hostile input too, fast version (`make soak` sends each body for longer): bodies built
 * to cost the receiver the most its limits allow, as many at once as it reads, against the sidecar as deployed.
 */
import { strict as assert } from 'node:assert';
import { HOSTILE_CHECKS, HOSTILE_CONCURRENCY, hostileBodies } from './hostile-checks.js';
import { runHostile, type HostileFigures } from './hostile.js';
import { deployedContainer } from './sidecar-process.js';

describe('reliability: memory bound under hostile bodies (1 s each)', function () {
  this.timeout(90_000);
  let figures: HostileFigures;

  before(async () => {
    figures = await runHostile({
      bodies: hostileBodies(),
      concurrency: HOSTILE_CONCURRENCY,
      perBodyMs: 1_000,
      otlp: { maxWait: '2s' },
      cpuLimitCores: deployedContainer().cpuLimitCores,
      settleTimeoutMs: 15_000,
    });
  });

  for (const check of HOSTILE_CHECKS) {
    it(check.name, () => {
      const { pass, detail } = check.evaluate(figures, { rssBoundBytes: 256 * 1024 * 1024, responsiveMs: 1000 });
      assert.ok(pass, detail);
    });
  }
});
