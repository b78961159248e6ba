/**
 * `make soak`: the long versions of the reliability scenarios against the sidecar as deployed (compiled, the
 * deployment's NODE_OPTIONS and CPU limit; for the overload, a fifth of a core or --cpu), each judged by the same checks as the fast tests in test/reliability:
 *   1. overload: real OTel exporters producing 10× what the sidecar analyzes, for 60 s;
 *   2. memory bound: hostile bodies at the receiver's limits, 10 s each;
 *   3. tracked objects: valid attempts of ever new objects (per-object state is capped by maxTrackedObjects);
 *   4. slow clients: 32 connections that say little or nothing, replaced as they are cut, beside real exporters;
 *   5. attempts without `reconcile.operation_count` at 25,000 spans/s: none may come out partial;
 *   6. SIGTERM under load, with slow clients mid-body, and the accounting the sidecar logs once stopped.
 * Prints the figures and a PASS/FAIL line per check, writes test-output/soak-results.json, and exits 1 on any FAIL.
 *   node --import tsx test/soak/run.ts [--seconds 60] [--cpu 0.25] [--only overload|memory|objects|slow|countless|sigterm ...]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS, DEFAULT_TIMEOUTS } from '../../collector/otlp/internal/receiver.js';
import { resolveModel } from '../../sidecar/files.js';
import { distinctObjects } from '../reliability/hostile-bodies.js';
import { HOSTILE_CHECKS, HOSTILE_CONCURRENCY, hostileBodies } from '../reliability/hostile-checks.js';
import { runHostile } from '../reliability/hostile.js';
import { mib, OVERLOAD_CHECKS, type Check, type Expectations } from '../reliability/overload-checks.js';
import { OVERLOAD_CPU_CORES, runOverload } from '../reliability/overload.js';
import { deployedContainer } from '../reliability/sidecar-process.js';
import { COUNTLESS_CHECKS, runCountless } from '../reliability/countless.js';
import { runSigterm, SIGTERM_ACCOUNTING_CHECK, SIGTERM_CHECKS } from '../reliability/sigterm.js';
import { runSlowPhase, SLOW_PHASE_CHECKS } from '../reliability/slow-phase.js';
import { REPO } from '../support/paths.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, cpu: { type: 'string' }, only: { type: 'string', multiple: true } } });
const seconds = Number(values.seconds);
const only = new Set(values.only ?? []);
const overloadCores = values.cpu === undefined ? OVERLOAD_CPU_CORES : Number(values.cpu);
const deployedCores = deployedContainer().cpuLimitCores;
const EXPECT: Expectations = { minRatio: 10, rssBoundBytes: 256 * 1024 * 1024, responsiveMs: 1000, retryAfterMs: 1000 };

interface Verdict {
  readonly scenario: string;
  readonly check: string;
  readonly pass: boolean;
  readonly detail: string;
}

const verdicts: Verdict[] = [];
const results: Record<string, unknown> = {};
const log = (line: string): void => void process.stdout.write(`${line}\n`);

function judge<F, E>(scenario: string, checks: readonly Check<F, E>[], figures: F, expect: E): void {
  for (const check of checks) {
    const { pass, detail } = check.evaluate(figures, expect);
    verdicts.push({ scenario, check: check.name, pass, detail });
    log(`  ${pass ? 'PASS' : 'FAIL'}  ${check.name}\n        ${detail}`);
  }
}

async function scenario(key: string, name: string, run: () => Promise<void>): Promise<void> {
  if (only.size > 0 && !only.has(key)) return;
  log(`\n== ${name}`);
  const started = Date.now();
  try {
    await run();
  } catch (e) {
    verdicts.push({ scenario: name, check: 'ran to the end', pass: false, detail: (e as Error).stack ?? String(e) });
    log(`  FAIL  ran to the end\n        ${(e as Error).stack ?? String(e)}`);
  }
  log(`  (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

await scenario('overload', `overload: real OTel exporters at ${EXPECT.minRatio}x capacity for ${seconds} s`, async () => {
  const f = await runOverload({
    calibrateMs: 10_000,
    calibrationRate: 150_000,
    overloadMs: seconds * 1000,
    factor: EXPECT.minRatio,
    clients: 2,
    pipelinesPerClient: 16,
    cpuLimitCores: overloadCores,
    // pending attempts wait the default maxWaitMs (30 s) before they count, so the counters may take that long to settle
    settleTimeoutMs: 60_000,
    log: (line) => log(`  ${line}`),
  });
  results.overload = f;
  log(`  sidecar: CPU limit ${f.cpuLimitCores} core (held in ${f.throttledPeriods} periods, ${Math.round(f.throttledMs)} ms), node ${f.nodeOptions.join(' ')}`);
  log(`  calibration: ${Math.round(f.calibrationRate)} spans/s analyzed on ${f.calibrationCpu.toFixed(2)} cores, ${f.calibrationRefusals} requests refused`);
  log(
    `  capacity ${Math.round(f.capacity)} spans/s; offered ${Math.round(f.offered)} spans/s (${(f.offered / f.capacity).toFixed(2)}x); analyzed meanwhile ${Math.round(f.analyzedDuringOverload)} spans/s`,
  );
  log(
    `  RSS idle ${mib(f.idleRssBytes)}, peak ${mib(f.peakRssBytes)}; slowest /healthz ${Math.round(f.probe.maxMs['/healthz']!)} ms, /metrics ${Math.round(f.probe.maxMs['/metrics']!)} ms`,
  );
  log(
    `  clients: ${f.clients.produced} spans produced, ${f.clients.notHandedOn} dropped by their span processors, ${f.clients.exported} exported, ${f.clients.failed} given up`,
  );
  log(
    `           ${f.clients.requests} requests ${JSON.stringify(f.clients.answers)}, ${f.clients.retries} retried; slowest answer ${Math.round(f.clients.slowestAnswerMs)} ms`,
  );
  log(
    `  sidecar: ${f.ledger.received} received = ${f.ledger.analyzed} analyzed (${f.ledger.attempts} attempts) + ${f.ledger.dropped} dropped ${JSON.stringify(f.ledger.droppedByReason)}`,
  );
  judge('overload', OVERLOAD_CHECKS, f, EXPECT);
});

await scenario('memory', 'memory bound: hostile bodies at the default limits, 10 s each', async () => {
  const f = await runHostile({
    bodies: hostileBodies(),
    concurrency: HOSTILE_CONCURRENCY,
    perBodyMs: 10_000,
    cpuLimitCores: deployedCores,
    settleTimeoutMs: 60_000,
  });
  results.memoryBound = f;
  for (const p of f.phases)
    log(`  ${p.body}: ${JSON.stringify(p.answers)}, RSS peak ${mib(p.peakRssBytes)}, slowest /healthz ${Math.round(p.probe.maxMs['/healthz']!)} ms`);
  judge('memory bound', HOSTILE_CHECKS, f, EXPECT);
});

await scenario('objects', 'tracked objects: valid attempts, each of an object never seen before, 20 s', async () => {
  const body = distinctObjects(DEFAULT_LIMITS.maxDecompressedBytes, DEFAULT_LIMITS.maxStringLength, resolveModel('hypershift-hostedcluster').controller);
  const f = await runHostile({ bodies: [body], concurrency: HOSTILE_CONCURRENCY, perBodyMs: 20_000, cpuLimitCores: deployedCores, settleTimeoutMs: 60_000 });
  results.trackedObjects = f;
  for (const p of f.phases) log(`  ${p.body}: ${JSON.stringify(p.answers)}, RSS peak ${mib(p.peakRssBytes)}`);
  if (f.exit) log(`  the sidecar died: ${f.exit}`);
  judge('tracked objects', HOSTILE_CHECKS, f, EXPECT);
});

await scenario('slow', `slow clients: 32 connections that say little or nothing beside real exporters, ${seconds} s`, async () => {
  const f = await runSlowPhase({
    durationMs: seconds * 1000,
    slowConnections: 32,
    rate: 10_000,
    clients: 2,
    pipelinesPerClient: 16,
    timeouts: DEFAULT_TIMEOUTS,
    cpuLimitCores: deployedCores,
    // the last slow connections are cut bodyTimeoutMs after they opened
    settleTimeoutMs: 60_000,
  });
  results.slowClients = f;
  log(
    `  slow: ${f.slow.opened} connections ${JSON.stringify(f.slow.byKind)}, ended ${JSON.stringify(f.slow.endings)}, cut after ${JSON.stringify(f.slow.cutAfterMs)}`,
  );
  log(
    `  exporters: ${f.exporters.exported} spans exported in ${f.exporters.requests} requests ${JSON.stringify(f.exporters.answers)}; slowest answer ${Math.round(f.exporters.slowestAnswerMs)} ms`,
  );
  log(
    `  sidecar: ${f.ledger.received} received = ${f.ledger.analyzed} analyzed + ${f.ledger.dropped} dropped ${JSON.stringify(f.ledger.droppedByReason)}; clients' books ${f.expectedReceived}`,
  );
  judge('slow clients', SLOW_PHASE_CHECKS, f, EXPECT);
});

await scenario('countless', `attempts without reconcile.operation_count at 25,000 spans/s, ${seconds} s`, async () => {
  const f = await runCountless({
    durationMs: seconds * 1000,
    rate: 25_000,
    minRate: 0.9 * 25_000,
    clients: 2,
    pipelinesPerClient: 8,
    cpuLimitCores: deployedCores,
    settleTimeoutMs: 60_000,
  });
  results.countless = f;
  log(`  offered ${Math.round(f.offered)} spans/s; ${f.clients.attempts} attempts, ${f.clients.exported} spans exported`);
  log(
    `  sidecar: ${f.ledger.attempts} attempts analyzed, ${f.ledger.incompleteAttempts} incomplete; ${f.ledger.received} received = ${f.ledger.analyzed} analyzed + ${f.ledger.dropped} dropped`,
  );
  judge('countless', COUNTLESS_CHECKS, f, {});
});

await scenario('sigterm', 'SIGTERM under load, with slow clients mid-body', async () => {
  const f = await runSigterm({ loadMs: 10_000, rate: 150_000, clients: 2, pipelinesPerClient: 16, cpuLimitCores: deployedCores, slowConnections: 8 });
  results.sigterm = { ...f, stderr: f.stderr.slice(-4000) };
  log(
    `  exit ${JSON.stringify(f.exit)} after ${Math.round(f.exitMs)} ms; clients' answers ${JSON.stringify(f.clients.answers)}; slow connections ended ${JSON.stringify(f.slow.endings)}`,
  );
  log(
    `  in flight at the signal: ${f.beforeSignal.received - f.beforeSignal.analyzed - f.beforeSignal.dropped} spans; final account ${JSON.stringify(f.final)}`,
  );
  judge('SIGTERM', [...SIGTERM_CHECKS, SIGTERM_ACCOUNTING_CHECK], f, {});
});

const failed = verdicts.filter((v) => !v.pass);
mkdirSync(join(REPO, 'test-output'), { recursive: true });
writeFileSync(join(REPO, 'test-output', 'soak-results.json'), JSON.stringify({ seconds, expect: EXPECT, results, verdicts }, null, 2) + '\n');
log(
  `\n${failed.length === 0 ? 'SOAK PASS' : 'SOAK FAIL'}: ${verdicts.length - failed.length} of ${verdicts.length} checks passed${failed.map((v) => `\n  FAIL  ${v.scenario}: ${v.check}`).join('')}`,
);
log('figures: test-output/soak-results.json');
process.exit(failed.length === 0 ? 0 : 1);
