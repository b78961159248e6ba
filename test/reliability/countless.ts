/**
 * Attempts without `reconcile.operation_count` at a high rate, behind the fast test and `make soak`: real OTel
 * exporters (load-client processes) send complete attempts whose roots carry no count, at 25,000 spans/s, to the
 * sidecar as deployed. The receiver must settle each one (collector/otlp/internal/assembler.ts): the pending store holds a
 * settle time's worth of spans only while it has room (~14,000 spans in the default 8 MiB, about half a second at this
 * rate), so it fills, and what it hands on to make room must be complete, not `partial`.
 */
import { DEFAULT_SPAN_ASSEMBLER_OPTIONS } from '../../collector/otlp/internal/assembler.js';
import { SPAN_FIXED_BYTES } from '../../collector/otlp/internal/span.js';
import { CpuQuota } from './cpu-quota.js';
import type { LoadBooks } from './load-client.js';
import { LoadClientProcess } from './load-client-process.js';
import { addBooks, otlpSidecarConfig, refusals } from './overload.js';
import type { Check } from './overload-checks.js';
import { scrapeLedger, unaccounted, type OtlpLedger } from './otlp-ledger.js';
import { deployedContainer, SidecarProcess } from './sidecar-process.js';

export interface CountlessOptions {
  readonly durationMs: number;
  /** Spans per second offered, in all. */
  readonly rate: number;
  /** The least the clients must reach for the run to count (a busy machine may not give them the whole rate). */
  readonly minRate: number;
  /** `sources.otlp.maxPendingBytes` when not the default: a smaller store fills at a lower rate. */
  readonly maxPendingBytes?: number;
  readonly clients: number;
  readonly pipelinesPerClient: number;
  readonly cpuLimitCores?: number;
  readonly settleTimeoutMs: number;
}

export interface CountlessFigures {
  readonly options: CountlessOptions;
  /** Spans per second the clients produced while the rate was set. */
  readonly offered: number;
  readonly clients: LoadBooks;
  readonly ledger: OtlpLedger;
}

export async function runCountless(options: CountlessOptions): Promise<CountlessFigures> {
  // a queue deep enough that a sidecar short of CPU lags instead of answering 429: an exporter retrying a batch of
  // children after their root got through would make them late whatever the pending rule, and that is not tested here
  const otlp = {
    maxQueuedSpans: 200_000,
    maxQueuedBytes: 128 * 1024 * 1024,
    ...(options.maxPendingBytes === undefined ? {} : { maxPendingBytes: options.maxPendingBytes }),
  };
  const sidecar = await SidecarProcess.start(otlpSidecarConfig(otlp), deployedContainer().nodeOptions);
  const quota = options.cpuLimitCores === undefined ? undefined : new CpuQuota(sidecar.pid, options.cpuLimitCores);
  const clients: LoadClientProcess[] = [];
  try {
    quota?.start();
    clients.push(
      ...(await Promise.all(
        Array.from({ length: options.clients }, (_, i) =>
          LoadClientProcess.start({
            url: sidecar.otlpUrl,
            pipelines: options.pipelinesPerClient,
            seed: 5000 + i,
            namespace: `countless-${i}`,
            operationCount: false,
          }),
        ),
      )),
    );
    const started = performance.now();
    await Promise.all(clients.map((c) => c.setRate(options.rate / clients.length)));
    await new Promise((resolve) => setTimeout(resolve, options.durationMs));
    const during = addBooks(await Promise.all(clients.map((c) => c.setRate(0))));
    const offered = during.produced / ((performance.now() - started) / 1000);
    const books = addBooks(await Promise.all(clients.map((c) => c.finish())));
    clients.length = 0;
    // the last attempts settle a settleMs after their root
    const settleStart = performance.now();
    let ledger = await scrapeLedger(sidecar.url('/metrics'));
    while (
      (unaccounted(ledger) !== 0 || ledger.received !== books.exported + refusals(books.answers)) &&
      performance.now() - settleStart < options.settleTimeoutMs
    ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ledger = await scrapeLedger(sidecar.url('/metrics'));
    }
    return { options, offered, clients: books, ledger };
  } finally {
    await Promise.all(clients.map((c) => c.kill()));
    quota?.stop();
    await sidecar.kill();
  }
}

/** Spans dropped for good: everything but 429s, whose spans the exporters send again. */
const lost = (l: OtlpLedger): number => l.dropped - (l.droppedByReason.queue_full ?? 0);

export const COUNTLESS_CHECKS: readonly Check<CountlessFigures, Readonly<Record<string, never>>>[] = [
  {
    name: 'the clients offered the rate, and their exporters delivered every attempt whole',
    evaluate: (f) => ({
      pass: f.offered >= f.options.minRate && f.clients.notHandedOn === 0 && f.clients.failed === 0 && f.clients.exported === f.clients.produced,
      detail: `${Math.round(f.offered)} spans/s offered (target ${f.options.rate}, at least ${f.options.minRate}); ${f.clients.produced} spans in ${f.clients.attempts} attempts produced, ${f.clients.exported} exported, ${f.clients.notHandedOn} dropped by the span processors, ${f.clients.failed} given up`,
    }),
  },
  {
    name: 'the pending store could not hold a settle time of spans: it filled, and attempts gave way',
    evaluate: (f) => {
      const store = f.options.maxPendingBytes ?? DEFAULT_SPAN_ASSEMBLER_OPTIONS.maxPendingBytes;
      // every span takes at least SPAN_FIXED_BYTES, and each attempt waits settleMs after its root
      const needed = (f.offered * DEFAULT_SPAN_ASSEMBLER_OPTIONS.settleMs * SPAN_FIXED_BYTES) / 1000;
      return {
        pass: needed > store,
        detail: `${Math.round(f.offered)} spans/s for ${DEFAULT_SPAN_ASSEMBLER_OPTIONS.settleMs} ms at ${SPAN_FIXED_BYTES} bytes or more each: ${Math.round(needed)} bytes, the store holds ${store}`,
      };
    },
  },
  {
    name: 'no attempt was marked partial, and none lost a span',
    evaluate: (f) => ({
      pass: f.ledger.incompleteAttempts === 0 && lost(f.ledger) === 0,
      detail: `${f.ledger.incompleteAttempts} incomplete attempts; dropped ${JSON.stringify(f.ledger.droppedByReason)} (429s are sent again)`,
    }),
  },
  {
    name: 'every attempt sent was analyzed, and analyzed = the clients\u2019 spans exported',
    evaluate: (f) => ({
      pass: f.ledger.attempts === f.clients.attempts && f.ledger.analyzed === f.clients.exported && f.ledger.received === f.ledger.analyzed + f.ledger.dropped,
      detail: `${f.ledger.attempts} attempts analyzed of ${f.clients.attempts} sent; received ${f.ledger.received} = analyzed ${f.ledger.analyzed} + dropped ${f.ledger.dropped}; exported ${f.clients.exported}`,
    }),
  },
];
