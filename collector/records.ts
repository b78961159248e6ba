/**
 * The normalized records every source produces and the analyzer consumes. One type per concept:
 * a reconcile attempt (from a journal, OTLP spans, logs, status conditions or the simulator), and a rejection
 * (input that could not become a record: counted under a bounded reason, never silently dropped).
 */
import type { LoopKind, Outcome } from '../model/types.js';

export interface OperationRecord {
  readonly name: string;
  readonly outcome: Outcome;
  readonly error?: string;
  readonly durationSeconds?: number;
}

/** Attempt sources, then the recreation tracker's inputs (managed objects through Kubernetes, cluster state from the HyperFleet API). */
export type SourceKind = 'journal' | 'otlp' | 'logs' | 'status' | 'simulator' | 'objects' | 'hyperfleet';
export const SOURCE_KINDS: readonly SourceKind[] = ['journal', 'otlp', 'logs', 'status', 'simulator', 'objects', 'hyperfleet'];

/** How much of the attempt the source saw, so reports never present a partial view as exact. */
export interface AttemptOrigin {
  readonly source: SourceKind;
  /** OTLP: the root span, for a span link from the shadow trace. */
  readonly traceId?: string;
  readonly spanId?: string;
  /** OTLP: analyzed after the wait with only the spans that had arrived. */
  readonly incomplete?: boolean;
  /** Logs: the logger may have sampled lines away around this attempt, so counts are lower bounds. */
  readonly sampled?: boolean;
  /** Status: a condition transition, not every attempt; only the failing operations are known. */
  readonly transition?: boolean;
}

/** One reconcile attempt of one object, operations in execution order. The journal's line format. */
export interface AttemptRecord {
  /** As it appeared in the input, echoed unchanged in per-attempt output. */
  readonly time: string;
  /** `time` parsed, in milliseconds since the epoch. */
  readonly timeMs: number;
  readonly controller: string;
  /** `namespace/name`, as it appeared in the input. */
  readonly object: string;
  readonly generation?: number;
  readonly model: LoopKind;
  readonly operations: readonly OperationRecord[];
  readonly origin: AttemptOrigin;
}

/** Bounded reasons a record is refused; metrics label values come only from this list. */
export const REJECT_REASONS = [
  'invalid_json',
  'invalid_record',
  'unknown_operation',
  'unknown_controller',
  'line_too_long',
  'too_many_operations',
  'body_too_large',
  'decompressed_too_large',
  'undecodable_body',
  'unsupported_media_type',
  'unauthorized',
  'bad_request',
  'request_timeout',
  'idle_connection',
  'connection_limit',
  'too_many_spans',
  'too_many_attributes',
  'orphan_span',
  'duplicate_span',
  'queue_full',
  'pending_limit',
  'unmapped_error',
  'invalid_object',
  'shutdown',
  'internal_error',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export interface Rejection {
  readonly source: SourceKind;
  readonly reason: RejectReason;
  /** Where: `file:line`, a request id, or an object key. */
  readonly where: string;
  readonly message: string;
  /** The controller the input was for, when known (unmapped errors are counted per controller). */
  readonly controller?: string;
}

/** What a source hands on. The analyzer never knows which source a record came from beyond `origin`. */
export interface RecordSink {
  attempt(record: AttemptRecord): void;
  reject(rejection: Rejection): void;
  /** Counted once per input record a source accepted for processing (before any rejection). */
  received?(source: SourceKind, count: number): void;
}

/** A long-running input (OTLP receiver, log follower, Kubernetes watch, journal replay). */
export interface Source {
  readonly kind: SourceKind;
  start(): Promise<void>;
  /** Stop accepting input and hand on what is in flight. */
  stop(): Promise<void>;
  /**
   * Whether the source is connected and current right now, for a source that knows (a followed log, a replay that
   * may fail); read before each scrape (reconcile_shadow_source_up). Without it a source is up from start to stop,
   * or as it reports through its state hook.
   */
  readonly up?: boolean;
}
