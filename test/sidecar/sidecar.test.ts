import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCommand } from '../../cli/run.js';
import type { JournalSource } from '../../collector/journal/source.js';
import type { Summary } from '../../analyzer/summary/types.js';
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { parsePrometheusText, valueOf } from '../support/prometheus-text.js';
import { CONTRACT_CASES } from '../support/paths.js';
import { untilScraped } from '../support/sidecar-metrics.js';
import { runCli } from '../support/run-command.js';

const JOURNAL = join(CONTRACT_CASES, 'world-sequential.journal.jsonl');
const MODEL = join(CONTRACT_CASES, 'model.yaml');

function journalConfig(journal: string, extra = ''): string {
  return `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [${JSON.stringify(MODEL)}]
listen: {metrics: 127.0.0.1:0}
sources:
  journal: {path: ${JSON.stringify(journal)}}
console: {enabled: false}
${extra}`;
}

async function get(sidecar: Sidecar, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${sidecar.metricsAddress.port}${path}`);
  return { status: res.status, body: await res.text() };
}

describe('reconcile-shadow run (the sidecar)', function () {
  // sidecars with real listeners, and run as a process
  this.timeout(30_000);
  let sidecar: Sidecar | undefined;
  afterEach(async () => {
    await sidecar?.stop();
    sidecar = undefined;
  });

  it('serves counters equal to analyze --format json for the same journal', async () => {
    sidecar = await startSidecar(parseConfig(journalConfig(JOURNAL), 'shadow.yaml'), { env: {} });
    await (sidecar.sources[0] as JournalSource).done;
    const samples = parsePrometheusText((await get(sidecar, '/metrics')).body);
    const offline = JSON.parse((await runCli(['analyze', '--model', MODEL, '--journal', JOURNAL, '--format', 'json'])).stdout) as Summary;
    const c = offline.controllers[0]!;
    assert.equal(valueOf(samples, 'reconcile_shadow_records_received_total', { source: 'journal' }), 1071);
    assert.equal(valueOf(samples, 'reconcile_shadow_attempts_total'), c.attempts.total);
    assert.equal(valueOf(samples, 'reconcile_shadow_attempts_total', { diverged: 'true' }), c.attempts.diverged);
    for (const op of c.operations) {
      for (const outcome of ['ok', 'error', 'stop', 'skip'] as const) {
        assert.equal(
          valueOf(samples, 'reconcile_shadow_operation_observed_total', { operation: op.name, outcome }),
          op.outcomes[outcome],
          `${op.name} ${outcome}`,
        );
      }
      assert.equal(valueOf(samples, 'reconcile_shadow_operation_unblocked_total', { operation: op.name }), op.unblocked, `${op.name} unblocked`);
      assert.equal(valueOf(samples, 'reconcile_shadow_operation_newly_blocked_total', { operation: op.name }), op.newlyBlocked, `${op.name} newly blocked`);
    }
    for (const b of c.blockedBy) assert.equal(valueOf(samples, 'reconcile_shadow_blocked_by_total', { blocker: b.blocker, blocked: b.blocked }), b.count);
    assert.equal(
      valueOf(samples, 'reconcile_shadow_blocked_by_total'),
      c.blockedBy.reduce((n, b) => n + b.count, 0),
    );
    assert.deepEqual(JSON.parse((await get(sidecar, '/summary')).body), offline);
  });

  it('its /metrics passes promtool check metrics', async function () {
    if (spawnSync('promtool', ['--version']).error) throw new Error('promtool is not installed: .ci/run installs Debian prometheus');
    sidecar = await startSidecar(parseConfig(journalConfig(JOURNAL), 'shadow.yaml'), { env: {} });
    await (sidecar.sources[0] as JournalSource).done;
    const body = (await get(sidecar, '/metrics')).body;
    assert.equal(execFileSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' }), '');
  });

  it('answers /healthz, /readyz and 404 for anything else', async () => {
    sidecar = await startSidecar(parseConfig(journalConfig(JOURNAL), 'shadow.yaml'), { env: {} });
    assert.deepEqual(await get(sidecar, '/healthz'), { status: 200, body: 'ok\n' });
    assert.deepEqual(await get(sidecar, '/readyz'), { status: 200, body: 'ready\nsource journal: up\n' });
    assert.equal((await get(sidecar, '/nope')).status, 404);
  });

  it('stops on SIGTERM: finishes, exits 0 within the shutdown timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shadow-'));
    writeFileSync(join(dir, 'shadow.yaml'), journalConfig(JOURNAL));
    let signal!: (s: string) => void;
    const stopSignal = new Promise<string>((resolve) => (signal = resolve));
    const stderr = new PassThrough();
    let log = '';
    stderr.on('data', (c: Buffer) => {
      log += c.toString();
      if (log.includes('source: journal')) signal('SIGTERM');
    });
    const started = Date.now();
    const code = await runCommand(
      ['--config', join(dir, 'shadow.yaml')],
      { stdout: new PassThrough(), stderr, stdin: new PassThrough() },
      { stopSignal, env: {} },
    );
    assert.equal(code, 0);
    assert.ok(Date.now() - started < 5000);
    const last = /reconcile-shadow: SIGTERM, stopping\nreconcile-shadow: stopped: (\{.*\})\n$/.exec(log);
    assert.ok(last, log);
    // Stopped part-way through the journal: whatever was read was analyzed or rejected, nothing in between.
    const account = JSON.parse(last[1]!) as { received: { journal?: number }; rejectedByReason: Record<string, number>; attempts: number };
    assert.deepEqual(account.rejectedByReason, {});
    assert.equal(account.received.journal ?? 0, account.attempts);
  });

  it('refuses a bad config naming line and field, and starts nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shadow-'));
    writeFileSync(
      join(dir, 'shadow.yaml'),
      journalConfig(JOURNAL).replace('sources:\n  journal:', 'sources:\n  jurnal:').replace('console: {enabled: false}', 'console: {enabled: maybe}'),
    );
    const r = await runCli(['run', '--config', join(dir, 'shadow.yaml')]);
    assert.equal(r.code, 3);
    assert.equal(
      r.stderr,
      `invalid config:\n${join(dir, 'shadow.yaml')}:6 sources.jurnal: unknown field (allowed: journal, simulator, otlp, logs, status, peers)\n${join(dir, 'shadow.yaml')}:7 console.enabled: must be true or false, got "maybe"\n`,
    );
  });

  it('exits 1 naming the source that failed to start', async () => {
    const r = await runCli(['run', '--config', join(CONTRACT_CASES, 'missing.yaml')]);
    assert.equal(r.code, 3);
    const dir = mkdtempSync(join(tmpdir(), 'shadow-'));
    writeFileSync(join(dir, 'shadow.yaml'), journalConfig('/nonexistent/journal.jsonl'));
    const failed = await runCli(['run', '--config', join(dir, 'shadow.yaml')]);
    assert.equal(failed.code, 1);
    assert.match(
      failed.stderr,
      /^reconcile-shadow: source journal failed to start: ENOENT: no such file or directory, open '\/nonexistent\/journal\.jsonl'\n$/,
    );
  });
});

describe('reconcile-shadow run with the OTLP source', function () {
  // sidecars with real listeners, and run as a process
  this.timeout(30_000);
  it('analyzes attempts a real OTLP exporter sends, and balances received = analyzed + dropped', async () => {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
    const { BatchSpanProcessor, TracerProvider } = await import('@opentelemetry/sdk-trace');
    const { emitAttempt } = await import('../../collector/otlp/internal/emit.js');
    const { parseAttemptLine } = await import('../../collector/journal/format.js');
    const { readFileSync } = await import('node:fs');
    const config = journalConfig(JOURNAL).replace(/ {2}journal: .*\n/, '  otlp: {listen: 127.0.0.1:0}\n');
    const sidecar = await startSidecar(parseConfig(config, 'shadow.yaml'), { env: {} });
    try {
      const receiver = sidecar.sources.find((s) => s.kind === 'otlp') as unknown as { address(): { port: number } };
      const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${receiver.address().port}/v1/traces` });
      const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
      const lines = readFileSync(join(CONTRACT_CASES, 'pull-secret-missing.journal.jsonl'), 'utf8').trim().split('\n');
      let spans = 0;
      for (const [i, line] of lines.entries()) {
        const parsed = parseAttemptLine(line, i + 1, { file: 'j' });
        assert.ok(parsed.ok);
        emitAttempt(provider.getTracer('operator'), parsed.record);
        spans += 1 + parsed.record.operations.length;
      }
      await provider.forceFlush();
      const samples = await untilScraped('two attempts analysed', sidecar, (s) => valueOf(s, 'reconcile_shadow_attempts_total') >= 2, { timeoutMs: 10_000 });
      assert.equal(valueOf(samples, 'reconcile_shadow_attempts_total', { diverged: 'true' }), 2);
      assert.equal(valueOf(samples, 'reconcile_shadow_records_received_total', { source: 'otlp' }), spans);
      assert.equal(valueOf(samples, 'reconcile_shadow_records_dropped_total'), 0);
      assert.equal(valueOf(samples, 'reconcile_shadow_blocked_by_total', { blocker: 'PullSecretSync' }), 6);
      await provider.shutdown();
    } finally {
      await sidecar.stop();
    }
  });
});

describe('reconcile-shadow run trace export', function () {
  // sidecars with real listeners, and run as a process
  this.timeout(30_000);
  it('a trace endpoint that refuses the spans: counted once under internal_errors_total{kind="trace_export"}, logged once, analysis unchanged', async () => {
    const { createServer } = await import('node:http');
    // A collector that answers 400 Bad Request: a failure the exporter does not retry.
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{}')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const logs: string[] = [];
    const sidecar = await startSidecar(parseConfig(journalConfig(join(CONTRACT_CASES, 'pull-secret-missing.journal.jsonl')), 'shadow.yaml'), {
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      log: (line) => logs.push(line),
    });
    await (sidecar.sources[0] as JournalSource).done;
    // Stopping flushes the spans: the export fails.
    await sidecar.stop();
    await new Promise<void>((r) => server.close(() => r()));
    const samples = parsePrometheusText(await sidecar.metrics.registry.metrics());
    assert.equal(valueOf(samples, 'reconcile_shadow_internal_errors_total', { kind: 'trace_export' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_attempts_total'), 2);
    assert.deepEqual(logs, [
      'reconcile-shadow: trace_export failure (further trace_export failures are only counted in reconcile_shadow_internal_errors_total): span export failed',
    ]);
  });

  it('exports one shadow.attempt span per attempt to the endpoint the OTEL_* variables name, flushed at stop', async () => {
    const { createServer } = await import('node:http');
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const journal = join(CONTRACT_CASES, 'pull-secret-missing.journal.jsonl');
      const sidecar = await startSidecar(parseConfig(journalConfig(journal), 'shadow.yaml'), {
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      });
      await (sidecar.sources[0] as JournalSource).done;
      await sidecar.stop();
      const spans = bodies.flatMap((b) =>
        (
          JSON.parse(b) as { resourceSpans: { scopeSpans: { spans: { name: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] }
        ).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
      );
      const roots = spans.filter((s) => s.name === 'shadow.attempt');
      assert.equal(roots.length, 2);
      assert.deepEqual(roots.map((r) => r.attributes.find((a) => a.key === 'reconcile.observed_loop')?.value.stringValue).sort(), ['phased', 'sequential']);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
