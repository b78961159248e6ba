/**
 * The span convention from the sending side: turns an AttemptRecord into the spans an instrumented operator
 * would export for it, through the real OpenTelemetry API. Used by the tests and the embedded demo to feed the
 * receiver the way a real operator does.
 * Times are explicit and exact to the nanosecond: the root starts at the record's `time`; each operation starts
 * where the previous one ended and lasts its `durationSeconds` (0 when unknown, then the next one starts 1 µs later
 * so execution order survives the trip).
 */
import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type HrTime, type Tracer } from '@opentelemetry/api';
import type { AttemptRecord, OperationRecord } from '../../records.js';
import { ATTR } from './assembler.js';
import { formatRfc3339Nanos, parseRfc3339Nanos } from './time.js';

const ORDER_GAP_NS = 1_000n;

export interface EmitOptions {
  /** Set `reconcile.operation_count` on the root (the default); off, as an operator that does not set it. */
  readonly operationCount?: boolean;
}

export function emitAttempt(tracer: Tracer, attempt: AttemptRecord, options: EmitOptions = {}): void {
  const startNs = parseRfc3339Nanos(attempt.time) ?? BigInt(attempt.timeMs) * 1_000_000n;
  const attributes: Attributes = {
    [ATTR.controller]: attempt.controller,
    [ATTR.object]: attempt.object,
    [ATTR.model]: attempt.loop,
  };
  if (options.operationCount ?? true) attributes[ATTR.operationCount] = attempt.operations.length;
  if (attempt.generation !== undefined) attributes[ATTR.generation] = attempt.generation;
  // the receiver spells the start time its own way; carry the record's text when that spelling would differ
  if (formatRfc3339Nanos(startNs) !== attempt.time) attributes[ATTR.time] = attempt.time;
  const root = tracer.startSpan('reconcile', { root: true, startTime: hrTime(startNs), attributes });
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  let cursor = startNs;
  for (const op of attempt.operations) {
    const durationNs = BigInt(Math.round((op.durationSeconds ?? 0) * 1e9));
    const child = tracer.startSpan(op.name, { startTime: hrTime(cursor) }, parent);
    markOutcome(child, op);
    child.end(hrTime(cursor + durationNs));
    cursor += durationNs === 0n ? ORDER_GAP_NS : durationNs;
  }
  root.end(hrTime(cursor));
}

function markOutcome(span: ReturnType<Tracer['startSpan']>, op: OperationRecord): void {
  if (op.outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: op.error ?? '' });
  else if (op.outcome !== 'ok') span.setAttribute(ATTR.outcome, op.outcome);
}

function hrTime(nanos: bigint): HrTime {
  return [Number(nanos / 1_000_000_000n), Number(nanos % 1_000_000_000n)];
}
