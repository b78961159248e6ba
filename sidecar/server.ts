/**
 * The sidecar's HTTP endpoints: /metrics (Prometheus text 0.0.4), /healthz (the process is alive), /readyz (config
 * loaded and every source started; the body lists each source up or down), open to whoever reaches the listener, as
 * Prometheus and the kubelet need; and the guarded endpoints, /summary (the JSON summary `analyze --format json`
 * prints), /partial (the partial summary of everything analysed) and, with sources.peers, /report (the fleet's
 * decisions), which name objects and the addresses of clients whose input was refused, so they are served only where
 * they are not public:
 *   - on `listen.summary`, a listener of its own, when one is configured (config.ts refuses a non-loopback one without
 *     a token);
 *   - otherwise on the metrics listener, when that is bound to loopback or a token is configured;
 *   - nowhere else: the metrics listener answers 403 and says where they are.
 * With `summary.bearerTokenFile`, they require `Authorization: Bearer <token>` wherever they are served.
 * Both listeners bind 127.0.0.1 unless the config says otherwise.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerTokenCheck } from '../collector/otlp/bearer.js';
import type { Address } from '../lib/schema.js';
import type { GuardedEndpoint } from '../outputs/component.js';

export interface Endpoints {
  metrics(): Promise<{ contentType: string; body: string }>;
  /** The guarded endpoints by path (/summary, /partial, /report); empty: none at all. */
  readonly guarded: ReadonlyMap<string, GuardedEndpoint>;
  /** Ready once every source started; `detail` lines follow the verdict in the body. */
  readiness(): { ready: boolean; detail: readonly string[] };
}

/** The endpoints whose failure is counted (reconcile_shadow_internal_errors_total{kind}). */
export type FailingEndpoint = 'metrics' | 'summary';

export interface Listeners {
  /** /metrics, /healthz, /readyz; the guarded ones too when `guarded` is not given and this is loopback or a token is set. */
  readonly metrics: Address;
  /** A listener of its own for the guarded endpoints (`listen.summary`). */
  readonly guarded?: Address;
  /** When set, the guarded endpoints require `Authorization: Bearer <token>`. */
  readonly token?: string;
}

export interface HttpServer {
  readonly address: Address;
  /** Where the guarded endpoints are served, or undefined when nowhere. */
  readonly guardedAddress: Address | undefined;
  close(): Promise<void>;
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`: addresses only the pod itself can reach. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^::ffff:/, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** How a listener answers the guarded endpoints. */
type GuardedAccess =
  { readonly serve: true; readonly authorized: (authorization: string | undefined) => boolean } | { readonly serve: false; readonly why: string };

export async function startHttpServer(listen: Listeners, endpoints: Endpoints, onError: (endpoint: FailingEndpoint, e: unknown) => void): Promise<HttpServer> {
  const authorized = listen.token === undefined ? () => true : bearerTokenCheck(listen.token);
  const served: GuardedAccess = { serve: true, authorized };
  const guarded = endpoints.guarded.size > 0;
  const paths = [...endpoints.guarded.keys()].join(' and ');
  const own = listen.guarded && guarded ? await listenOn(listen.guarded, (req, res) => answer(req, res, endpoints, served, false, onError)) : undefined;
  const metricsAccess: GuardedAccess = own
    ? { serve: false, why: `${paths} ${endpoints.guarded.size > 1 ? 'are' : 'is'} served on ${url(boundAddress(own))} (listen.summary)` }
    : guarded && (isLoopback(listen.metrics.host) || listen.token !== undefined)
      ? served
      : {
          serve: false,
          why: `${paths} name${endpoints.guarded.size > 1 ? '' : 's'} objects and client addresses: served on a loopback address only, or with summary.bearerTokenFile`,
        };
  let metrics: Server;
  try {
    metrics = await listenOn(listen.metrics, (req, res) => answer(req, res, endpoints, metricsAccess, true, onError));
  } catch (e) {
    if (own) await closeServer(own);
    throw e;
  }
  return {
    address: boundAddress(metrics),
    guardedAddress: own ? boundAddress(own) : metricsAccess.serve ? boundAddress(metrics) : undefined,
    close: async () => {
      await Promise.all([closeServer(metrics), ...(own ? [closeServer(own)] : [])]);
    },
  };
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  endpoints: Endpoints,
  access: GuardedAccess,
  open: boolean,
  onError: (endpoint: FailingEndpoint, e: unknown) => void,
): void {
  const path = (req.url ?? '/').split('?')[0];
  const send = (status: number, contentType: string, body: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
    res.end(body);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
  const endpoint = endpoints.guarded.get(path ?? '');
  if (endpoint) {
    if (!access.serve) return send(403, 'text/plain', `forbidden: ${access.why}\n`);
    if (!access.authorized(req.headers.authorization))
      return send(401, 'text/plain', `unauthorized: ${path} needs Authorization: Bearer <token>\n`, { 'www-authenticate': 'Bearer' });
    const failed = (e: unknown): void => {
      onError('summary', e);
      send(500, 'text/plain', `${path} unavailable\n`);
    };
    try {
      const format = new URL(req.url ?? '/', 'http://localhost').searchParams.get('format') ?? undefined;
      Promise.resolve(endpoint({ format })).then((s) => send(200, s.contentType, s.body), failed);
    } catch (e) {
      failed(e);
    }
    return;
  }
  // Only a fleet (sources.peers) has decisions to serve on /report; whoever asks another sidecar is after the summary.
  if (path === '/report') return send(404, 'text/plain', "not found: /report serves a fleet's decisions (sources.peers); the summary is on /summary\n");
  if (!open) return send(404, 'text/plain', `not found: this listener serves ${[...endpoints.guarded.keys()].join(', ')} only\n`);
  switch (path) {
    case '/metrics':
      endpoints.metrics().then(
        (m) => send(200, m.contentType, m.body),
        (e: unknown) => {
          onError('metrics', e);
          send(500, 'text/plain', 'metrics unavailable\n');
        },
      );
      return;
    case '/healthz':
      return send(200, 'text/plain', 'ok\n');
    case '/readyz': {
      const { ready, detail } = endpoints.readiness();
      return send(ready ? 200 : 503, 'text/plain', [ready ? 'ready' : 'starting', ...detail].join('\n') + '\n');
    }
    default:
      return send(404, 'text/plain', `not found: try /metrics, /healthz, /readyz${access.serve ? ` or ${[...endpoints.guarded.keys()].join(', ')}` : ''}\n`);
  }
}

async function listenOn(address: Address, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  // a client that trickles its headers is cut within seconds, not Node's 60 s checked every 30 s
  const server: Server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 }, handler);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

function boundAddress(server: Server): Address {
  const bound = server.address() as AddressInfo;
  return { host: bound.address, port: bound.port };
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function url(address: Address): string {
  return `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}
