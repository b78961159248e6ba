/**
 * The OTLP/HTTP trace receiver: `POST /v1/traces` -> body (limits, gunzip) -> decode -> bounded queue -> assembler
 * -> RecordSink. Answers as the OTLP/HTTP spec says (docs/otlp.md has the table). Every refused request and span is
 * handed to `sink.reject` with `where` naming the request, and `sink.received` counts what arrived, so
 * received = analyzed + dropped holds exactly: one per span of a decoded request, one per request that was refused
 * before its spans could be counted.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RecordSink, RejectReason, Source } from '../records.js';
import { AttemptAssembler, DEFAULT_ASSEMBLER_OPTIONS, type AssemblerOptions } from './assembler.js';
import { BodyProblem, declaredTooLarge, isSupportedEncoding, readBody, type BodyLimits } from './body.js';
import { decodeTraceRequest, encodingOf, type OtlpEncoding } from './decode.js';
import { otlpTypes } from './proto.js';
import { SpanQueue } from './queue.js';
import { errorResponse, exportResponse, type OtlpResponse } from './responses.js';
import { realScheduler, type Scheduler } from './scheduler.js';
import { UndecodableBody, heldBytes, problemSpans, type DecodeLimits, type OtlpSpan, type SpanProblem } from './span.js';

export const TRACES_PATH = '/v1/traces';

export interface OtlpLimits extends BodyLimits, DecodeLimits {
  /** Decoded spans waiting for assembly; a request that would pass it gets 429 (one larger than it, only while it is empty). */
  readonly maxQueuedSpans: number;
  /** The same in bytes (heldBytes, an estimate of the heap the spans take), so large spans are bounded too. */
  readonly maxQueuedBytes: number;
  /** Requests being read and decoded at once (each holds its body in memory); more get 429. */
  readonly maxConcurrentRequests: number;
}

/**
 * Sized for the deployed container (V8 heap capped at 192 MiB, RSS target 256 MiB; docs/limits.md has the
 * arithmetic): bodies being read take up to maxConcurrentRequests × maxDecompressedBytes outside the heap, decoding
 * one takes up to ~22× its size in the heap for OTLP/JSON (about its size for protobuf), and the queue and the
 * assembler's pending spans hold up to their byte limits.
 */
export const DEFAULT_LIMITS: OtlpLimits = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxDecompressedBytes: 2 * 1024 * 1024,
  maxSpansPerRequest: 10_000,
  maxAttributesPerSpan: 128,
  maxStringLength: 8 * 1024,
  maxQueuedSpans: 50_000,
  maxQueuedBytes: 16 * 1024 * 1024,
  maxConcurrentRequests: 4,
};

/** Node's own TLS: PEM contents (not paths). With `requestCert`, clients must present a certificate signed by `ca`. */
export interface OtlpTlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  readonly ca?: string | Buffer;
  readonly requestCert?: boolean;
}

export interface OtlpReceiverOptions {
  readonly host?: string;
  readonly port?: number;
  /** When set, requests must carry `Authorization: Bearer <token>` (401 otherwise). */
  readonly bearerToken?: string;
  readonly tls?: OtlpTlsOptions;
  readonly limits?: Partial<OtlpLimits>;
  readonly assembly?: Partial<AssemblerOptions>;
  /** The `Retry-After` of 429 and 503 answers. */
  readonly retryAfterSeconds?: number;
  /** Spans assembled per event-loop turn. */
  readonly drainSliceSpans?: number;
  /** A request (headers and body) must arrive within this; slow clients are cut off. */
  readonly requestTimeoutMs?: number;
  /** On stop, requests still in flight after this are cut off. */
  readonly shutdownGraceMs?: number;
}

export const DEFAULT_OPTIONS = {
  host: '127.0.0.1',
  port: 4318,
  retryAfterSeconds: 1,
  drainSliceSpans: 1_000,
  requestTimeoutMs: 30_000,
  shutdownGraceMs: 2_000,
} as const;

export class OtlpReceiver implements Source {
  readonly kind = 'otlp' as const;
  private readonly limits: OtlpLimits;
  private readonly assembler: AttemptAssembler;
  private readonly queue: SpanQueue;
  private readonly tokenDigest: Buffer | undefined;
  private server: Server | undefined;
  private requests = 0;
  private inFlight = 0;
  private stopping = false;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly options: OtlpReceiverOptions,
    private readonly sink: RecordSink,
    private readonly scheduler: Scheduler = realScheduler,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.assembler = new AttemptAssembler({ ...DEFAULT_ASSEMBLER_OPTIONS, ...options.assembly }, sink, scheduler);
    const slice = options.drainSliceSpans ?? DEFAULT_OPTIONS.drainSliceSpans;
    this.queue = new SpanQueue(this.limits.maxQueuedSpans, this.limits.maxQueuedBytes, slice, (span, where) => this.assemble(span, where), scheduler);
    this.tokenDigest = options.bearerToken === undefined ? undefined : digest(options.bearerToken);
  }

  /** Attempts waiting for more spans. */
  get pendingAttempts(): number {
    return this.assembler.pendingAttempts;
  }

  /** Requests whose body is being read. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Decoded spans not yet assembled. */
  get queuedSpans(): number {
    return this.queue.length;
  }

  async start(): Promise<void> {
    if (this.server) throw new Error('OtlpReceiver: already started');
    otlpTypes(); // a missing or broken .proto fails the start, not the first request
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.handle(req, res);
    const tls = this.options.tls;
    const server = tls
      ? createHttpsServer({ cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: tls.requestCert ?? false, rejectUnauthorized: tls.requestCert ?? false }, handler)
      : createHttpServer(handler);
    const timeout = this.options.requestTimeoutMs ?? DEFAULT_OPTIONS.requestTimeoutMs;
    server.requestTimeout = timeout;
    server.headersTimeout = Math.min(server.headersTimeout, timeout);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? DEFAULT_OPTIONS.port, this.options.host ?? DEFAULT_OPTIONS.host, () => {
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

  /** Stops accepting, answers 503 to requests still arriving, then hands on everything queued and pending. */
  stop(): Promise<void> {
    this.stopping = true;
    this.stopped ??= this.closeServer().then(() => {
      this.queue.drainAll();
      this.assembler.flush();
    });
    return this.stopped;
  }

  private closeServer(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      const grace = this.scheduler.setTimer(this.options.shutdownGraceMs ?? DEFAULT_OPTIONS.shutdownGraceMs, () => server.closeAllConnections());
      server.close(() => {
        grace.cancel();
        resolve();
      });
      server.closeIdleConnections();
    });
  }

  private assemble(span: OtlpSpan, where: string): void {
    try {
      this.assembler.add(span, where);
    } catch (e) {
      this.sink.reject({ source: 'otlp', reason: 'internal_error', where, message: `assembling span ${span.spanId}: ${(e as Error).message}` });
    }
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const n = ++this.requests;
    const path = (req.url ?? '').split('?', 1)[0]!;
    const where = `${req.method} ${path} #${n} from ${req.socket.remoteAddress}:${req.socket.remotePort}`;
    this.serve(req, path, where).then(
      (answer) => send(res, answer),
      (e: unknown) => send(res, this.refuse(where, 'json', 500, 'internal_error', `the receiver failed: ${(e as Error).message}`)),
    );
  }

  /** The answer to one request, or undefined when the client is gone. */
  private async serve(req: IncomingMessage, path: string, where: string): Promise<OtlpResponse | undefined> {
    if (path !== TRACES_PATH) return errorResponse('json', 404, `no such path: OTLP traces go to POST ${TRACES_PATH}`);
    if (req.method !== 'POST') return errorResponse('json', 405, `${req.method} is not allowed: use POST`, { allow: 'POST' });
    const contentType = req.headers['content-type'];
    const encoding = encodingOf(contentType);
    const answerIn = encoding ?? 'json';
    if (!this.authorized(req)) {
      // no closer reason in the shared list; the message says what happened
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
    if (this.stopping) return this.unavailable(where, encoding);
    if (this.queue.full) return this.busy(where, encoding, this.queueState());
    if (this.inFlight >= this.limits.maxConcurrentRequests) {
      return this.busy(where, encoding, `${this.inFlight} requests are being read (limit ${this.limits.maxConcurrentRequests})`);
    }
    const declared = declaredTooLarge(req, this.limits);
    if (declared) return this.refuse(where, encoding, 413, declared.reason, declared.message, { connection: 'close' });
    let body: Buffer;
    this.inFlight++;
    try {
      body = await readBody(req, this.limits);
    } catch (e) {
      if (!(e instanceof BodyProblem)) throw e;
      if (e.status === undefined) {
        if (this.stopping) this.refuse(where, encoding, 503, 'shutdown', 'the request was cut off: the receiver stopped');
        else this.refuse(where, encoding, 400, e.reason, e.message);
        return undefined;
      }
      // past the wire limit the rest of the body is not read, so the connection cannot be reused
      return this.refuse(where, encoding, e.status, e.reason, e.message, e.reason === 'body_too_large' ? { connection: 'close' } : {});
    } finally {
      this.inFlight--;
    }
    if (this.stopping) return this.unavailable(where, encoding);
    return this.accept(body, encoding, where);
  }

  private accept(body: Buffer, encoding: OtlpEncoding, where: string): OtlpResponse {
    let decoded;
    try {
      decoded = decodeTraceRequest(body, encoding, this.limits);
    } catch (e) {
      if (!(e instanceof UndecodableBody)) throw e;
      return this.refuse(where, encoding, 400, 'undecodable_body', e.message);
    }
    const { spans, problems } = decoded;
    const rejected = problemSpans(problems);
    // spans past the limit are rejected one by one, each a call down to the metrics; past twice the limit that work
    // is no longer bounded by the kept spans' (a 2 MiB body holds a million empty spans), so the request is refused whole
    if (spans.length + rejected > 2 * this.limits.maxSpansPerRequest) {
      const message = `${spans.length + rejected} spans: more than twice the limit of ${this.limits.maxSpansPerRequest} spans per request`;
      return this.refuse(where, encoding, 413, 'too_many_spans', message);
    }
    let bytes = 0;
    for (const span of spans) bytes += heldBytes(span);
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
    this.queue.push(spans, bytes, where);
    return exportResponse(encoding, rejected, summarize(problems, rejected));
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

  /** A request refused whole: it counts as one record received and one dropped. */
  private refuse(where: string, encoding: OtlpEncoding, status: number, reason: RejectReason, message: string, headers?: Record<string, string>): OtlpResponse {
    this.sink.received?.('otlp', 1);
    this.sink.reject({ source: 'otlp', reason, where, message });
    return errorResponse(encoding, status, message, headers);
  }

  private retryAfter(): Record<string, string> {
    return { 'retry-after': String(this.options.retryAfterSeconds ?? DEFAULT_OPTIONS.retryAfterSeconds) };
  }

  private authorized(req: IncomingMessage): boolean {
    if (!this.tokenDigest) return true;
    const m = /^Bearer +(.+)$/i.exec(req.headers.authorization ?? '');
    // digests have equal lengths, so the comparison takes the same time whatever was sent
    return m !== null && timingSafeEqual(digest(m[1]!), this.tokenDigest);
  }
}

function send(res: ServerResponse, answer: OtlpResponse | undefined): void {
  if (!answer) {
    res.destroy();
    return;
  }
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.byteLength) });
  res.end(answer.body);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The `partial_success.error_message`: how many per reason, and the first span's problem. */
function summarize(problems: readonly SpanProblem[], rejected: number): string {
  if (problems.length === 0) return '';
  const byReason = new Map<string, number>();
  for (const p of problems) byReason.set(p.reason, (byReason.get(p.reason) ?? 0) + (p.count ?? 1));
  const counts = [...byReason].map(([reason, n]) => `${n} ${reason}`).join(', ');
  return `${rejected} span(s) rejected (${counts}); first: ${problems[0]!.message}`;
}
