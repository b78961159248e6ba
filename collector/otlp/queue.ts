/**
 * The bounded queue between decoding and assembly. Requests add whole batches; the queue hands spans on in
 * slices, one slice per `defer` (setImmediate), so a burst never holds the event loop and /healthz stays fast.
 * When it holds `maxSpans` spans or `maxBytes` of them (heldBytes) or more, the receiver answers 429 instead of
 * queueing: memory never grows without end.
 */
import type { Scheduler } from './scheduler.js';
import { heldBytes, type OtlpSpan } from './span.js';

interface Batch {
  readonly spans: readonly OtlpSpan[];
  readonly where: string;
  next: number;
}

export type SpanConsumer = (span: OtlpSpan, where: string) => void;

export class SpanQueue {
  private readonly batches: Batch[] = [];
  private queued = 0;
  private queuedBytes = 0;
  private scheduled = false;

  constructor(
    private readonly maxSpans: number,
    private readonly maxBytes: number,
    private readonly sliceSpans: number,
    private readonly consume: SpanConsumer,
    private readonly scheduler: Scheduler,
  ) {}

  get length(): number {
    return this.queued;
  }

  get bytes(): number {
    return this.queuedBytes;
  }

  get full(): boolean {
    return this.queued >= this.maxSpans || this.queuedBytes >= this.maxBytes;
  }

  /** `bytes`: the spans' heldBytes, which the receiver already summed to decide whether they fit. */
  push(spans: readonly OtlpSpan[], bytes: number, where: string): void {
    if (spans.length === 0) return;
    this.batches.push({ spans, where, next: 0 });
    this.queued += spans.length;
    this.queuedBytes += bytes;
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
      const end = Math.min(batch.spans.length, batch.next + budget);
      for (; batch.next < end; batch.next++) {
        const span = batch.spans[batch.next]!;
        this.queued--;
        this.queuedBytes -= heldBytes(span);
        budget--;
        this.consume(span, batch.where);
      }
      if (batch.next === batch.spans.length) this.batches.shift();
    }
  }
}
