/**
 * One line of a controller-runtime operator log (zap's production JSON encoder), classified:
 *   - a line of one reconcile attempt (it carries the attempt's reconcileID): an end line (`successfully reconciled`,
 *     the phased summary, `Reconciler error`), controller-runtime's requeue warning, or a progress line that reports
 *     one operation's outcome while the attempt runs (a silent stop, an error the loop went on after);
 *   - a run line: the controller (re)started, or the operator's own version line (what its build says about the loop);
 *   - a recognised message that is malformed (a required field is missing or wrong): rejected, naming the field;
 *   - anything else (plain text, other messages, other controllers): ignored, never an error.
 * Which messages mean what, and which fields carry what, is configuration (LogPatterns), so another operator's log
 * can be described; the defaults are HyperShift's HostedCluster controller (hypershift
 * `hostedcluster_controller.go` Reconcile() and reconcile(), `reconcile_legacy.go` reconcileLegacy(); each message and
 * its writer in docs/log-source.md, "Recognised lines"), read in the upstream code at the merge (51c7ac6da5ae) and at
 * HEAD (3ee9615567ac).
 */
import type { RejectReason } from '../../records.js';
import type { IgnoredWhy } from '../types.js';
import { HYPERSHIFT_OPERATOR } from '../../hypershift/operator-loop.js';
import { BoundedMap } from '../../../lib/bounded-ring.js';
import { redactText } from './redact.js';
import { goFormatPattern } from '../../../model/go-format.js';

/** A message that reports one operation's outcome in the middle of an attempt. */
export interface ProgressPattern {
  readonly message: string;
  /** The operation it reports on (a progress line of an operation the model lacks is ignored). */
  readonly op: string;
  /**
   * `stop`: the operation stopped the attempt without an error (a silent stop; in a report group, the group).
   * `error`: the operation failed and the loop went on (whether it does is the model's `onError`, per loop); the
   * line's `error` field is the error. Such a line is taken to be written for every such error of the operation.
   */
  readonly outcome: 'stop' | 'error';
  /**
   * A Go format the line's error field must match, for a line whose message alone does not say (zap writes
   * `log.Error(err, "")` with an empty message). A line whose message matches but whose error matches none is ignored.
   */
  readonly error?: string;
}

/** The messages and field names of one operator's log. */
export interface LogPatterns {
  /** The reconciler's own line at the end of a clean attempt (both loops). */
  readonly successMessage: string;
  /** The phased loop's end line after a critical failure; carries `fields.summary`. */
  readonly completedWithErrorsMessage: string;
  /** controller-runtime's line for a returned error; carries `fields.error`. */
  readonly reconcilerErrorMessage: string;
  /** controller-runtime's warning that a result came with an error (a message prefix): a line of the attempt. */
  readonly requeueWarningPrefix: string;
  readonly progress: readonly ProgressPattern[];
  /** controller-runtime's line when the controller (re)starts: the operator may have restarted with the other loop. */
  readonly controllerStartMessage: string;
  /** The operator's start line with its build version (`fields.version`), which may say which loop the build has. */
  readonly versionMessage: string;
  /** Go formats of errors that are no operation's, e.g. the Reconcile() wrapper's status-update conflict. */
  readonly nonOperationErrors: readonly string[];
  readonly fields: LogFields;
}

export interface LogFields {
  readonly message: string;
  readonly level: string;
  /** RFC 3339 string (zap's RFC3339TimeEncoder) or epoch seconds (zap's default EpochTimeEncoder). */
  readonly time: string;
  /** Must equal the model's `spec.controller`; lines of other controllers are ignored. */
  readonly controller: string;
  /** The object as `{name, namespace}` (controller-runtime keys it by the kind); `namespace`/`name` are the fallback. */
  readonly object: string;
  readonly namespace: string;
  readonly name: string;
  /** One id per attempt; correlates an attempt's lines. Without it the object key correlates them. */
  readonly reconcileID: string;
  readonly error: string;
  /**
   * zap's causes of an aggregate error (`errorCauses`: `[{"error": …, "errorCauses": […]}]`, written for any error
   * with an Errors() method, as apimachinery's Aggregate has). When present they split an aggregate exactly.
   */
  readonly errorCauses: string;
  readonly summary: string;
  readonly version: string;
}

/** HyperShift's HostedCluster controller (hypershift-operator, controller-runtime builder keys). */
export const HYPERSHIFT_LOG_PATTERNS: LogPatterns = {
  successMessage: 'successfully reconciled',
  completedWithErrorsMessage: 'reconciliation completed with errors',
  reconcilerErrorMessage: 'Reconciler error',
  requeueWarningPrefix: 'Warning: Reconciler returned both',
  progress: [
    // The validation gates' silent stops (SupportedHostedCluster=False, ValidReleaseImage invalid, isUpgrading error).
    { message: 'reconciliation is blocked', op: 'ValidationGates', outcome: 'stop' },
    // spec.pausedUntil: the loop pauses the HostedControlPlane and the CAPI Cluster and returns without error.
    { message: 'Reconciliation paused', op: 'PauseCheck', outcome: 'stop' },
    // Phased loop only (PR #7908): ValidReleaseImage=False/SecretNotFound no longer stops it.
    { message: 'pull secret unavailable, continuing with degraded reconciliation', op: 'ValidationGates', outcome: 'error' },
    // Phased loop only: DetermineHostedClusterPayloadArch's error is logged and the loop goes on.
    { message: 'failed to determine payload arch', op: 'PayloadArch', outcome: 'error' },
    // Both loops log these silent stops as log.Error(fmt.Errorf(...), ""): the text is in the error field.
    // The ignition service strategy (reconcileLegacy(), reconcile()).
    { message: '', error: 'ignition server service strategy not specified', op: 'IgnitionEndpoint', outcome: 'stop' },
    { message: '', error: 'nodeport metadata not specified for ignition service', op: 'IgnitionEndpoint', outcome: 'stop' },
    { message: '', error: 'unknown service strategy type for ignition service: %s', op: 'IgnitionEndpoint', outcome: 'stop' },
    // Bad secret-encryption input (reconcileLegacy(): a silent stop; reconcileSecretEncryptionSync(): the group returns nil).
    { message: '', error: 'aescbc metadata  is nil', op: 'SecretEncryptionSync', outcome: 'stop' },
    { message: '', error: 'no key field %s specified for aescbc active key secret', op: 'SecretEncryptionSync', outcome: 'stop' },
    { message: '', error: 'no key field %s specified for aescbc backup key secret', op: 'SecretEncryptionSync', outcome: 'stop' },
    { message: '', error: 'kms metadata nil', op: 'SecretEncryptionSync', outcome: 'stop' },
    { message: '', error: 'unsupported encryption type %s', op: 'SecretEncryptionSync', outcome: 'stop' },
    // The spec changed: both loops Update the HostedCluster and return (its error, unwrapped, or nil).
    { message: 'Updating deprecated fields for hosted cluster', op: 'UpdateDeprecatedFields', outcome: 'stop' },
    // Deletion returns after each of these with nil (a requeue after a delay, or done); "grace period finished" goes on.
    { message: 'hostedcluster is still deleting', op: 'Delete', outcome: 'stop' },
    { message: 'Waiting for grace period', op: 'Delete', outcome: 'stop' },
    { message: 'Deleted hostedcluster', op: 'Delete', outcome: 'stop' },
  ],
  controllerStartMessage: 'Starting Controller',
  versionMessage: HYPERSHIFT_OPERATOR.versionLogMessage,
  nonOperationErrors: HYPERSHIFT_OPERATOR.nonOperationErrors,
  fields: {
    message: 'msg',
    level: 'level',
    time: 'ts',
    controller: 'controller',
    object: 'HostedCluster',
    namespace: 'namespace',
    name: 'name',
    reconcileID: 'reconcileID',
    error: 'error',
    errorCauses: 'errorCauses',
    summary: 'summary',
    version: HYPERSHIFT_OPERATOR.versionLogField,
  },
};

/** Overrides merged onto the defaults field by field. */
export interface LogPatternsInput {
  readonly successMessage?: string;
  readonly completedWithErrorsMessage?: string;
  readonly reconcilerErrorMessage?: string;
  readonly requeueWarningPrefix?: string;
  readonly progress?: readonly ProgressPattern[];
  readonly controllerStartMessage?: string;
  readonly versionMessage?: string;
  readonly nonOperationErrors?: readonly string[];
  readonly fields?: Partial<LogFields>;
}

export function resolvePatterns(input: LogPatternsInput = {}, base: LogPatterns = HYPERSHIFT_LOG_PATTERNS): LogPatterns {
  return {
    successMessage: input.successMessage ?? base.successMessage,
    completedWithErrorsMessage: input.completedWithErrorsMessage ?? base.completedWithErrorsMessage,
    reconcilerErrorMessage: input.reconcilerErrorMessage ?? base.reconcilerErrorMessage,
    requeueWarningPrefix: input.requeueWarningPrefix ?? base.requeueWarningPrefix,
    progress: input.progress ?? base.progress,
    controllerStartMessage: input.controllerStartMessage ?? base.controllerStartMessage,
    versionMessage: input.versionMessage ?? base.versionMessage,
    nonOperationErrors: input.nonOperationErrors ?? base.nonOperationErrors,
    fields: { ...base.fields, ...input.fields },
  };
}

export type AttemptLineKind = 'success' | 'summary' | 'error' | 'warning' | 'progress';

/** A line of one attempt, its texts already redacted. */
export interface AttemptLine {
  readonly kind: AttemptLineKind;
  /** `file:line` (or the pod's equivalent), for rejections. */
  readonly where: string;
  /** The time as it appeared (an epoch number is rendered as RFC 3339). */
  readonly time: string;
  readonly timeMs: number;
  readonly controller: string;
  /** `namespace/name`, or `name` for a cluster-scoped object. */
  readonly object: string;
  /** The reconcileID, or `object:<key>` without one. */
  readonly correlation: string;
  readonly reconcileID?: string;
  /** The error text (error, progress) or the summary (summary). */
  readonly text?: string;
  /** error: the innermost messages of zap's errorCauses, when it wrote them. */
  readonly causes?: readonly string[];
  /** progress: the pattern it matched. */
  readonly progress?: ProgressPattern;
}

/** A line about the operator run rather than one attempt: the controller started, or the operator's version. */
export interface RunLine {
  readonly kind: 'controllerStart' | 'version';
  readonly where: string;
  readonly timeMs: number;
  /** version: the build's version text. */
  readonly version?: string;
}

/** What the sampling detector needs from every JSON line of a recognised message, whatever its controller. */
export interface MessageSighting {
  readonly level: string;
  readonly message: string;
  /** Whole seconds since the epoch. */
  readonly second: number;
}

export type ClassifiedLine =
  | { readonly kind: 'ignored'; readonly why: IgnoredWhy; readonly second?: number; readonly sighting?: MessageSighting }
  | { readonly kind: 'run'; readonly line: RunLine; readonly second?: number }
  | { readonly kind: 'rejected'; readonly reason: RejectReason; readonly message: string; readonly second?: number; readonly sighting?: MessageSighting }
  | { readonly kind: 'attempt'; readonly line: AttemptLine; readonly second: number; readonly sighting: MessageSighting };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class FieldProblem extends Error {}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

export class ZapLineClassifier {
  private readonly kinds: ReadonlyMap<string, AttemptLineKind>;
  /** Per message, its patterns with the pattern their error must match (none: any line of the message). */
  private readonly progress: ReadonlyMap<string, readonly { readonly pattern: ProgressPattern; readonly error?: RegExp }[]>;
  /** Texts redacted before (redaction is a pure function of the text, and most attempts write one of a few texts). */
  private readonly redacted = new BoundedMap<string, string>(REDACTED_MEMO_SIZE);
  private lastTime: string | undefined;
  private lastTimeMs = NaN;

  /** `progress` patterns of operations the model lacks should be left out by the caller. */
  constructor(
    private readonly patterns: LogPatterns,
    private readonly controller: string,
  ) {
    const progress = new Map<string, { pattern: ProgressPattern; error?: RegExp }[]>();
    for (const p of patterns.progress) {
      const list = progress.get(p.message) ?? [];
      list.push(p.error === undefined ? { pattern: p } : { pattern: p, error: goFormatPattern(p.error) });
      progress.set(p.message, list);
    }
    this.progress = progress;
    this.kinds = new Map<string, AttemptLineKind>([
      ...patterns.progress.map((p) => [p.message, 'progress'] as const),
      [patterns.successMessage, 'success'],
      [patterns.completedWithErrorsMessage, 'summary'],
      [patterns.reconcilerErrorMessage, 'error'],
    ]);
  }

  classify(text: string, where: string): ClassifiedLine {
    const trimmed = text.trimStart();
    // Plain-text lines (klog, panics, the Go runtime) are not ours; a line that opens like JSON but does not parse
    // is a damaged log line that may have been an attempt's, so it is refused rather than skipped.
    if (!trimmed.startsWith('{')) return { kind: 'ignored', why: 'not_json' };
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return {
        kind: 'rejected',
        reason: 'invalid_json',
        message: `opens like a JSON log line but does not parse (${trimmed.length} characters; cut or damaged)`,
      };
    }
    if (!isObject(value)) return { kind: 'ignored', why: 'not_json' };
    const f = this.patterns.fields;
    const msg = value[f.message];
    const timeValue = value[f.time];
    const timeMs = this.timeMs(timeValue);
    const timed = !Number.isNaN(timeMs);
    const second = Math.floor(timeMs / 1000);
    const at = timed ? { second } : {};
    if (typeof msg !== 'string') return { kind: 'ignored', why: 'other_message', ...at };
    const kind = this.kinds.get(msg) ?? (msg.startsWith(this.patterns.requeueWarningPrefix) ? 'warning' : undefined);
    if (kind === undefined) return this.runLine(msg, value, where, timeMs) ?? { kind: 'ignored', why: 'other_message', ...at };
    const progress = kind === 'progress' ? this.progressOf(msg, value[f.error]) : undefined;
    if (kind === 'progress' && progress === undefined) return { kind: 'ignored', why: 'other_message', ...at };
    const levelValue = value[f.level];
    const level = typeof levelValue === 'string' ? levelValue : '';
    const sighting = { level, message: msg, second };
    try {
      const controller = value[f.controller];
      if (typeof controller !== 'string' || controller === '') throw new FieldProblem(`${f.controller}: required string`);
      if (controller !== this.controller)
        return timed ? { kind: 'ignored', why: 'other_controller', second, sighting } : { kind: 'ignored', why: 'other_controller' };
      if (!timed) throw new FieldProblem(`${f.time}: required RFC 3339 time, got ${JSON.stringify(timeValue) ?? 'nothing'}`);
      const object = this.readObject(value);
      const id = value[f.reconcileID];
      if (id !== undefined && (typeof id !== 'string' || id === '')) throw new FieldProblem(`${f.reconcileID}: must be a non-empty string`);
      const time = typeof timeValue === 'string' ? timeValue : new Date(timeMs).toISOString();
      const line: Writable<AttemptLine> = { kind, where, time, timeMs, controller, object, correlation: id ?? `object:${object}` };
      if (id !== undefined) line.reconcileID = id;
      this.readText(kind, progress, value, line);
      return { kind: 'attempt', line, second, sighting };
    } catch (e) {
      if (!(e instanceof FieldProblem)) throw e;
      const message = `${JSON.stringify(msg)} line: ${e.message}`;
      return timed ? { kind: 'rejected', reason: 'invalid_record', message, second, sighting } : { kind: 'rejected', reason: 'invalid_record', message };
    }
  }

  /** The progress pattern a line of message `msg` matches, its error field read when the pattern says. */
  private progressOf(msg: string, error: unknown): ProgressPattern | undefined {
    return this.progress.get(msg)?.find((p) => p.error === undefined || (typeof error === 'string' && p.error.test(error)))?.pattern;
  }

  /** The controller's start line, or the operator's version line; undefined for any other message. */
  private runLine(msg: string, value: Record<string, unknown>, where: string, timeMs: number): ClassifiedLine | undefined {
    const f = this.patterns.fields;
    const at = Number.isNaN(timeMs) ? {} : { second: Math.floor(timeMs / 1000) };
    if (msg === this.patterns.controllerStartMessage && value[f.controller] === this.controller)
      return { kind: 'run', line: { kind: 'controllerStart', where, timeMs }, ...at };
    if (msg === this.patterns.versionMessage) {
      const version = value[f.version];
      return { kind: 'run', line: typeof version === 'string' ? { kind: 'version', where, timeMs, version } : { kind: 'version', where, timeMs }, ...at };
    }
    return undefined;
  }

  private readObject(value: Record<string, unknown>): string {
    const f = this.patterns.fields;
    const ref = value[f.object];
    const nested = isObject(ref) ? ref : undefined;
    const name = nested ? nested.name : value[f.name];
    const namespace = nested ? nested.namespace : value[f.namespace];
    if (typeof name !== 'string' || name === '') {
      throw new FieldProblem(`${f.object}: required {"name","namespace"} (or ${f.namespace} and ${f.name} fields)`);
    }
    if (namespace !== undefined && typeof namespace !== 'string') throw new FieldProblem(`${f.object}.namespace: must be a string`);
    return namespace ? `${namespace}/${name}` : name;
  }

  private redact(text: string): string {
    let out = this.redacted.get(text);
    if (out === undefined) this.redacted.set(text, (out = redactText(text)));
    return out;
  }

  /** Milliseconds of a line's time; the lines of one second share their time text, so the last one is remembered. */
  private timeMs(value: unknown): number {
    if (typeof value !== 'string') return readTimeMs(value);
    if (value !== this.lastTime) {
      this.lastTimeMs = readTimeMs(value);
      this.lastTime = value;
    }
    return this.lastTimeMs;
  }

  /** Sets the texts the line kind carries: the error (with zap's causes), the summary, or a progress line's error. */
  private readText(kind: AttemptLineKind, progress: ProgressPattern | undefined, value: Record<string, unknown>, line: Writable<AttemptLine>): void {
    const f = this.patterns.fields;
    if (kind === 'success' || kind === 'warning') return;
    if (progress) {
      line.progress = progress;
      const error = value[f.error];
      if (progress.outcome === 'error' && typeof error === 'string') line.text = this.redact(error);
      return;
    }
    const key = kind === 'error' ? f.error : f.summary;
    const text = value[key];
    if (typeof text !== 'string' || (kind === 'error' && text === '')) throw new FieldProblem(`${key}: required string`);
    const redacted = this.redact(text);
    line.text = redacted;
    if (kind === 'summary') return;
    const causes = leafCauses(value[f.errorCauses], 0);
    // zap writes a lone error's cause as the error itself: redacted once
    if (causes && causes.length > 0) line.causes = causes.map((c) => (c === text ? redacted : this.redact(c)));
  }
}

const REDACTED_MEMO_SIZE = 2048;
const MAX_CAUSE_DEPTH = 8;
const MAX_CAUSES = 1000;

/** The innermost messages of zap's errorCauses tree; undefined when it is absent or not zap's shape (the text is used). */
function leafCauses(value: unknown, depth: number): string[] | undefined {
  if (!Array.isArray(value) || depth > MAX_CAUSE_DEPTH) return undefined;
  const out: string[] = [];
  for (const cause of value) {
    if (!isObject(cause)) return undefined;
    const nested = Array.isArray(cause.errorCauses) && cause.errorCauses.length > 0 ? leafCauses(cause.errorCauses, depth + 1) : undefined;
    if (nested) out.push(...nested);
    else if (typeof cause.error === 'string') out.push(cause.error);
    else return undefined;
    if (out.length > MAX_CAUSES) return undefined;
  }
  return out;
}

/** 10000-01-01T00:00:00Z. */
const MAX_EPOCH_SECONDS = 253_402_300_800;

/** Milliseconds since the epoch, or NaN when the value is neither an RFC 3339 string nor non-negative epoch seconds. */
function readTimeMs(value: unknown): number {
  if (typeof value === 'string') {
    const ms = wholeSecondUtcMs(value);
    if (ms !== undefined) return ms;
    return RFC3339.test(value) ? Date.parse(value) : NaN;
  }
  // Epoch seconds; beyond year 9999 a number is no log time (and Date cannot render it).
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < MAX_EPOCH_SECONDS) return Math.round(value * 1000);
  return NaN;
}

/**
 * zap's RFC3339TimeEncoder form, `YYYY-MM-DDTHH:MM:SSZ`, read without the pattern and Date.parse (they were a tenth of
 * classifying a line). Only where both readings agree for sure: a year from 1970, a day up to 28, an hour, minute
 * and second in range; anything else (and every other form) is undefined, for the general reading.
 */
function wholeSecondUtcMs(t: string): number | undefined {
  if (
    t.length !== 20 ||
    t.charCodeAt(4) !== 0x2d ||
    t.charCodeAt(7) !== 0x2d ||
    t.charCodeAt(10) !== 0x54 ||
    t.charCodeAt(13) !== 0x3a ||
    t.charCodeAt(16) !== 0x3a ||
    t.charCodeAt(19) !== 0x5a
  )
    return undefined;
  const year = digits(t, 0, 4);
  const month = digits(t, 5, 2);
  const day = digits(t, 8, 2);
  const hour = digits(t, 11, 2);
  const minute = digits(t, 14, 2);
  const second = digits(t, 17, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 28 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59)
    return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The decimal number of `count` digits at `at`; -1 when one is not a digit. */
function digits(t: string, at: number, count: number): number {
  let n = 0;
  for (let k = at; k < at + count; k++) {
    const d = t.charCodeAt(k) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
