/**
 * The slow-client scenario behind the fast test and `make soak`: the sidecar as deployed (compiled, its NODE_OPTIONS
 * and CPU limit) is fed by real OTel exporters in load-client processes while a pool of slow clients keeps
 * connections open and says little or nothing (slow-clients.ts), each replaced as soon as the receiver cuts it. The
 * exporters must lose nothing and wait for nothing; every slow connection must be cut within its deadline, answered
 * and counted; and the sidecar's books must equal both sets of clients' books exactly.
 */
import { CpuQuota } from './cpu-quota.js';
import type { LoadBooks } from './load-client.js';
import { LoadClientProcess } from './load-client-process.js';
import { addBooks, otlpSidecarConfig, refusals } from './overload.js';
import { responsive, TIMER_SLACK_MS, type Bounds, type Check } from './overload-checks.js';
import { scrapeLedger, unaccounted, type OtlpLedger } from './otlp-ledger.js';
import { Probe, type ProbeFigures } from './probe.js';
import { deployedContainer, SidecarProcess } from './sidecar-process.js';
import { SlowClientPool, type SlowBooks } from './slow-clients.js';

export interface SlowPhaseOptions {
  readonly durationMs: number;
  /** Slow connections kept open throughout. */
  readonly slowConnections: number;
  /** Spans per second the exporters offer, in all: well within what the sidecar analyzes. */
  readonly rate: number;
  readonly clients: number;
  readonly pipelinesPerClient: number;
  /** The receiver's timeouts (`sources.otlp`): shorter ones cut and replace slow clients more often. */
  readonly timeouts: { readonly headersTimeoutMs: number; readonly bodyIdleTimeoutMs: number; readonly bodyTimeoutMs: number };
  /**
   * `sources.otlp.maxWait`, when not the default: a busy machine may make the exporters' span processors drop spans,
   * and the attempts they break wait this long before the counters settle.
   */
  readonly maxWaitMs?: number;
  readonly cpuLimitCores?: number;
  readonly settleTimeoutMs: number;
}

export interface SlowPhaseFigures {
  readonly options: SlowPhaseOptions;
  readonly slow: SlowBooks;
  readonly exporters: LoadBooks;
  readonly ledger: OtlpLedger;
  /** What the clients' books say the sidecar received: spans exported, one per refused request, one per slow cut. */
  readonly expectedReceived: number;
  readonly probe: ProbeFigures;
}

export async function runSlowPhase(options: SlowPhaseOptions): Promise<SlowPhaseFigures> {
  const deployed = deployedContainer();
  const t = options.timeouts;
  const otlp = {
    headersTimeout: `${t.headersTimeoutMs}ms`,
    bodyIdleTimeout: `${t.bodyIdleTimeoutMs}ms`,
    bodyTimeout: `${t.bodyTimeoutMs}ms`,
    ...(options.maxWaitMs === undefined ? {} : { maxWait: `${options.maxWaitMs}ms` }),
  };
  const sidecar = await SidecarProcess.start(otlpSidecarConfig(otlp), deployed.nodeOptions);
  const quota = options.cpuLimitCores === undefined ? undefined : new CpuQuota(sidecar.pid, options.cpuLimitCores);
  const clients: LoadClientProcess[] = [];
  let pool: SlowClientPool | undefined;
  let probe: Probe | undefined;
  try {
    quota?.start();
    probe = new Probe([sidecar.url('/healthz'), sidecar.url('/metrics')]);
    pool = new SlowClientPool(sidecar.otlpPort, options.slowConnections);
    clients.push(
      ...(await Promise.all(
        Array.from({ length: options.clients }, (_, i) =>
          LoadClientProcess.start({ url: sidecar.otlpUrl, pipelines: options.pipelinesPerClient, seed: 4000 + i, namespace: `slow-${i}` }),
        ),
      )),
    );
    await Promise.all(clients.map((c) => c.setRate(options.rate / clients.length)));
    await new Promise((resolve) => setTimeout(resolve, options.durationMs));
    const exporters = addBooks(await Promise.all(clients.map((c) => c.finish())));
    clients.length = 0;
    const slow = await pool.finish();
    const expectedReceived = exporters.exported + refusals(exporters.answers) + slow.answered;
    const started = performance.now();
    let ledger = await scrapeLedger(sidecar.url('/metrics'));
    while ((unaccounted(ledger) !== 0 || ledger.received !== expectedReceived) && performance.now() - started < options.settleTimeoutMs) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ledger = await scrapeLedger(sidecar.url('/metrics'));
    }
    const probeFigures = await probe.stop();
    probe = undefined;
    return { options, slow, exporters, ledger, expectedReceived, probe: probeFigures };
  } finally {
    await probe?.stop();
    pool?.destroy();
    await Promise.all(clients.map((c) => c.kill()));
    quota?.stop();
    await sidecar.kill();
  }
}

/**
 * Seconds, not Node's 30 s sweep: slow-clients.test.ts holds the receiver to a quarter second in-process; here the
 * sidecar runs under its CPU limit (stopped for the rest of each 100 ms period once its quota is used), on a machine
 * that may be shared with other work, and its timers fire late by as much as its event loop lags. Early, by no more
 * than TIMER_SLACK_MS: the receiver dates a connection by its event loop's clock of the turn, which can lag the
 * client's.
 */
const CUT_SLACK_MS = 5_000;

export const SLOW_PHASE_CHECKS: readonly Check<SlowPhaseFigures, Bounds>[] = [
  {
    name: 'the slow clients held their connections throughout, each cut by the receiver within its deadline and answered 408',
    evaluate: (f) => {
      const t = f.options.timeouts;
      const deadline: Record<string, number> = {
        idle: t.headersTimeoutMs,
        partialHeaders: t.headersTimeoutMs,
        noBody: t.bodyIdleTimeoutMs,
        trickle: t.bodyTimeoutMs,
      };
      const late = Object.entries(f.slow.cutAfterMs).filter(
        ([kind, cut]) => cut.min < deadline[kind]! - TIMER_SLACK_MS || cut.max > deadline[kind]! + CUT_SLACK_MS,
      );
      const cuts = Object.entries(f.slow.cutAfterMs)
        .map(([kind, c]) => `${kind} ${Math.round(c.min)}-${Math.round(c.max)} ms`)
        .join(', ');
      return {
        pass: f.slow.opened > f.options.slowConnections && f.slow.endings['408'] === f.slow.opened && f.slow.stillOpen === 0 && late.length === 0,
        detail: `${f.slow.opened} slow connections ${JSON.stringify(f.slow.byKind)}, ended ${JSON.stringify(f.slow.endings)}; cut after ${cuts}`,
      };
    },
  },
  {
    name: "the exporters' every batch got 200, within 3 s",
    evaluate: (f) => {
      const e = f.exporters;
      const other = Object.entries(e.answers).filter(([status]) => status !== '200');
      return {
        pass: e.failed === 0 && other.length === 0 && e.notHandedOn === 0 && e.exported === e.handedToExporter && e.slowestAnswerMs < 3_000,
        detail: `${e.produced} spans produced, ${e.notHandedOn} dropped by the span processors, ${e.exported} exported, ${e.failed} given up; answers ${JSON.stringify(e.answers)}; slowest answer ${Math.round(e.slowestAnswerMs)} ms`,
      };
    },
  },
  {
    name: 'received = analyzed + dropped, exactly',
    evaluate: (f) => {
      const l = f.ledger;
      return {
        pass: l.received === l.analyzed + l.dropped,
        detail: `${l.received} = ${l.analyzed} analyzed (${l.attempts} attempts of the ${f.exporters.attempts} sent, ${l.incompleteAttempts} incomplete) + ${l.dropped} dropped (${JSON.stringify(l.droppedByReason)})`,
      };
    },
  },
  {
    name: "received matches the clients' own books (spans exported + slow connections cut), and the cuts are counted as such",
    evaluate: (f) => {
      const l = f.ledger;
      const cuts = (l.droppedByReason.idle_connection ?? 0) + (l.droppedByReason.request_timeout ?? 0);
      return {
        pass: l.received === f.expectedReceived && cuts === f.slow.answered,
        detail: `sidecar ${l.received}, clients ${f.expectedReceived} (${f.exporters.exported} spans exported, ${f.slow.answered} slow connections answered); counted idle_connection + request_timeout = ${cuts}`,
      };
    },
  },
  {
    name: '/healthz and /metrics answered within the bound throughout',
    evaluate: (f, b) => responsive(f.probe, b),
  },
];
