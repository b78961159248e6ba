/**
 * A resilient informer: client-node's list/watch informer (ListWatch, what `makeInformer` builds), kept alive and made
 * exactly-once for the sidecar's Kubernetes sources.
 *
 * What client-node does on its own (its `src/cache.ts`, ListWatch.doneHandler and watchHandler): re-watches from the
 * last RV when a stream ends cleanly, re-lists after a 410 Gone (HTTP or in-stream). What it does not: on a 500, a
 * refused connection or a stream cut mid-event it calls `error` and STOPS. This wrapper then starts a fresh informer
 * after an exponential backoff (injectable timers). A fresh informer always lists first.
 *
 * Exactly-once delivery: the wrapper keeps the last state it delivered per object and compares every (re)list with
 * it, so an object changed or deleted while the watch was down is delivered once as an update or a delete, and an
 * object deleted and recreated under the same name (new uid) as a delete then an add. Informer callbacks that carry
 * nothing new (a relisted object whose content is unchanged, only its resourceVersion moved, e.g. after an API server
 * restart with a new RV history) are not delivered. Several changes to one object while disconnected can only be
 * seen as their net result: list/watch is level-based.
 */
import { ListWatch, Watch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { kubeGetJson } from './api-get.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';

/** An object as the API server sends it (timestamps are strings; nothing is dropped). */
export interface RawKubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_TIMERS: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface InformerOptions {
  readonly kubeConfig: KubeConfig;
  /** The collection path, e.g. `/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly backoff?: Partial<BackoffOptions>;
  readonly timers?: Timers;
}

export interface InformerHandlers {
  add?(obj: RawKubeObject): void;
  update?(obj: RawKubeObject, previous: RawKubeObject): void;
  delete?(obj: RawKubeObject): void;
  /** The connection state changed: up after a successful list, down after a failure or stop. */
  state?(up: boolean): void;
  /** A failure; `retryInMs` is the delay before the restart, absent when a handler threw and nothing restarts. */
  error?(err: Error, retryInMs?: number): void;
  /** A (re)list was compared with the delivered state; `count` objects listed. */
  listed?(count: number): void;
}

/**
 * client-node's Watch, stoppable: ListWatch.stop() aborts only a watch whose response has already arrived, so a
 * watch still connecting when the informer stops would stay open for good. This one aborts such a late watch.
 */
class StoppableWatch extends Watch {
  private stopped = false;
  private current: AbortController | undefined;

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const controller = await super.watch(path, queryParams, callback, done);
    this.current = controller;
    if (this.stopped) controller.abort();
    return controller;
  }

  stop(): void {
    this.stopped = true;
    this.current?.abort();
  }
}

interface Delivered {
  readonly uid: string | undefined;
  readonly fingerprint: string;
  readonly object: RawKubeObject;
}

export interface InformerStats {
  lists: number;
  restarts: number;
  errors: number;
}

export class ResilientInformer {
  readonly stats: InformerStats = { lists: 0, restarts: 0, errors: 0 };
  private readonly delivered = new Map<string, Delivered>();
  private readonly backoff: BackoffOptions;
  private readonly timers: Timers;
  /** Callbacks of any informer but the current session's are stale and ignored. */
  private session = 0;
  private informer: { readonly listWatch: ListWatch<KubernetesObject>; readonly watch: StoppableWatch } | undefined;
  private running = false;
  private up = false;
  private upSinceMs = 0;
  private failures = 0;
  private retryTimer: unknown;
  private readonly synced: Promise<void>;
  private resolveSynced!: () => void;

  constructor(
    private readonly options: InformerOptions,
    private readonly handlers: InformerHandlers,
  ) {
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.timers = options.timers ?? SYSTEM_TIMERS;
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
  }

  /** Starts listing and watching; failures are retried until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.startSession();
  }

  /** Resolves once the first list has been delivered. */
  whenSynced(): Promise<void> {
    return this.synced;
  }

  get isUp(): boolean {
    return this.up;
  }

  /** The objects as last delivered. */
  objects(): RawKubeObject[] {
    return [...this.delivered.values()].map((d) => d.object);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.session++;
    if (this.retryTimer !== undefined) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const informer = this.informer;
    this.informer = undefined;
    // Stopping makes client-node report an aborted request (ECONNRESET); the session bump above makes it stale.
    informer?.watch.stop();
    await informer?.listWatch.stop();
    this.setUp(false);
  }

  private startSession(): void {
    const session = ++this.session;
    const listPath = this.listPath();
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const body = await kubeGetJson(this.options.kubeConfig, listPath);
      const items = listItems(body, listPath);
      if (session === this.session) this.compareList(items);
      return body as KubernetesListObject<KubernetesObject>;
    };
    const watch = new StoppableWatch(this.options.kubeConfig);
    const informer = new ListWatch<KubernetesObject>(this.options.path, watch, list, false, this.options.labelSelector, this.options.fieldSelector);
    const current = (fn: (obj: RawKubeObject) => void) => (obj: KubernetesObject) => {
      if (session === this.session) this.guard(() => fn(obj as RawKubeObject));
    };
    informer.on(
      'add',
      current((o) => this.observe(o)),
    );
    informer.on(
      'update',
      current((o) => this.observe(o)),
    );
    informer.on(
      'delete',
      current((o) => this.observeDelete(o)),
    );
    informer.on('error', (err?: unknown) => this.failed(session, err));
    this.informer = { listWatch: informer, watch };
    informer.start().catch((err: unknown) => this.failed(session, err));
  }

  private listPath(): string {
    const query = new URLSearchParams();
    if (this.options.labelSelector !== undefined) query.set('labelSelector', this.options.labelSelector);
    if (this.options.fieldSelector !== undefined) query.set('fieldSelector', this.options.fieldSelector);
    const q = query.toString();
    return q === '' ? this.options.path : `${this.options.path}?${q}`;
  }

  /** The list is the truth: deliver what changed since the last delivered state, and deletes for what is gone. */
  private compareList(items: RawKubeObject[]): void {
    this.stats.lists++;
    this.setUp(true);
    const listed = new Set<string>();
    this.guard(() => {
      for (const item of items) {
        listed.add(keyOf(item));
        this.observe(item);
      }
      for (const [key, d] of this.delivered) {
        if (listed.has(key)) continue;
        this.delivered.delete(key);
        this.handlers.delete?.(d.object);
      }
    });
    this.handlers.listed?.(items.length);
    this.resolveSynced();
  }

  private observe(obj: RawKubeObject): void {
    const key = keyOf(obj);
    const previous = this.delivered.get(key);
    const next: Delivered = { uid: obj.metadata?.uid, fingerprint: fingerprint(obj), object: obj };
    this.delivered.set(key, next);
    if (!previous) {
      this.handlers.add?.(obj);
    } else if (previous.uid !== next.uid) {
      this.handlers.delete?.(previous.object);
      this.handlers.add?.(obj);
    } else if (previous.fingerprint !== next.fingerprint) {
      this.handlers.update?.(obj, previous.object);
    }
  }

  private observeDelete(obj: RawKubeObject): void {
    const key = keyOf(obj);
    const previous = this.delivered.get(key);
    // Unknown, or a late delete of an earlier incarnation: already accounted for.
    if (!previous || previous.uid !== obj.metadata?.uid) return;
    this.delivered.delete(key);
    this.handlers.delete?.(obj);
  }

  private failed(session: number, err: unknown): void {
    if (session !== this.session || !this.running) return;
    this.session++;
    this.stats.errors++;
    if (this.up && this.timers.now() - this.upSinceMs >= this.backoff.resetAfterMs) this.failures = 0;
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.failures);
    this.failures++;
    this.setUp(false);
    const stale = this.informer;
    this.informer = undefined;
    stale?.watch.stop();
    void stale?.listWatch.stop();
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.running) return;
      this.stats.restarts++;
      this.startSession();
    }, delay);
    this.handlers.error?.(asError(err), delay);
  }

  private setUp(up: boolean): void {
    if (up === this.up) return;
    this.up = up;
    if (up) this.upSinceMs = this.timers.now();
    this.handlers.state?.(up);
  }

  /** A throwing handler must not break client-node's callback loops; it is reported and the informer goes on. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.handlers.error?.(asError(e));
    }
  }
}

function keyOf(obj: RawKubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

function listItems(body: unknown, path: string): RawKubeObject[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) throw new Error(`GET ${path}: not a list (no items array)`);
  return items as RawKubeObject[];
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(typeof err === 'string' ? err : JSON.stringify(err));
}

/**
 * The object's content without what changes when nothing changed: resourceVersion (moves on every write and on an
 * API server restart), managedFields, and apiVersion/kind (absent from list items of built-in types).
 */
function fingerprint(obj: RawKubeObject): string {
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata ?? {};
  return canonicalJson({ ...rest, metadata: meta });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
