/**
 * The memory-bound scenario: the sidecar as deployed is sent hostile bodies (hostile-bodies.ts), as many at once as
 * it reads concurrently, one kind after the other, while its RSS and /healthz, /metrics are watched. It must stay up,
 * answer, stay under the memory bound, and account for every span it received.
 */
import { Agent, request } from 'node:http';
import { CpuQuota } from './cpu-quota.js';
import type { HostileBody } from './hostile-bodies.js';
import { otlpSidecarConfig } from './overload.js';
import { scrapeLedger, unaccounted, type OtlpLedger } from './otlp-ledger.js';
import { Probe, type ProbeFigures } from './probe.js';
import { deployedContainer, SidecarProcess } from './sidecar-process.js';

export interface HostileOptions {
  readonly bodies: readonly HostileBody[];
  /** Requests in flight at once, per kind of body. */
  readonly concurrency: number;
  /** How long each kind of body is sent. */
  readonly perBodyMs: number;
  readonly otlp?: Readonly<Record<string, unknown>>;
  /** The sidecar's CPU limit in cores; none when undefined. */
  readonly cpuLimitCores?: number;
  readonly settleTimeoutMs: number;
}

/** While one kind of body was sent: answers by status (`error`: none), the sidecar's RSS peak, the probe's figures. */
export interface HostilePhase {
  readonly body: string;
  readonly answers: Readonly<Record<string, number>>;
  readonly peakRssBytes: number;
  readonly probe: ProbeFigures;
}

export interface HostileFigures {
  readonly idleRssBytes: number;
  readonly phases: readonly HostilePhase[];
  /** The highest RSS of the whole run (VmHWM), sampling aside. */
  readonly peakRssBytes: number;
  readonly ledger: OtlpLedger;
  /** Set when the sidecar died: how, and V8's fatal error if it printed one. */
  readonly exit?: string;
}

export async function runHostile(options: HostileOptions): Promise<HostileFigures> {
  const deployed = deployedContainer();
  const sidecar = await SidecarProcess.start(otlpSidecarConfig(options.otlp), deployed.nodeOptions);
  const quota = options.cpuLimitCores === undefined ? undefined : new CpuQuota(sidecar.pid, options.cpuLimitCores);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  let exit: string | undefined;
  void sidecar.exited.then((e) => {
    const fatal = /^FATAL ERROR: .*$/m.exec(sidecar.stderr)?.[0];
    exit = `exited with code ${e.code}, signal ${e.signal}${fatal ? `: ${fatal}` : ''}`;
  });
  const idleRssBytes = sidecar.memory()!.rss;
  let phasePeak = 0;
  const sampler = setInterval(() => (phasePeak = Math.max(phasePeak, sidecar.memory()?.rss ?? 0)), 50);
  let probe: Probe | undefined;
  try {
    quota?.start();
    const phases: HostilePhase[] = [];
    for (const body of options.bodies) {
      const answers: Record<string, number> = {};
      phasePeak = 0;
      probe = new Probe([sidecar.url('/healthz'), sidecar.url('/metrics')]);
      const until = performance.now() + options.perBodyMs;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (performance.now() < until && exit === undefined) {
            const status = await post(sidecar.otlpUrl, body, agent);
            answers[status] = (answers[status] ?? 0) + 1;
          }
        }),
      );
      phases.push({ body: body.name, answers, peakRssBytes: phasePeak, probe: await probe.stop() });
      probe = undefined;
      if (exit !== undefined) break;
    }
    let ledger = exit === undefined ? await scrapeLedger(sidecar.url('/metrics')) : undefined;
    const started = performance.now();
    while (ledger && unaccounted(ledger) !== 0 && performance.now() - started < options.settleTimeoutMs && exit === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ledger = await scrapeLedger(sidecar.url('/metrics'));
    }
    const peakRssBytes = Math.max(phasePeak, ...phases.map((p) => p.peakRssBytes), sidecar.memory()?.peak ?? 0);
    const empty: OtlpLedger = { received: 0, droppedByReason: {}, dropped: 0, attempts: 0, operations: 0, analyzed: 0, incompleteAttempts: 0 };
    return { idleRssBytes, phases, peakRssBytes, ledger: ledger ?? empty, ...(exit === undefined ? {} : { exit }) };
  } finally {
    clearInterval(sampler);
    await probe?.stop();
    agent.destroy();
    quota?.stop();
    await sidecar.kill();
  }
}

/** One POST; resolves with the status, or `error` when the connection failed or closed without an answer. */
function post(url: string, hostile: HostileBody, agent: Agent): Promise<string> {
  const body = hostile.fresh?.() ?? hostile.body;
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': hostile.contentType, 'content-encoding': 'gzip', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
        res.on('error', () => resolve('error'));
      },
    );
    req.on('error', () => resolve('error'));
    req.end(body);
  });
}
