/**
 * The bounded queue between decoding and assembly. Requests add whole batches; the queue hands spans on in
 * slices, one slice per `defer` (setImmediate), so a burst never holds the event loop and /healthz stays fast.
 * When it holds `maxSpans` spans or `maxBytes` of them (heldBytes) or more, the receiver answers 429 instead of
 * queueing: memory never grows without end.
 * A request refused whole after its spans were counted queues its rejections too, as one entry: a 4 MiB body can
 * hold two million empty spans, and counting each one is work to be sliced like any other.
 */
import type { Rejection } from '../../records.js';
import type { Scheduler } from './scheduler.js';
import type { SpanBatch } from './span-batch.js';

interface QueuedSpans {
  readonly spans: SpanBatch;
  readonly where: string;
  next: number;
}

interface RejectionBatch {
  readonly rejection: Rejection;
  readonly count: number;
  next: number;
}

type Batch = QueuedSpans | RejectionBatch;

export interface QueueConsumer {
  /** Span `i` of `batch`. */
  span(batch: SpanBatch, i: number, where: string): void;
  reject(rejection: Rejection): void;
}

export class SpanQueue {
  private readonly batches: Batch[] = [];
  private queued = 0;
  private queuedBytes = 0;
  private scheduled = false;

  constructor(
    private readonly maxSpans: number,
    private readonly maxBytes: number,
    private readonly sliceSpans: number,
    private readonly consumer: QueueConsumer,
    private readonly scheduler: Scheduler,
  ) {}

  /** Spans and rejections waiting. */
  get length(): number {
    return this.queued;
  }

  get bytes(): number {
    return this.queuedBytes;
  }

  get full(): boolean {
    return this.queued >= this.maxSpans || this.queuedBytes >= this.maxBytes;
  }

  /** A request's spans; their heldBytes are summed in the batch. */
  push(spans: SpanBatch, where: string): void {
    if (spans.length === 0) return;
    this.batches.push({ spans, where, next: 0 });
    this.queued += spans.length;
    this.queuedBytes += spans.totalBytes;
    this.schedule();
  }

  /** `count` rejections of the same kind, handed on in slices like spans (they hold no memory). */
  pushRejections(rejection: Rejection, count: number): void {
    if (count <= 0) return;
    this.batches.push({ rejection, count, next: 0 });
    this.queued += count;
    this.schedule();
  }

  /** Hands on everything now (shutdown). */
  drainAll(): void {
    this.take(Infinity);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.scheduler.defer(() => {
      this.scheduled = false;
      this.take(this.sliceSpans);
      if (this.queued > 0) this.schedule();
    });
  }

  private take(budget: number): void {
    while (budget > 0 && this.batches.length > 0) {
      const batch = this.batches[0]!;
      budget -= 'spans' in batch ? this.takeSpans(batch, budget) : this.takeRejections(batch, budget);
      if (batch.next === ('spans' in batch ? batch.spans.length : batch.count)) this.batches.shift();
    }
  }

  private takeSpans(queued: QueuedSpans, budget: number): number {
    const batch = queued.spans;
    const end = Math.min(batch.length, queued.next + budget);
    const taken = end - queued.next;
    for (; queued.next < end; queued.next++) {
      this.queued--;
      this.queuedBytes -= batch.heldBytes[queued.next]!;
      this.consumer.span(batch, queued.next, queued.where);
    }
    return taken;
  }

  private takeRejections(batch: RejectionBatch, budget: number): number {
    const taken = Math.min(batch.count - batch.next, budget);
    for (let i = 0; i < taken; i++) this.consumer.reject(batch.rejection);
    batch.next += taken;
    this.queued -= taken;
    return taken;
  }
}
