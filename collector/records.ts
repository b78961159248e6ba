/**
 * The normalized records every source produces and the analyzer consumes. One type per concept:
 * a reconcile attempt (from a journal, OTLP spans, logs, status conditions or the simulator), and a rejection
 * (input that could not become a record: counted under a bounded reason, never silently dropped).
 */
import type { LoopKind, LoopSetting, Outcome } from '../model/types.js';

export interface OperationRecord {
  readonly name: string;
  readonly outcome: Outcome;
  readonly error?: string;
  readonly durationSeconds?: number;
}

/**
 * Attempt sources, then the recreation tracker's inputs (managed objects through Kubernetes, cluster state from the
 * HyperFleet API, ManifestWorks from the Maestro server), then the fleet's (other sidecars' partial summaries).
 */
export type SourceKind = 'journal' | 'otlp' | 'logs' | 'status' | 'simulator' | 'objects' | 'hyperfleet' | 'maestro' | 'peers';
export const SOURCE_KINDS: readonly SourceKind[] = ['journal', 'otlp', 'logs', 'status', 'simulator', 'objects', 'hyperfleet', 'maestro', 'peers'];

/** How much of the attempt the source saw, so neither the summary nor the report presents a partial view as exact. */
export interface AttemptOrigin {
  readonly source: SourceKind;
  /** OTLP: the root span, for a span link from the shadow trace. */
  readonly traceId?: string;
  readonly spanId?: string;
  /** OTLP: analyzed after the wait with only the spans that had arrived. */
  readonly incomplete?: boolean;
  /**
   * OTLP: the root span was kept by a consistent-probability sampler (tracestate `ot=th:…`), so the attempt stands for
   * this many attempts (1 / the sampling probability): what is counted of it is weighted by it, and is an estimate.
   */
  readonly adjustedCount?: number;
  /** Logs: the logger may have sampled lines away around this attempt, so counts are lower bounds. */
  readonly sampled?: boolean;
  /** Status: a condition transition, not every attempt; only the failing operations are known. */
  readonly transition?: boolean;
  /** Logs: the controller-runtime reconcileID that correlated the attempt's lines. */
  readonly reconcileID?: string;
  /** Logs: where the attempt's first line is (`file:line`, `-:line`, or the pod's equivalent). */
  readonly where?: string;
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
  readonly loop: LoopKind;
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
  /** Logs: the lines of an attempt whose loop nothing proved (no line of its operator run, no config, no Deployment). */
  'loop_unknown',
  /** Logs: a line of an attempt that was already handed on (it came more than the hold time after the others). */
  'late_line',
  'shutdown',
  'internal_error',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** What the analyzer refuses an attempt for, whatever source handed it on (counted under that source). */
export const REFUSED_BY_ANALYZER = ['unknown_controller', 'unknown_operation'] as const satisfies readonly RejectReason[];

export interface Rejection {
  readonly source: SourceKind;
  readonly reason: RejectReason;
  /** Where: `file:line`, a request id, or an object key. */
  readonly where: string;
  readonly message: string;
  /** The controller the input was for, when known (unmapped errors are counted per controller). */
  readonly controller?: string;
}

/** Bounded reasons a source handed an attempt on with a reservation (each counts attempts; nothing is dropped). */
export const SOURCE_NOTES = [
  /** auto: the attempt's own text fits both loops; it took the loop proven before it (logs: by its operator run). */
  'loop_inherited',
  /** auto: the input did not prove the loop; the attempt took the operator Deployment's. */
  'loop_from_deployment',
  /** auto, logs: nothing in its operator run proved a loop; the attempt took the loop of the run before (after a restart). */
  'loop_from_previous_run',
  /** Its text proves the other loop than the one it was read under (configured, the Deployment's, or the run's). */
  'loop_contradicted',
  /** No reading of its text fits the loop it was read under: nothing is stated. */
  'inconsistent_lines',
  /** An error in a format several operations share, not settled by the rest: only what all readings agree on is stated. */
  'ambiguous_error',
  /** An error in a format several operations share, settled on one by the rest of the attempt's text. */
  'shared_format_resolved',
  /** An error no format of the model matches (e.g. a callee's error returned unwrapped). */
  'unmapped_error',
  /** The Reconcile() wrapper's status-update error (or another error that is no operation's), set aside. */
  'status_update_error',
  /** A blocked or critical-failure name that is no group or operation of the model. */
  'unknown_name',
  /** Logs: in a period where the logger may have dropped lines. */
  'sampled',
] as const;
export type SourceNote = (typeof SOURCE_NOTES)[number];

/**
 * What a source says about its own input beyond records and rejections, for the summary's `input.sources`: its books
 * in its own unit (`received = analyzed + dropped`; `ignored` is input it was not meant to read), what it noted
 * without dropping anything (bounded reasons, each counting attempts), and the limits of what it saw.
 */
export interface SourceInputSummary {
  readonly source: SourceKind;
  /** The unit of `received`, `analyzed`, `dropped` and `ignored`, e.g. `lines`. */
  readonly unit: string;
  readonly received: number;
  readonly analyzed: number;
  readonly dropped: Readonly<Record<string, number>>;
  readonly ignored: Readonly<Record<string, number>>;
  /** Attempts handed on. */
  readonly attempts: number;
  /** Attempts the source analyzed with a reservation, by bounded reason (each attempt counted once per reason). */
  readonly notes: Readonly<Record<string, number>>;
  /** Which loop the source read the input under, and what decided it. */
  readonly loop: LoopKnowledge;
  /** Logs: stretches where the operator's logger may have dropped lines. */
  readonly sampledPeriods?: readonly { readonly from: string; readonly until: string; readonly messages: readonly string[]; readonly peakLines: number }[];
  /** Error messages no reading placed on one operation, first seen first, bounded. */
  readonly unmappedSample?: {
    readonly total: number;
    readonly distinct: readonly {
      readonly message: string;
      readonly why: string;
      readonly detail: string;
      readonly where: string;
      readonly time: string;
      readonly object: string;
      readonly count: number;
    }[];
    readonly truncated: boolean;
  };
  /** Statements a reader of the counts must know, e.g. that counts from sampled periods are lower bounds. */
  readonly caveats: readonly string[];
}

/** What decided an attempt's loop: the configuration, the operator Deployment, or the input's own text. */
export type LoopDecidedBy = 'config' | 'deployment' | 'input';

/** Which loop a source read its input under: configured, read from the operator, proven by the input, or unknown. */
export interface LoopKnowledge {
  /** The configured value (`auto` decides from the operator and the input). */
  readonly configured: LoopSetting;
  /** The loop of the latest attempts, or null when nothing has proven one yet. */
  readonly current: LoopKind | null;
  /** What decided `current`, or why nothing did. */
  readonly decidedBy: LoopDecidedBy | 'unknown';
  /** One sentence: what the source knows about the loop and from where (also logged once at start). */
  readonly statement: string;
}

/** What a source hands on. The analyzer never knows which source a record came from beyond `origin`. */
export interface RecordSink {
  attempt(record: AttemptRecord): void;
  reject(rejection: Rejection): void;
  /** Counted once per input record a source accepted for processing (before any rejection). */
  received?(source: SourceKind, count: number): void;
  /** A source that keeps books of its own registers them once; the summary reads them when it is built. */
  inputSummary?(source: SourceKind, summary: () => SourceInputSummary): void;
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
  /**
   * Whether the source cannot read its input whole in one go (a fleet larger than one poll reads), for a source that
   * pages; read before each scrape (reconcile_shadow_source_truncated).
   */
  readonly truncated?: boolean;
}
