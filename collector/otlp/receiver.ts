/**
 * The OTLP/HTTP trace receiver: `POST /v1/traces` -> body (limits, gunzip, timeouts) -> decode -> bounded queue ->
 * assembler -> RecordSink. Answers as the OTLP/HTTP spec says (docs/otlp.md has the table). Every refused request,
 * span and connection is handed to `sink.reject` with `where` naming it, and `sink.received` counts what arrived in
 * the same unit, so received = analyzed + dropped holds exactly:
 *   - a request whose body was read counts its spans, whatever its answer (a protobuf body refused for one bad string
 *     still has countable spans); one whose body could not be read as a request counts as one;
 *   - a request refused with 429 or 503 counts as one, whenever it was refused: its spans are not lost, the exporter
 *     sends them again, and that delivery is counted in spans;
 *   - a connection cut before its request's headers were complete counts as one (connections.ts).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RecordSink, RejectReason, Source } from '../records.js';
import { bearerTokenCheck } from './bearer.js';
import { SpanAssembler, DEFAULT_SPAN_ASSEMBLER_OPTIONS, type SpanAssemblerOptions } from './assembler.js';
import { BodyBudget, BodyProblem, BodyRead, declaredLength, isSupportedEncoding } from './body.js';
import { ConnectionGuard } from './connections.js';
import { decodeTraceBatch, encodingOf, type OtlpEncoding } from './decode.js';
import { DEFAULT_LIMITS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_TIMEOUTS, TIMEOUT_CHECK_MS, type OtlpLimits, type OtlpTimeouts } from './limits.js';
import { otlpTypes } from './proto.js';
import { SpanQueue } from './queue.js';
import { errorResponse, exportResponse, type OtlpResponse } from './responses.js';
import { realScheduler, type Scheduler } from './scheduler.js';
import type { SpanBatch } from './span-batch.js';
import { UndecodableBody, problemSpans, type SpanProblem } from './span.js';

export const TRACES_PATH = '/v1/traces';

export { DEFAULT_LIMITS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_TIMEOUTS, type OtlpLimits, type OtlpTimeouts } from './limits.js';

/** Node's own TLS: PEM contents (not paths). With `requestCert`, clients must present a certificate signed by `ca`. */
export interface OtlpTlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  readonly ca?: string | Buffer;
  readonly requestCert?: boolean;
}

export interface OtlpReceiverOptions extends Partial<OtlpTimeouts> {
  readonly host?: string;
  readonly port?: number;
  /** When set, requests must carry `Authorization: Bearer <token>` (401 otherwise). */
  readonly bearerToken?: string;
  readonly tls?: OtlpTlsOptions;
  readonly limits?: Partial<OtlpLimits>;
  readonly assembly?: Partial<SpanAssemblerOptions>;
  /** The `Retry-After` of 429 and 503 answers. */
  readonly retryAfterSeconds?: number;
  /** Spans assembled per event-loop turn. */
  readonly drainSliceSpans?: number;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4318;
const DEFAULT_DRAIN_SLICE_SPANS = 1_000;

/** What `handle` resolves to: an answer, or nothing when the client is gone. */
type Answer = OtlpResponse | undefined;

export class OtlpReceiver implements Source {
  readonly kind = 'otlp' as const;
  private readonly limits: OtlpLimits;
  private readonly timeouts: OtlpTimeouts;
  private readonly assembler: SpanAssembler;
  private readonly queue: SpanQueue;
  private readonly budget: BodyBudget;
  private readonly guard: ConnectionGuard;
  private readonly authorized: (authorization: string | undefined) => boolean;
  private server: Server | undefined;
  private requests = 0;
  /** Bodies being read. */
  private readonly reading = new Set<BodyRead>();
  /** Requests between their headers and the end of their answer. */
  private readonly handling = new Set<Promise<void>>();
  private stopping = false;
  private graceOver = false;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly options: OtlpReceiverOptions,
    private readonly sink: RecordSink,
    private readonly scheduler: Scheduler = realScheduler,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.timeouts = {
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_TIMEOUTS.headersTimeoutMs,
      bodyIdleTimeoutMs: options.bodyIdleTimeoutMs ?? DEFAULT_TIMEOUTS.bodyIdleTimeoutMs,
      bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_TIMEOUTS.bodyTimeoutMs,
      shutdownGraceMs: options.shutdownGraceMs ?? DEFAULT_TIMEOUTS.shutdownGraceMs,
    };
    this.assembler = new SpanAssembler({ ...DEFAULT_SPAN_ASSEMBLER_OPTIONS, ...options.assembly }, sink, scheduler);
    const slice = options.drainSliceSpans ?? DEFAULT_DRAIN_SLICE_SPANS;
    this.queue = new SpanQueue(this.limits.maxQueuedSpans, this.limits.maxQueuedBytes, slice, { span: (batch, i, where) => this.assemble(batch, i, where), reject: (r) => sink.reject(r) }, scheduler);
    this.budget = new BodyBudget(this.limits.maxBufferedBodyBytes);
    this.guard = new ConnectionGuard(this.limits, this.timeouts.headersTimeoutMs, (reason, where, message) => this.count(reason, where, message));
    this.authorized = options.bearerToken === undefined ? () => true : bearerTokenCheck(options.bearerToken);
  }

  /** Listening and not stopping: what `reconcile_shadow_source_up` should say for this source. */
  get up(): boolean {
    return this.server?.listening === true && !this.stopping;
  }

  /** Attempts waiting for more spans. */
  get pendingAttempts(): number {
    return this.assembler.pendingAttempts;
  }

  /** Requests whose body is being read. */
  get requestsInFlight(): number {
    return this.reading.size;
  }

  /** Bytes the bodies being read hold. */
  get bufferedBodyBytes(): number {
    return this.budget.bytes;
  }

  /** Open connections. */
  get connections(): number {
    return this.guard.connections;
  }

  /** Decoded spans (and rejections of requests refused whole) not yet handed on. */
  get queuedSpans(): number {
    return this.queue.length;
  }

  async start(): Promise<void> {
    if (this.server) throw new Error('OtlpReceiver: already started');
    otlpTypes(); // a missing or broken .proto fails the start, not the first request
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.handle(req, res);
    const http = {
      headersTimeout: this.timeouts.headersTimeoutMs,
      // bodies are timed by BodyRead, which knows whether they still flow
      requestTimeout: 0,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    };
    const tls = this.options.tls;
    const server = tls
      ? createHttpsServer({ ...http, cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: tls.requestCert ?? false, rejectUnauthorized: tls.requestCert ?? false, handshakeTimeout: this.timeouts.headersTimeoutMs }, handler)
      : createHttpServer(http, handler);
    this.guard.attach(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? DEFAULT_PORT, this.options.host ?? DEFAULT_HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  /** Where it listens (after start); with port 0 this is the port the system chose. */
  address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | null | undefined;
    if (!a) throw new Error('OtlpReceiver: not started');
    return { host: a.address, port: a.port };
  }

  /**
   * Stops accepting connections; requests that arrive on open ones are answered 503. Bodies being read get
   * `shutdownGraceMs` to end (they are then accepted); those still open after it are answered 503 and counted. Resolves
   * once every request is answered and counted, and everything queued and pending is handed on.
   */
  stop(): Promise<void> {
    this.stopping = true;
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  private async shutdown(): Promise<void> {
    const server = this.server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await this.settledWithin(this.timeouts.shutdownGraceMs);
      // no request may start after the grace: connections without one go, bodies still open are answered
      this.graceOver = true;
      this.guard.closeUnserved();
      for (const read of this.reading) read.abort(this.cutByShutdown());
      // every response now says `connection: close`, so each connection carries at most one more request
      while (this.handling.size > 0) await Promise.allSettled([...this.handling]);
      server.closeAllConnections();
      await closed;
    }
    this.queue.drainAll();
    this.assembler.flush();
  }

  /** Resolves when no request is being handled, or after `ms`. */
  private settledWithin(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const grace = this.scheduler.setTimer(ms, resolve);
      const check = (): void => {
        if (this.handling.size === 0) {
          grace.cancel();
          resolve();
        } else void Promise.allSettled([...this.handling]).then(check);
      };
      check();
    });
  }

  private assemble(batch: SpanBatch, i: number, where: string): void {
    try {
      this.assembler.addFrom(batch, i, where);
    } catch (e) {
      this.sink.reject({ source: 'otlp', reason: 'internal_error', where, message: `assembling span ${batch.span(i).spanId}: ${(e as Error).message}` });
    }
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const n = ++this.requests;
    const path = (req.url ?? '').split('?', 1)[0]!;
    const where = `${req.method} ${path} #${n} from ${req.socket.remoteAddress}:${req.socket.remotePort}`;
    const served = this.guard.serve(req.socket);
    const handled = this.serve(req, path, where)
      .catch((e: unknown): Answer => this.refuse(where, 'json', 500, 'internal_error', `the receiver failed: ${(e as Error).message}`))
      .then((answer) => send(res, answer, this.stopping))
      .finally(() => {
        served();
        this.handling.delete(handled);
      });
    this.handling.add(handled);
  }

  /** The answer to one request, or undefined when the client is gone. */
  private async serve(req: IncomingMessage, path: string, where: string): Promise<Answer> {
    if (path !== TRACES_PATH) return errorResponse('json', 404, `no such path: OTLP traces go to POST ${TRACES_PATH}`);
    if (req.method !== 'POST') return errorResponse('json', 405, `${req.method} is not allowed: use POST`, { allow: 'POST' });
    const contentType = req.headers['content-type'];
    const encoding = encodingOf(contentType);
    const answerIn = encoding ?? 'json';
    if (!this.authorized(req.headers.authorization)) {
      return this.refuse(where, answerIn, 401, 'unauthorized', 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
    }
    if (!encoding) {
      const message = `content-type ${JSON.stringify(contentType ?? '')}: send application/x-protobuf or application/json`;
      return this.refuse(where, answerIn, 415, 'unsupported_media_type', message);
    }
    const contentEncoding = req.headers['content-encoding'];
    if (!isSupportedEncoding(contentEncoding)) {
      return this.refuse(where, encoding, 415, 'unsupported_media_type', `content-encoding ${JSON.stringify(contentEncoding)}: send gzip or none`);
    }
    const arrivedStopping = this.stopping;
    if (!arrivedStopping) {
      const refused = this.admit(req, where, encoding);
      if (refused) return refused;
    }
    // while stopping the body is still read (and dropped) before the 503, so the client is not reset mid-send
    const body = await this.read(req, where, encoding);
    if (!Buffer.isBuffer(body)) return body;
    if (arrivedStopping) return this.unavailable(where, encoding);
    return this.accept(body, encoding, where);
  }

  /** Refuses a request at the door (before its body is read): queue full, no room for its body, or too large. */
  private admit(req: IncomingMessage, where: string, encoding: OtlpEncoding): Answer | null {
    if (this.queue.full) return this.busy(where, encoding, this.queueState());
    const declared = declaredLength(req);
    if (declared !== undefined && declared > this.limits.maxBodyBytes) {
      return this.refuse(where, encoding, 413, 'body_too_large', `content-length ${declared} exceeds the limit of ${this.limits.maxBodyBytes} bytes`, { connection: 'close' });
    }
    if (this.budget.full || (declared !== undefined && this.budget.bytes + declared > this.budget.limit)) {
      return this.busy(where, encoding, `bodies being read hold ${this.budget.bytes} bytes (limit ${this.budget.limit})${declared === undefined ? '' : ` and this one is ${declared}`}`);
    }
    return null;
  }

  /** The body, or the answer when it could not be read. */
  private async read(req: IncomingMessage, where: string, encoding: OtlpEncoding): Promise<Buffer | Answer> {
    const t = this.timeouts;
    const read = new BodyRead(req, this.limits, this.budget, { idleMs: t.bodyIdleTimeoutMs, totalMs: t.bodyTimeoutMs }, this.scheduler);
    this.reading.add(read);
    if (this.graceOver) read.abort(this.cutByShutdown());
    try {
      return await read.done;
    } catch (e) {
      if (!(e instanceof BodyProblem)) throw e;
      if (e.status === undefined) {
        this.refuse(where, encoding, 400, e.reason, e.message);
        return undefined;
      }
      const headers = { ...(e.status === 429 || e.status === 503 ? this.retryAfter() : {}), ...(e.connectionClose ? { connection: 'close' } : {}) };
      return this.refuse(where, encoding, e.status, e.reason, e.message, headers);
    } finally {
      this.reading.delete(read);
      read.release();
    }
  }

  private accept(body: Buffer, encoding: OtlpEncoding, where: string): OtlpResponse {
    let decoded;
    try {
      decoded = decodeTraceBatch(body, encoding, this.limits);
    } catch (e) {
      if (!(e instanceof UndecodableBody)) throw e;
      return this.refuseSpans(where, encoding, 400, 'undecodable_body', e.message, e.spans ?? 1);
    }
    const { batch: spans, problems } = decoded;
    const rejected = problemSpans(problems);
    // spans past the limit are rejected one by one, each a call down to the metrics; past twice the limit that work
    // is no longer bounded by the kept spans' (a 4 MiB body holds two million empty spans), so the request is
    // refused whole and its rejections are queued, to be counted in slices
    if (spans.length + rejected > 2 * this.limits.maxSpansPerRequest) {
      const message = `${spans.length + rejected} spans: more than twice the limit of ${this.limits.maxSpansPerRequest} spans per request`;
      return this.refuseSpans(where, encoding, 413, 'too_many_spans', message, spans.length + rejected);
    }
    const bytes = spans.totalBytes;
    // requests decoded side by side must not overfill the queue together
    if (this.queue.length > 0 && this.queue.length + spans.length > this.limits.maxQueuedSpans) {
      return this.busy(where, encoding, `the queue holds ${this.queue.length} spans and this request has ${spans.length} (limit ${this.limits.maxQueuedSpans})`);
    }
    if (this.queue.length > 0 && this.queue.bytes + bytes > this.limits.maxQueuedBytes) {
      return this.busy(where, encoding, `the queue holds ${this.queue.bytes} bytes of spans and this request has ${bytes} (limit ${this.limits.maxQueuedBytes})`);
    }
    this.sink.received?.('otlp', spans.length + rejected);
    for (const p of problems) {
      const rejection = { source: 'otlp', reason: p.reason, where, message: p.message } as const;
      for (let i = p.count ?? 1; i > 0; i--) this.sink.reject(rejection);
    }
    this.queue.push(spans, where);
    return exportResponse(encoding, rejected, summarize(problems, rejected));
  }

  private cutByShutdown(): BodyProblem {
    return new BodyProblem(503, 'shutdown', `the receiver stopped: the body did not end within the ${this.timeouts.shutdownGraceMs} ms grace`);
  }

  /** Why the queue is full: the span count or the bytes. */
  private queueState(): string {
    if (this.queue.length >= this.limits.maxQueuedSpans) return `the queue holds ${this.queue.length} spans (limit ${this.limits.maxQueuedSpans})`;
    return `the queue holds ${this.queue.bytes} bytes of spans (limit ${this.limits.maxQueuedBytes})`;
  }

  private busy(where: string, encoding: OtlpEncoding, why: string): OtlpResponse {
    return this.refuse(where, encoding, 429, 'queue_full', `${why}: retry later`, this.retryAfter());
  }

  private unavailable(where: string, encoding: OtlpEncoding): OtlpResponse {
    return this.refuse(where, encoding, 503, 'shutdown', 'the receiver is stopping', this.retryAfter());
  }

  /** A request refused whole before its spans could be counted: one record received and one dropped. */
  private refuse(where: string, encoding: OtlpEncoding, status: number, reason: RejectReason, message: string, headers?: Record<string, string>): OtlpResponse {
    this.count(reason, where, message);
    return errorResponse(encoding, status, message, headers);
  }

  /** A request refused whole after its `spans` were counted: that many received and dropped, the drops in slices. */
  private refuseSpans(where: string, encoding: OtlpEncoding, status: number, reason: RejectReason, message: string, spans: number): OtlpResponse {
    this.sink.received?.('otlp', spans);
    this.queue.pushRejections({ source: 'otlp', reason, where, message }, spans);
    return errorResponse(encoding, status, message);
  }

  private count(reason: RejectReason, where: string, message: string): void {
    this.sink.received?.('otlp', 1);
    this.sink.reject({ source: 'otlp', reason, where, message });
  }

  private retryAfter(): Record<string, string> {
    return { 'retry-after': String(this.options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) };
  }
}

/** Writes the answer (or drops the connection of a client that is gone); resolves once it is handed to the socket. */
function send(res: ServerResponse, answer: Answer, closing: boolean): Promise<void> {
  if (!answer) {
    res.destroy();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    res.once('close', resolve);
    // while stopping, no connection carries another request
    res.writeHead(answer.status, { ...answer.headers, ...(closing ? { connection: 'close' } : {}), 'content-length': String(answer.body.byteLength) });
    res.end(answer.body, resolve);
  });
}

/** The `partial_success.error_message`: how many per reason, and the first span's problem. */
function summarize(problems: readonly SpanProblem[], rejected: number): string {
  if (problems.length === 0) return '';
  const byReason = new Map<string, number>();
  for (const p of problems) byReason.set(p.reason, (byReason.get(p.reason) ?? 0) + (p.count ?? 1));
  const counts = [...byReason].map(([reason, n]) => `${n} ${reason}`).join(', ');
  return `${rejected} span(s) rejected (${counts}); first: ${problems[0]!.message}`;
}
