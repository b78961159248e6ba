/**
 * The OTLP trace receiver: `POST /v1/traces` -> body (limits, gunzip, timeouts) -> decode -> bounded queue ->
 * assembler -> RecordSink, and, when `grpc` is set, the OTLP/gRPC TraceService/Export into the same intake
 * (grpc.ts). Answers as the OTLP spec says (docs/otlp.md has the table). Every refused request, span and connection
 * is handed to `sink.reject` with `where` naming it, and `sink.received` counts what arrived in the same unit, so
 * received = analyzed + dropped holds exactly:
 *   - a request whose body was read counts its spans, whatever its answer (a protobuf body refused for one bad string
 *     still has countable spans); one whose body could not be read as a request counts as one;
 *   - a request refused with 429 or 503 counts as one, whenever it was refused: its spans are not lost, the exporter
 *     sends them again, and that delivery is counted in spans;
 *   - a connection cut before its request's headers were complete counts as one (connections.ts).
 * The refusals themselves, and their books, are the intake's (intake.ts), shared by both transports.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RecordSink, RejectReason, Source } from '../../records.js';
import { bearerTokenCheck } from '../bearer.js';
import { SpanAssembler, DEFAULT_SPAN_ASSEMBLER_OPTIONS, type SpanAssemblerOptions } from './assembler.js';
import { BodyBudget, BodyProblem, BodyRead, declaredLength, isSupportedEncoding } from './body.js';
import { ConnectionGuard } from './connections.js';
import { encodingOf, type OtlpEncoding } from './decode.js';
import type { OtlpGrpcServer } from './grpc.js';
import { SpanIntake, type RefusalStatus, type Verdict } from './intake.js';
import { DEFAULT_LIMITS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_TIMEOUTS, TIMEOUT_CHECK_MS, type OtlpLimits, type OtlpTimeouts } from './limits.js';
import { otlpTypes } from './proto.js';
import { SpanQueue } from './queue.js';
import { errorResponse, exportResponse, type OtlpResponse } from './responses.js';
import { realScheduler, type Scheduler } from './scheduler.js';
import type { SpanBatch } from './span-batch.js';
import { SpanMapper, type SpanMappingConfig } from './span-mappings.js';
import { DEFAULT_PORTS } from '../../../lib/ports.js';

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
  /** Span shapes of other operators mapped onto the convention (span-mappings.ts); the convention alone by default. */
  readonly spanMappings?: readonly SpanMappingConfig[];
  /** Also serve OTLP/gRPC (TraceService/Export) here, with the same token, TLS, limits and books. */
  readonly grpc?: { readonly host?: string; readonly port?: number };
}

export const DEFAULT_HOST = '127.0.0.1';
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
  private readonly intake: SpanIntake;
  private readonly authorized: (authorization: string | undefined) => boolean;
  private server: Server | undefined;
  private grpcServer: OtlpGrpcServer | undefined;
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
    const mapper = new SpanMapper(options.spanMappings ?? []);
    const shapes = mapper.active ? { rootShapes: mapper.names } : {};
    this.assembler = new SpanAssembler({ ...DEFAULT_SPAN_ASSEMBLER_OPTIONS, ...shapes, ...options.assembly }, sink, scheduler);
    const slice = options.drainSliceSpans ?? DEFAULT_DRAIN_SLICE_SPANS;
    this.queue = new SpanQueue(
      this.limits.maxQueuedSpans,
      this.limits.maxQueuedBytes,
      slice,
      { span: (batch, i, where) => this.assemble(batch, i, where), reject: (r) => sink.reject(r) },
      scheduler,
    );
    this.budget = new BodyBudget(this.limits.maxBufferedBodyBytes);
    this.intake = new SpanIntake(this.limits, this.queue, sink, options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS, mapper);
    this.guard = new ConnectionGuard(this.limits, this.timeouts.headersTimeoutMs, (reason, where, message) => this.intake.count(reason, where, message));
    this.authorized = options.bearerToken === undefined ? () => true : bearerTokenCheck(options.bearerToken);
  }

  /** Listening and not stopping: what `reconcile_shadow_source_up` should say for this source. */
  get up(): boolean {
    return this.server?.listening === true && (this.options.grpc === undefined || this.grpcServer !== undefined) && !this.stopping;
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
      ? createHttpsServer(
          {
            ...http,
            cert: tls.cert,
            key: tls.key,
            ca: tls.ca,
            requestCert: tls.requestCert ?? false,
            rejectUnauthorized: tls.requestCert ?? false,
            handshakeTimeout: this.timeouts.headersTimeoutMs,
          },
          handler,
        )
      : createHttpServer(http, handler);
    this.guard.attach(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? DEFAULT_PORTS.otlpHttp, this.options.host ?? DEFAULT_HOST, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    if (this.options.grpc) {
      // grpc-js is loaded only when gRPC is configured
      const { OtlpGrpcServer } = await import('./grpc.js');
      const grpc = new OtlpGrpcServer(
        { host: this.options.grpc.host ?? DEFAULT_HOST, port: this.options.grpc.port ?? DEFAULT_PORTS.otlpGrpc, ...(tls ? { tls } : {}) },
        this.limits,
        { intake: this.intake, authorized: this.authorized, stopping: () => this.stopping },
      );
      try {
        await grpc.start();
      } catch (e) {
        server.close();
        throw e;
      }
      this.grpcServer = grpc;
    }
  }

  /** Where it listens (after start); with port 0 this is the port the system chose. */
  address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | null | undefined;
    if (!a) throw new Error('OtlpReceiver: not started');
    return { host: a.address, port: a.port };
  }

  /** Where OTLP/gRPC is served (after start, when configured). */
  grpcAddress(): { host: string; port: number } {
    if (!this.grpcServer) throw new Error('OtlpReceiver: gRPC not started');
    return this.grpcServer.address();
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
    // gRPC calls carry their whole message when they reach the intake: they are answered at once (503 while stopping)
    const grpcStopped = this.grpcServer?.stop(this.timeouts.shutdownGraceMs);
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
    await grpcStopped;
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
    if (arrivedStopping) return answer(encoding, this.intake.unavailable(where));
    return answer(encoding, this.intake.accept(body, encoding, where));
  }

  /** Refuses a request at the door (before its body is read): queue full, no room for its body, or too large. */
  private admit(req: IncomingMessage, where: string, encoding: OtlpEncoding): Answer | null {
    const full = this.intake.admit(where);
    if (full) return answer(encoding, full);
    const declared = declaredLength(req);
    if (declared !== undefined && declared > this.limits.maxBodyBytes) {
      return this.refuse(where, encoding, 413, 'body_too_large', `content-length ${declared} exceeds the limit of ${this.limits.maxBodyBytes} bytes`, {
        connection: 'close',
      });
    }
    if (this.budget.full || (declared !== undefined && this.budget.bytes + declared > this.budget.limit)) {
      return answer(
        encoding,
        this.intake.busy(
          where,
          `bodies being read hold ${this.budget.bytes} bytes (limit ${this.budget.limit})${declared === undefined ? '' : ` and this one is ${declared}`}`,
        ),
      );
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
      return answer(
        encoding,
        this.intake.refuse(where, e.status, e.reason, e.message, e.status === 429 || e.status === 503),
        e.connectionClose ? { connection: 'close' } : {},
      );
    } finally {
      this.reading.delete(read);
      read.release();
    }
  }

  private cutByShutdown(): BodyProblem {
    return new BodyProblem(503, 'shutdown', `the receiver stopped: the body did not end within the ${this.timeouts.shutdownGraceMs} ms grace`);
  }

  /** A request refused whole before its spans could be counted, answered over HTTP. */
  private refuse(
    where: string,
    encoding: OtlpEncoding,
    status: RefusalStatus,
    reason: RejectReason,
    message: string,
    headers?: Record<string, string>,
  ): OtlpResponse {
    return answer(encoding, this.intake.refuse(where, status, reason, message), headers);
  }
}

/** A verdict as an OTLP/HTTP answer: 200 with an ExportTraceServiceResponse, or the status with a google.rpc.Status. */
function answer(encoding: OtlpEncoding, verdict: Verdict, headers: Record<string, string> = {}): OtlpResponse {
  if (verdict.accepted) return exportResponse(encoding, verdict.rejectedSpans, verdict.errorMessage);
  const retry: Record<string, string> = verdict.retryAfterSeconds === undefined ? {} : { 'retry-after': String(verdict.retryAfterSeconds) };
  return errorResponse(encoding, verdict.status, verdict.message, { ...retry, ...headers });
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
