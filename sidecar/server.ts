/**
 * The sidecar's HTTP endpoints: /metrics (Prometheus text 0.0.4), /healthz (the process is alive), /readyz (config
 * loaded and every source started; the body lists each source up or down), /report (the same JSON report
 * `analyze --format json` prints). Binds 127.0.0.1 unless the config says otherwise.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Address } from './config-schema.js';

export interface Endpoints {
  metrics(): Promise<{ contentType: string; body: string }>;
  report(): unknown;
  /** Ready once every source started; `detail` lines follow the verdict in the body. */
  readiness(): { ready: boolean; detail: readonly string[] };
}

/** The endpoints whose failure is counted (reconcile_shadow_internal_errors_total{kind}). */
export type FailingEndpoint = 'metrics' | 'report';

export interface HttpServer {
  readonly address: Address;
  close(): Promise<void>;
}

export async function startHttpServer(listen: Address, endpoints: Endpoints, onError: (endpoint: FailingEndpoint, e: unknown) => void): Promise<HttpServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, contentType: string, body: string): void => {
      res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
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
      case '/report':
        try {
          return send(200, 'application/json', JSON.stringify(endpoints.report(), null, 2) + '\n');
        } catch (e) {
          onError('report', e);
          return send(500, 'text/plain', 'report unavailable\n');
        }
      default:
        return send(404, 'text/plain', 'not found: try /metrics, /healthz, /readyz or /report\n');
    }
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: { host: bound.address, port: bound.port },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
