/**
 * Test tools for the OTLP receiver: a hand-driven clock (no sleeps), a sink that records what it is given and can be
 * waited on, and real OTel SDK pipelines (JSON or protobuf exporter) pointed at a receiver.
 */
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { AttemptRecord, RecordSink, Rejection, SourceKind } from '../../../collector/records.js';
import type { Scheduler, Timer } from '../../../collector/otlp/internal/scheduler.js';
import { Waiters, type WaitOptions } from '../../support/until.js';

/** Timers fire only when the test advances time; `defer` runs on the real event loop unless held. */
export class ManualScheduler implements Scheduler {
  private time = Date.UTC(2026, 10, 1);
  private timers: { at: number; seq: number; run: () => void; cancelled: boolean }[] = [];
  private seq = 0;
  private held: (() => void)[] | undefined;

  now(): number {
    return this.time;
  }

  setTimer(delayMs: number, run: () => void): Timer {
    const timer = { at: this.time + delayMs, seq: this.seq++, run, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  defer(run: () => void): void {
    if (this.held) this.held.push(run);
    else setImmediate(run);
  }

  /** Moves the clock, firing due timers in time order (timers they set are honoured too). */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.time = due.at;
      due.cancelled = true;
      due.run();
    }
    this.time = until;
    this.timers = this.timers.filter((t) => !t.cancelled);
  }

  get activeTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Deferred work waits until release(): the receiver's queue stops draining. */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const run of held) setImmediate(run);
  }
}

/** Records everything; `until` resolves when a condition on what arrived holds, or fails after a deadline. */
export class CollectingSink implements RecordSink {
  readonly attempts: AttemptRecord[] = [];
  readonly rejections: Rejection[] = [];
  /** The count of each `received` call: one call per request. */
  readonly receivedCalls: number[] = [];
  private readonly waiters = new Waiters();

  attempt(record: AttemptRecord): void {
    this.attempts.push(record);
    this.waiters.changed();
  }

  reject(rejection: Rejection): void {
    this.rejections.push(rejection);
    this.waiters.changed();
  }

  received(_source: SourceKind, count: number): void {
    this.receivedCalls.push(count);
    this.waiters.changed();
  }

  get receivedCount(): number {
    return this.receivedCalls.reduce((a, b) => a + b, 0);
  }

  /** Spans (or refused requests) accounted for: each attempt is its root plus one span per operation. */
  get accountedFor(): number {
    return this.attempts.reduce((n, a) => n + 1 + a.operations.length, 0) + this.rejections.length;
  }

  reasons(): string[] {
    return this.rejections.map((r) => r.reason);
  }

  until(what: string, check: () => boolean, options?: WaitOptions): Promise<void> {
    return this.waiters.until(what, check, options);
  }
}

export type Encoding = 'json' | 'protobuf';
export type ExporterConfig = NonNullable<ConstructorParameters<typeof JsonTraceExporter>[0]>;

export function otlpExporter(encoding: Encoding, url: string, config: ExporterConfig = {}): SpanExporter {
  return encoding === 'json' ? new JsonTraceExporter({ url, ...config }) : new ProtobufTraceExporter({ url, ...config });
}

/** A tracer whose spans go to `exporter` in batches of `batchSize` (sent on forceFlush), or one by one when `simple`. */
export function tracerProvider(exporter: SpanExporter, opts: { batchSize?: number; simple?: boolean } = {}): TracerProvider {
  const processor = opts.simple
    ? new SimpleSpanProcessor({ exporter })
    : new BatchSpanProcessor({ exporter, maxExportBatchSize: opts.batchSize ?? 512, maxQueueSize: 100_000, scheduledDelayMillis: 60_000 });
  return new TracerProvider({ spanProcessors: [processor] });
}

/** Finished spans captured in memory, to hand to an exporter's export() and read its result. */
export function capture(): { provider: TracerProvider; spans: () => ReadableSpan[] } {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
  return { provider, spans: () => memory.getFinishedSpans() };
}

export interface ExportOutcome {
  readonly code: number;
  readonly error?: Error & { code?: number | string; data?: string };
}

export function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportOutcome> {
  return new Promise((resolve) => exporter.export(spans, (result) => resolve(result)));
}
