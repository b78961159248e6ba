/**
 * Follows one container's log through the Kubernetes log API (`GET …/pods/{name}/log?follow=true&timestamps=true`)
 * with @kubernetes/client-node's Log class, and reconnects with exponential backoff whenever the stream ends or fails.
 *
 * Nothing is lost or doubled across a reconnect: every line carries the kubelet's timestamp (`timestamps=true`), the
 * reconnect asks for `sinceTime` = the last timestamp handed on, and the lines it gets again are skipped: those with
 * an earlier timestamp, and as many with that same timestamp as were already handed on. (The API server passes
 * sinceTime on with whole seconds, so a reconnect replays the rest of that second.) A line cut by the disconnect is
 * discarded and comes again in full. Needs RBAC `get` on `pods/log` in the pod's namespace.
 */
import { Writable, type Readable } from 'node:stream';
import { Log, type KubeConfig } from '@kubernetes/client-node';
import { LineSplitter } from '../../input/lines.js';
import type { LineConsumer } from './file-follower.js';

export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  readonly container: string;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_TIMERS: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface PodLogFollowerOptions {
  readonly kubeConfig: KubeConfig;
  readonly pod: PodRef;
  /** First connection only: lines since this RFC 3339 time; default the container's whole log. */
  readonly sinceTime?: string;
  readonly maxLineBytes: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  readonly timers: Timers;
  readonly onError: (error: Error) => void;
}

export interface PodLogStats {
  /** Streams opened (HTTP 200). */
  connections: number;
  /** Connection attempts that failed (HTTP error, refused). */
  failures: number;
  /** Lines received again after a reconnect and skipped. */
  duplicatesSkipped: number;
}

/** `2026-11-29T10:00:05.123456789Z` → a key that sorts in time order (whole seconds, then nanoseconds). */
function stampKey(stamp: string): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(stamp);
  if (!m) return undefined;
  const seconds = Date.parse(`${m[1]}${m[3]}`) / 1000;
  if (Number.isNaN(seconds)) return undefined;
  return `${String(seconds).padStart(12, '0')}.${(m[2] ?? '').padEnd(9, '0')}`;
}

export class PodLogFollower {
  readonly stats: PodLogStats = { connections: 0, failures: 0, duplicatesSkipped: 0 };
  private readonly log: Log;
  private readonly where: string;
  private lines = 0;
  private lastStamp: string | undefined;
  private lastKey = '';
  /** Lines handed on with exactly `lastKey`. */
  private atLastKey = 0;
  /** Lines with `lastKey` still to skip on the current connection. */
  private skipAtLastKey = 0;
  private backoffMs: number;
  private retry: unknown;
  private abort: AbortController | undefined;
  private closed = false;
  private connected = false;

  constructor(
    private readonly options: PodLogFollowerOptions,
    private readonly consumer: LineConsumer,
  ) {
    this.log = new Log(options.kubeConfig);
    const { namespace, name, container } = options.pod;
    this.where = `pod/${namespace}/${name}/${container}`;
    this.backoffMs = options.backoffInitialMs;
  }

  /** True while a log stream is open. */
  get up(): boolean {
    return this.connected;
  }

  /** Starts following; resolves once the first connection attempt is answered (its failure is retried). */
  async start(): Promise<void> {
    await this.connect();
  }

  close(): void {
    this.closed = true;
    this.options.timers.clearTimeout(this.retry);
    this.abort?.abort();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const { namespace, name, container } = this.options.pod;
    const since = this.lastStamp ?? this.options.sinceTime;
    this.skipAtLastKey = this.atLastKey;
    let received = false;
    const splitter = new LineSplitter(
      {
        line: (text) => {
          if (this.accept(text)) received = true;
        },
        tooLong: (_lineNo, bytes) => this.consumer.tooLong(`${this.where}:${++this.lines}`, bytes),
      },
      this.options.maxLineBytes,
    );
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        splitter.push(chunk);
        done();
      },
    });
    // Log pipes the response body into `sink`; a cut connection errors the body without ending the pipe, so the
    // body's own close is what says the stream is over, whichever way it ended. The body's error (client-node 2's
    // undici body: `TypeError: terminated`) is that same end, handled by the close: without a listener it would be
    // an uncaught exception.
    const ended = new Promise<void>((resolve) =>
      sink.once('pipe', (body: Readable) => {
        body.on('error', () => undefined);
        body.once('close', resolve);
      }),
    );
    try {
      this.abort = await this.log.log(namespace, name, container, sink, {
        follow: true,
        timestamps: true,
        ...(since === undefined ? {} : { sinceTime: since }),
      });
    } catch (e) {
      this.stats.failures++;
      this.options.onError(e as Error);
      this.scheduleReconnect();
      return;
    }
    this.stats.connections++;
    this.connected = true;
    void ended.then(() => {
      this.connected = false;
      // A partial last line is dropped with the splitter; the reconnect replays it whole. Only a stream that brought
      // new lines resets the backoff, so a pod whose log ends at once (terminated) is not polled in a tight loop.
      if (received) this.backoffMs = this.options.backoffInitialMs;
      this.scheduleReconnect();
    });
  }

  /** Hands the line on unless it was handed on before this reconnect; true when handed on. */
  private accept(raw: string): boolean {
    const space = raw.indexOf(' ');
    const stamp = space > 0 ? raw.slice(0, space) : '';
    const key = stampKey(stamp);
    if (key === undefined) {
      // Not stamped (should not happen with timestamps=true): hand it on, it cannot take part in de-duplication.
      this.consumer.line(raw, `${this.where}:${++this.lines}`);
      return true;
    }
    if (key < this.lastKey || (key === this.lastKey && this.skipAtLastKey > 0)) {
      if (key === this.lastKey) this.skipAtLastKey--;
      this.stats.duplicatesSkipped++;
      return false;
    }
    if (key === this.lastKey) this.atLastKey++;
    else {
      this.lastKey = key;
      this.atLastKey = 1;
      this.skipAtLastKey = 0;
    }
    this.lastStamp = stamp;
    this.consumer.line(raw.slice(space + 1), `${this.where}:${++this.lines}`);
    return true;
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.backoffMaxMs);
    this.retry = this.options.timers.setTimeout(() => void this.connect(), delay);
  }
}
