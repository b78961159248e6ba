/**
 * HyperFleet API resources (clusters, nodepools, and any entity kind the API's registry declares), polled as the API
 * pages (hyperfleet-api pkg/handlers/list_params.go, parseListParams; pkg/services/generic.go, loadList):
 *   GET /api/hyperfleet/v1/{plural}?page=N&size=S&order=created_time asc,id asc
 *   → {"items":[...],"page":N,"size":<items on this page>,"total":<all>}
 * `size` is 1..100 (the API refuses more with a 400; it ignores `pageSize`), default 20; oldest first, so resources
 * created during a read land on later pages. Pages are read until the items read reach `total` or a page is empty,
 * as hyperfleet-sentinel's fetchPaginated (internal/client/client.go) does, but at most `maxPagesPerPoll` per
 * collection in one poll: the rest of the list is read by the next polls, continuing at the next page. While a list
 * takes more than one poll the source is `truncated` (reconcile_shadow_source_truncated, and a log line when it
 * starts and ends): every resource is still read, once per pass over the list, which then spans several polls.
 * A poll hands on nothing unless every collection's pages of that poll were read; only resources whose generation,
 * deleted_time or conditions changed are handed on. Soft-deleted resources leave the list, so a resource missing
 * from a whole pass is fetched by id (a bounded number per poll): 200 hands on its state with deleted_time, 404
 * reports it gone. A failure (timeout, connection, 5xx, 401, other 4xx, an unreadable token file, a malformed or
 * oversized body) keeps the last good state, marks it stale and retries with exponential backoff; the next success
 * clears it. The token file is read again at most every 30 s, and at once after a 401 (token.ts).
 */
import type { SourceHooks } from '../component.js';
import type { Source } from '../records.js';
import { SYSTEM_TIMERS, type Timers } from '../kube/informer.js';
import { PollLoop } from './poll-loop.js';
import { ObservationProblem, toHyperFleetResource, type HyperFleetResource, type ObservationSink } from '../objects/observation.js';
import { isRecord } from '../../lib/is-record.js';
import { JsonClient, PollError, type PollFailure } from './http.js';
import type { FileToken } from './token.js';

export { POLL_FAILURES, type PollFailure } from './http.js';

/** The API's default entity kinds (hyperfleet-api charts/values.yaml `entities`), by their plural. */
export const HYPERFLEET_KINDS: Readonly<Record<string, string>> = {
  clusters: 'Cluster',
  nodepools: 'NodePool',
  channels: 'Channel',
  versions: 'Version',
  wifconfigs: 'WifConfig',
};

/** A collection is an entity kind's plural, its URL path segment (pkg/registry EntityDescriptor.Plural). */
export type HyperFleetCollection = string;

/** The API's largest page (list_params.go, listParams.Size `max=100`). */
export const MAX_PAGE_SIZE = 100;
/** How the API orders a list here: oldest first, ties by id, so pages stay put while resources are added. */
export const LIST_ORDER = 'created_time asc,id asc';

export interface PollerOptions {
  /** e.g. `http://hyperfleet-api:8000` (the `/api/hyperfleet/v1` prefix is added). */
  readonly baseUrl: string;
  readonly collections: readonly HyperFleetCollection[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** A bearer token, read from its file as it rotates. */
  readonly token?: FileToken;
  /** 1..100 (MAX_PAGE_SIZE); default 100. */
  readonly pageSize?: number;
  /** Pages of one collection read per poll; the rest of its list is read by the next polls. Default 10. */
  readonly maxPagesPerPoll?: number;
  /** Vanished resources looked up by id per poll; the rest wait for the next pass. */
  readonly maxLookupsPerPoll?: number;
  readonly maxBodyBytes?: number;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly timers?: Timers;
  /** The sidecar's health hooks: up after each poll that succeeded, down (and the failure) after each that failed. */
  readonly hooks?: Pick<SourceHooks, 'state' | 'error' | 'info'>;
}

export interface PollerHealth {
  /** The last poll succeeded. */
  readonly up: boolean;
  /** The state handed on is older than the last poll attempt. */
  readonly stale: boolean;
  readonly consecutiveFailures: number;
  readonly lastFailure?: { readonly reason: PollFailure; readonly message: string };
  readonly lastSuccessMs?: number;
  /** Some collection's list takes more than one poll to read (its latest pass, or the one under way). */
  readonly truncated: boolean;
}

/** Where a pass over one collection's list stands. */
interface Pass {
  /** The next page to read. */
  readonly page: number;
  /** Polls this pass has read pages in. */
  readonly polls: number;
  /** Ids read in this pass. */
  readonly ids: ReadonlySet<string>;
}

/** One poll's read of a collection, applied only when the whole poll succeeded. */
interface Read {
  readonly collection: HyperFleetCollection;
  readonly items: HyperFleetResource[];
  readonly pass: Pass;
  /** The pass reached the end of the list in this poll. */
  readonly complete: boolean;
  readonly total: number;
}

const PREFIX = '/api/hyperfleet/v1';
const NEW_PASS: Pass = { page: 1, polls: 0, ids: new Set() };

interface Known {
  readonly collection: HyperFleetCollection;
  readonly kind: string;
  readonly fingerprint: string;
}

export class HyperFleetPoller implements Source {
  readonly kind = 'hyperfleet' as const;
  private readonly timers: Timers;
  private readonly http: JsonClient;
  private readonly known = new Map<string, Known>();
  private readonly passes = new Map<HyperFleetCollection, Pass>();
  /** Per collection: its latest pass, or the one under way, took more than one poll. */
  private readonly spansPolls = new Map<HyperFleetCollection, boolean>();
  private readonly loop: PollLoop;
  private state: PollerHealth = { up: false, stale: true, consecutiveFailures: 0, truncated: false };

  constructor(
    private readonly options: PollerOptions,
    private readonly sink: ObservationSink,
  ) {
    this.timers = options.timers ?? SYSTEM_TIMERS;
    this.loop = new PollLoop(
      () => this.poll(),
      () => this.state.consecutiveFailures,
      options.intervalMs,
      this.timers,
      options.backoff,
    );
    const size = options.pageSize ?? MAX_PAGE_SIZE;
    if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw new RangeError(`pageSize ${size}: the API takes 1..${MAX_PAGE_SIZE}`);
    this.http = new JsonClient({
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      ...(options.token ? { token: options.token } : {}),
      ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    });
  }

  get health(): PollerHealth {
    return this.state;
  }

  get up(): boolean {
    return this.state.up;
  }

  get truncated(): boolean {
    return this.state.truncated;
  }

  /** Polls once now, then on the interval (or the backoff after a failure). Never fails: see health. */
  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One poll: up to maxPagesPerPoll pages of every collection, then lookups of the vanished. */
  pollOnce(): Promise<void> {
    return this.loop.pollOnce();
  }

  private async poll(): Promise<void> {
    const reads: Read[] = [];
    try {
      for (const collection of this.options.collections) reads.push(await this.read(collection));
    } catch (e) {
      if (!(e instanceof PollError)) throw e;
      this.setHealth({
        up: false,
        stale: true,
        consecutiveFailures: this.state.consecutiveFailures + 1,
        lastFailure: { reason: e.reason, message: e.message },
        truncated: this.state.truncated,
      });
      return;
    }
    const now = this.timers.now();
    const passed = new Set<string>();
    for (const r of reads) {
      for (const item of r.items) this.handOn(r.collection, item, now);
      const spans = r.pass.polls > 1 || !r.complete;
      if (spans !== (this.spansPolls.get(r.collection) ?? false)) this.options.hooks?.info(this.truncationLine(r, spans));
      this.spansPolls.set(r.collection, spans);
      if (r.complete) {
        for (const id of r.pass.ids) passed.add(keyOf(r.collection, id));
        this.passes.set(r.collection, NEW_PASS);
      } else this.passes.set(r.collection, r.pass);
    }
    const whole = new Set(reads.filter((r) => r.complete).map((r) => r.collection));
    await this.lookUpVanished(whole, passed, now);
    this.setHealth({ up: true, stale: false, consecutiveFailures: 0, lastSuccessMs: now, truncated: [...this.spansPolls.values()].some(Boolean) });
  }

  private truncationLine(r: Read, spans: boolean): string {
    const size = this.options.pageSize ?? MAX_PAGE_SIZE;
    const perPoll = (this.options.maxPagesPerPoll ?? 10) * size;
    return spans
      ? `${r.collection}: ${r.total} resources, more than one poll reads (${this.options.maxPagesPerPoll ?? 10} pages of ${size}): the list is read over several polls, each resource once per pass (truncated)`
      : `${r.collection}: ${r.total} resources, read whole in one poll again (up to ${perPoll} per poll)`;
  }

  /** This poll's pages of a collection, continuing the pass under way. */
  private async read(collection: HyperFleetCollection): Promise<Read> {
    const size = this.options.pageSize ?? MAX_PAGE_SIZE;
    const maxPages = this.options.maxPagesPerPoll ?? 10;
    const start = this.passes.get(collection) ?? NEW_PASS;
    const ids = new Set(start.ids);
    const items: HyperFleetResource[] = [];
    let page = start.page;
    let total = 0;
    for (let n = 0; n < maxPages; n++, page++) {
      const path = `${PREFIX}/${collection}?page=${page}&size=${size}&order=${encodeURIComponent(LIST_ORDER)}`;
      const list = (await this.http.get(path)).value;
      if (!isRecord(list) || !Array.isArray(list.items) || !isCount(list.total) || !isCount(list.size)) {
        throw new PollError('malformed_body', `GET ${path}: not a list ({items, page, size, total})`);
      }
      if (list.size !== list.items.length) throw new PollError('malformed_body', `GET ${path}: size ${list.size} but ${list.items.length} items`);
      total = list.total;
      list.items.forEach((item: unknown, i) => {
        const r = this.validate(item, collection, `GET ${path} items[${i}]`);
        // Pages of a list that changes while it is read may repeat an item.
        if (r && !ids.has(r.id)) {
          ids.add(r.id);
          items.push(r);
        }
      });
      if (list.size === 0 || (page - 1) * size + list.size >= list.total) {
        return { collection, items, pass: { page: page + 1, polls: start.polls + 1, ids }, complete: true, total };
      }
    }
    return { collection, items, pass: { page, polls: start.polls + 1, ids }, complete: false, total };
  }

  /** Known resources of the collections read whole that the pass did not list: fetched by id. */
  private async lookUpVanished(whole: ReadonlySet<string>, passed: ReadonlySet<string>, now: number): Promise<void> {
    let lookups = this.options.maxLookupsPerPoll ?? 20;
    for (const [key, k] of [...this.known]) {
      if (!whole.has(k.collection) || passed.has(key)) continue;
      if (lookups-- <= 0) return;
      const id = key.slice(k.collection.length + 1);
      const path = `${PREFIX}/${k.collection}/${encodeURIComponent(id)}`;
      let body;
      try {
        body = await this.http.get(path, true);
      } catch (e) {
        if (e instanceof PollError) continue;
        throw e;
      }
      if (body.status === 404) {
        this.known.delete(key);
        this.sink.observe({
          type: 'cluster',
          time: new Date(now).toISOString(),
          timeMs: now,
          cluster: { id, kind: k.kind, generation: 0, conditions: [], raw: { id, kind: k.kind } },
          gone: true,
          source: 'hyperfleet',
        });
        continue;
      }
      const r = this.validate(body.value, k.collection, `GET ${path}`);
      if (r) this.handOn(k.collection, r, now);
    }
  }

  private validate(value: unknown, collection: HyperFleetCollection, where: string): HyperFleetResource | undefined {
    try {
      return toHyperFleetResource(value, kindOf(collection));
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
    this.known.set(key, { collection, kind: r.kind, fingerprint });
    this.sink.observe({ type: 'cluster', time: new Date(now).toISOString(), timeMs: now, cluster: r, source: 'hyperfleet' });
  }

  private setHealth(h: PollerHealth): void {
    this.state = h;
    this.options.hooks?.state(h.up);
    if (!h.up && h.lastFailure) this.options.hooks?.error(new Error(`${h.lastFailure.reason}: ${h.lastFailure.message}`), h.lastFailure.reason);
  }
}

/** The kind of a collection's resources when an item does not say: the registry's default, else its plural singular and capitalised. */
export function kindOf(collection: HyperFleetCollection): string {
  const known = HYPERFLEET_KINDS[collection];
  if (known) return known;
  const singular = collection.endsWith('s') ? collection.slice(0, -1) : collection;
  return singular.charAt(0).toUpperCase() + singular.slice(1);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function keyOf(collection: HyperFleetCollection, id: string): string {
  return `${collection}/${id}`;
}
