/**
 * Clients that connect and say little or nothing cannot starve the receiver: with 32 of them holding connections, a
 * real OTel exporter's batch still gets its 200 at once; each kind of slow client is cut within a quarter second of
 * its deadline (not Node's 30 s sweep), answered 408 and counted; connections past the per-address limit are closed.
 * Real time and the real scheduler throughout: the timeouts under test are Node's own and the receiver's timers.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert';
import { createConnection, type Socket } from 'node:net';
import { ExportResultCode } from '@opentelemetry/core';
import { emitAttempt } from '../../../collector/otlp/emit.js';
import { TIMEOUT_CHECK_MS } from '../../../collector/otlp/limits.js';
import { OtlpReceiver, type OtlpReceiverOptions } from '../../../collector/otlp/receiver.js';
import { CollectingSink, capture, exportSpans, otlpExporter, pollUntil } from './helpers.js';

/** The ways a client can hold a connection while sending little or nothing. */
const KINDS = {
  /** connects and sends nothing */
  idle: [],
  /** sends part of the request line and headers, then nothing */
  partialHeaders: ['POST /v1/traces HTTP/1.1\r\nHost: x\r\n'],
  /** sends complete headers announcing a body that never comes */
  noBody: ['POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'],
  /** sends complete headers, then the body one byte every 200 ms */
  trickle: ['POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{'],
} as const;
type Kind = keyof typeof KINDS;

interface SlowClient {
  readonly kind: Kind;
  readonly socket: Socket;
  /** What the receiver sent back, and when (ms after connecting) it closed the connection. */
  readonly closed: Promise<{ answer: string; afterMs: number }>;
}

function slowClient(port: number, kind: Kind, localAddress = '127.0.0.1'): SlowClient {
  const started = performance.now();
  const socket = createConnection({ port, host: '127.0.0.1', localAddress });
  let trickle: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    for (const text of KINDS[kind]) socket.write(text);
    if (kind === 'trickle') trickle = setInterval(() => socket.write(' '), 200);
  });
  socket.on('error', () => {}); // a reset is a way of being cut too; `closed` reports it
  const closed = new Promise<{ answer: string; afterMs: number }>((resolve) => {
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.on('close', () => {
      clearInterval(trickle);
      resolve({ answer, afterMs: performance.now() - started });
    });
  });
  return { kind, socket, closed };
}

function slowClients(port: number, each: number): SlowClient[] {
  return (Object.keys(KINDS) as Kind[]).flatMap((kind) => Array.from({ length: each }, () => slowClient(port, kind)));
}

/** A batch as the operator's SDK exports it: three attempts, eight spans. */
function batch(): ReturnType<ReturnType<typeof capture>['spans']> {
  const { provider, spans } = capture();
  const tracer = provider.getTracer('operator');
  for (const [i, ops] of [['A', 'B'], ['A', 'B', 'C'], []].entries()) {
    const time = `2026-11-01T00:00:0${i}Z`;
    emitAttempt(tracer, { time, timeMs: Date.parse(time), controller: 'hostedcluster', object: `clusters/hc-${i}`, model: 'phased', operations: ops.map((name) => ({ name, outcome: 'ok' as const })), origin: { source: 'journal' } });
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
      await pollUntil('32 connections, 16 requests being read', () => receiver!.connections === 32 && receiver!.requestsInFlight === 16);
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
    const deadline: Record<Kind, number> = { idle: timeouts.headersTimeoutMs, partialHeaders: timeouts.headersTimeoutMs, noBody: timeouts.bodyIdleTimeoutMs, trickle: timeouts.bodyTimeoutMs };
    for (const o of outcomes) {
      // Node checks the headers timeout every TIMEOUT_CHECK_MS; a loaded machine gets a little more slack
      ok(o.afterMs >= deadline[o.kind] && o.afterMs < deadline[o.kind] + TIMEOUT_CHECK_MS + 500, `${o.kind}: cut after ${Math.round(o.afterMs)} ms, deadline ${deadline[o.kind]} ms`);
      ok(o.answer.startsWith('HTTP/1.1 408 '), `${o.kind}: answered ${JSON.stringify(o.answer.slice(0, 40))}`);
    }
    await sink.until('eight counted', () => sink.rejections.length === 8);
    deepStrictEqual(sink.reasons().sort(), ['idle_connection', 'idle_connection', ...Array.from({ length: 6 }, () => 'request_timeout')]);
    deepStrictEqual(
      [...new Set(sink.rejections.map((r) => r.message))].sort(),
      [
        'no byte of the body arrived for 1000 ms',
        'no request within 1000 ms of connecting',
        'the body did not end within 2000 ms of the headers',
        "the request's headers did not arrive within 1000 ms",
      ],
    );
    deepStrictEqual(sink.receivedCalls, Array.from({ length: 8 }, () => 1));
  });

  it('closes connections past the per-address limit at once, and counts them; other addresses still connect', async () => {
    const port = await start({ limits: { maxConnectionsPerPeer: 4 } });
    clients = Array.from({ length: 4 }, () => slowClient(port, 'idle'));
    await pollUntil('four connections', () => receiver!.connections === 4);
    const fifth = slowClient(port, 'idle');
    const other = slowClient(port, 'idle', '127.0.0.2');
    clients.push(fifth, other);
    const cut = await fifth.closed;
    ok(cut.afterMs < 1_000, `closed after ${Math.round(cut.afterMs)} ms`);
    await pollUntil('the other address connected', () => receiver!.connections === 5);
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
    await pollUntil('connected', () => receiver!.connections === 1);
    gaveUp.socket.end();
    await gaveUp.closed;
    deepStrictEqual(sink.reasons(), ['bad_request']);
    deepStrictEqual(sink.receivedCalls, [1]);
  });
});
