/**
 * An in-test HyperFleet API over plain HTTP, answering as hyperfleet-api does:
 *   GET /api/hyperfleet/v1/{plural}[?page&size&order]   → {"items","page","size","total"} (size: items on the page)
 *   GET /api/hyperfleet/v1/{plural}/{id}                → the resource (soft-deleted ones too), 404 when gone
 *   GET /api/hyperfleet/v1/{parent plural}/{id}/{plural}[/{id}] for child kinds (NodePool under Cluster)
 * Entity kinds come from a registry as the API's config declares them (pkg/registry EntityDescriptor: kind, plural,
 * parent_kind; routes as cmd/hyperfleet-api/server/routes_entities.go registerPerEntityRoutes). List parameters are
 * read exactly as pkg/handlers/list_params.go parseListParams and its test TestParseListParams: `page` (default 1,
 * 1..100000) and `size` (default 20, 1..100), trimmed, base-10 integers, else a 400 problem+json
 * (HYPERFLEET-VAL-000 "Invalid query parameters", one `errors[]` entry per field, format errors first, then range
 * errors); `pageSize` and other unknown parameters ignored; `order` split on commas, trimmed, default
 * `created_time desc`, each item checked as pkg/db/sql_helpers.go ArgsToOrder (a bare field is ascending), an
 * unknown field a 400 "invalid field in search or order query" (pkg/services/generic.go loadList). `search` and
 * `fields` are not implemented here: a 501, so a test never relies on them unknowingly.
 * Lists exclude soft-deleted resources. A resource carries `generation`, `updated_time`, `deleted_time` and
 * `status.conditions` with `Reconciled` and `LastKnownReconciled` (`last_transition_time` moves only when the status
 * changes; a spec change or delete bumps the generation and turns Reconciled False at `updated_time`).
 * With `requireToken` set, a request without that bearer token gets a 401 (HYPERFLEET-AUT-003).
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

/** An entity kind as the API's config registers it (pkg/registry EntityDescriptor). */
export interface EntityKind {
  readonly kind: string;
  readonly plural: string;
  readonly parentKind?: string;
}

/** The API's default entities (charts/values.yaml `entities`). */
export const DEFAULT_ENTITIES: readonly EntityKind[] = [
  { kind: 'Cluster', plural: 'clusters' },
  { kind: 'NodePool', plural: 'nodepools', parentKind: 'Cluster' },
  { kind: 'Channel', plural: 'channels' },
  { kind: 'Version', plural: 'versions', parentKind: 'Channel' },
  { kind: 'WifConfig', plural: 'wifconfigs' },
];

export interface ApiResource {
  kind: string;
  id: string;
  href: string;
  name: string;
  generation: number;
  spec: Record<string, unknown>;
  labels: Record<string, string>;
  owner_references?: { kind: string; id: string };
  created_time: string;
  updated_time: string;
  created_by: string;
  updated_by: string;
  deleted_time?: string;
  deleted_by?: string;
  status: { conditions: ApiCondition[] };
}

/** An HTTP status; an answer later than the client waits; a broken body; or a list with one more (raw) item. */
export type Fault =
  { readonly status: number } | { readonly delayMs: number } | { readonly body: 'malformed' | 'not-a-list' } | { readonly extraItem: unknown };

export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorization?: string;
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
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  requireToken: string | undefined;

  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly entities: readonly EntityKind[] = DEFAULT_ENTITIES,
  ) {
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
    return this.create('NodePool', id, name, clusterId);
  }

  /** A resource of any registered kind; a child kind names its parent's id. */
  create(kind: string, id: string = randomUUID(), name = `${kind.toLowerCase()}-${id.slice(0, 6)}`, parentId?: string): ApiResource {
    const e = this.entity(kind);
    if ((e.parentKind === undefined) !== (parentId === undefined)) throw new Error(`${kind}: a parent id is ${e.parentKind ? 'required' : 'not taken'}`);
    const owner = e.parentKind && parentId ? { owner_references: { kind: e.parentKind, id: parentId } } : {};
    return this.add({ kind, id, href: `${PREFIX}/${e.plural}/${id}`, name, ...owner });
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
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const auth = req.headers.authorization;
    const record: ApiRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(auth === undefined ? {} : { authorization: auth }),
      status: 0,
    };
    this.requests.push(record);
    const send = (status: number, body: unknown, type = 'application/json'): void => {
      record.status = status;
      res.writeHead(status, { 'Content-Type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const i = this.faults.findIndex((f) => f.match(record));
    const fault = i >= 0 ? this.faults.splice(i, 1)[0]!.fault : undefined;
    if (fault && 'status' in fault)
      return send(fault.status, problem(fault.status, 'HYPERFLEET-INT-001', `injected failure (${fault.status})`, url.pathname), 'application/problem+json');
    if (this.requireToken !== undefined && auth !== `Bearer ${this.requireToken}`) {
      return send(401, problem(401, 'HYPERFLEET-AUT-003', 'Invalid token provided', url.pathname), 'application/problem+json');
    }
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
        send(
          status,
          Array.isArray(list.items) ? { ...list, size: list.items.length + 1, total: (list.total ?? 0) + 1, items: [...list.items, fault.extraItem] } : body,
          type,
        );
      });
    }
    this.route(url, record, send);
  }

  private route(url: URL, record: ApiRequest, send: (status: number, body: unknown, type?: string) => void): void {
    const fail = (status: number, code: string, detail: string, errors?: unknown[]): void =>
      send(status, problem(status, code, detail, url.pathname, errors), 'application/problem+json');
    if (record.method !== 'GET') return fail(405, 'HYPERFLEET-INT-003', `the in-test API answers GET only: ${record.method}`);
    const seg = url.pathname.startsWith(PREFIX + '/')
      ? url.pathname
          .slice(PREFIX.length + 1)
          .split('/')
          .map(decodeURIComponent)
      : [];
    const byPlural = (p: string | undefined) => this.entities.find((e) => e.plural === p);
    // {plural} | {plural}/{id} | {parent plural}/{pid}/{plural} | {parent plural}/{pid}/{plural}/{id}
    const top = byPlural(seg[0]);
    if (top && seg.length === 1) return this.list(top, undefined, url, send, fail);
    if (top && seg.length === 2) return this.one(seg[1]!, top, undefined, send, fail);
    const child = byPlural(seg[2]);
    if (top && child && child.parentKind === top.kind && seg.length === 3) return this.list(child, seg[1], url, send, fail);
    if (top && child && child.parentKind === top.kind && seg.length === 4) return this.one(seg[3]!, child, seg[1], send, fail);
    fail(404, 'HYPERFLEET-NTF-000', `no route ${url.pathname}`);
  }

  private one(id: string, e: EntityKind, owner: string | undefined, send: (status: number, body: unknown) => void, fail: Fail): void {
    const r = this.resources.get(id);
    if (!r || r.kind !== e.kind || (owner !== undefined && r.owner_references?.id !== owner))
      return fail(404, 'HYPERFLEET-NTF-001', `${e.kind} with id='${id}' not found`);
    send(200, r);
  }

  private list(e: EntityKind, owner: string | undefined, url: URL, send: (status: number, body: unknown) => void, fail: Fail): void {
    const q = url.searchParams;
    if ((q.get('search') ?? '').trim() !== '' || (q.get('fields') ?? '').trim() !== '')
      return fail(501, 'HYPERFLEET-INT-003', 'search and fields are not implemented by the in-test API');
    const args = parseListParams(q);
    if ('errors' in args) return fail(400, 'HYPERFLEET-VAL-000', 'Invalid query parameters', args.errors);
    const order = argsToOrder(args.order);
    if (typeof order === 'string') return fail(400, 'HYPERFLEET-VAL-005', order);
    if (order.some((o) => !ORDER_COLUMNS.has(o.field))) return fail(400, 'HYPERFLEET-VAL-005', 'invalid field in search or order query');
    const items = [...this.resources.values()]
      .filter((r) => r.kind === e.kind && r.deleted_time === undefined && (owner === undefined || r.owner_references?.id === owner))
      .sort((a, b) => {
        for (const o of order) {
          const c = compareColumn(a, b, o.field);
          if (c !== 0) return o.direction === 'asc' ? c : -c;
        }
        return 0;
      });
    const page = items.slice((args.page - 1) * args.size, args.page * args.size);
    send(200, { items: page, page: args.page, size: page.length, total: items.length });
  }

  private entity(kind: string): EntityKind {
    const e = this.entities.find((x) => x.kind === kind);
    if (!e) throw new Error(`${kind} is not a registered entity kind`);
    return e;
  }
}

type Fail = (status: number, code: string, detail: string, errors?: unknown[]) => void;

interface ValidationDetail {
  readonly field: string;
  readonly value?: unknown;
  readonly constraint: string;
  readonly message: string;
}

/** Columns a list can be ordered by here: the resource table's scalar columns. */
const ORDER_COLUMNS = new Set(['id', 'kind', 'name', 'generation', 'href', 'created_time', 'updated_time', 'deleted_time', 'created_by', 'updated_by']);

function compareColumn(a: ApiResource, b: ApiResource, field: string): number {
  const x = (a as unknown as Record<string, string | number | undefined>)[field];
  const y = (b as unknown as Record<string, string | number | undefined>)[field];
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return `${x ?? ''}`.localeCompare(`${y ?? ''}`);
}

/** Go's strconv.ParseInt(v, 10, 64): an optional sign and decimal digits, within int64. */
function parseInt64(v: string): number | undefined {
  if (!/^[+-]?\d+$/.test(v)) return undefined;
  const n = BigInt(v);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return Number(n);
}

/** list_params.go parseListParams: bindListParams (format errors), then validateListParams (range errors). */
export function parseListParams(q: URLSearchParams): { page: number; size: number; order: string[] } | { errors: ValidationDetail[] } {
  let page = 1;
  let size = 20;
  const format: ValidationDetail[] = [];
  for (const field of ['page', 'size'] as const) {
    const v = (q.get(field) ?? '').trim();
    if (v === '') continue;
    const n = parseInt64(v);
    if (n === undefined) format.push({ field, value: v, constraint: 'format', message: 'must be a valid integer' });
    else if (field === 'page') page = n;
    else size = n;
  }
  if (format.length > 0) return { errors: format };
  const refType = (q.get('ref_type') ?? '').trim();
  const refTarget = (q.get('ref_target_id') ?? '').trim();
  const range: ValidationDetail[] = [];
  // In the struct's field order: RefType, RefTargetID, Size, Page (go-playground/validator reports them so).
  if (refType === '' && refTarget !== '')
    range.push({ field: 'reftype', value: refType, constraint: 'required', message: 'ref_type and ref_target_id must be provided together' });
  if (refTarget === '' && refType !== '')
    range.push({ field: 'reftargetid', value: refTarget, constraint: 'required', message: 'ref_type and ref_target_id must be provided together' });
  if (size < 1) range.push({ field: 'size', value: size, constraint: 'min', message: 'size must be at least 1' });
  if (size > 100) range.push({ field: 'size', value: size, constraint: 'max', message: 'size must be at most 100' });
  if (page < 1) range.push({ field: 'page', value: page, constraint: 'min', message: 'page must be at least 1' });
  if (page > 100000) range.push({ field: 'page', value: page, constraint: 'max', message: 'page must be at most 100000' });
  if (range.length > 0) return { errors: range };
  const order = q
    .getAll('order')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return { page, size, order: order.length > 0 ? order : ['created_time desc'] };
}

/** pkg/db/sql_helpers.go ArgsToOrder: `field` or `field asc|desc`; a message for the first bad one. */
export function argsToOrder(args: readonly string[]): { field: string; direction: 'asc' | 'desc' }[] | string {
  const out: { field: string; direction: 'asc' | 'desc' }[] = [];
  for (const val of args) {
    const v = val.trim();
    if (v === '') continue;
    if (!/^[a-z_][a-z0-9_]*(\s+(asc|desc))?$/.test(v)) return `invalid order format '${val}': expected 'field' or 'field asc|desc'`;
    const [field, direction] = v.split(/\s+/);
    out.push({ field: field!, direction: direction === 'desc' ? 'desc' : 'asc' });
  }
  return out;
}

function setCondition(r: ApiResource, type: string, status: 'True' | 'False', reason: string, t: string): void {
  const existing = r.status.conditions.find((c) => c.type === type);
  if (existing) {
    if (existing.status !== status) existing.last_transition_time = t;
    Object.assign(existing, { status, reason, observed_generation: r.generation, last_updated_time: t });
    return;
  }
  r.status.conditions.push({
    type,
    status,
    reason,
    message: reason,
    observed_generation: r.generation,
    created_time: t,
    last_updated_time: t,
    last_transition_time: t,
  });
}

const TITLES: Record<string, [string, string]> = {
  'HYPERFLEET-VAL-000': ['validation-error', 'Validation Failed'],
  'HYPERFLEET-VAL-005': ['bad-request', 'Bad Request'],
  'HYPERFLEET-AUT-003': ['authentication-error', 'Invalid Token'],
  'HYPERFLEET-NTF-000': ['not-found', 'Endpoint Not Found'],
  'HYPERFLEET-NTF-001': ['not-found', 'Resource Not Found'],
  'HYPERFLEET-INT-001': ['internal-error', 'Internal Server Error'],
  'HYPERFLEET-INT-003': ['not-implemented', 'Not Implemented'],
};

/** RFC 9457 problem details as pkg/errors ServiceError.AsProblemDetails renders them. */
function problem(status: number, code: string, detail: string, instance: string, errors?: unknown[]): Record<string, unknown> {
  const [type, title] = TITLES[code] ?? ['internal-error', 'Internal Server Error'];
  return {
    type: `https://api.hyperfleet.io/errors/${type}`,
    title,
    status,
    detail,
    code,
    timestamp: new Date().toISOString(),
    instance,
    ...(errors ? { errors } : {}),
  };
}
