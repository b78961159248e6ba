/**
 * An in-test Maestro server: its REST API over plain HTTP, answering as openshift-online/maestro does.
 *   GET    /api/maestro/v1/resource-bundles[?page&size&search&orderBy]  → {"kind":"ResourceBundleList","page","size","total","items"}
 *   GET    /api/maestro/v1/resource-bundles/{id}                         → the bundle (while its deletion is under way too), 404 once gone
 *   DELETE /api/maestro/v1/resource-bundles/{id}                         → 204: deletion requested; the bundle stays, with deleted_at
 * Paging as pkg/services/types.go NewListArguments reads it: `page` default 1, `size` default 100 (an unparsable value
 * is 0, over 65500 or negative is 65500, 0 lists nothing but counts `total`); `size` in the answer is the items on the
 * page (pkg/services/generic.go loadList). Listing and getting are unscoped (pkg/dao/generic.go Fetch, resource.go
 * Get): a bundle whose deletion was requested is still listed, with `deleted_at`, until the work agent reports the
 * manifests deleted and Maestro removes it (pkg/services/resource.go MarkAsDeleting: "Work-agent deletes resource,
 * sends CloudEvent back to Maestro; Maestro hard deletes resource"); here the test says when (`agentDeleted`).
 * A bundle is presented as pkg/api/presenters/resource_bundle.go PresentResourceBundle does: id, kind, href, name,
 * consumer_name, version, created_at, updated_at, deleted_at, metadata, manifests, delete_option, manifest_configs,
 * status (ObservedVersion, SequenceID, conditions, resourceStatus). Its id is the one the source work client derives
 * (open-cluster-management sdk-go utils.UID: a SHA-1 UUID of source, group-resource, consumer and name).
 * `search` understands what grpcsource builds (RESTFulAPIWatcherStore.List, ToSyncSearch): `source='…'`,
 * `consumer_name='…'`, `name='…'`, joined by `and`, with `(… or …)`; anything else is a 400 (maestro-23). With
 * `requireToken` set, a request without that bearer token gets a 401 (maestro-15).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const PREFIX = '/api/maestro/v1/resource-bundles';
const MANIFESTWORKS_GR = 'manifestworks.work.open-cluster-management.io';
/** RFC 4122's name space for ISO OIDs, which sdk-go's utils.UID hashes in. */
const NAMESPACE_OID = '6ba7b812-9dad-11d1-80b4-00c04fd430c8';

/** A version 5 UUID (SHA-1 of a name space and a name), as github.com/google/uuid NewSHA1 makes it. */
export function uuidV5(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const h = createHash('sha1').update(ns).update(name).digest().subarray(0, 16);
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The resource bundle id of a ManifestWork, as the source work client derives it. */
export function workId(sourceId: string, consumer: string, name: string): string {
  return uuidV5(NAMESPACE_OID, `${sourceId}-${MANIFESTWORKS_GR}-${consumer}-${name}`);
}

/** What the adapter sends (a ManifestWork as its template renders it). */
export interface WorkInput {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly spec: {
    readonly workload: { readonly manifests: readonly Record<string, unknown>[] };
    readonly deleteOption?: Record<string, unknown>;
    readonly manifestConfigs?: readonly Record<string, unknown>[];
  };
}

interface Bundle {
  id: string;
  source: string;
  consumer: string;
  name: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  metadata: Record<string, unknown>;
  manifests: Record<string, unknown>[];
  deleteOption?: Record<string, unknown>;
  manifestConfigs: Record<string, unknown>[];
  status?: Record<string, unknown>;
  sequence: number;
  presentAs?: Record<string, unknown>;
}

export interface MaestroRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorization?: string;
  status: number;
}

export class FakeMaestro {
  readonly requests: MaestroRequest[] = [];
  requireToken: string | undefined;
  private readonly bundles = new Map<string, Bundle>();
  private readonly failures: { status: number; match: (r: MaestroRequest) => boolean }[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  constructor(private readonly now: () => Date = () => new Date()) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  /**
   * The adapter applies a ManifestWork to a consumer (created, or its spec replaced: version +1), as the source work
   * client's create and patch reach the server over CloudEvents. Returns the bundle id.
   */
  apply(sourceId: string, consumer: string, work: WorkInput): string {
    const id = workId(sourceId, consumer, work.metadata.name);
    const t = this.stamp();
    const existing = this.bundles.get(id);
    if (existing?.deletedAt) throw new Error(`${id}: its deletion is under way`);
    const metadata = { ...structuredClone(work.metadata), namespace: consumer, uid: id };
    const b: Bundle = {
      id,
      source: sourceId,
      consumer,
      name: work.metadata.name,
      version: (existing?.version ?? 0) + 1,
      createdAt: existing?.createdAt ?? t,
      updatedAt: t,
      metadata,
      manifests: structuredClone([...work.spec.workload.manifests]),
      ...(work.spec.deleteOption ? { deleteOption: structuredClone(work.spec.deleteOption) } : {}),
      manifestConfigs: structuredClone([...(work.spec.manifestConfigs ?? [])]),
      ...(existing?.status ? { status: existing.status } : {}),
      sequence: existing?.sequence ?? 0,
    };
    this.bundles.set(id, b);
    return id;
  }

  /** The work agent reports status: the bundle's conditions and each manifest's (resourceStatus). */
  reportStatus(id: string, conditions: readonly Record<string, unknown>[], resourceStatus: readonly Record<string, unknown>[] = []): void {
    const b = this.must(id);
    b.sequence++;
    b.status = {
      ObservedVersion: b.version,
      SequenceID: String(b.sequence),
      conditions: structuredClone([...conditions]),
      resourceStatus: structuredClone([...resourceStatus]),
    };
    b.updatedAt = this.stamp();
  }

  /** The work agent deleted the manifests and said so: Maestro removes the bundle for good. */
  agentDeleted(id: string): void {
    const b = this.must(id);
    if (!b.deletedAt) throw new Error(`${id}: no deletion was requested`);
    this.bundles.delete(id);
  }

  /** Fields presented for a bundle in place of its own (a server answering what the client cannot read). */
  presentAs(id: string, fields: Record<string, unknown>): void {
    this.must(id).presentAs = fields;
  }

  has(id: string): boolean {
    return this.bundles.has(id);
  }

  /** The next `n` requests matching `match` answer `status`. */
  failNext(n: number, status: number, match: (r: MaestroRequest) => boolean = () => true): void {
    for (let i = 0; i < n; i++) this.failures.push({ status, match });
  }

  private must(id: string): Bundle {
    const b = this.bundles.get(id);
    if (!b) throw new Error(`no resource bundle ${id}`);
    return b;
  }

  private stamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const auth = req.headers.authorization;
    const record: MaestroRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(auth === undefined ? {} : { authorization: auth }),
      status: 0,
    };
    this.requests.push(record);
    const send = (status: number, body?: unknown): void => {
      record.status = status;
      if (body === undefined) {
        res.writeHead(status);
        res.end();
        return;
      }
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const i = this.failures.findIndex((f) => f.match(record));
    if (i >= 0) return send(this.failures.splice(i, 1)[0]!.status, error(9, 'injected failure'));
    if (this.requireToken !== undefined && auth !== `Bearer ${this.requireToken}`) return send(401, error(15, 'Account authentication could not be verified'));
    if (url.pathname === PREFIX && record.method === 'GET') return this.list(url.searchParams, send);
    const id = url.pathname.startsWith(PREFIX + '/') ? decodeURIComponent(url.pathname.slice(PREFIX.length + 1)) : undefined;
    if (id !== undefined && !id.includes('/')) {
      const b = this.bundles.get(id);
      if (record.method === 'GET') return b ? send(200, present(b)) : send(404, error(7, `Resource with id='${id}' not found`));
      if (record.method === 'DELETE') {
        // MarkAsDeleting: idempotent; an id already gone is fine.
        if (b && !b.deletedAt) b.deletedAt = this.stamp();
        return send(204);
      }
    }
    send(404, error(7, `no route ${record.method} ${url.pathname}`));
  }

  private list(q: URLSearchParams, send: (status: number, body?: unknown) => void): void {
    const pageText = (q.get('page') ?? '').trim();
    const sizeText = (q.get('size') ?? '').trim();
    const page = pageText === '' ? 1 : atoi(pageText);
    let size = sizeText === '' ? 100 : atoi(sizeText);
    if (size > 65500 || size < 0) size = 65500;
    const search = (q.get('search') ?? '').trim();
    let match: (b: Bundle) => boolean = () => true;
    if (search !== '') {
      const parsed = parseSearch(search);
      if (typeof parsed === 'string') return send(400, error(23, `Failed to parse search query: ${parsed}`));
      match = parsed;
    }
    // No orderBy: rows in the order they were written, as the table returns them.
    const all = [...this.bundles.values()].filter(match);
    const offset = Math.max(0, (page - 1) * size);
    const items = size === 0 ? [] : all.slice(offset, offset + size);
    send(200, { kind: 'ResourceBundleList', page, size: items.length, total: all.length, items: items.map(present) });
  }
}

/** Go's strconv.Atoi with the error dropped, as NewListArguments does: 0 unless the text is a decimal integer. */
function atoi(v: string): number {
  return /^[+-]?\d+$/.test(v) ? Number(v) : 0;
}

const SEARCH_FIELDS: Readonly<Record<string, (b: Bundle) => string>> = {
  source: (b) => b.source,
  consumer_name: (b) => b.consumer,
  name: (b) => b.name,
  id: (b) => b.id,
};

/** `term and term ...`, a term `field='value'` or `(term or term ...)`. A message for what it cannot read. */
function parseSearch(search: string): ((b: Bundle) => boolean) | string {
  const term = (text: string): ((b: Bundle) => boolean) | string => {
    const t = text.trim();
    if (t.startsWith('(') && t.endsWith(')')) {
      const parts = t
        .slice(1, -1)
        .split(/\s+or\s+/)
        .map(term);
      const bad = parts.find((p) => typeof p === 'string');
      if (typeof bad === 'string') return bad;
      const fns = parts as ((b: Bundle) => boolean)[];
      return (b) => fns.some((f) => f(b));
    }
    const m = /^([a-z_]+)\s*=\s*'([^']*)'$/.exec(t);
    const get = m ? SEARCH_FIELDS[m[1]!] : undefined;
    if (!m || !get) return `the in-test Maestro cannot read "${t}"`;
    return (b) => get(b) === m[2];
  };
  const parts = search.split(/\s+and\s+/).map(term);
  const bad = parts.find((p) => typeof p === 'string');
  if (typeof bad === 'string') return bad;
  const fns = parts as ((b: Bundle) => boolean)[];
  return (b) => fns.every((f) => f(b));
}

function present(b: Bundle): Record<string, unknown> {
  return {
    id: b.id,
    kind: 'ResourceBundle',
    href: `${PREFIX}/${b.id}`,
    name: b.name,
    consumer_name: b.consumer,
    version: b.version,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
    ...(b.deletedAt ? { deleted_at: b.deletedAt } : {}),
    metadata: b.metadata,
    manifests: b.manifests,
    ...(b.deleteOption ? { delete_option: b.deleteOption } : {}),
    manifest_configs: b.manifestConfigs,
    ...(b.status ? { status: b.status } : {}),
    ...b.presentAs,
  };
}

/** pkg/errors ServiceError.AsOpenapiError. */
function error(code: number, reason: string): Record<string, unknown> {
  return { kind: 'Error', id: String(code), href: `/api/maestro/v1/errors/${code}`, code: `maestro-${code}`, reason, operation_id: '' };
}
