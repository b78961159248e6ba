/**
 * Clients that connect and say little or nothing cannot starve the receiver: with 32 of them holding connections, a
 * real OTel exporter's batch still gets its 200 at once; each kind of slow client is cut within a quarter second of
 * its deadline (not Node's 30 s sweep), answered 408 and counted; connections past the per-address limit are closed.
 * Real time and the real scheduler throughout: the timeouts under test are Node's own and the receiver's timers.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { ExportResultCode } from '@opentelemetry/core';
import { emitAttempt } from '../../../collector/otlp/internal/emit.js';
import { TIMEOUT_CHECK_MS } from '../../../collector/otlp/internal/limits.js';
import { OtlpReceiver, type OtlpReceiverOptions } from '../../../collector/otlp/internal/receiver.js';
import { ALL_SLOW_KINDS, slowClient, type SlowClient, type SlowKind } from '../../reliability/slow-clients.js';
import { CollectingSink, capture, exportSpans, otlpExporter } from './helpers.js';
import { until } from '../../support/until.js';
import { TIMER_SLACK_MS } from '../../reliability/overload-checks.js';

function slowClients(port: number, each: number): SlowClient[] {
  return ALL_SLOW_KINDS.flatMap((kind) => Array.from({ length: each }, () => slowClient(port, kind)));
}

/** A batch as the operator's SDK exports it: three attempts, eight spans. */
function batch(): ReturnType<ReturnType<typeof capture>['spans']> {
  const { provider, spans } = capture();
  const tracer = provider.getTracer('operator');
  for (const [i, ops] of [['A', 'B'], ['A', 'B', 'C'], []].entries()) {
    const time = `2026-11-01T00:00:0${i}Z`;
    emitAttempt(tracer, {
      time,
      timeMs: Date.parse(time),
      controller: 'hostedcluster',
      object: `clusters/hc-${i}`,
      loop: 'phased',
      operations: ops.map((name) => ({ name, outcome: 'ok' as const })),
      origin: { source: 'journal' },
    });
  }
  return spans();
}

describe('otlp/receiver: slow and idle clients cannot starve intake', function () {
  this.timeout(20_000);
  let receiver: OtlpReceiver | undefined;
  let sink: CollectingSink;
  let clients: SlowClient[] = [];

  async function start(options: OtlpReceiverOptions): Promise<number> {
    sink = new CollectingSink();
    receiver = new OtlpReceiver({ port: 0, ...options }, sink);
    await receiver.start();
    return receiver.address().port;
  }

  afterEach(async () => {
    await receiver?.stop();
    for (const c of clients) c.socket.destroy();
    clients = [];
    receiver = undefined;
    strictEqual(sink.receivedCount, sink.accountedFor, 'received = analyzed + dropped');
  });

  for (const encoding of ['protobuf', 'json'] as const) {
    it(`a real ${encoding} exporter's batch gets 200 at once while 32 slow or idle connections are open`, async () => {
      const port = await start({ shutdownGraceMs: 100 });
      clients = slowClients(port, 8);
      // every slow client has connected, and those with complete headers are being read
      await until('32 connections, 16 requests being read', () => receiver!.connections === 32 && receiver!.requestsInFlight === 16);
      const started = performance.now();
      const result = await exportSpans(otlpExporter(encoding, `http://127.0.0.1:${port}/v1/traces`), batch());
      const tookMs = performance.now() - started;
      strictEqual(result.code, ExportResultCode.SUCCESS, String(result.error));
      ok(tookMs < 3_000, `the batch took ${Math.round(tookMs)} ms`);
      await sink.until('three attempts', () => sink.attempts.length === 3);
      deepStrictEqual(sink.receivedCalls, [8]);
      // none was cut meanwhile: the defaults give them seconds
      strictEqual(receiver!.connections, 33);
    });
  }

  it('cuts each kind of slow client within a quarter second of its deadline, answers 408 and counts it', async () => {
    const timeouts = { headersTimeoutMs: 1_000, bodyIdleTimeoutMs: 1_000, bodyTimeoutMs: 2_000 };
    const port = await start(timeouts);
    clients = slowClients(port, 2);
    const outcomes = await Promise.all(clients.map(async (c) => ({ kind: c.kind, ...(await c.closed) })));
    const deadline: Record<SlowKind, number> = {
      idle: timeouts.headersTimeoutMs,
      partialHeaders: timeouts.headersTimeoutMs,
      noBody: timeouts.bodyIdleTimeoutMs,
      trickle: timeouts.bodyTimeoutMs,
    };
    for (const o of outcomes) {
      // Node checks the headers timeout every TIMEOUT_CHECK_MS; a loaded machine gets a little more slack. Node dates
      // the connection by its event loop's clock of the turn, so the cut can come a little before the deadline
      ok(
        o.afterMs >= deadline[o.kind] - TIMER_SLACK_MS && o.afterMs < deadline[o.kind] + TIMEOUT_CHECK_MS + 500,
        `${o.kind}: cut after ${Math.round(o.afterMs)} ms, deadline ${deadline[o.kind]} ms`,
      );
      ok(o.answer.startsWith('HTTP/1.1 408 '), `${o.kind}: answered ${JSON.stringify(o.answer.slice(0, 40))}`);
    }
    await sink.until('eight counted', () => sink.rejections.length === 8);
    deepStrictEqual(sink.reasons().sort(), ['idle_connection', 'idle_connection', ...Array.from({ length: 6 }, () => 'request_timeout')]);
    deepStrictEqual([...new Set(sink.rejections.map((r) => r.message))].sort(), [
      'no byte of the body arrived for 1000 ms',
      'no request within 1000 ms of connecting',
      'the body did not end within 2000 ms of the headers',
      "the request's headers did not arrive within 1000 ms",
    ]);
    deepStrictEqual(
      sink.receivedCalls,
      Array.from({ length: 8 }, () => 1),
    );
  });

  it('over TLS too: a connection that never finishes its handshake, or sends nothing after it, is cut and counted as idle', async () => {
    const pem = (name: string): Buffer => readFileSync(join(import.meta.dirname, 'fixtures', name));
    const port = await start({ headersTimeoutMs: 500, tls: { cert: pem('server.pem'), key: pem('server-key.pem') } });
    const noHandshake = slowClient(port, 'idle');
    const silent = tlsConnect({ port, host: '127.0.0.1', ca: pem('ca.pem'), servername: 'localhost' });
    silent.on('error', () => {});
    let answer = '';
    silent.on('data', (c: Buffer) => (answer += c.toString()));
    await Promise.all([noHandshake.closed, new Promise((resolve) => silent.once('close', resolve))]);
    strictEqual(answer, 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    deepStrictEqual(sink.rejections.map((r) => [r.reason, r.message]).sort(), [
      ['idle_connection', 'no TLS handshake within 500 ms of connecting'],
      ['idle_connection', 'no request within 500 ms of connecting'],
    ]);
  });

  it('closes connections past the per-address limit at once, and counts them; other addresses still connect', async () => {
    const port = await start({ limits: { maxConnectionsPerPeer: 4 } });
    clients = Array.from({ length: 4 }, () => slowClient(port, 'idle'));
    await until('four connections', () => receiver!.connections === 4);
    const fifth = slowClient(port, 'idle');
    const other = slowClient(port, 'idle', '127.0.0.2');
    clients.push(fifth, other);
    const cut = await fifth.closed;
    ok(cut.afterMs < 1_000, `closed after ${Math.round(cut.afterMs)} ms`);
    await until('the other address connected', () => receiver!.connections === 5);
    deepStrictEqual(sink.reasons(), ['connection_limit']);
    strictEqual(sink.rejections[0]!.message, 'connection closed at once: 127.0.0.1 already holds 4 connections (limit 4 per client address)');
  });

  it('answers 400 to bytes that are not HTTP and counts them; a client that gives up mid-headers is not counted', async () => {
    const port = await start({});
    const garbage = slowClient(port, 'idle');
    garbage.socket.write('\x16\x03\x01 not http\r\n\r\n');
    const answer = await garbage.closed;
    ok(answer.answer.startsWith('HTTP/1.1 400 Bad Request\r\n'), answer.answer);
    const gaveUp = slowClient(port, 'partialHeaders');
    await until('connected', () => receiver!.connections === 1);
    gaveUp.socket.end();
    await gaveUp.closed;
    deepStrictEqual(sink.reasons(), ['bad_request']);
    deepStrictEqual(sink.receivedCalls, [1]);
  });
});
