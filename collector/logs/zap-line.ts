/**
 * One line of a controller-runtime operator log (zap's production JSON encoder), classified:
 *   - an end line the model recognises (it ends a reconcile attempt): parsed into an EndLine;
 *   - a recognised message that is malformed (a required field is missing or wrong): rejected, naming the field;
 *   - anything else (plain text, other messages, other controllers): ignored, never an error.
 * Which messages end an attempt, and which fields carry what, is configuration (LogPatterns), so another operator's
 * log can be described; the defaults are HyperShift's HostedCluster controller (reference section 6).
 */
import type { RejectReason } from '../records.js';
import { redactText } from './redact.js';

/** The messages and field names of one operator's log. */
export interface LogPatterns {
  /** The reconciler's own line at the end of a clean attempt (both loops). */
  readonly successMessage: string;
  /** The phased loop's end line when errors were collected; carries `fields.summary`. */
  readonly completedWithErrorsMessage: string;
  /** controller-runtime's line for a returned error; carries `fields.error`. */
  readonly reconcilerErrorMessage: string;
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
  /** One id per attempt; correlates an attempt's two end lines. Without it the object key correlates them. */
  readonly reconcileID: string;
  readonly error: string;
  /**
   * zap's causes of an aggregate error (`errorCauses`: `[{"error": …, "errorCauses": […]}]`, written for any error
   * with an Errors() method, as apimachinery's Aggregate has). When present they split an aggregate exactly.
   */
  readonly errorCauses: string;
  readonly summary: string;
}

/** HyperShift's HostedCluster controller (hypershift-operator, controller-runtime builder keys). */
export const HYPERSHIFT_LOG_PATTERNS: LogPatterns = {
  successMessage: 'successfully reconciled',
  completedWithErrorsMessage: 'reconciliation completed with errors',
  reconcilerErrorMessage: 'Reconciler error',
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
  },
};

/** Overrides merged onto the defaults field by field. */
export interface LogPatternsInput {
  readonly successMessage?: string;
  readonly completedWithErrorsMessage?: string;
  readonly reconcilerErrorMessage?: string;
  readonly fields?: Partial<LogFields>;
}

export function resolvePatterns(input: LogPatternsInput = {}, base: LogPatterns = HYPERSHIFT_LOG_PATTERNS): LogPatterns {
  return {
    successMessage: input.successMessage ?? base.successMessage,
    completedWithErrorsMessage: input.completedWithErrorsMessage ?? base.completedWithErrorsMessage,
    reconcilerErrorMessage: input.reconcilerErrorMessage ?? base.reconcilerErrorMessage,
    fields: { ...base.fields, ...input.fields },
  };
}

export type EndKind = 'success' | 'completedWithErrors' | 'reconcilerError';

/** A recognised end line of one attempt, its texts already redacted. */
export interface EndLine {
  readonly kind: EndKind;
  /** `file:line` (or the pod's equivalent), for rejections. */
  readonly where: string;
  /** The time as it appeared (an epoch number is rendered as RFC 3339). */
  readonly time: string;
  readonly timeMs: number;
  readonly controller: string;
  /** `namespace/name`, or `name` for a cluster-scoped object. */
  readonly object: string;
  readonly correlation: string;
  /** The error text (reconcilerError) or summary (completedWithErrors, may be empty). */
  readonly text?: string;
  /** reconcilerError: the innermost messages of zap's errorCauses, when it wrote them. */
  readonly causes?: readonly string[];
}

/** What the sampling detector needs from every JSON line of a recognised message, whatever its controller. */
export interface MessageSighting {
  readonly level: string;
  readonly message: string;
  /** Whole seconds since the epoch. */
  readonly second: number;
}

/** Why a line is not an end line: not a JSON object, another message, or the same message from another controller. */
export type IgnoredWhy = 'not_json' | 'other_message' | 'other_controller';

export type ClassifiedLine =
  | { readonly kind: 'ignored'; readonly why: IgnoredWhy; readonly second?: number; readonly sighting?: MessageSighting }
  | { readonly kind: 'rejected'; readonly reason: RejectReason; readonly message: string; readonly second?: number; readonly sighting?: MessageSighting }
  | { readonly kind: 'end'; readonly line: EndLine; readonly second: number; readonly sighting: MessageSighting };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class FieldProblem extends Error {}

export class ZapLineClassifier {
  private readonly kinds: ReadonlyMap<string, EndKind>;

  constructor(
    private readonly patterns: LogPatterns,
    private readonly controller: string,
  ) {
    this.kinds = new Map<string, EndKind>([
      [patterns.successMessage, 'success'],
      [patterns.completedWithErrorsMessage, 'completedWithErrors'],
      [patterns.reconcilerErrorMessage, 'reconcilerError'],
    ]);
  }

  classify(text: string, where: string): ClassifiedLine {
    const trimmed = text.trimStart();
    // Plain-text lines (klog, panics, the Go runtime) are not ours; a line that opens like JSON but does not parse
    // is a damaged log line that may have been an end line, so it is refused rather than skipped.
    if (!trimmed.startsWith('{')) return { kind: 'ignored', why: 'not_json' };
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return { kind: 'rejected', reason: 'invalid_json', message: `opens like a JSON log line but does not parse (${trimmed.length} characters; cut or damaged)` };
    }
    if (!isObject(value)) return { kind: 'ignored', why: 'not_json' };
    const f = this.patterns.fields;
    const msg = value[f.message];
    const timeValue = value[f.time];
    const timeMs = readTimeMs(timeValue);
    const timed = !Number.isNaN(timeMs);
    const second = Math.floor(timeMs / 1000);
    const kind = typeof msg === 'string' ? this.kinds.get(msg) : undefined;
    if (kind === undefined || typeof msg !== 'string') return timed ? { kind: 'ignored', why: 'other_message', second } : { kind: 'ignored', why: 'other_message' };
    const levelValue = value[f.level];
    const level = typeof levelValue === 'string' ? levelValue : '';
    try {
      const controller = value[f.controller];
      if (typeof controller !== 'string' || controller === '') throw new FieldProblem(`${f.controller}: required string`);
      if (controller !== this.controller) {
        return timed ? { kind: 'ignored', why: 'other_controller', second, sighting: { level, message: msg, second } } : { kind: 'ignored', why: 'other_controller' };
      }
      if (!timed) throw new FieldProblem(`${f.time}: required RFC 3339 time, got ${JSON.stringify(timeValue) ?? 'nothing'}`);
      const object = this.readObject(value);
      const id = value[f.reconcileID];
      if (id !== undefined && (typeof id !== 'string' || id === '')) throw new FieldProblem(`${f.reconcileID}: must be a non-empty string`);
      const time = typeof timeValue === 'string' ? timeValue : new Date(timeMs).toISOString();
      const correlation = id ?? `object:${object}`;
      let line: EndLine;
      if (kind === 'success') line = { kind, where, time, timeMs, controller, object, correlation };
      else {
        const { text, causes } = this.readText(kind, value);
        line = causes ? { kind, where, time, timeMs, controller, object, correlation, text, causes } : { kind, where, time, timeMs, controller, object, correlation, text };
      }
      return { kind: 'end', line, second, sighting: { level, message: msg, second } };
    } catch (e) {
      if (!(e instanceof FieldProblem)) throw e;
      const message = `${JSON.stringify(msg)} line: ${e.message}`;
      return timed ? { kind: 'rejected', reason: 'invalid_record', message, second, sighting: { level, message: msg, second } } : { kind: 'rejected', reason: 'invalid_record', message };
    }
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

  /** The error text (with zap's causes, when it wrote them) or the summary of a line that is not `success`. */
  private readText(kind: Exclude<EndKind, 'success'>, value: Record<string, unknown>): { text: string; causes?: string[] } {
    const f = this.patterns.fields;
    const key = kind === 'reconcilerError' ? f.error : f.summary;
    const text = value[key];
    // logSummary() is "" when only non-critical errors occurred, and zap writes the empty string.
    if (typeof text !== 'string' || (kind === 'reconcilerError' && text === '')) throw new FieldProblem(`${key}: required string`);
    if (kind === 'completedWithErrors') return { text: redactText(text) };
    const causes = leafCauses(value[f.errorCauses], 0);
    return causes && causes.length > 0 ? { text: redactText(text), causes: causes.map(redactText) } : { text: redactText(text) };
  }
}

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
  if (typeof value === 'string') return RFC3339.test(value) ? Date.parse(value) : NaN;
  // Epoch seconds; beyond year 9999 a number is no log time (and Date cannot render it).
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < MAX_EPOCH_SECONDS) return Math.round(value * 1000);
  return NaN;
}
