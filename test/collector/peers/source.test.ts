/**
 * The peers source (collector/peers/source.ts) against real HTTP servers on loopback and an in-test Kubernetes API
 * server: each peer's /partial body handed on as read, with the bearer token; every failure named by peer under its
 * bounded reason (http_status, unauthorized, timeout, body_too_large, connection); discovered pods named
 * namespace/pod, only running ones with an address; a namespace that cannot be listed keeps the pods it had.
 */
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PeersSource, type PeersOptions } from '../../../collector/peers/source.js';
import type { PartialSink, PeerFailure } from '../../../collector/peers/sink.js';
import { FakeKubeApiServer, kubeConfigFor, RESOURCES } from '../../support/fake-kube-apiserver.js';

class RecordingSink implements PartialSink {
  readonly rosters: string[][] = [];
  readonly bodies: [string, string][] = [];
  readonly failures: [string, PeerFailure, string][] = [];
  roster(peers: readonly string[]): void {
    this.rosters.push([...peers]);
  }
  received(peer: string, body: string): void {
    this.bodies.push([peer, body]);
  }
  failed(peer: string, reason: PeerFailure, message: string): void {
    this.failures.push([peer, reason, message]);
  }
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1', port = 0): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}

const portOf = (s: Server): number => (s.address() as AddressInfo).port;
const close = (s: Server): Promise<void> =>
  new Promise((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });

function options(o: Partial<PeersOptions>): PeersOptions {
  const states: boolean[] = [];
  return { urls: [], intervalMs: 60_000, timeoutMs: 1000, maxBodyBytes: 1024, hooks: { state: (up) => states.push(up), error: () => undefined }, ...o };
}

describe('the peers source', () => {
  const servers: Server[] = [];
  let api: FakeKubeApiServer | undefined;
  afterEach(async () => {
    for (const s of servers.splice(0)) await close(s);
    await api?.close();
    api = undefined;
  });

  it('reads each static peer’s /partial with the bearer token and names every failure by its reason', async () => {
    const seen: (string | undefined)[] = [];
    const good = await serve((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      res.end('{"schema":"x"}');
    });
    const refusing = await serve((_req, res) => res.writeHead(401).end());
    const broken = await serve((_req, res) => res.writeHead(503).end());
    const large = await serve((_req, res) => res.end('x'.repeat(4096)));
    const silent = await serve(() => undefined);
    servers.push(good, refusing, broken, large, silent);
    const gone = await serve(() => undefined);
    const gonePort = portOf(gone);
    await close(gone);
    const urls = [good, refusing, broken, large, silent].map((s) => `http://127.0.0.1:${portOf(s)}`);
    const sink = new RecordingSink();
    const source = new PeersSource(options({ urls: [...urls, `http://127.0.0.1:${gonePort}/partial`], token: 'secret', timeoutMs: 300 }), sink);
    await source.poll();
    await source.stop();
    assert.deepEqual(sink.rosters, [[...urls, `http://127.0.0.1:${gonePort}/partial`]]);
    assert.deepEqual(sink.bodies, [[urls[0], '{"schema":"x"}']]);
    assert.deepEqual(seen, ['/partial Bearer secret']);
    // Peers are read at once, so failures come in the order they happen: compared by peer.
    assert.deepEqual(
      sink.failures.map(([peer, reason]) => `${peer} ${reason}`).sort(),
      [
        `${urls[1]} unauthorized`,
        `${urls[2]} http_status`,
        `${urls[3]} body_too_large`,
        `${urls[4]} timeout`,
        `http://127.0.0.1:${gonePort}/partial connection`,
      ].sort(),
    );
    assert.equal(sink.failures.find((f) => f[1] === 'http_status')![2], `${urls[2]}: GET ${urls[2]}/partial: HTTP 503`);
  });

  it('discovers the running pods of a label selector, and keeps them while the namespace cannot be listed', async () => {
    const peer = await serve((_req, res) => res.end('{}'), '127.0.0.1');
    servers.push(peer);
    api = new FakeKubeApiServer();
    await api.start();
    const pod = (name: string, phase: string, podIP?: string, labels = { app: 'operator' }): void => {
      api!.create(RESOURCES.pods, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { namespace: 'hypershift', name, labels },
        status: { phase, ...(podIP ? { podIP } : {}) },
      });
    };
    pod('operator-a', 'Running', '127.0.0.1');
    pod('operator-b', 'Pending');
    pod('other', 'Running', '127.0.0.1', { app: 'other' });
    const sink = new RecordingSink();
    const source = new PeersSource(
      options({ discovery: { kubeConfig: kubeConfigFor(api), namespaces: ['hypershift'], labelSelector: 'app=operator', port: portOf(peer) } }),
      sink,
    );
    await source.poll();
    assert.deepEqual(sink.rosters, [['hypershift/operator-a']]);
    assert.deepEqual(sink.bodies, [['hypershift/operator-a', '{}']]);
    api.failNext(1, 500);
    await source.poll();
    await source.stop();
    assert.deepEqual(sink.rosters[1], ['hypershift/operator-a']);
    assert.deepEqual(
      sink.failures.map(([peer, reason]) => [peer, reason]),
      [['namespace hypershift', 'discovery']],
    );
  });
});
