/**
 * The sidecar's HTTP endpoints: /metrics (Prometheus text 0.0.4), /healthz (the process is alive), /readyz (config
 * loaded and every source started; the body lists each source up or down), open to whoever reaches the listener, as Prometheus and the kubelet need; and
 * /report (the same JSON report `analyze --format json` prints), which names objects and the addresses of clients whose
 * input was refused, so it is served only where it is not public:
 *   - on `listen.report`, a listener of its own, when one is configured (config.ts refuses a non-loopback one without
 *     a token);
 *   - otherwise on the metrics listener, when that is bound to loopback or a token is configured;
 *   - nowhere else: the metrics listener answers 403 and says where it is.
 * With `report.bearerTokenFile`, /report requires `Authorization: Bearer <token>` wherever it is served.
 * Both listeners bind 127.0.0.1 unless the config says otherwise.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerTokenCheck } from '../collector/otlp/bearer.js';
import type { Address } from '../lib/schema.js';

export interface Endpoints {
  metrics(): Promise<{ contentType: string; body: string }>;
  /** Absent: no /report at all. */
  report?(): unknown;
  /** Ready once every source started; `detail` lines follow the verdict in the body. */
  readiness(): { ready: boolean; detail: readonly string[] };
}

/** The endpoints whose failure is counted (reconcile_shadow_internal_errors_total{kind}). */
export type FailingEndpoint = 'metrics' | 'report';

export interface Listeners {
  /** /metrics, /healthz, /readyz; /report too when `report` is not given and this is loopback or a token is set. */
  readonly metrics: Address;
  /** A listener of its own for /report. */
  readonly report?: Address;
  /** When set, /report requires `Authorization: Bearer <reportToken>`. */
  readonly reportToken?: string;
}

export interface HttpServer {
  readonly address: Address;
  /** Where /report is served, or undefined when nowhere. */
  readonly reportAddress: Address | undefined;
  close(): Promise<void>;
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`: addresses only the pod itself can reach. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^::ffff:/, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** How a listener answers /report. */
type ReportAccess = { readonly serve: true; readonly authorized: (authorization: string | undefined) => boolean } | { readonly serve: false; readonly why: string };

export async function startHttpServer(listen: Listeners, endpoints: Endpoints, onError: (endpoint: FailingEndpoint, e: unknown) => void): Promise<HttpServer> {
  const authorized = listen.reportToken === undefined ? () => true : bearerTokenCheck(listen.reportToken);
  const served: ReportAccess = { serve: true, authorized };
  const report = listen.report && endpoints.report ? await listenOn(listen.report, (req, res) => answer(req, res, endpoints, served, false, onError)) : undefined;
  const metricsAccess: ReportAccess = report
    ? { serve: false, why: `/report is served on ${url(boundAddress(report))} (listen.report)` }
    : endpoints.report && (isLoopback(listen.metrics.host) || listen.reportToken !== undefined)
      ? served
      : { serve: false, why: '/report names objects and client addresses: it is served on a loopback address, or with report.bearerTokenFile' };
  let metrics: Server;
  try {
    metrics = await listenOn(listen.metrics, (req, res) => answer(req, res, endpoints, metricsAccess, true, onError));
  } catch (e) {
    if (report) await closeServer(report);
    throw e;
  }
  return {
    address: boundAddress(metrics),
    reportAddress: report ? boundAddress(report) : metricsAccess.serve ? boundAddress(metrics) : undefined,
    close: async () => {
      await Promise.all([closeServer(metrics), ...(report ? [closeServer(report)] : [])]);
    },
  };
}

function answer(req: IncomingMessage, res: ServerResponse, endpoints: Endpoints, reportAccess: ReportAccess, open: boolean, onError: (endpoint: FailingEndpoint, e: unknown) => void): void {
  const path = (req.url ?? '/').split('?')[0];
  const send = (status: number, contentType: string, body: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
    res.end(body);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
  if (path === '/report' && endpoints.report) {
    if (!reportAccess.serve) return send(403, 'text/plain', `forbidden: ${reportAccess.why}\n`);
    if (!reportAccess.authorized(req.headers.authorization)) return send(401, 'text/plain', 'unauthorized: /report needs Authorization: Bearer <token>\n', { 'www-authenticate': 'Bearer' });
    try {
      return send(200, 'application/json', JSON.stringify(endpoints.report(), null, 2) + '\n');
    } catch (e) {
      onError('report', e);
      return send(500, 'text/plain', 'report unavailable\n');
    }
  }
  if (!open) return send(404, 'text/plain', 'not found: this listener serves /report only\n');
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
      return send(404, 'text/plain', `not found: try /metrics, /healthz, /readyz${reportAccess.serve ? ' or /report' : ''}\n`);
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
  return `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}/report`;
}
