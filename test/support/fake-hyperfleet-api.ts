/**
 * An in-test HyperFleet API over plain HTTP with the documented REST shapes (hyperfleet-api docs/api-resources.md):
 *   GET /api/hyperfleet/v1/clusters?page&pageSize&orderBy   → {"kind":"ClusterList","page","size","total","items"}
 *   GET /api/hyperfleet/v1/clusters/{id}                    → the cluster (soft-deleted ones too), 404 when gone
 *   GET /api/hyperfleet/v1/nodepools, /clusters/{id}/nodepools[/{np}]
 * Lists exclude soft-deleted resources and page as the API does (pageSize 1..100, else 400 problem+json). A resource
 * carries `generation`, `updated_time`, `deleted_time` and `status.conditions` with `Reconciled` and
 * `LastKnownReconciled` (`last_transition_time` moves only when the status changes; a spec change or delete bumps
 * the generation and turns Reconciled False at `updated_time`).
 * The test drives it through methods (create, patch the spec, report reconciled, soft and hard delete) and injects
 * faults on the next requests: an HTTP status, a delay past the client's timeout, a malformed body, an invalid item.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ApiCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  observed_generation: number;
  created_time: string;
  last_updated_time: string;
  last_transition_time: string;
}

export interface ApiResource {
  kind: 'Cluster' | 'NodePool';
  id: string;
  href: string;
  name: string;
  generation: number;
  spec: Record<string, unknown>;
  labels: Record<string, string>;
  owner_references?: { kind: 'Cluster'; id: string };
  created_time: string;
  updated_time: string;
  created_by: string;
  updated_by: string;
  deleted_time?: string;
  deleted_by?: string;
  status: { conditions: ApiCondition[] };
}

/** An HTTP status; an answer later than the client waits; a broken body; or a list with one more (raw) item. */
export type Fault = { readonly status: number } | { readonly delayMs: number } | { readonly body: 'malformed' | 'not-a-list' } | { readonly extraItem: unknown };

export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  status: number;
}

const PREFIX = '/api/hyperfleet/v1';
const USER = 'test@example.com';

export class FakeHyperFleetApi {
  readonly requests: ApiRequest[] = [];
  private readonly resources = new Map<string, ApiResource>();
  private readonly faults: { fault: Fault; match: (r: ApiRequest) => boolean }[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly pending = new Set<NodeJS.Timeout>();
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
    for (const t of this.pending) clearTimeout(t);
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  createCluster(id: string = randomUUID(), name = `cluster-${id.slice(0, 8)}`): ApiResource {
    return this.add({ kind: 'Cluster', id, href: `${PREFIX}/clusters/${id}`, name });
  }

  createNodePool(clusterId: string, id: string = randomUUID(), name = `np-${id.slice(0, 6)}`): ApiResource {
    return this.add({ kind: 'NodePool', id, href: `${PREFIX}/nodepools/${id}`, name, owner_references: { kind: 'Cluster', id: clusterId } });
  }

  get(id: string): ApiResource | undefined {
    const r = this.resources.get(id);
    return r && structuredClone(r);
  }

  /** PATCH of the spec: generation +1, Reconciled False from updated_time. */
  patchSpec(id: string, spec: Record<string, unknown>): ApiResource {
    const r = this.must(id);
    const t = this.stamp();
    r.spec = { ...r.spec, ...spec };
    r.generation++;
    r.updated_time = t;
    setCondition(r, 'Reconciled', 'False', 'ReconciledMissingAdapters', t);
    return structuredClone(r);
  }

  /** The adapters reported at the current generation: Reconciled (and LastKnownReconciled) True or False. */
  setReconciled(id: string, reconciled: boolean): ApiResource {
    const r = this.must(id);
    const t = this.stamp();
    setCondition(r, 'Reconciled', reconciled ? 'True' : 'False', reconciled ? 'ReconciledAll' : 'ReconciledMissingAdapters', t);
    if (reconciled) setCondition(r, 'LastKnownReconciled', 'True', 'AllAdaptersReconciled', t);
    return structuredClone(r);
  }

  /** DELETE: deleted_time set, generation +1, Reconciled False; the resource leaves the lists. */
  softDelete(id: string): ApiResource {
    const r = this.must(id);
    const t = this.stamp();
    r.deleted_time = t;
    r.deleted_by = USER;
    r.generation++;
    r.updated_time = t;
    setCondition(r, 'Reconciled', 'False', 'ReconciledMissingAdapters', t);
    return structuredClone(r);
  }

  /** Adapters finalized: the resource is gone for good (404). */
  hardDelete(id: string): void {
    this.must(id);
    this.resources.delete(id);
  }

  /** The next `n` requests matching `match` (default: all) get `fault`. */
  failNext(n: number, fault: Fault, match: (r: ApiRequest) => boolean = () => true): void {
    for (let i = 0; i < n; i++) this.faults.push({ fault, match });
  }

  private add(head: Pick<ApiResource, 'kind' | 'id' | 'href' | 'name' | 'owner_references'>): ApiResource {
    if (this.resources.has(head.id)) throw new Error(`${head.id} exists`);
    const t = this.stamp();
    const r: ApiResource = {
      ...head,
      generation: 1,
      spec: {},
      labels: {},
      created_time: t,
      updated_time: t,
      created_by: USER,
      updated_by: USER,
      status: { conditions: [] },
    };
    setCondition(r, 'Reconciled', 'False', 'ReconciledMissingAdapters', t);
    setCondition(r, 'LastKnownReconciled', 'False', 'AdaptersMissingReports', t);
    this.resources.set(r.id, r);
    return structuredClone(r);
  }

  private must(id: string): ApiResource {
    const r = this.resources.get(id);
    if (!r) throw new Error(`no resource ${id}`);
    return r;
  }

  private stamp(): string {
    return this.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const record: ApiRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0 };
    this.requests.push(record);
    const send = (status: number, body: unknown, type = 'application/json'): void => {
      record.status = status;
      res.writeHead(status, { 'Content-Type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const i = this.faults.findIndex((f) => f.match(record));
    const fault = i >= 0 ? this.faults.splice(i, 1)[0]!.fault : undefined;
    if (fault && 'status' in fault) return send(fault.status, problem(fault.status, `injected failure (${fault.status})`, url.pathname), 'application/problem+json');
    if (fault && 'delayMs' in fault) {
      const t = setTimeout(() => {
        this.pending.delete(t);
        if (!res.destroyed) this.route(url, record, send);
      }, fault.delayMs);
      this.pending.add(t);
      return;
    }
    if (fault && 'body' in fault && fault.body === 'malformed') return send(200, '{"kind":"ClusterList","items":[');
    if (fault && 'body' in fault) return send(200, { kind: 'Status', message: 'not what you asked for' });
    if (fault && 'extraItem' in fault) {
      return this.route(url, record, (status, body, type) => {
        const list = body as { items?: unknown[]; total?: number };
        send(status, Array.isArray(list.items) ? { ...list, total: (list.total ?? 0) + 1, items: [...list.items, fault.extraItem] } : body, type);
      });
    }
    this.route(url, record, send);
  }

  private route(url: URL, record: ApiRequest, send: (status: number, body: unknown, type?: string) => void): void {
    if (record.method !== 'GET') return send(405, problem(405, `the fake API answers GET only: ${record.method}`, url.pathname), 'application/problem+json');
    const seg = url.pathname.startsWith(PREFIX + '/') ? url.pathname.slice(PREFIX.length + 1).split('/').map(decodeURIComponent) : [];
    // clusters | nodepools | clusters/{id} | nodepools/{id} | clusters/{id}/nodepools | clusters/{id}/nodepools/{np}
    if (seg.length === 1 && (seg[0] === 'clusters' || seg[0] === 'nodepools')) return this.list(seg[0] === 'clusters' ? 'Cluster' : 'NodePool', undefined, url, send);
    if (seg.length === 2 && (seg[0] === 'clusters' || seg[0] === 'nodepools')) return this.one(seg[1]!, seg[0] === 'clusters' ? 'Cluster' : 'NodePool', url, send);
    if (seg.length === 3 && seg[0] === 'clusters' && seg[2] === 'nodepools') return this.list('NodePool', seg[1], url, send);
    if (seg.length === 4 && seg[0] === 'clusters' && seg[2] === 'nodepools') return this.one(seg[3]!, 'NodePool', url, send);
    send(404, problem(404, `no route ${url.pathname}`, url.pathname), 'application/problem+json');
  }

  private one(id: string, kind: ApiResource['kind'], url: URL, send: (status: number, body: unknown, type?: string) => void): void {
    const r = this.resources.get(id);
    if (!r || r.kind !== kind) return send(404, problem(404, `${kind} with id='${id}' not found`, url.pathname, 'HYPERFLEET-NTF-001'), 'application/problem+json');
    send(200, r);
  }

  private list(kind: ApiResource['kind'], owner: string | undefined, url: URL, send: (status: number, body: unknown, type?: string) => void): void {
    const page = Number(url.searchParams.get('page') ?? '1');
    const size = Number(url.searchParams.get('pageSize') ?? '20');
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1 || size > 100) {
      return send(400, problem(400, 'page must be >= 1 and pageSize between 1 and 100', url.pathname, 'HYPERFLEET-VAL-005'), 'application/problem+json');
    }
    // Only the default order field is served: created_time, ascending or (default) descending.
    const direction = (url.searchParams.get('orderBy') ?? 'created_time desc').split(/\s+/)[1];
    const sign = direction === 'asc' ? 1 : -1;
    const items = [...this.resources.values()]
      .filter((r) => r.kind === kind && r.deleted_time === undefined && (owner === undefined || r.owner_references?.id === owner))
      .sort((a, b) => sign * (a.created_time.localeCompare(b.created_time) || a.id.localeCompare(b.id)));
    send(200, { kind: `${kind}List`, page, size, total: items.length, items: items.slice((page - 1) * size, page * size) });
  }
}

function setCondition(r: ApiResource, type: string, status: 'True' | 'False', reason: string, t: string): void {
  const existing = r.status.conditions.find((c) => c.type === type);
  if (existing) {
    if (existing.status !== status) existing.last_transition_time = t;
    Object.assign(existing, { status, reason, observed_generation: r.generation, last_updated_time: t });
    return;
  }
  r.status.conditions.push({ type, status, reason, message: reason, observed_generation: r.generation, created_time: t, last_updated_time: t, last_transition_time: t });
}

function problem(status: number, detail: string, instance: string, code = 'HYPERFLEET-INT-001'): Record<string, unknown> {
  return { type: 'https://api.hyperfleet.io/errors/test', title: 'Injected', status, detail, code, instance };
}
