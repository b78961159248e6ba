/**
 * SIGTERM under load, fast: a real signal to the sidecar as deployed while real exporters overload it (exit code, time,
 * and the final account against the clients' books), and the same stop in-process, where the counters can be read
 * after it (nothing in flight is lost).
 */
import { strict as assert } from 'node:assert';
import type { OtlpReceiver } from '../../collector/otlp/internal/receiver.js';
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { until } from '../support/until.js';
import { LoadClientProcess } from './load-client-process.js';
import { otlpSidecarConfig } from './overload.js';
import { deployedContainer } from './sidecar-process.js';
import { otlpLedger } from './otlp-ledger.js';
import { runSigterm, SHUTDOWN_TIMEOUT_MS, SIGTERM_ACCOUNTING_CHECK, SIGTERM_CHECKS, type SigtermFigures } from './sigterm.js';

describe('reliability: SIGTERM under load', function () {
  this.timeout(60_000);

  describe('reconcile-shadow run as deployed, sent a real SIGTERM', () => {
    let figures: SigtermFigures;
    before(async () => {
      figures = await runSigterm({
        loadMs: 2_000,
        rate: 150_000,
        clients: 2,
        pipelinesPerClient: 16,
        cpuLimitCores: deployedContainer().cpuLimitCores,
        slowConnections: 8,
      });
    });

    for (const check of [...SIGTERM_CHECKS, SIGTERM_ACCOUNTING_CHECK]) {
      it(check.name, () => {
        const { pass, detail } = check.evaluate(figures, {});
        assert.ok(pass, `${detail}\n${figures.stderr.slice(-1000)}`);
      });
    }
  });

  describe('the same stop in-process, counters read after it', () => {
    let sidecar: Sidecar | undefined;
    const clients: LoadClientProcess[] = [];
    afterEach(async () => {
      await Promise.all(clients.map((c) => c.kill()));
      await sidecar?.stop();
    });

    it('hands on or drops as shutdown everything in flight: received = analyzed + dropped once stopped', async () => {
      sidecar = await startSidecar(parseConfig(otlpSidecarConfig(), 'shadow.yaml'), { env: {} });
      const receiver = sidecar.sources.find((s) => s.kind === 'otlp') as unknown as OtlpReceiver;
      const url = `http://127.0.0.1:${receiver.address().port}/v1/traces`;
      clients.push(...(await Promise.all([0, 1].map((i) => LoadClientProcess.start({ url, pipelines: 16, seed: 3000 + i, namespace: `stop-${i}` })))));
      await Promise.all(clients.map((c) => c.setRate(75_000)));
      // a second and a half of load, then stop at a moment the receiver holds queued spans and incomplete attempts
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await until('the receiver to hold queued spans and pending attempts at once', () => receiver.queuedSpans > 0 && receiver.pendingAttempts > 0, {
        timeoutMs: 20_000,
      });
      const inFlight = { queuedSpans: receiver.queuedSpans, pendingAttempts: receiver.pendingAttempts };
      const started = performance.now();
      await sidecar.stop();
      const stopMs = performance.now() - started;
      const ledger = otlpLedger(parsePrometheusText(await sidecar.metrics.registry.metrics()));
      sidecar = undefined;
      assert.ok(stopMs < SHUTDOWN_TIMEOUT_MS, `stop took ${Math.round(stopMs)} ms`);
      // queued spans complete their attempts, what is still incomplete is analyzed as such, rootless spans are dropped
      assert.equal(
        ledger.received - ledger.analyzed - ledger.dropped,
        0,
        `${JSON.stringify(ledger)} after stopping with ${JSON.stringify(inFlight)} in flight`,
      );
    });
  });
});
