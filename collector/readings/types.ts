/**
 * What the readings take in and give out: an attempt's texts, taken apart once (an interpretation), and what they
 * prove under one loop (attempt-builder.ts builds them, attempt-readings.ts remembers them).
 */
import type { LoopKind } from '../../model/types.js';
import type { OperationRecord } from '../records.js';
import type { FormatMatch } from './error-mapping.js';

/** What one attempt wrote; each part may be missing (not written, or sampled away). */
export interface AttemptTexts {
  /** The reconciler's own `successfully reconciled` (or a status condition that is True). */
  readonly success: boolean;
  /** `summary` of the phased loop's `reconciliation completed with errors`. */
  readonly summary?: string;
  /** The returned error's text (`Reconciler error`, or a False condition's message). */
  readonly error?: string;
  /** The innermost messages of the error's zap `errorCauses`, when the logger wrote them. */
  readonly errorCauses?: readonly string[];
  /** Lines that report one operation's outcome while the attempt runs (a silent stop, an error the loop went on after). */
  readonly progress?: readonly ProgressText[];
  /** Lines of this attempt may be missing (the logger may have sampled them away). */
  readonly incomplete?: boolean;
}

export interface ProgressText {
  /** The operation the line reports on (from the log patterns). */
  readonly op: string;
  readonly outcome: 'error' | 'stop';
  /** The line's error text, when it carries one. */
  readonly error?: string;
}

export type UnmappedWhy = 'no_format' | 'ambiguous' | 'outside_loop' | 'inconsistent';

export interface UnmappedMessage {
  readonly message: string;
  readonly why: UnmappedWhy;
  /** A sentence for the summary: what matched, or why the match was refused. */
  readonly detail: string;
}

/** A name in a summary or blocked list that is not a group or operation of the model. */
export interface UnknownName {
  readonly list: 'blocked operations' | 'critical failures';
  readonly name: string;
}

/** An attempt read under one loop. */
export interface BuiltAttempt {
  /** What every consistent reading agrees on, in the loop's order. */
  readonly operations: OperationRecord[];
  /** No reading fits the texts under this loop (the record then states nothing). */
  readonly consistent: boolean;
  /** Why not, when inconsistent. */
  readonly inconsistency?: string;
  /** Several readings fit, differing in what they state: only their common outcomes are in `operations`. */
  readonly ambiguous: boolean;
  /** A message with several candidates that the other evidence settled on one operation. */
  readonly resolved: boolean;
  readonly unmapped: UnmappedMessage[];
  readonly unknownNames: UnknownName[];
  /** Messages set aside as no operation's (status-update conflicts and the like). */
  readonly nonOperation: number;
}

/** One message of the returned error, with its readings under each loop. */
interface Element {
  readonly message: string;
  readonly candidates: Readonly<Record<LoopKind, readonly FormatMatch[]>>;
}

/** The texts of an attempt taken apart once, then read under either loop. */
export interface Interpretation {
  readonly texts: AttemptTexts;
  /** The error is aggregate()'s `critical error: …`. */
  readonly critical: boolean;
  readonly elements: readonly Element[];
  /** The blocked list of the `critical error:` text; undefined when the text has none. */
  readonly textBlocked?: readonly string[];
  readonly summary?: { readonly critical: readonly string[]; readonly blocked: readonly string[] };
  readonly nonOperation: number;
}
