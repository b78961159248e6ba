/**
 * SIGTERM under load: the sidecar as deployed is sent a real SIGTERM while real exporters overload it. It must exit 0
 * within its shutdown timeout, having analyzed or dropped (reason `shutdown`) whatever was in flight, and its final
 * account must balance against the clients' own books. The counters of a process that has exited can only be read
 * from what it logs on the way out: the `stopped:` line (see FinalAccount).
 */
import { CpuQuota } from './cpu-quota.js';
import type { LoadBooks } from './load-client.js';
import { LoadClientProcess } from './load-client-process.js';
import { addBooks, otlpSidecarConfig, refusals } from './overload.js';
import type { Check } from './overload-checks.js';
import { scrapeLedger, unaccounted, type OtlpLedger } from './otlp-ledger.js';
import { deployedContainer, SidecarProcess, type SidecarExit } from './sidecar-process.js';
import { SlowClientPool, type SlowBooks } from './slow-clients.js';

export interface SigtermOptions {
  readonly loadMs: number;
  /** Spans per second offered, in all. */
  readonly rate: number;
  readonly clients: number;
  readonly pipelinesPerClient: number;
  /** The sidecar's CPU limit in cores; none when undefined. */
  readonly cpuLimitCores?: number;
  /** Slow clients kept open during the load: those whose body is being read at the signal are cut by the grace. */
  readonly slowConnections: number;
}

/** The input ledger `run` logs once stopped: `reconcile-shadow: stopped: {json}`. */
export interface FinalAccount {
  readonly received: Readonly<Record<string, number>>;
  readonly rejectedByReason: Readonly<Record<string, number>>;
  readonly attempts: number;
  readonly operations: number;
}

export interface SigtermFigures {
  /** The sidecar's counters a moment before the signal. */
  readonly beforeSignal: OtlpLedger;
  readonly exit: SidecarExit;
  readonly exitMs: number;
  readonly stderr: string;
  readonly clients: LoadBooks;
  readonly slow: SlowBooks;
  readonly final: FinalAccount | undefined;
}

export async function runSigterm(options: SigtermOptions): Promise<SigtermFigures> {
  const deployed = deployedContainer();
  const sidecar = await SidecarProcess.start(otlpSidecarConfig(), deployed.nodeOptions);
  const quota = options.cpuLimitCores === undefined ? undefined : new CpuQuota(sidecar.pid, options.cpuLimitCores);
  const clients: LoadClientProcess[] = [];
  const pool = new SlowClientPool(sidecar.otlpPort, options.slowConnections);
  try {
    quota?.start();
    clients.push(
      ...(await Promise.all(
        Array.from({ length: options.clients }, (_, i) =>
          LoadClientProcess.start({ url: sidecar.otlpUrl, pipelines: options.pipelinesPerClient, seed: 2000 + i, namespace: `sigterm-${i}` }),
        ),
      )),
    );
    await Promise.all(clients.map((c) => c.setRate(options.rate / clients.length)));
    await new Promise((resolve) => setTimeout(resolve, options.loadMs));
    // the signal goes at a moment the sidecar holds spans it has not yet analyzed or dropped
    let beforeSignal = await scrapeLedger(sidecar.url('/metrics'));
    for (const deadline = performance.now() + 10_000; unaccounted(beforeSignal) === 0 && performance.now() < deadline;) {
      beforeSignal = await scrapeLedger(sidecar.url('/metrics'));
    }
    // the slow connections open now are the last: a stopped receiver refuses new ones, and they are not replaced
    const slowDone = pool.finish();
    const signalled = performance.now();
    sidecar.signal('SIGTERM');
    const exit = await sidecar.exited;
    const exitMs = performance.now() - signalled;
    const books = await Promise.all(clients.map((c) => c.finish()));
    clients.length = 0;
    const slow = await slowDone;
    return { beforeSignal, exit, exitMs, stderr: sidecar.stderr, clients: addBooks(books), slow, final: finalAccount(sidecar.stderr) };
  } finally {
    pool.destroy();
    quota?.stop();
    await Promise.all(clients.map((c) => c.kill()));
    await sidecar.kill();
  }
}

export function finalAccount(stderr: string): FinalAccount | undefined {
  const line = /^reconcile-shadow: stopped: (\{.*\})$/m.exec(stderr);
  return line ? (JSON.parse(line[1]!) as FinalAccount) : undefined;
}

/** The SIGTERM checks take no bounds. */
export type NoBounds = Readonly<Record<string, never>>;

/** `shutdownTimeout`, the config's default: `run` gives up and exits 1 after it. */
export const SHUTDOWN_TIMEOUT_MS = 5_000;

export const SIGTERM_CHECKS: readonly Check<SigtermFigures, NoBounds>[] = [
  {
    name: 'work was in flight when the signal came',
    evaluate: (f) => ({ pass: unaccounted(f.beforeSignal) > 0, detail: `${unaccounted(f.beforeSignal)} spans received and not yet analyzed or dropped` }),
  },
  {
    name: `exit 0 within ${SHUTDOWN_TIMEOUT_MS} ms`,
    evaluate: (f) => ({
      pass: f.exit.code === 0 && f.exit.signal === null && f.exitMs < SHUTDOWN_TIMEOUT_MS && /^reconcile-shadow: SIGTERM, stopping$/m.test(f.stderr),
      detail: `exit code ${f.exit.code}, signal ${f.exit.signal}, after ${Math.round(f.exitMs)} ms`,
    }),
  },
  {
    name: 'bodies still being read when the grace ended were answered 503, not cut off',
    evaluate: (f) => ({
      pass: (f.slow.endings['503'] ?? 0) > 0,
      detail: `slow connections ${JSON.stringify(f.slow.byKind)} ended ${JSON.stringify(f.slow.endings)}`,
    }),
  },
  {
    name: 'requests arriving while it stops get 503 with Retry-After, or their connection closed',
    evaluate: (f) => {
      const unexpected = Object.keys(f.clients.answers).filter((status) => !['200', '429', '503', 'error'].includes(status));
      return { pass: unexpected.length === 0 && f.clients.refusedWithoutRetryAfter === 0, detail: `answers ${JSON.stringify(f.clients.answers)}` };
    },
  },
];

/**
 * The accounting of a process that has exited, from the line `run` logs once stopped: it balances, and it matches the
 * clients' books (spans in requests answered 200, plus one per request answered otherwise; a request whose connection
 * was closed before it was read is in neither). A request the sidecar counted after printing the line would break both.
 */
export const SIGTERM_ACCOUNTING_CHECK: Check<SigtermFigures, NoBounds> = {
  name: "once stopped, received = analyzed + dropped, and received = the clients' books (from the `stopped:` line run logs)",
  evaluate: (f) => {
    if (!f.final) return { pass: false, detail: 'no `reconcile-shadow: stopped: {...}` line in the log' };
    const received = f.final.received.otlp ?? 0;
    const dropped = Object.values(f.final.rejectedByReason).reduce((a, b) => a + b, 0);
    const analyzed = f.final.attempts + f.final.operations;
    const books = f.clients.exported + refusals(f.clients.answers) + f.slow.answered;
    return {
      pass: received === analyzed + dropped && received === books,
      detail: `${received} = ${analyzed} analyzed + ${dropped} dropped (${JSON.stringify(f.final.rejectedByReason)}); clients: ${f.clients.exported} spans exported + ${refusals(f.clients.answers)} requests refused + ${f.slow.answered} slow connections answered = ${books} (answers ${JSON.stringify(f.clients.answers)})`,
    };
  },
};
