/**
 * Peers' partial summaries: every `interval`, the roster (the static URLs, and the running pods a label selector
 * finds in each namespace, through the Kubernetes API) and then each peer's `GET /partial`, all at once, each within
 * `timeout`. Every body read and every failure is handed to the sink, named by peer: a static peer by its URL, a
 * discovered one as `namespace/pod`. A namespace that cannot be listed keeps the pods it had (named as a discovery
 * failure), so an API hiccup never looks like the fleet shrinking.
 */
import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { SourceHooks } from '../component.js';
import { kubeGetJson } from '../kube/api-get.js';
import { SYSTEM_TIMERS, type Timers } from '../kube/informer.js';
import type { Source } from '../records.js';
import { isRecord } from '../../lib/is-record.js';
import type { PartialSink, PeerFailure } from './sink.js';

export interface PeerDiscovery {
  readonly kubeConfig: KubeConfig;
  readonly namespaces: readonly string[];
  readonly labelSelector: string;
  readonly port: number;
}

export interface PeersOptions {
  readonly urls: readonly string[];
  readonly discovery?: PeerDiscovery;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Sent as `Authorization: Bearer` to every peer (their /partial is guarded as /summary is). */
  readonly token?: string;
  readonly maxBodyBytes: number;
  readonly timers?: Timers;
  readonly hooks: Pick<SourceHooks, 'state' | 'error'>;
}

/** The path every peer serves its partial on. */
export const PARTIAL_PATH = '/partial';

class PeerError extends Error {
  constructor(
    readonly reason: PeerFailure,
    message: string,
  ) {
    super(message);
  }
}

export class PeersSource implements Source {
  readonly kind = 'peers' as const;
  private readonly timers: Timers;
  private timer: unknown;
  private stopped = false;
  private round: Promise<void> | undefined;
  /** The pods last listed per namespace (kept when a list fails). */
  private readonly discovered = new Map<string, readonly { name: string; url: string }[]>();
  /** Connections kept between rounds, closed at stop. */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

  constructor(
    private readonly options: PeersOptions,
    private readonly sink: PartialSink,
  ) {
    this.timers = options.timers ?? SYSTEM_TIMERS;
  }

  /** The first round is awaited, so the fleet has its peers' partials from its first scrape. */
  async start(): Promise<void> {
    await this.poll();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    await this.round;
    this.agent.destroy();
  }

  /** One round: the roster, then every peer read. */
  poll(): Promise<void> {
    this.round = this.readAll();
    return this.round;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.timers.setTimeout(() => {
      void this.poll().then(() => this.schedule());
    }, this.options.intervalMs);
  }

  private async readAll(): Promise<void> {
    const peers = [...this.options.urls.map((url) => ({ name: url, url: partialUrl(url) })), ...(await this.discover())];
    const now = this.timers.now();
    this.sink.roster(
      peers.map((p) => p.name),
      now,
    );
    const results = await Promise.all(
      peers.map(async (p) => {
        try {
          const body = await this.fetch(p.url);
          this.sink.received(p.name, body, this.timers.now());
          return true;
        } catch (e) {
          const error = e instanceof PeerError ? e : new PeerError('connection', (e as Error).message);
          this.sink.failed(p.name, error.reason, `${p.name}: ${error.message}`, this.timers.now());
          this.options.hooks.error(new Error(`peer ${p.name}: ${error.message}`));
          return false;
        }
      }),
    );
    this.options.hooks.state(results.every(Boolean));
  }

  private async discover(): Promise<{ name: string; url: string }[]> {
    const d = this.options.discovery;
    if (!d) return [];
    for (const namespace of d.namespaces) {
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods?labelSelector=${encodeURIComponent(d.labelSelector)}`;
      try {
        const list = await kubeGetJson(d.kubeConfig, path);
        this.discovered.set(
          namespace,
          runningPods(list).map((pod) => ({ name: `${namespace}/${pod.name}`, url: `http://${hostPart(pod.ip)}:${d.port}${PARTIAL_PATH}` })),
        );
      } catch (e) {
        this.sink.failed(
          `namespace ${namespace}`,
          'discovery',
          `listing pods in ${namespace} (${d.labelSelector}): ${(e as Error).message}`,
          this.timers.now(),
        );
        this.options.hooks.error(e);
      }
    }
    return d.namespaces.flatMap((ns) => this.discovered.get(ns) ?? []);
  }

  private fetch(url: string): Promise<string> {
    const { timeoutMs, maxBodyBytes, token } = this.options;
    return new Promise((resolve, reject) => {
      const req = http.get(
        url,
        { agent: this.agent, headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, timeout: timeoutMs },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            res.resume();
            reject(new PeerError(status === 401 || status === 403 ? 'unauthorized' : 'http_status', `GET ${url}: HTTP ${status}`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBodyBytes) {
              req.destroy();
              reject(new PeerError('body_too_large', `GET ${url}: body exceeds ${maxBodyBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', (e) => reject(new PeerError('connection', `GET ${url}: ${e.message}`)));
        },
      );
      req.on('timeout', () => req.destroy(new PeerError('timeout', `GET ${url}: no answer within ${timeoutMs} ms`)));
      req.on('error', (e) => reject(e instanceof PeerError ? e : new PeerError('connection', `GET ${url}: ${e.message}`)));
    });
  }
}

/** A static peer's address: its base URL, or its /partial URL as given. */
function partialUrl(url: string): string {
  const u = new URL(url);
  if (u.pathname === '/' || u.pathname === '') u.pathname = PARTIAL_PATH;
  return u.toString();
}

function hostPart(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}

/** The running pods of a PodList that have an address, by name. */
function runningPods(list: unknown): { name: string; ip: string }[] {
  const items = isRecord(list) && Array.isArray(list.items) ? list.items : [];
  const pods: { name: string; ip: string }[] = [];
  for (const item of items) {
    if (!isRecord(item) || !isRecord(item.metadata) || !isRecord(item.status)) continue;
    const { name } = item.metadata;
    const { phase, podIP } = item.status;
    if (typeof name === 'string' && phase === 'Running' && typeof podIP === 'string' && podIP !== '' && item.metadata.deletionTimestamp === undefined)
      pods.push({ name, ip: podIP });
  }
  return pods.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
