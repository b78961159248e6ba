/**
 * What the receiver does with a request once it is in hand, whichever transport brought it (OTLP/HTTP, receiver.ts;
 * OTLP/gRPC, grpc.ts): decode it, hold it to the span limits and the queue, count it, and say what to answer as a
 * Verdict that each transport writes its own way (an HTTP status and body; a gRPC status, with RetryInfo for
 * back-pressure). The refusals and their books are defined here once, so both transports refuse the same request for
 * the same reason and count it the same:
 *   - a request whose body was read counts its spans, whatever its answer;
 *   - a request refused before its spans could be counted counts as one, and so does every back-pressure refusal
 *     (its spans are not lost, the exporter sends them again, and that delivery is counted in spans).
 */
import type { RecordSink, RejectReason } from '../../records.js';
import { decodeTraceBatch, type OtlpEncoding } from './decode.js';
import type { OtlpLimits } from './limits.js';
import type { SpanQueue } from './queue.js';
import type { SpanMapper } from './span-mappings.js';
import { UndecodableBody, problemSpans, type DecodeLimits, type SpanProblem } from './span.js';

/** The HTTP status a refusal stands for; gRPC answers the code OTLP pairs with it (responses.ts, GRPC_CODE). */
export type RefusalStatus = 400 | 401 | 408 | 413 | 415 | 429 | 500 | 503;

export type Verdict =
  | { readonly accepted: true; readonly rejectedSpans: number; readonly errorMessage: string }
  | {
      readonly accepted: false;
      readonly status: RefusalStatus;
      readonly message: string;
      /** Back-pressure: when to send again (HTTP `Retry-After`, gRPC RetryInfo). */
      readonly retryAfterSeconds?: number;
    };

export type Refused = Extract<Verdict, { accepted: false }>;

export class SpanIntake {
  private readonly decodeLimits: DecodeLimits;
  private readonly mapper: SpanMapper | undefined;

  constructor(
    private readonly limits: OtlpLimits,
    private readonly queue: SpanQueue,
    private readonly sink: RecordSink,
    private readonly retryAfterSeconds: number,
    mapper?: SpanMapper,
  ) {
    this.mapper = mapper?.active ? mapper : undefined;
    this.decodeLimits = this.mapper ? { ...limits, keptKeys: this.mapper.keptKeys } : limits;
  }

  /** Refused at the door because the queue is full, else null. */
  admit(where: string): Refused | null {
    return this.queue.full ? this.busy(where, this.queueState()) : null;
  }

  /** A whole request body (inflated), decoded and queued, or refused. */
  accept(body: Uint8Array, encoding: OtlpEncoding, where: string): Verdict {
    let decoded;
    try {
      decoded = decodeTraceBatch(body, encoding, this.decodeLimits);
    } catch (e) {
      if (!(e instanceof UndecodableBody)) throw e;
      return this.refuseSpans(where, 400, 'undecodable_body', e.message, e.spans ?? 1);
    }
    const { batch: spans, problems } = decoded;
    this.mapper?.apply(spans);
    const rejected = problemSpans(problems);
    // spans past the limit are rejected one by one, each a call down to the metrics; past twice the limit that work
    // is no longer bounded by the kept spans' (a 4 MiB body holds two million empty spans), so the request is
    // refused whole and its rejections are queued, to be counted in slices
    if (spans.length + rejected > 2 * this.limits.maxSpansPerRequest) {
      const message = `${spans.length + rejected} spans: more than twice the limit of ${this.limits.maxSpansPerRequest} spans per request`;
      return this.refuseSpans(where, 413, 'too_many_spans', message, spans.length + rejected);
    }
    const bytes = spans.totalBytes;
    // requests decoded side by side must not overfill the queue together
    if (this.queue.length > 0 && this.queue.length + spans.length > this.limits.maxQueuedSpans) {
      return this.busy(where, `the queue holds ${this.queue.length} spans and this request has ${spans.length} (limit ${this.limits.maxQueuedSpans})`);
    }
    if (this.queue.length > 0 && this.queue.bytes + bytes > this.limits.maxQueuedBytes) {
      return this.busy(where, `the queue holds ${this.queue.bytes} bytes of spans and this request has ${bytes} (limit ${this.limits.maxQueuedBytes})`);
    }
    this.sink.received?.('otlp', spans.length + rejected);
    for (const p of problems) {
      const rejection = { source: 'otlp', reason: p.reason, where, message: p.message } as const;
      for (let i = p.count ?? 1; i > 0; i--) this.sink.reject(rejection);
    }
    this.queue.push(spans, where);
    return { accepted: true, rejectedSpans: rejected, errorMessage: summarize(problems, rejected) };
  }

  /** Back-pressure: counted as one request, answered with when to retry. */
  busy(where: string, why: string): Refused {
    return this.refuse(where, 429, 'queue_full', `${why}: retry later`, true);
  }

  unavailable(where: string): Refused {
    return this.refuse(where, 503, 'shutdown', 'the receiver is stopping', true);
  }

  /** A request refused whole before its spans could be counted: one record received and one dropped. */
  refuse(where: string, status: RefusalStatus, reason: RejectReason, message: string, retry = false): Refused {
    this.count(reason, where, message);
    return { accepted: false, status, message, ...(retry ? { retryAfterSeconds: this.retryAfterSeconds } : {}) };
  }

  /** A request refused whole after its `spans` were counted: that many received and dropped, the drops in slices. */
  refuseSpans(where: string, status: RefusalStatus, reason: RejectReason, message: string, spans: number): Refused {
    this.sink.received?.('otlp', spans);
    this.queue.pushRejections({ source: 'otlp', reason, where, message }, spans);
    return { accepted: false, status, message };
  }

  /** One record received and dropped: a request or a connection refused before it had spans to count. */
  count(reason: RejectReason, where: string, message: string): void {
    this.sink.received?.('otlp', 1);
    this.sink.reject({ source: 'otlp', reason, where, message });
  }

  /** Why the queue is full: the span count or the bytes. */
  private queueState(): string {
    if (this.queue.length >= this.limits.maxQueuedSpans) return `the queue holds ${this.queue.length} spans (limit ${this.limits.maxQueuedSpans})`;
    return `the queue holds ${this.queue.bytes} bytes of spans (limit ${this.limits.maxQueuedBytes})`;
  }
}

/** The `partial_success.error_message`: how many per reason, and the first span's problem. */
function summarize(problems: readonly SpanProblem[], rejected: number): string {
  if (problems.length === 0) return '';
  const byReason = new Map<string, number>();
  for (const p of problems) byReason.set(p.reason, (byReason.get(p.reason) ?? 0) + (p.count ?? 1));
  const counts = [...byReason].map(([reason, n]) => `${n} ${reason}`).join(', ');
  return `${rejected} span(s) rejected (${counts}); first: ${problems[0]!.message}`;
}
