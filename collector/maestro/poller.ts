/**
 * An adapter's ManifestWorks, read from the Maestro server's REST API as the adapter's Maestro client reads them
 * (hyperfleet-adapter internal/maestroclient ListManifestWorks and GetManifestWork, through maestro's grpcsource
 * RESTFulAPIWatcherStore List and Get, pkg/client/cloudevents/grpcsource):
 *   GET /api/maestro/v1/resource-bundles?page=N&size=400&search=source='<source id>'[ and (consumer_name='…' or …)]
 * page after page until a page has fewer items than asked for (grpcsource PageList, MaxListPageSize 400), and
 *   GET /api/maestro/v1/resource-bundles/{id}   (404: the work is gone)
 * Each bundle becomes its ManifestWork (collector/objects/manifestwork.ts) and is handed on as an object
 * observation: ADDED when first seen, MODIFIED when its version, status or deletion changed, DELETED once it is gone.
 * Deletion is Maestro's, asynchronous: a delete request marks the bundle (`deleted_at`, handed on as the work's
 * deletion request) and it stays listed until the work agent has deleted its manifests; a bundle missing from a
 * whole list is fetched by id (a bounded number per poll) and only a 404 makes it DELETED, so a list that shifted
 * while it was paged never looks like a deletion. A list longer than `maxPages` pages is cut there (truncated, and
 * no deletions are inferred from it). Failures keep the last state, mark the source down and back off, as the
 * HyperFleet API poller does, under the same bounded reasons (collector/hyperfleet/http.ts).
 */
import type { SourceHooks } from '../component.js';
import type { Source } from '../records.js';
import { SYSTEM_TIMERS, type Timers } from '../kube/informer.js';
import { PollLoop } from '../hyperfleet/poll-loop.js';
import { JsonClient, PollError, type PollFailure } from '../hyperfleet/http.js';
import type { FileToken } from '../hyperfleet/token.js';
import { managedObjectOfBundle } from '../objects/manifestwork.js';
import { ObservationProblem, type ManagedObject, type ObjectEvent, type ObservationSink } from '../objects/observation.js';
import { isRecord } from '../../lib/is-record.js';

const PREFIX = '/api/maestro/v1/resource-bundles';
/** grpcsource PageList's page size (MaxListPageSize). */
export const MAESTRO_PAGE_SIZE = 400;

export interface MaestroPollerOptions {
  /** The Maestro HTTP API, e.g. `http://maestro.maestro.svc:8000` (the adapter config's http_server_address). */
  readonly baseUrl: string;
  /** The adapter's CloudEvents source id (its config's maestro.source_id): whose works are read. */
  readonly sourceId: string;
  /** Only these consumers (target clusters); default every consumer. */
  readonly consumers?: readonly string[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly token?: FileToken;
  readonly pageSize?: number;
  /** Pages read per poll at most; a longer list is cut (truncated). Default 50. */
  readonly maxPages?: number;
  /** Bundles missing from a list looked up by id per poll. Default 20. */
  readonly maxLookupsPerPoll?: number;
  readonly maxBodyBytes?: number;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly timers?: Timers;
  readonly hooks?: Pick<SourceHooks, 'state' | 'error'>;
}

export interface MaestroPollerHealth {
  readonly up: boolean;
  readonly consecutiveFailures: number;
  readonly lastFailure?: { readonly reason: PollFailure; readonly message: string };
  /** The last list was cut at maxPages. */
  readonly truncated: boolean;
}

interface Known {
  readonly object: ManagedObject;
  readonly fingerprint: string;
}

/** A value in the search, quoted as grpcsource quotes it (no escaping: the config refuses a `'` in source ids and consumers). */
function quoted(v: string): string {
  return `'${v}'`;
}

export class MaestroPoller implements Source {
  readonly kind = 'maestro' as const;
  private readonly timers: Timers;
  private readonly http: JsonClient;
  private readonly known = new Map<string, Known>();
  private readonly loop: PollLoop;
  private state: MaestroPollerHealth = { up: false, consecutiveFailures: 0, truncated: false };

  constructor(
    private readonly options: MaestroPollerOptions,
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
    this.http = new JsonClient({
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      ...(options.token ? { token: options.token } : {}),
      ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    });
  }

  get health(): MaestroPollerHealth {
    return this.state;
  }

  get up(): boolean {
    return this.state.up;
  }

  get truncated(): boolean {
    return this.state.truncated;
  }

  /** The search the list sends, as grpcsource builds it (RESTFulAPIWatcherStore.List, ToSyncSearch). */
  get search(): string {
    const source = `source=${quoted(this.options.sourceId)}`;
    const consumers = this.options.consumers ?? [];
    if (consumers.length === 0) return source;
    if (consumers.length === 1) return `${source} and consumer_name=${quoted(consumers[0]!)}`;
    return `${source} and (${consumers.map((c) => `consumer_name=${quoted(c)}`).join(' or ')})`;
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  pollOnce(): Promise<void> {
    return this.loop.pollOnce();
  }

  private async poll(): Promise<void> {
    let listed: { bundles: Map<string, ManagedObject>; truncated: boolean };
    try {
      listed = await this.list();
    } catch (e) {
      if (!(e instanceof PollError)) throw e;
      this.setHealth({
        up: false,
        consecutiveFailures: this.state.consecutiveFailures + 1,
        lastFailure: { reason: e.reason, message: e.message },
        truncated: this.state.truncated,
      });
      return;
    }
    const now = this.timers.now();
    for (const [id, object] of listed.bundles) this.handOn(id, object, now);
    if (!listed.truncated) await this.lookUpMissing(listed.bundles, now);
    this.setHealth({ up: true, consecutiveFailures: 0, truncated: listed.truncated });
  }

  private async list(): Promise<{ bundles: Map<string, ManagedObject>; truncated: boolean }> {
    const size = this.options.pageSize ?? MAESTRO_PAGE_SIZE;
    const maxPages = this.options.maxPages ?? 50;
    const bundles = new Map<string, ManagedObject>();
    for (let page = 1; page <= maxPages; page++) {
      const path = `${PREFIX}?page=${page}&size=${size}&search=${encodeURIComponent(this.search)}`;
      const list = (await this.http.get(path)).value;
      if (!isRecord(list) || !Array.isArray(list.items) || typeof list.size !== 'number')
        throw new PollError('malformed_body', `GET ${path}: not a list ({kind, page, size, total, items})`);
      list.items.forEach((item: unknown, i) => {
        const object = this.validate(item, `GET ${path} items[${i}]`);
        if (object && isRecord(item) && typeof item.id === 'string') bundles.set(item.id, object);
      });
      if (list.size < size) return { bundles, truncated: false };
    }
    return { bundles, truncated: true };
  }

  private async lookUpMissing(listed: ReadonlyMap<string, ManagedObject>, now: number): Promise<void> {
    let lookups = this.options.maxLookupsPerPoll ?? 20;
    for (const [id, k] of [...this.known]) {
      if (listed.has(id)) continue;
      if (lookups-- <= 0) return;
      const path = `${PREFIX}/${encodeURIComponent(id)}`;
      let body;
      try {
        body = await this.http.get(path, true);
      } catch (e) {
        if (e instanceof PollError) continue;
        throw e;
      }
      if (body.status === 404) {
        this.known.delete(id);
        this.emit('DELETED', k.object, now);
        continue;
      }
      const object = this.validate(body.value, `GET ${path}`);
      if (object) this.handOn(id, object, now);
    }
  }

  private validate(value: unknown, where: string): ManagedObject | undefined {
    try {
      return managedObjectOfBundle(value);
    } catch (e) {
      if (!(e instanceof ObservationProblem)) throw e;
      this.sink.reject({ source: 'maestro', reason: e.reason, where, message: e.message });
      return undefined;
    }
  }

  private handOn(id: string, object: ManagedObject, now: number): void {
    const fingerprint = JSON.stringify([object.raw.metadata, object.deletionTimestampMs ?? null, object.raw.status ?? null]);
    const known = this.known.get(id);
    if (known?.fingerprint === fingerprint) return;
    this.known.set(id, { object, fingerprint });
    this.emit(known ? 'MODIFIED' : 'ADDED', object, now);
  }

  private emit(event: ObjectEvent, object: ManagedObject, now: number): void {
    this.sink.observe({ type: 'object', time: new Date(now).toISOString(), timeMs: now, event, object, source: 'maestro' });
  }

  private setHealth(h: MaestroPollerHealth): void {
    this.state = h;
    this.options.hooks?.state(h.up);
    if (!h.up && h.lastFailure) this.options.hooks?.error(new Error(`${h.lastFailure.reason}: ${h.lastFailure.message}`), h.lastFailure.reason);
  }
}
