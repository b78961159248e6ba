/**
 * Cluster (and nodepool) state from the HyperFleet API, polled as its docs describe:
 *   GET /api/hyperfleet/v1/{clusters|nodepools}?page=N&pageSize=S&orderBy=created_time asc
 *   → {"kind":"ClusterList","page","size","total","items":[...]}
 * Pages are read until a short page or `total`; the whole poll succeeds or fails together, so a half-read list never
 * looks like deletions. Only resources whose generation, deleted_time or conditions changed are handed on.
 * Soft-deleted resources leave the list, so a resource that disappears is fetched by id (a bounded number per poll):
 * 200 hands on its state with deleted_time, 404 reports it gone.
 * A failure (timeout, connection, 5xx, 4xx, malformed or oversized body) keeps the last good state, marks it stale
 * and retries with exponential backoff; the next success clears it.
 */
import type { SourceHooks } from '../component.js';
import type { Source } from '../records.js';
import { SYSTEM_TIMERS, type Timers } from '../kube/informer.js';
import { ObservationProblem, toHyperFleetResource, type HyperFleetResource, type ObservationSink } from '../objects/observation.js';
import { isRecord } from '../../lib/is-record.js';

export const HYPERFLEET_COLLECTIONS = { clusters: 'Cluster', nodepools: 'NodePool' } as const;
export type HyperFleetCollection = keyof typeof HYPERFLEET_COLLECTIONS;

export const POLL_FAILURES = ['timeout', 'connection', 'http_5xx', 'http_4xx', 'malformed_body', 'body_too_large'] as const;
export type PollFailure = (typeof POLL_FAILURES)[number];

export interface PollerOptions {
  /** e.g. `http://hyperfleet-api:8000` (the `/api/hyperfleet/v1` prefix is added). */
  readonly baseUrl: string;
  readonly collections: readonly HyperFleetCollection[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly token?: string;
  /** The API allows 1..100. */
  readonly pageSize?: number;
  /** A list longer than pageSize × maxPages is cut there (and said so in health). */
  readonly maxPages?: number;
  /** Vanished resources looked up by id per poll; the rest wait for the next poll. */
  readonly maxLookupsPerPoll?: number;
  readonly maxBodyBytes?: number;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly timers?: Timers;
  /** The sidecar's health hooks: up after each poll that succeeded, down (and the failure) after each that failed. */
  readonly hooks?: Pick<SourceHooks, 'state' | 'error'>;
}

export interface PollerHealth {
  /** The last poll succeeded. */
  readonly up: boolean;
  /** The state handed on is older than the last poll attempt. */
  readonly stale: boolean;
  readonly consecutiveFailures: number;
  readonly lastFailure?: { readonly reason: PollFailure; readonly message: string };
  readonly lastSuccessMs?: number;
  /** The last list was cut at maxPages. */
  readonly truncated: boolean;
}

class PollError extends Error {
  constructor(
    readonly reason: PollFailure,
    message: string,
  ) {
    super(message);
  }
}

const PREFIX = '/api/hyperfleet/v1';

interface Known {
  readonly collection: HyperFleetCollection;
  readonly fingerprint: string;
}

export class HyperFleetPoller implements Source {
  readonly kind = 'hyperfleet' as const;
  private readonly timers: Timers;
  private readonly known = new Map<string, Known>();
  private running = false;
  private timer: unknown;
  private inFlight: Promise<void> | undefined;
  private state: PollerHealth = { up: false, stale: true, consecutiveFailures: 0, truncated: false };

  constructor(
    private readonly options: PollerOptions,
    private readonly sink: ObservationSink,
  ) {
    this.timers = options.timers ?? SYSTEM_TIMERS;
  }

  get health(): PollerHealth {
    return this.state;
  }

  /** Polls once now, then on the interval (or the backoff after a failure). Never fails: see health. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.cycle();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  /** One poll: every page of every collection, then lookups of the vanished. */
  async pollOnce(): Promise<void> {
    const run = this.poll();
    this.inFlight = run;
    await run;
  }

  private async cycle(): Promise<void> {
    await this.pollOnce();
    if (!this.running) return;
    const backoff = this.options.backoff ?? { initialMs: 1000, maxMs: 60_000 };
    const n = this.state.consecutiveFailures;
    const delay = n === 0 ? this.options.intervalMs : Math.min(backoff.maxMs, backoff.initialMs * 2 ** (n - 1));
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.running) void this.cycle();
    }, delay);
  }

  private async poll(): Promise<void> {
    let listed: { collection: HyperFleetCollection; items: HyperFleetResource[]; truncated: boolean }[];
    try {
      listed = [];
      for (const collection of this.options.collections) listed.push({ collection, ...(await this.list(collection)) });
    } catch (e) {
      if (!(e instanceof PollError)) throw e;
      this.setHealth({ up: false, stale: true, consecutiveFailures: this.state.consecutiveFailures + 1, lastFailure: { reason: e.reason, message: e.message }, truncated: this.state.truncated });
      return;
    }
    const now = this.timers.now();
    const seen = new Set<string>();
    for (const { collection, items } of listed) {
      for (const r of items) {
        seen.add(keyOf(collection, r.id));
        this.handOn(collection, r, now);
      }
    }
    await this.lookUpVanished(seen, now);
    this.setHealth({ up: true, stale: false, consecutiveFailures: 0, lastSuccessMs: now, truncated: listed.some((l) => l.truncated) });
  }

  private async list(collection: HyperFleetCollection): Promise<{ items: HyperFleetResource[]; truncated: boolean }> {
    const pageSize = this.options.pageSize ?? 100;
    const maxPages = this.options.maxPages ?? 100;
    const items: HyperFleetResource[] = [];
    const ids = new Set<string>();
    for (let page = 1; page <= maxPages; page++) {
      const path = `${PREFIX}/${collection}?page=${page}&pageSize=${pageSize}&orderBy=${encodeURIComponent('created_time asc')}`;
      const body = await this.get(path);
      const list = body.value;
      if (!isRecord(list) || !Array.isArray(list.items) || typeof list.total !== 'number') {
        throw new PollError('malformed_body', `GET ${path}: not a list ({kind, page, size, total, items})`);
      }
      list.items.forEach((item: unknown, i) => {
        const r = this.validate(item, collection, `GET ${path} items[${i}]`);
        // Pages of a list that changes while it is read may repeat an item.
        if (r && !ids.has(r.id)) {
          ids.add(r.id);
          items.push(r);
        }
      });
      if (list.items.length < pageSize || page * pageSize >= list.total) return { items, truncated: false };
    }
    return { items, truncated: true };
  }

  private async lookUpVanished(seen: ReadonlySet<string>, now: number): Promise<void> {
    let lookups = this.options.maxLookupsPerPoll ?? 20;
    for (const [key, k] of [...this.known]) {
      if (seen.has(key)) continue;
      if (lookups-- <= 0) return;
      const id = key.slice(k.collection.length + 1);
      const path = `${PREFIX}/${k.collection}/${encodeURIComponent(id)}`;
      let body;
      try {
        body = await this.get(path, true);
      } catch (e) {
        if (e instanceof PollError) continue;
        throw e;
      }
      if (body.status === 404) {
        this.known.delete(key);
        const kind = HYPERFLEET_COLLECTIONS[k.collection];
        this.sink.observe({ type: 'cluster', time: new Date(now).toISOString(), timeMs: now, cluster: { id, kind, generation: 0, conditions: [], raw: { id, kind } }, gone: true, source: 'hyperfleet' });
        continue;
      }
      const r = this.validate(body.value, k.collection, `GET ${path}`);
      if (r) this.handOn(k.collection, r, now);
    }
  }

  private validate(value: unknown, collection: HyperFleetCollection, where: string): HyperFleetResource | undefined {
    try {
      return toHyperFleetResource(value, HYPERFLEET_COLLECTIONS[collection]);
    } catch (e) {
      if (!(e instanceof ObservationProblem)) throw e;
      this.sink.reject({ source: 'hyperfleet', reason: e.reason, where, message: e.message });
      return undefined;
    }
  }

  private handOn(collection: HyperFleetCollection, r: HyperFleetResource, now: number): void {
    const key = keyOf(collection, r.id);
    const fingerprint = JSON.stringify([r.generation, r.deletedTimeMs ?? null, r.conditions]);
    if (this.known.get(key)?.fingerprint === fingerprint) return;
    this.known.set(key, { collection, fingerprint });
    this.sink.observe({ type: 'cluster', time: new Date(now).toISOString(), timeMs: now, cluster: r, source: 'hyperfleet' });
  }

  private setHealth(h: PollerHealth): void {
    this.state = h;
    this.options.hooks?.state(h.up);
    if (!h.up && h.lastFailure) this.options.hooks?.error(new Error(`${h.lastFailure.reason}: ${h.lastFailure.message}`));
  }

  /** GET with a timeout and a body cap; `allow404` returns a 404 instead of failing the poll. */
  private async get(path: string, allow404 = false): Promise<{ status: number; value: unknown }> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.options.token) headers.Authorization = `Bearer ${this.options.token}`;
    const url = this.options.baseUrl.replace(/\/+$/, '') + path;
    let res: Response;
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      res = await fetch(url, { headers, signal });
    } catch (e) {
      throw failure(e, path);
    }
    if (allow404 && res.status === 404) {
      await res.body?.cancel();
      return { status: 404, value: undefined };
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new PollError(res.status >= 500 ? 'http_5xx' : 'http_4xx', `GET ${path}: HTTP ${res.status}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.options.maxBodyBytes ?? 16 * 1024 * 1024, path);
    } catch (e) {
      throw e instanceof PollError ? e : failure(e, path);
    }
    try {
      return { status: res.status, value: JSON.parse(text) as unknown };
    } catch (e) {
      throw new PollError('malformed_body', `GET ${path}: body is not JSON: ${(e as Error).message}`);
    }
  }
}

function failure(e: unknown, path: string): PollError {
  const err = e as Error;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return new PollError('timeout', `GET ${path}: no answer in time`);
  return new PollError('connection', `GET ${path}: ${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`);
}

async function readCapped(res: Response, maxBytes: number, path: string): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new PollError('body_too_large', `GET ${path}: body exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function keyOf(collection: HyperFleetCollection, id: string): string {
  return `${collection}/${id}`;
}

