/**
 * Slow clients alongside real exporters, fast version (`make soak` runs it for 60 s at the default timeouts and the
 * deployment's CPU limit): the compiled sidecar, 32 connections that say little or nothing, replaced as soon as they
 * are cut, and real OTel exporters that must not notice them; the books of both kinds of client must equal the
 * sidecar's.
 */
import { strict as assert } from 'node:assert';
import { SLOW_PHASE_CHECKS, runSlowPhase, type SlowPhaseFigures } from './slow-phase.js';

describe('reliability: slow clients alongside real exporters (6 s)', function () {
  this.timeout(90_000);
  let figures: SlowPhaseFigures;

  before(async () => {
    figures = await runSlowPhase({
      durationMs: 6_000,
      slowConnections: 32,
      rate: 5_000,
      clients: 2,
      pipelinesPerClient: 4,
      // a second for headers and body gaps, two for a body: each slow connection is replaced a few times
      timeouts: { headersTimeoutMs: 1_000, bodyIdleTimeoutMs: 1_000, bodyTimeoutMs: 2_000 },
      // attempts broken on a busy machine (a span processor's queue overflowing) settle in 2 s, not 30
      maxWaitMs: 2_000,
      // no CPU limit here: on a machine shared with other work the limit's stops come on top of the machine's own
      settleTimeoutMs: 15_000,
    });
  });

  for (const check of SLOW_PHASE_CHECKS) {
    it(check.name, () => {
      const { pass, detail } = check.evaluate(figures, { rssBoundBytes: 256 * 1024 * 1024, responsiveMs: 1000 });
      assert.ok(pass, detail);
    });
  }
});
