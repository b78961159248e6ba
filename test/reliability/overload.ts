/**
 * The overload scenario behind both the fast test and `make soak`: the sidecar as deployed (compiled, the
 * deployment's NODE_OPTIONS, a CPU limit enforced from outside) shadowing the HyperShift model, fed by real OTel
 * exporters in load-client processes.
 *   1. calibrate: clients offer more than the sidecar can take; the spans it analyzes per CPU-second, times the cores
 *      it may use, are its capacity;
 *   2. overload: clients produce `factor` × that capacity for `overloadMs`;
 *   3. settle: clients stop, export what they hold (honouring 429/503 + Retry-After) and close their books; the
 *      sidecar's counters must then balance, and match the clients' books request by request.
 * Throughout, /healthz and /metrics are sampled every 200 ms and the sidecar's RSS every 100 ms.
 */
import { stringify } from 'yaml';
import { DEFAULT_SPAN_ASSEMBLER_OPTIONS } from '../../collector/otlp/internal/assembler.js';
import { DEFAULT_LIMITS } from '../../collector/otlp/internal/receiver.js';
import { cpuNs, CpuQuota } from './cpu-quota.js';
import type { LoadBooks } from './load-client.js';
import { LoadClientProcess } from './load-client-process.js';
import { scrapeLedger, unaccounted, type OtlpLedger } from './otlp-ledger.js';
import { Probe, type ProbeFigures } from './probe.js';
import { deployedContainer, SidecarProcess } from './sidecar-process.js';

/**
 * The CPU the load tests give the sidecar: half the deployment's limit. The clients need 10× its work to offer 10× its
 * capacity; on a 2-core machine they get that only if the sidecar has a quarter core (`make soak -- --cpu` sets it).
 */
export const LOAD_TEST_CPU_CORES = deployedContainer().cpuLimitCores / 2;

/**
 * The overload needs the sidecar slow enough for the clients to offer 10× its capacity (the fast test: 5×). The two
 * load clients on a 2-core machine produce barely 10× what the sidecar analyzes on a quarter core, less on a loaded
 * machine; a fifth of a core leaves the clients their margin.
 */
export const OVERLOAD_CPU_CORES = (LOAD_TEST_CPU_CORES * 4) / 5;

export interface OverloadOptions {
  readonly calibrateMs: number;
  /**
   * Spans per second offered while calibrating: enough to saturate the sidecar (it then refuses requests), yet
   * finite, so the clients still have CPU left for exporting what they produce.
   */
  readonly calibrationRate: number;
  readonly overloadMs: number;
  /** Offered rate over capacity. */
  readonly factor: number;
  readonly clients: number;
  readonly pipelinesPerClient: number;
  /** Options under `sources.otlp` beyond the deployed config (e.g. a shorter maxWait for the fast test). */
  readonly otlp?: Readonly<Record<string, unknown>>;
  /** The sidecar's CPU limit in cores (the deployment's is deployedContainer().cpuLimitCores); none when undefined. */
  readonly cpuLimitCores?: number;
  /** How long the counters may take to balance once the clients are done (pending attempts wait up to maxWaitMs). */
  readonly settleTimeoutMs: number;
  readonly log?: (line: string) => void;
}

export interface OverloadFigures {
  readonly cpuLimitCores: number | null;
  readonly nodeOptions: readonly string[];
  /**
   * What the sidecar can analyze: the spans it analyzed per CPU-second while the calibration saturated it, times the
   * cores it may use. (Spans per wall-clock second would also measure how fast the clients deliver.)
   */
  readonly capacity: number;
  /** Spans per wall-clock second it analyzed during the calibration, the CPU it used meanwhile (cores), the requests it refused. */
  readonly calibrationRate: number;
  readonly calibrationCpu: number;
  readonly calibrationRefusals: number;
  /** How often the CPU limit held the sidecar, and for how long in all. */
  readonly throttledPeriods: number;
  readonly throttledMs: number;
  /** Spans per second the clients produced during the overload, and the sidecar analyzed meanwhile. */
  readonly offered: number;
  readonly analyzedDuringOverload: number;
  readonly idleRssBytes: number;
  readonly peakRssBytes: number;
  readonly probe: ProbeFigures;
  readonly clients: LoadBooks;
  readonly ledger: OtlpLedger;
  /** The server-side count the clients' books predict: spans in exports answered 200, plus one per refused request. */
  readonly expectedReceived: number;
  readonly settleMs: number;
}

export async function runOverload(options: OverloadOptions): Promise<OverloadFigures> {
  const log = options.log ?? ((): void => {});
  const deployed = deployedContainer();
  const sidecar = await SidecarProcess.start(otlpSidecarConfig(options.otlp), deployed.nodeOptions);
  // without a limit the sidecar could use one core: it is single-threaded but for V8's helpers
  const cores = options.cpuLimitCores ?? 1;
  const quota = options.cpuLimitCores === undefined ? undefined : new CpuQuota(sidecar.pid, options.cpuLimitCores);
  const clients: LoadClientProcess[] = [];
  let memorySampler: NodeJS.Timeout | undefined;
  let probe: Probe | undefined;
  try {
    quota?.start();
    const idleRssBytes = sidecar.memory()!.rss;
    let peakRssBytes = idleRssBytes;
    memorySampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, sidecar.memory()?.rss ?? 0)), 100);
    probe = new Probe([sidecar.url('/healthz'), sidecar.url('/metrics')]);
    const metricsUrl = sidecar.url('/metrics');
    clients.push(
      ...(await Promise.all(
        Array.from({ length: options.clients }, (_, i) =>
          LoadClientProcess.start({ url: sidecar.otlpUrl, pipelines: options.pipelinesPerClient, seed: 1000 + i, namespace: `clients-${i}` }),
        ),
      )),
    );
    const setRates = (rate: number): Promise<LoadBooks[]> => Promise.all(clients.map((c) => c.setRate(rate)));

    // 1. calibrate: the first third warms up (JIT, connections), the rest is measured
    await setRates(options.calibrationRate / clients.length);
    await sleep(options.calibrateMs / 3);
    const c0 = await timed(() => scrapeLedger(metricsUrl));
    const cpu0 = cpuNs(sidecar.pid)!;
    await sleep((options.calibrateMs * 2) / 3);
    const c1 = await timed(() => scrapeLedger(metricsUrl));
    const cpu1 = cpuNs(sidecar.pid)!;
    const analyzed = c1.value.analyzed - c0.value.analyzed;
    const calibrationRate = analyzed / ((c1.at - c0.at) / 1000);
    const calibrationCpu = (cpu1 - cpu0) / 1e6 / (c1.at - c0.at);
    const capacity = (analyzed / ((cpu1 - cpu0) / 1e9)) * cores;
    const calibrationRefusals = (c1.value.droppedByReason.queue_full ?? 0) - (c0.value.droppedByReason.queue_full ?? 0);
    log(
      `calibration: the sidecar analyzed ${Math.round(calibrationRate)} spans/s on ${calibrationCpu.toFixed(2)} cores, refusing ${calibrationRefusals} requests: ${Math.round(capacity)} spans/s on ${cores} core(s)`,
    );

    // 2. overload; production runs in slices and falls a little behind its schedule, so it aims 5% high
    const target = options.factor * capacity * 1.05;
    const o0 = await timed(() => setRates(target / clients.length));
    const l0 = await scrapeLedger(metricsUrl);
    await sleep(options.overloadMs);
    const l1 = await timed(() => scrapeLedger(metricsUrl));
    const o1 = await timed(() => setRates(0));
    const seconds = (o1.at - o0.at) / 1000;
    const offered = (sum(o1.value, (b) => b.produced) - sum(o0.value, (b) => b.produced)) / seconds;
    const analyzedDuringOverload = (l1.value.analyzed - l0.analyzed) / ((l1.at - o0.at) / 1000);
    log(`overload: offered ${Math.round(offered)} spans/s (target ${Math.round(target)}), analyzed ${Math.round(analyzedDuringOverload)} spans/s`);

    // 3. settle
    const finals = await Promise.all(clients.map((c) => c.finish()));
    clients.length = 0;
    const books = addBooks(finals);
    const expectedReceived = books.exported + refusals(books.answers);
    const settleStart = performance.now();
    let ledger = await scrapeLedger(metricsUrl);
    while ((unaccounted(ledger) !== 0 || ledger.received !== expectedReceived) && performance.now() - settleStart < options.settleTimeoutMs) {
      await sleep(250);
      ledger = await scrapeLedger(metricsUrl);
    }
    const settleMs = performance.now() - settleStart;
    const probeFigures = await probe.stop();
    probe = undefined;
    clearInterval(memorySampler);
    peakRssBytes = Math.max(peakRssBytes, sidecar.memory()?.peak ?? 0);
    return {
      cpuLimitCores: options.cpuLimitCores ?? null,
      nodeOptions: deployed.nodeOptions,
      capacity,
      calibrationRate,
      calibrationCpu,
      calibrationRefusals,
      throttledPeriods: quota?.throttledPeriods ?? 0,
      throttledMs: quota?.throttledMs ?? 0,
      offered,
      analyzedDuringOverload,
      idleRssBytes,
      peakRssBytes,
      probe: probeFigures,
      clients: books,
      ledger,
      expectedReceived,
      settleMs,
    };
  } finally {
    clearInterval(memorySampler);
    await probe?.stop();
    await Promise.all(clients.map((c) => c.kill()));
    quota?.stop();
    await sidecar.kill();
  }
}

/**
 * The HyperShift model fed by OTLP alone (so analyzed spans can be derived from /metrics), on ports the system picks.
 * The receiver's limits are written out from its own defaults: the config file's defaults repeat them and must follow.
 */
export function otlpSidecarConfig(otlp: Readonly<Record<string, unknown>> = {}): string {
  const l = DEFAULT_LIMITS;
  const limits = {
    maxBodyBytes: l.maxBodyBytes,
    maxDecompressedBytes: l.maxDecompressedBytes,
    maxSpansPerRequest: l.maxSpansPerRequest,
    maxAttributesPerSpan: l.maxAttributesPerSpan,
    maxStringLength: l.maxStringLength,
    maxQueuedSpans: l.maxQueuedSpans,
    maxBufferedBodyBytes: l.maxBufferedBodyBytes,
    maxPendingAttempts: DEFAULT_SPAN_ASSEMBLER_OPTIONS.maxPendingAttempts,
  };
  return stringify({
    apiVersion: 'reconcile-shadow/v1',
    kind: 'ShadowConfig',
    models: ['hypershift-hostedcluster'],
    listen: { metrics: '127.0.0.1:0' },
    sources: { otlp: { listen: '127.0.0.1:0', ...limits, ...otlp } },
    console: { enabled: false },
  });
}

/** Requests the sidecar refused whole: each counts as one record received and one dropped. */
export function refusals(answers: Readonly<Record<string, number>>): number {
  return Object.entries(answers).reduce((n, [status, count]) => (status !== 'error' && Number(status) >= 400 ? n + count : n), 0);
}

/** The books of several clients as one. */
export function addBooks(all: readonly LoadBooks[]): LoadBooks {
  const merge = (pick: (b: LoadBooks) => Readonly<Record<string, number>>): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const b of all) for (const [k, v] of Object.entries(pick(b))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const pauses = all.filter((b) => b.retryPauseMinMs !== null);
  const total = (f: (b: LoadBooks) => number): number => sum(all, f);
  return {
    produced: total((b) => b.produced),
    attempts: total((b) => b.attempts),
    notHandedOn: total((b) => b.notHandedOn),
    handedToExporter: total((b) => b.handedToExporter),
    exported: total((b) => b.exported),
    failed: total((b) => b.failed),
    exportCalls: total((b) => b.exportCalls),
    failures: merge((b) => b.failures),
    requests: total((b) => b.requests),
    answers: merge((b) => b.answers),
    refusedWithoutRetryAfter: total((b) => b.refusedWithoutRetryAfter),
    slowestAnswerMs: Math.max(0, ...all.map((b) => b.slowestAnswerMs)),
    retries: total((b) => b.retries),
    retriesAfterRefusal: total((b) => b.retriesAfterRefusal),
    retryPauseMinMs: pauses.length === 0 ? null : Math.min(...pauses.map((b) => b.retryPauseMinMs!)),
    retryPauseMaxMs: pauses.length === 0 ? null : Math.max(...pauses.map((b) => b.retryPauseMaxMs!)),
  };
}

function sum<T>(items: readonly T[], f: (item: T) => number): number {
  return items.reduce((n, item) => n + f(item), 0);
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; at: number }> {
  const value = await f();
  return { value, at: performance.now() };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
