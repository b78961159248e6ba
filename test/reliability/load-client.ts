/**
 * A load client that behaves like an instrumented operator: a seeded simulated fleet reconciles at a set rate, each
 * attempt becomes spans through `emitAttempt` and the real OTel SDK (TracerProvider, BatchSpanProcessor, OTLP/HTTP
 * protobuf exporter), several pipelines side by side. It keeps its own books on every span and request, so the
 * sidecar's counters can be checked against what was actually sent:
 *   produced = dropped by the span processors (their queues were full) + exported (200) + failed (the exporter gave up)
 * and on the wire every request and answer (seen through Node's http diagnostics channels), every retry, and the
 * pause before each retry that followed a 429/503 (the exporter must wait the `Retry-After`).
 * The load tests run it as child processes (load-client-process.ts), so it never competes with the test's own timers.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { emitAttempt } from '../../collector/otlp/internal/emit.js';
import type { AttemptRecord } from '../../collector/records.js';
import { resolveModel } from '../../sidecar/files.js';
import { World } from '../../simulator/world.js';

export interface LoadClientOptions {
  readonly url: string;
  /** Independent tracer providers, each with its own span processor, exporter and connections. */
  readonly pipelines: number;
  readonly seed: number;
  /** Keeps the objects of several clients apart. */
  readonly namespace: string;
  /** Set `reconcile.operation_count` on each root (default true), or leave the receiver to settle attempts. */
  readonly operationCount?: boolean;
}

/** What the client has done so far. */
export interface LoadBooks {
  /** Spans ended by the instrumented code (an attempt is its root plus one span per operation). */
  readonly produced: number;
  readonly attempts: number;
  /** Spans the BatchSpanProcessors dropped (queue full while exports waited) or still hold. */
  readonly notHandedOn: number;
  /** Spans in export calls, and how those ended. */
  readonly handedToExporter: number;
  readonly exported: number;
  readonly failed: number;
  readonly exportCalls: number;
  /** Failed export calls by the exporter's error message. */
  readonly failures: Readonly<Record<string, number>>;
  readonly requests: number;
  /** Answers by HTTP status; `error` for requests closed without one (refused connection, reset, timeout). */
  readonly answers: Readonly<Record<string, number>>;
  /** 429/503 answers without a Retry-After header. */
  readonly refusedWithoutRetryAfter: number;
  /** The slowest answer: from the request's start to its response's headers. */
  readonly slowestAnswerMs: number;
  /** Requests beyond the first of each export call. */
  readonly retries: number;
  /** Retries that followed a 429/503 on a pipeline with one export in flight (so the pair is certain), and their pauses. */
  readonly retriesAfterRefusal: number;
  readonly retryPauseMinMs: number | null;
  readonly retryPauseMaxMs: number | null;
}

const PIPELINE_HEADER = 'x-load-pipeline';
const HOUR_MS = 3600_000;
const FLEET_OBJECTS = 200;
/** Production runs in slices this long, then yields to I/O. */
const SLICE_MS = 10;

/** One tracer provider and exporter. */
class Pipeline {
  readonly provider: TracerProvider;
  exportsInFlight = 0;
  /** When a refusal arrived while exactly one export was in flight: the next request is its retry. */
  refusedAt: number | undefined;

  constructor(
    readonly id: string,
    options: LoadClientOptions,
    private readonly books: Books,
  ) {
    // the SDK's defaults otherwise: a 10 s deadline per export, retries included
    const exporter = new OTLPTraceExporter({ url: options.url, headers: { [PIPELINE_HEADER]: id } });
    // the SDK's default batch and queue; exported soon after a batch fills rather than every 5 s
    const processor = new BatchSpanProcessor({ exporter: this.counting(exporter), maxExportBatchSize: 512, maxQueueSize: 2048, scheduledDelayMillis: 20 });
    this.provider = new TracerProvider({ spanProcessors: [processor] });
  }

  /** The real exporter, with what it is handed and what becomes of it counted on the way. */
  private counting(exporter: SpanExporter): SpanExporter {
    return {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        this.books.exportCalls++;
        this.books.handedToExporter += spans.length;
        this.exportsInFlight++;
        this.refusedAt = undefined; // a new export's first request is no retry
        exporter.export(spans, (result) => {
          this.exportsInFlight--;
          this.refusedAt = undefined;
          if (result.code === ExportResultCode.SUCCESS) this.books.exported += spans.length;
          else {
            this.books.failed += spans.length;
            const why = result.error?.message ?? 'unknown';
            this.books.failures[why] = (this.books.failures[why] ?? 0) + 1;
          }
          done(result);
        });
      },
      shutdown: () => exporter.shutdown(),
      forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    };
  }
}

interface Books {
  produced: number;
  attempts: number;
  handedToExporter: number;
  exported: number;
  failed: number;
  exportCalls: number;
  failures: Record<string, number>;
  requests: number;
  answers: Record<string, number>;
  refusedWithoutRetryAfter: number;
  slowestAnswerMs: number;
  retryPauses: number[];
}

export class LoadClient {
  private readonly books: Books = {
    produced: 0,
    attempts: 0,
    handedToExporter: 0,
    exported: 0,
    failed: 0,
    exportCalls: 0,
    failures: {},
    requests: 0,
    answers: {},
    refusedWithoutRetryAfter: 0,
    slowestAnswerMs: 0,
    retryPauses: [],
  };
  private readonly pipelines = new Map<string, Pipeline>();
  private readonly tracers: ReturnType<TracerProvider['getTracer']>[];
  /** An hour of the simulated fleet, replayed in a loop: simulating while producing would take CPU from producing. */
  private readonly records: readonly AttemptRecord[];
  /** Requests sent and not yet answered, with when they started. */
  private readonly pending = new Map<ClientRequest, number>();
  private next = 0;
  private rate = 0;
  private phaseStart = performance.now();
  private phaseProduced = 0;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private finished = false;
  private readonly emitOptions: { readonly operationCount: boolean };

  constructor(options: LoadClientOptions) {
    this.emitOptions = { operationCount: options.operationCount ?? true };
    for (let i = 0; i < options.pipelines; i++) this.pipelines.set(`p${i}`, new Pipeline(`p${i}`, options, this.books));
    this.tracers = [...this.pipelines.values()].map((p) => p.provider.getTracer('operator'));
    const model = resolveModel('hypershift-hostedcluster');
    this.records = [
      ...new World({ model, objects: FLEET_OBJECTS, durationMs: HOUR_MS, seed: options.seed, observe: 'mixed', namespace: options.namespace }).attempts(),
    ];
    subscribe('http.client.request.start', this.onRequest);
    subscribe('http.client.response.finish', this.onResponse);
  }

  /** Produces `spansPerSecond` from now on (Infinity: as fast as the process can; 0: nothing); returns the books so far. */
  setRate(spansPerSecond: number): LoadBooks {
    this.rate = spansPerSecond;
    this.phaseStart = performance.now();
    this.phaseProduced = this.books.produced;
    if (this.timer === undefined && spansPerSecond > 0 && !this.finished) this.tick();
    return this.snapshot();
  }

  /** Stops producing, lets the span processors export what they hold (with retries), and closes the books. */
  async finish(): Promise<LoadBooks> {
    this.finished = true;
    this.rate = 0;
    // a final export that fails (the exporter gave up) rejects shutdown(); the books have already counted it
    await Promise.allSettled([...this.pipelines.values()].map((p) => p.provider.shutdown()));
    unsubscribe('http.client.request.start', this.onRequest);
    unsubscribe('http.client.response.finish', this.onResponse);
    return this.snapshot();
  }

  snapshot(): LoadBooks {
    const b = this.books;
    const pauses = b.retryPauses;
    return {
      produced: b.produced,
      attempts: b.attempts,
      notHandedOn: b.produced - b.handedToExporter,
      handedToExporter: b.handedToExporter,
      exported: b.exported,
      failed: b.failed,
      exportCalls: b.exportCalls,
      failures: { ...b.failures },
      requests: b.requests,
      answers: { ...b.answers },
      refusedWithoutRetryAfter: b.refusedWithoutRetryAfter,
      slowestAnswerMs: b.slowestAnswerMs,
      retries: b.requests - b.exportCalls,
      retriesAfterRefusal: pauses.length,
      retryPauseMinMs: pauses.length === 0 ? null : Math.min(...pauses),
      retryPauseMaxMs: pauses.length === 0 ? null : Math.max(...pauses),
    };
  }

  private tick = (): void => {
    this.timer = undefined;
    if (this.rate <= 0) return;
    const sliceStart = performance.now();
    const due = this.rate === Infinity ? Infinity : this.phaseProduced + (this.rate * (sliceStart - this.phaseStart)) / 1000;
    while (this.books.produced < due && performance.now() - sliceStart < SLICE_MS) {
      const record = this.records[this.books.attempts % this.records.length]!;
      emitAttempt(this.tracers[this.next]!, record, this.emitOptions);
      this.next = (this.next + 1) % this.tracers.length;
      this.books.attempts++;
      this.books.produced += 1 + record.operations.length;
    }
    // behind schedule: yield to I/O only; ahead of it: wait a little
    this.timer = this.books.produced < due ? setImmediate(this.tick) : setTimeout(this.tick, 2);
  };

  private pipelineOf(request: ClientRequest): Pipeline | undefined {
    return this.pipelines.get(String(request.getHeader(PIPELINE_HEADER) ?? ''));
  }

  private onRequest = (message: unknown): void => {
    const { request } = message as { request: ClientRequest };
    const p = this.pipelineOf(request);
    if (!p) return;
    this.books.requests++;
    this.pending.set(request, performance.now());
    if (p.refusedAt !== undefined && p.exportsInFlight === 1) this.books.retryPauses.push(performance.now() - p.refusedAt);
    p.refusedAt = undefined;
    request.once('close', () => {
      if (this.pending.delete(request)) this.books.answers.error = (this.books.answers.error ?? 0) + 1;
    });
  };

  private onResponse = (message: unknown): void => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const p = this.pipelineOf(request);
    const started = this.pending.get(request);
    if (!p || started === undefined) return;
    this.pending.delete(request);
    this.books.slowestAnswerMs = Math.max(this.books.slowestAnswerMs, performance.now() - started);
    const status = String(response.statusCode);
    this.books.answers[status] = (this.books.answers[status] ?? 0) + 1;
    if (status !== '429' && status !== '503') return;
    if (response.headers['retry-after'] === undefined) this.books.refusedWithoutRetryAfter++;
    if (p.exportsInFlight === 1) p.refusedAt = performance.now();
  };
}
