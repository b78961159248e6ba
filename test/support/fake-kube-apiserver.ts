/**
 * An in-test Kubernetes API server over plain HTTP that speaks the list/watch protocol the way kube-apiserver does,
 * so the real @kubernetes/client-node clients and informers can be exercised without a cluster.
 *
 * Served (read-only, like the sidecar's RBAC): list, get, watch and pod logs for any resource type that was
 * registered or created, under core (`/api/v1/...`) and grouped (`/apis/{group}/{version}/...`) paths, namespaced or
 * across all namespaces. Writes over HTTP are answered 405 and recorded, so a test can prove a client never wrote.
 *
 * Protocol facts reproduced (each one client-node's informer, ListWatch in its cache.js, reacts to):
 * - one global, monotonically increasing resourceVersion (RV) shared by all resource types, as etcd's revision;
 * - list `metadata.resourceVersion` = the current RV; watch `?watch=true&resourceVersion=N` replays retained events
 *   after N, then streams live ones as newline-delimited `{"type","object"}`; no or `0` RV starts with synthetic ADDEDs;
 * - a bounded event history: a watch from an RV older than the history answers 410 Gone, either as HTTP 410 or as
 *   an in-stream `ERROR` event with a `Status` of code 410 followed by the end of the stream (the default: what a real
 *   API server with a watch cache does);
 * - label selectors (`=`, `==`, `!=`, `in`, `notin`, exists, `!key`) and field selectors on metadata.name/namespace;
 *   an object that stops (starts) matching a watch's selector is sent to it as DELETED (ADDED);
 * - uid, creationTimestamp, generation bumped on spec change, deletionTimestamp + finalizers (delete with finalizers
 *   only marks the object; removing the last finalizer then deletes it with a single DELETED event).
 *
 * The test controls the server through methods, not HTTP: object changes, faults (dropped and cut streams, 5xx,
 * refused connections, a restart with a new RV history, compaction) and synchronisation (waitForWatchers,
 * waitForRequest). Every object transition is appended to `events` with its RV, and every request to `requests`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { Waiters } from './until.js';

// ---------------------------------------------------------------------------------------------------------------
// Types

export interface ResourceType {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface FakeObjectMeta {
  name: string;
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
}

/** A Kubernetes object as JSON. */
export interface FakeObject {
  apiVersion?: string;
  kind?: string;
  metadata: FakeObjectMeta;
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One object transition, as stored and as logged for tests (the server's own record of what happened). */
export interface ServerEvent {
  /** Position in `events`, from 0. */
  readonly seq: number;
  readonly rv: string;
  readonly type: WatchEventType;
  /** `group/version/plural` (`v1/pods` for core). */
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly uid: string;
  /** The object after the transition (for DELETED: its last state, carrying the deletion's RV). */
  readonly object: FakeObject;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorization: string | undefined;
  readonly watch: boolean;
  /** The HTTP status answered (for watches: the status of the response head). */
  status: number;
}

export interface FakeKubeApiServerOptions {
  /** Retained events for watch replay; a watch from before them gets 410 Gone. Default 1000. */
  readonly historyLimit?: number;
  /** How a watch from an expired RV is refused. Default 'event' (HTTP 200 + ERROR event, as kube-apiserver does). */
  readonly expiredWatch?: 'event' | 'http';
  /** Bearer token required on every request. Default 'fake-token'. */
  readonly token?: string;
  /** Clock for creation/deletion timestamps and log timestamps. Default the system clock. */
  readonly now?: () => Date;
}

/** Resource types registered by default; others register on first create or with registerResource(). */
export const RESOURCES = {
  namespaces: { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false },
  pods: { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
  secrets: { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true },
  configMaps: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
  deployments: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
  jobs: { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true },
  hostedClusters: { group: 'hypershift.openshift.io', version: 'v1beta1', plural: 'hostedclusters', kind: 'HostedCluster', namespaced: true },
} as const satisfies Record<string, ResourceType>;

/** The collection path of a type: namespaced when `namespace` is given, else across all namespaces (or cluster-scoped). */
export function resourcePath(type: ResourceType, namespace?: string): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  return namespace !== undefined && type.namespaced ? `${base}/namespaces/${namespace}/${type.plural}` : `${base}/${type.plural}`;
}

/** A client-node KubeConfig for the fake server (client-node refuses plain HTTP without skipTLSVerify). */
export function kubeConfigFor(server: FakeKubeApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'fake-user', token: server.token }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'fake-user' }],
    currentContext: 'fake',
  });
  return kc;
}

// ---------------------------------------------------------------------------------------------------------------
// Selectors

type Requirement = { key: string; op: 'eq' | 'neq' | 'in' | 'notin' | 'exists' | 'notexists'; values: string[] };

class SelectorError extends Error {}

/** Splits on commas outside parentheses: `a in (x,y),b=c` → [`a in (x,y)`, `b=c`]. */
function splitSelector(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseLabelSelector(text: string): Requirement[] {
  return splitSelector(text).map((part) => {
    let m = /^(\S+?)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (m) return { key: m[1]!, op: m[2] === '!=' ? 'neq' : 'eq', values: [m[3]!] };
    m = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part);
    if (m) return { key: m[1]!, op: m[2] as 'in' | 'notin', values: m[3]!.split(',').map((v) => v.trim()) };
    m = /^!\s*(\S+)$/.exec(part);
    if (m) return { key: m[1]!, op: 'notexists', values: [] };
    if (/^[A-Za-z0-9._/-]+$/.test(part)) return { key: part, op: 'exists', values: [] };
    throw new SelectorError(`unable to parse requirement: ${JSON.stringify(part)}`);
  });
}

const FIELD_PATHS: Record<string, (o: FakeObject) => string> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

function parseFieldSelector(text: string): Requirement[] {
  return splitSelector(text).map((part) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw new SelectorError(`invalid field selector: ${JSON.stringify(part)}`);
    if (!(m[1]! in FIELD_PATHS)) throw new SelectorError(`field label not supported: ${m[1]}`);
    return { key: m[1]!, op: m[2] === '!=' ? 'neq' : 'eq', values: [m[3]!] };
  });
}

function satisfies(value: string | undefined, r: Requirement): boolean {
  switch (r.op) {
    case 'eq':
      return value === r.values[0];
    case 'neq':
      return value !== r.values[0];
    case 'in':
      return value !== undefined && r.values.includes(value);
    case 'notin':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return value !== undefined;
    case 'notexists':
      return value === undefined;
  }
}

/** What one list or watch request asks for. */
interface Filter {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly labels: Requirement[];
  readonly fields: Requirement[];
}

function matches(filter: Filter, obj: FakeObject): boolean {
  if (filter.namespace !== undefined && obj.metadata.namespace !== filter.namespace) return false;
  if (!filter.labels.every((r) => satisfies(obj.metadata.labels?.[r.key], r))) return false;
  return filter.fields.every((r) => satisfies(FIELD_PATHS[r.key]!(obj), r));
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const RV_EPOCH = 1_000_000;

function typeKey(type: Pick<ResourceType, 'group' | 'version' | 'plural'>): string {
  return type.group === '' ? `${type.version}/${type.plural}` : `${type.group}/${type.version}/${type.plural}`;
}

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Kubernetes serialises metav1.Time with whole seconds. */
function kubeTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return clone(patch);
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** A parsed request path: a collection, one object, or one object's subresource. */
interface Target {
  readonly group: string;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly plural: string;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

function parsePath(path: string): Target | undefined {
  const seg = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (seg[0] === 'api' && seg.length >= 3) {
    group = '';
    rest = seg.slice(1);
  } else if (seg[0] === 'apis' && seg.length >= 4) {
    group = seg[1]!;
    rest = seg.slice(2);
  } else return undefined;
  const version = rest[0]!;
  const r = rest.slice(1);
  // `namespaces/{ns}/{plural}...` is namespaced; `namespaces` or `namespaces/{name}` is the Namespace type itself.
  if (r[0] === 'namespaces' && r.length >= 3) {
    if (r.length > 5) return undefined;
    return { group, version, namespace: r[1], plural: r[2]!, name: r[3], subresource: r[4] };
  }
  if (r.length > 3) return undefined;
  return { group, version, namespace: undefined, plural: r[0]!, name: r[1], subresource: r[2] };
}

// ---------------------------------------------------------------------------------------------------------------
// Streams

interface HistoryEntry {
  readonly rv: number;
  readonly type: WatchEventType;
  readonly typeKey: string;
  readonly before: FakeObject | undefined;
  readonly after: FakeObject;
}

interface WatchStream {
  readonly path: string;
  readonly filter: Filter;
  readonly res: ServerResponse;
  /** Armed by cutNextEvent(): write only half of the next line, then destroy the connection. */
  cutNext: boolean;
}

interface LogStream {
  readonly logKey: string;
  readonly res: ServerResponse;
  readonly timestamps: boolean;
}

interface LogLine {
  readonly time: Date;
  readonly text: string;
  readonly raw: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// The server

export class FakeKubeApiServer {
  readonly token: string;
  /** Every object transition, in RV order, across restarts. */
  readonly events: ServerEvent[] = [];
  /** Every HTTP request received, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** How a watch from an expired RV is refused; may be changed between requests. */
  expiredWatch: 'event' | 'http';

  private readonly historyLimit: number;
  private readonly now: () => Date;
  private readonly types = new Map<string, ResourceType>();
  private readonly objects = new Map<string, Map<string, FakeObject>>();
  private readonly history: HistoryEntry[] = [];
  private readonly watches = new Set<WatchStream>();
  private readonly logStreams = new Set<LogStream>();
  private readonly logs = new Map<string, LogLine[]>();
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Waiters();
  private readonly server: Server;
  private rv = 1;
  /** A watch from an RV below this one can no longer be served from history. */
  private historyStart = 1;
  private failures: { remaining: number; status: number; match: (r: RecordedRequest) => boolean } | undefined;
  private port = 0;
  private listening = false;

  constructor(options: FakeKubeApiServerOptions = {}) {
    this.historyLimit = options.historyLimit ?? 1000;
    this.expiredWatch = options.expiredWatch ?? 'event';
    this.token = options.token ?? 'fake-token';
    this.now = options.now ?? (() => new Date());
    for (const t of Object.values(RESOURCES)) this.registerResource(t);
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens on 127.0.0.1; port 0 picks a free port, kept across refuseConnections()/acceptConnections(). */
  async start(port = 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.listening = true;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The current resourceVersion (what a list would return now). */
  get resourceVersion(): string {
    return String(this.rv);
  }

  async close(): Promise<void> {
    this.waiters.rejectAll(new Error('fake API server closed'));
    await this.stopListening();
  }

  // ----- resources and objects (test control) -----

  registerResource(type: ResourceType): void {
    const key = typeKey(type);
    if (!this.types.has(key)) {
      this.types.set(key, type);
      this.objects.set(key, new Map());
    }
  }

  get(type: ResourceType, namespace: string | undefined, name: string): FakeObject | undefined {
    const obj = this.store(type).get(objectKey(namespace, name));
    return obj && clone(obj);
  }

  list(type: ResourceType, namespace?: string): FakeObject[] {
    return [...this.store(type).values()].filter((o) => namespace === undefined || o.metadata.namespace === namespace).map(clone);
  }

  /** Creates an object (server-managed metadata assigned here) and emits ADDED. */
  create(type: ResourceType, input: FakeObject): FakeObject {
    this.registerResource(type);
    const { name, namespace } = input.metadata;
    if (type.namespaced !== (namespace !== undefined)) {
      throw new Error(`create ${typeKey(type)} ${objectKey(namespace, name)}: metadata.namespace must be ${type.namespaced ? 'set' : 'absent'}`);
    }
    const key = objectKey(namespace, name);
    if (this.store(type).has(key)) throw new Error(`create ${typeKey(type)} ${key}: already exists`);
    const obj = clone(input);
    obj.apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
    obj.kind = type.kind;
    delete obj.metadata.deletionTimestamp;
    obj.metadata.uid = randomUUID();
    obj.metadata.generation = 1;
    obj.metadata.creationTimestamp = kubeTime(this.now());
    return this.commit(type, 'ADDED', undefined, obj);
  }

  /**
   * Replaces everything the user owns (spec, status, labels, annotations, finalizers, other fields); the
   * server-managed metadata is kept. No change → no event, as the API server skips no-op updates.
   */
  update(type: ResourceType, input: FakeObject): FakeObject {
    const current = this.mustGet(type, input.metadata.namespace, input.metadata.name);
    const next = clone(input);
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    const managed = current.metadata as Record<string, unknown>;
    const meta = next.metadata as Record<string, unknown>;
    for (const k of ['uid', 'generation', 'creationTimestamp', 'deletionTimestamp', 'resourceVersion']) {
      if (managed[k] === undefined) delete meta[k];
      else meta[k] = managed[k];
    }
    return this.replace(type, current, next);
  }

  /** JSON merge patch (RFC 7386) of the whole object; server-managed metadata cannot be patched. */
  patch(type: ResourceType, namespace: string | undefined, name: string, patch: Record<string, unknown>): FakeObject {
    const current = this.mustGet(type, namespace, name);
    const merged = mergePatch(current, patch) as FakeObject;
    return this.update(type, { ...merged, metadata: { ...merged.metadata, name, ...(namespace === undefined ? {} : { namespace }) } });
  }

  /** JSON merge patch of `.status` only, as through the status subresource. */
  patchStatus(type: ResourceType, namespace: string | undefined, name: string, statusPatch: Record<string, unknown>): FakeObject {
    const current = this.mustGet(type, namespace, name);
    const next = clone(current);
    next.status = mergePatch(current.status, statusPatch);
    return this.replace(type, current, next);
  }

  /** Deletes the object, or only marks it (deletionTimestamp, MODIFIED) while finalizers remain. */
  delete(type: ResourceType, namespace: string | undefined, name: string): FakeObject {
    const current = this.mustGet(type, namespace, name);
    if ((current.metadata.finalizers ?? []).length === 0) return this.commit(type, 'DELETED', current, clone(current));
    if (current.metadata.deletionTimestamp !== undefined) return clone(current);
    const next = clone(current);
    next.metadata.deletionTimestamp = kubeTime(this.now());
    return this.commit(type, 'MODIFIED', current, next);
  }

  /** Removes the named finalizers (all when omitted); a marked object without finalizers is then deleted. */
  removeFinalizers(type: ResourceType, namespace: string | undefined, name: string, finalizers?: readonly string[]): FakeObject {
    const current = this.mustGet(type, namespace, name);
    const next = clone(current);
    next.metadata.finalizers = (current.metadata.finalizers ?? []).filter((f) => finalizers !== undefined && !finalizers.includes(f));
    return this.replace(type, current, next);
  }

  // ----- pod logs (test control) -----

  /**
   * Appends a line to a pod container's log (container: the pod's first container when omitted). `raw` writes the
   * text as is, without a newline or timestamp, so tests can produce partial lines.
   */
  appendPodLog(namespace: string, name: string, text: string, options: { container?: string; raw?: boolean } = {}): void {
    const logKey = this.logKey(namespace, name, options.container);
    const line: LogLine = { time: this.now(), text, raw: options.raw ?? false };
    let lines = this.logs.get(logKey);
    if (!lines) this.logs.set(logKey, (lines = []));
    lines.push(line);
    for (const s of this.logStreams) if (s.logKey === logKey && isOpen(s.res)) s.res.write(formatLogLine(line, s.timestamps));
  }

  // ----- faults (test control) -----

  /** Destroys every open watch and log stream without a clean end (the client sees a premature close). */
  dropStreams(): number {
    const n = this.watches.size + this.logStreams.size;
    for (const w of this.takeWatches()) w.res.destroy();
    for (const s of this.logStreams) s.res.destroy();
    this.logStreams.clear();
    return n;
  }

  /** Ends every open watch cleanly, as a server-side watch timeout does; clients re-watch from their last RV. */
  endStreams(): number {
    const streams = this.takeWatches();
    for (const w of streams) w.res.end();
    return streams.length;
  }

  /** The next event each open watch receives is written only halfway, then its connection is destroyed. */
  cutNextEvent(): void {
    for (const w of this.watches) w.cutNext = true;
  }

  /** Sends every open watch an in-stream ERROR 410 (Expired) and ends it, as a watch that fell behind gets. */
  expireWatches(): number {
    const streams = this.takeWatches();
    for (const w of streams) w.res.end(JSON.stringify({ type: 'ERROR', object: this.expiredStatus('watch expired') }) + '\n');
    return streams.length;
  }

  /** Sends a BOOKMARK at the current RV to every open watch (tests decide when; client-node never asks for them). */
  sendBookmarks(): void {
    for (const w of this.watches) {
      const t = w.filter.type;
      this.writeEvent(w, 'BOOKMARK', {
        apiVersion: t.group === '' ? t.version : `${t.group}/${t.version}`,
        kind: t.kind,
        metadata: { name: '', resourceVersion: String(this.rv) },
      });
    }
  }

  /** The next `n` requests (matching `match`, default all) are answered with `status` and a Status body. */
  failNext(n: number, statusCode = 500, match: (r: RecordedRequest) => boolean = () => true): void {
    this.failures = { remaining: n, status: statusCode, match };
  }

  /** Stops listening and cuts every connection: clients get ECONNREFUSED until acceptConnections(). */
  async refuseConnections(): Promise<void> {
    await this.stopListening();
  }

  /** Listens again on the same port. */
  async acceptConnections(): Promise<void> {
    if (!this.listening) await this.start(this.port);
  }

  /** Forgets all history: a watch from any earlier RV gets 410 Gone; open watches keep streaming. */
  compactHistory(): void {
    this.history.length = 0;
    this.historyStart = this.rv;
  }

  /**
   * As an API server restored onto a new storage: RVs jump to a new epoch (every object gets a new one, with no
   * event), history is empty so any earlier RV is 410 Gone, and open streams are cut. Objects and uids are kept.
   */
  restartWithNewHistory(): void {
    this.dropStreams();
    this.rv = (Math.floor(this.rv / RV_EPOCH) + 1) * RV_EPOCH;
    for (const store of this.objects.values()) for (const obj of store.values()) obj.metadata.resourceVersion = String(++this.rv);
    this.compactHistory();
  }

  // ----- synchronisation (test control) -----

  /** Resolves when at least `n` watches on exactly `path` (no query) are open. */
  waitForWatchers(path: string, n = 1, timeoutMs = 10_000): Promise<void> {
    return this.waiters.until(`${n} open watches on ${path}`, () => [...this.watches].filter((w) => w.path === path).length >= n, {
      timeoutMs,
      describe: () => `open watches: ${JSON.stringify(this.openWatches())}`,
    });
  }

  /** Resolves when no watch on `path` (any path when omitted) is open any more, e.g. after a client stopped. */
  waitForNoWatchers(path?: string, timeoutMs = 10_000): Promise<void> {
    return this.waiters.until(
      `no open watch${path === undefined ? '' : ` on ${path}`}`,
      () => ![...this.watches].some((w) => path === undefined || w.path === path),
      {
        timeoutMs,
        describe: () => `open watches: ${JSON.stringify(this.openWatches())}`,
      },
    );
  }

  /** Resolves with the first recorded request (past or future) matching `predicate`. */
  async waitForRequest(predicate: (r: RecordedRequest) => boolean, timeoutMs = 10_000): Promise<RecordedRequest> {
    await this.waiters.until('a matching request', () => this.requests.some(predicate), {
      timeoutMs,
      describe: () => `${this.requests.length} requests, none matching`,
    });
    return this.requests.find(predicate)!;
  }

  /** Open watch streams by path (for assertions). */
  openWatches(): string[] {
    return [...this.watches].map((w) => w.path);
  }

  // ----- internals: state -----

  private store(type: ResourceType): Map<string, FakeObject> {
    this.registerResource(type);
    return this.objects.get(typeKey(type))!;
  }

  private mustGet(type: ResourceType, namespace: string | undefined, name: string): FakeObject {
    const obj = this.store(type).get(objectKey(namespace, name));
    if (!obj) throw new Error(`${typeKey(type)} ${objectKey(namespace, name)}: not found`);
    return obj;
  }

  /** Commits an update: generation bump on spec change, deletion once a marked object has no finalizers. */
  private replace(type: ResourceType, current: FakeObject, next: FakeObject): FakeObject {
    if (next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0) {
      return this.commit(type, 'DELETED', current, next);
    }
    if (isDeepStrictEqual(current, next)) return clone(current);
    if (!isDeepStrictEqual(current.spec, next.spec)) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    return this.commit(type, 'MODIFIED', current, next);
  }

  private commit(type: ResourceType, eventType: WatchEventType, before: FakeObject | undefined, after: FakeObject): FakeObject {
    const rv = ++this.rv;
    after.metadata.resourceVersion = String(rv);
    const store = this.store(type);
    const key = objectKey(after.metadata.namespace, after.metadata.name);
    if (eventType === 'DELETED') store.delete(key);
    else store.set(key, after);
    const entry: HistoryEntry = { rv, type: eventType, typeKey: typeKey(type), before: before && clone(before), after: clone(after) };
    this.history.push(entry);
    if (this.history.length > this.historyLimit) this.historyStart = this.history.shift()!.rv;
    this.events.push({
      seq: this.events.length,
      rv: String(rv),
      type: eventType,
      resource: typeKey(type),
      namespace: after.metadata.namespace,
      name: after.metadata.name,
      uid: after.metadata.uid!,
      object: clone(after),
    });
    for (const w of this.watches) this.deliver(w, entry);
    return clone(after);
  }

  /** Sends an entry to a watch in its filter's terms: leaving the selection is a DELETED, entering it an ADDED. */
  private deliver(w: WatchStream, e: HistoryEntry): void {
    if (e.typeKey !== typeKey(w.filter.type)) return;
    const was = e.before !== undefined && matches(w.filter, e.before);
    const is = matches(w.filter, e.after);
    if (e.type === 'DELETED') {
      if (was) this.writeEvent(w, 'DELETED', e.after);
    } else if (is) this.writeEvent(w, was ? e.type : 'ADDED', e.after);
    else if (was) this.writeEvent(w, 'DELETED', e.after);
  }

  /** Detaches every open watch (no event reaches them any more) and returns them. */
  private takeWatches(): WatchStream[] {
    const streams = [...this.watches];
    this.watches.clear();
    this.waiters.changed();
    return streams;
  }

  private writeEvent(w: WatchStream, type: string, object: unknown): void {
    if (!isOpen(w.res)) return;
    const line = JSON.stringify({ type, object }) + '\n';
    if (w.cutNext) {
      // Destroyed once the half line is flushed; no further event may reach this stream meanwhile.
      this.watches.delete(w);
      w.res.write(line.slice(0, Math.floor(line.length / 2)), () => w.res.destroy());
      return;
    }
    w.res.write(line);
  }

  private expiredStatus(message: string): Record<string, unknown> {
    return status(410, 'Expired', message);
  }

  private logKey(namespace: string, name: string, container: string | undefined): string {
    return `${namespace}/${name}/${container ?? this.defaultContainer(namespace, name)}`;
  }

  private defaultContainer(namespace: string, name: string): string {
    const pod = this.store(RESOURCES.pods).get(objectKey(namespace, name)) as { spec?: { containers?: { name?: string }[] } } | undefined;
    return pod?.spec?.containers?.[0]?.name ?? '';
  }

  private async stopListening(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    this.takeWatches();
    this.logStreams.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  // ----- internals: HTTP -----

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const isWatch = query.watch === 'true' || query.watch === '1';
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      authorization: req.headers.authorization,
      watch: isWatch,
      status: 0,
    };
    this.requests.push(record);
    const send = (code: number, body: unknown): void => {
      record.status = code;
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      this.route(req, res, url, record, send);
    } catch (e) {
      if (e instanceof SelectorError) send(400, status(400, 'BadRequest', e.message));
      else send(500, status(500, 'InternalError', (e as Error).message));
    }
    this.waiters.changed();
  }

  private route(req: IncomingMessage, res: ServerResponse, url: URL, record: RecordedRequest, send: (code: number, body: unknown) => void): void {
    if (req.headers.authorization !== `Bearer ${this.token}`) return send(401, status(401, 'Unauthorized', 'Unauthorized'));
    const f = this.failures;
    if (f && f.remaining > 0 && f.match(record)) {
      f.remaining--;
      return send(f.status, status(f.status, f.status === 500 ? 'InternalError' : 'ServiceUnavailable', `injected failure (${f.status})`));
    }
    if (req.method !== 'GET') return send(405, status(405, 'MethodNotAllowed', `the fake API server is read-only: ${req.method} ${url.pathname}`));
    const target = parsePath(url.pathname);
    const type = target && this.types.get(typeKey(target));
    if (!target || !type) return send(404, status(404, 'NotFound', `the server could not find the requested resource (${url.pathname})`));
    if (target.namespace !== undefined && !type.namespaced) return send(404, status(404, 'NotFound', `${type.plural} is not namespaced`));
    if (target.name === undefined) return this.serveCollection(type, target, url.searchParams, record, res, send);
    const obj = this.store(type).get(objectKey(type.namespaced ? target.namespace : undefined, target.name));
    if (!obj || (type.namespaced && target.namespace === undefined)) {
      return send(404, status(404, 'NotFound', `${type.plural} "${target.name}" not found`));
    }
    if (target.subresource === undefined) return send(200, obj);
    if (target.subresource === 'status') return send(200, obj);
    if (target.subresource === 'log' && typeKey(type) === typeKey(RESOURCES.pods)) return this.serveLog(target, url.searchParams, record, res);
    return send(404, status(404, 'NotFound', `subresource ${target.subresource} not found`));
  }

  private serveCollection(
    type: ResourceType,
    target: Target,
    params: URLSearchParams,
    record: RecordedRequest,
    res: ServerResponse,
    send: (code: number, body: unknown) => void,
  ): void {
    const filter: Filter = {
      type,
      namespace: target.namespace,
      labels: parseLabelSelector(params.get('labelSelector') ?? ''),
      fields: parseFieldSelector(params.get('fieldSelector') ?? ''),
    };
    if (record.watch) return this.serveWatch(filter, params, record, res, send);
    const items = [...this.store(type).values()]
      .filter((o) => matches(filter, o))
      .sort((a, b) => objectKey(a.metadata.namespace, a.metadata.name).localeCompare(objectKey(b.metadata.namespace, b.metadata.name)));
    // Paging (limit/continue) over the current state, not a snapshot: the token carries the last key served.
    const after = params.get('continue');
    const fromKey = after ? Buffer.from(after, 'base64url').toString() : undefined;
    const rest = fromKey === undefined ? items : items.filter((o) => objectKey(o.metadata.namespace, o.metadata.name) > fromKey);
    const limit = Number(params.get('limit') ?? '0');
    const page = limit > 0 ? rest.slice(0, limit) : rest;
    const last = page[page.length - 1];
    const more = limit > 0 && rest.length > limit && last !== undefined;
    const metadata: Record<string, unknown> = { resourceVersion: String(this.rv) };
    if (more) metadata.continue = Buffer.from(objectKey(last.metadata.namespace, last.metadata.name)).toString('base64url');
    send(200, { apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`, kind: `${type.kind}List`, metadata, items: page });
  }

  private serveWatch(filter: Filter, params: URLSearchParams, record: RecordedRequest, res: ServerResponse, send: (code: number, body: unknown) => void): void {
    const rvParam = params.get('resourceVersion') ?? '';
    const from = rvParam === '' || rvParam === '0' ? undefined : Number(rvParam);
    if (from !== undefined && !Number.isSafeInteger(from)) return send(400, status(400, 'BadRequest', `invalid resourceVersion ${JSON.stringify(rvParam)}`));
    if (from !== undefined && from > this.rv) return send(504, status(504, 'Timeout', `Too large resource version: ${from}, current: ${this.rv}`));
    const expired = from !== undefined && from < this.historyStart;
    if (expired && this.expiredWatch === 'http') return send(410, this.expiredStatus(`too old resource version: ${from} (${this.historyStart})`));
    record.status = 200;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const w: WatchStream = { path: record.path, filter, res, cutNext: false };
    if (expired) {
      res.end(JSON.stringify({ type: 'ERROR', object: this.expiredStatus(`too old resource version: ${from} (${this.historyStart})`) }) + '\n');
      return;
    }
    if (from === undefined) {
      for (const o of this.store(filter.type).values()) if (matches(filter, o)) this.writeEvent(w, 'ADDED', o);
    } else {
      for (const e of this.history) if (e.rv > from) this.deliver(w, e);
    }
    if (res.destroyed) return;
    this.watches.add(w);
    res.on('close', () => {
      this.watches.delete(w);
      this.waiters.changed();
    });
    const timeout = Number(params.get('timeoutSeconds') ?? '0');
    if (timeout > 0) {
      const timer = setTimeout(() => res.end(), timeout * 1000);
      res.on('close', () => clearTimeout(timer));
    }
  }

  private serveLog(target: Target, params: URLSearchParams, record: RecordedRequest, res: ServerResponse): void {
    const namespace = target.namespace!;
    const name = target.name!;
    const container = params.get('container') ?? undefined;
    const logKey = this.logKey(namespace, name, container);
    const timestamps = params.get('timestamps') === 'true';
    let lines = this.logs.get(logKey) ?? [];
    const sinceTime = params.get('sinceTime');
    if (sinceTime !== null) lines = lines.filter((l) => l.time.getTime() >= Date.parse(sinceTime));
    const tail = params.get('tailLines');
    if (tail !== null) lines = Number(tail) === 0 ? [] : lines.slice(-Number(tail));
    const body = lines.map((l) => formatLogLine(l, timestamps)).join('');
    if (params.get('follow') !== 'true') {
      record.status = 200;
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(body);
      return;
    }
    record.status = 200;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    res.write(body);
    const stream: LogStream = { logKey, res, timestamps };
    this.logStreams.add(stream);
    res.on('close', () => this.logStreams.delete(stream));
  }
}

function isOpen(res: ServerResponse): boolean {
  return !res.writableEnded && !res.destroyed;
}

function formatLogLine(line: LogLine, timestamps: boolean): string {
  if (line.raw) return line.text;
  const stamp = timestamps ? `${line.time.toISOString().replace('Z', '000000Z')} ` : '';
  return `${stamp}${line.text}\n`;
}
