/**
 * Reads a request body under two size limits, a memory budget shared by every request, and two timeouts.
 *   - `maxBodyBytes` bounds the bytes on the wire, plain or gzip; `maxDecompressedBytes` bounds what a gzip body
 *     inflates to (a plain body is only held to the wire limit). Inflation is streamed and stopped as soon as the
 *     output passes the limit, so a gzip bomb costs at most the limit, never its full size.
 *   - The budget (`BodyBudget`) is taken byte by byte as a body arrives, never reserved ahead: a client that sends
 *     slowly or not at all holds nothing, so slow clients cannot starve the others.
 *   - A body must keep flowing (`idleMs` between bytes) and end within `totalMs` of its headers; a slow one is cut.
 * Chunked bodies (the OTel JS exporter sends gzip without a content-length) are read the same way.
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { RejectReason } from '../../records.js';
import type { Scheduler, Timer } from './scheduler.js';

export interface BodyLimits {
  /** Bytes on the wire, whatever the encoding. */
  readonly maxBodyBytes: number;
  /** Bytes a gzip body inflates to. */
  readonly maxDecompressedBytes: number;
}

export interface BodyTimeouts {
  /** The longest gap between two pieces of a body. */
  readonly idleMs: number;
  /** From the end of the headers to the end of the body. */
  readonly totalMs: number;
}

/**
 * Why a body was refused, with the HTTP status to answer (undefined: the client is gone, nothing to answer).
 * `connectionClose`: the rest of the body was not read, so the connection cannot carry another request.
 */
export class BodyProblem extends Error {
  constructor(
    readonly status: 408 | 413 | 400 | 429 | 503 | undefined,
    readonly reason: RejectReason,
    message: string,
    readonly connectionClose = true,
  ) {
    super(message);
  }
}

/**
 * The bytes held by bodies being read, across all requests: what arrived on the wire plus, for gzip, what it
 * inflated to so far. Bounded, so that any number of concurrent requests holds at most `limit` outside the heap.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  get bytes(): number {
    return this.held;
  }

  get full(): boolean {
    return this.held >= this.limit;
  }

  /** Takes `n` bytes, or nothing (false) when they would pass the limit. */
  take(n: number): boolean {
    if (this.held + n > this.limit) return false;
    this.held += n;
    return true;
  }

  give(n: number): void {
    this.held -= n;
  }
}

/** `gzip` or none; any other content-encoding is not supported by OTLP/HTTP. */
export function isSupportedEncoding(contentEncoding: string | undefined): boolean {
  const e = (contentEncoding ?? '').trim().toLowerCase();
  return e === '' || e === 'identity' || e === 'gzip';
}

/** The content-length the client declared, or undefined (chunked). */
export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

/**
 * One request's body being read. `done` resolves with the body (inflated when gzip) or rejects with a BodyProblem;
 * `abort` ends the read early (the receiver stopping). The budget the body took is held until `release`, after the
 * body was decoded.
 */
export class BodyRead {
  readonly done: Promise<Buffer>;
  private chunks: Buffer[] = [];
  private wireBytes = 0;
  private bodyBytes = 0;
  private held = 0;
  private settled = false;
  private ended = false;
  /** Found while the rest of the body is still arriving; reported at its end. */
  private problem: BodyProblem | undefined;
  private readonly inflater: Gunzip | undefined;
  private idle: Timer | undefined;
  private readonly deadline: Timer;
  private resolve!: (body: Buffer) => void;
  private reject!: (problem: BodyProblem) => void;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limits: BodyLimits,
    private readonly budget: BodyBudget,
    private readonly timeouts: BodyTimeouts,
    private readonly scheduler: Scheduler,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const gzip = (req.headers['content-encoding'] ?? '').trim().toLowerCase() === 'gzip';
    this.inflater = gzip ? createGunzip() : undefined;
    this.deadline = scheduler.setTimer(timeouts.totalMs, () =>
      this.fail(new BodyProblem(408, 'request_timeout', `the body did not end within ${timeouts.totalMs} ms of the headers`)),
    );
    this.armIdle();
    req.on('data', this.onWire);
    req.on('end', this.onEnd);
    req.on('close', this.onClose);
    if (this.inflater) {
      this.inflater.on('data', this.take);
      this.inflater.on('end', this.finish);
      this.inflater.on('error', (e) => this.stopInflating(new BodyProblem(400, 'undecodable_body', `content-encoding gzip: ${e.message}`, false)));
    }
  }

  /** Whether every byte of the body arrived (it may still be inflating). */
  get complete(): boolean {
    return this.ended;
  }

  abort(problem: BodyProblem): void {
    this.fail(problem);
  }

  /** Gives back the budget the body took; call once, when the body is no longer held. */
  release(): void {
    this.budget.give(this.held);
    this.held = 0;
    this.chunks = [];
  }

  private armIdle(): void {
    this.idle?.cancel();
    this.idle = this.scheduler.setTimer(this.timeouts.idleMs, () =>
      this.fail(new BodyProblem(408, 'request_timeout', `no byte of the body arrived for ${this.timeouts.idleMs} ms`)),
    );
  }

  private hold(n: number): boolean {
    if (!this.budget.take(n)) {
      const message = `bodies being read hold ${this.budget.bytes} bytes (limit ${this.budget.limit}): retry later`;
      this.fail(new BodyProblem(429, 'queue_full', message));
      return false;
    }
    this.held += n;
    return true;
  }

  private readonly onWire = (chunk: Buffer): void => {
    if (this.settled) return;
    this.armIdle();
    this.wireBytes += chunk.length;
    if (this.wireBytes > this.limits.maxBodyBytes)
      return this.fail(new BodyProblem(413, 'body_too_large', `the body exceeds the limit of ${this.limits.maxBodyBytes} bytes`));
    if (this.problem || !this.hold(chunk.length)) return;
    if (this.inflater) this.inflater.write(chunk);
    else {
      this.bodyBytes += chunk.length;
      this.chunks.push(chunk);
    }
  };

  /** An inflated piece of a gzip body. */
  private readonly take = (chunk: Buffer): void => {
    if (this.problem || this.settled) return;
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.limits.maxDecompressedBytes) {
      this.stopInflating(
        new BodyProblem(413, 'decompressed_too_large', `the body inflates past the limit of ${this.limits.maxDecompressedBytes} bytes`, false),
      );
    } else if (this.hold(chunk.length)) this.chunks.push(chunk);
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    if (this.problem) this.fail(this.problem);
    else if (this.inflater) this.inflater.end();
    else this.finish();
  };

  private readonly onClose = (): void => {
    if (!this.req.complete) this.fail(new BodyProblem(undefined, 'undecodable_body', 'the client went away before the body ended'));
  };

  /**
   * A body that inflates too far or is not gzip stops being inflated, but the rest of it is still read (it is
   * within the wire limit), so the client gets its answer on a healthy connection.
   */
  private stopInflating(p: BodyProblem): void {
    this.problem ??= p;
    this.chunks = [];
    this.inflater?.destroy();
    if (this.ended) this.fail(this.problem);
  }

  private readonly finish = (): void => {
    if (this.problem) return this.fail(this.problem);
    if (this.settle()) this.resolve(Buffer.concat(this.chunks, this.bodyBytes));
  };

  private fail(p: BodyProblem): void {
    if (this.settle()) this.reject(p);
  }

  /** Stops listening and timing; true the first time only. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.idle?.cancel();
    this.deadline.cancel();
    this.req.off('data', this.onWire);
    this.inflater?.destroy();
    return true;
  }
}
