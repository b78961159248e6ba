/**
 * The log source's types other folders use: the CLI hands its files to the source as named streams and sets its loop,
 * and the CLI and the status source read its books and its sample of unmapped messages.
 */
import type { Readable } from 'node:stream';
import type { LoopKind } from '../../model/types.js';
import type { UnmappedWhy } from '../readings/types.js';
import type { LoopKnowledge, RejectReason, SourceNote } from '../records.js';

/** One operator log to read, merged by time with the others. */
export interface NamedStream {
  readonly stream: Readable;
  /** Names its lines in `where` (`name:line`). */
  readonly name: string;
}

/** An unmapped message of the sample, with where it was first seen and how often. */
export interface UnmappedSampleEntry {
  readonly message: string;
  readonly why: UnmappedWhy;
  readonly detail: string;
  /** Where and when it was first seen, and on which object. */
  readonly where: string;
  readonly time: string;
  readonly object: string;
  count: number;
}

/** The distinct messages no reading placed on one operation, bounded, for the summary. */
export interface UnmappedSample {
  /** Every unmapped message, counted (also those not kept). */
  readonly total: number;
  /** Distinct messages, first seen first, at most `unmappedSampleSize`. */
  readonly distinct: readonly UnmappedSampleEntry[];
  /** True when distinct messages beyond the bound were only counted. */
  readonly truncated: boolean;
}

/** The reasons the log source drops a line under. */
export type LogDropReason = Extract<RejectReason, 'invalid_json' | 'invalid_record' | 'line_too_long' | 'loop_unknown' | 'late_line'>;

/** The log source's books, in lines. */
export interface LogSourceStats {
  /** Every line read. */
  lines: number;
  /** Lines accepted: an attempt's lines, and refused lines (`received = analyzed + dropped` once nothing is held). */
  received: number;
  analyzed: number;
  dropped: Record<LogDropReason, number>;
  /** Lines not meant for this source; `run` lines are read for where the operator restarted and its version. */
  ignored: Record<IgnoredWhy | 'run', number>;
  attempts: number;
  notes: Record<SourceNote, number>;
  /** Error messages no reading placed on one operation. */
  unmappedErrors: number;
  sampledSeconds: number;
  /** Operator runs seen (controller starts); 1 for a log without any. */
  runs: number;
  /** The loop of the latest attempts; undefined while nothing proved one. */
  observedLoop: LoopKind | undefined;
  loopDecidedBy: LoopKnowledge['decidedBy'];
}

/** Why a line is not an attempt's: not a JSON object, another message, or the same message from another controller. */
export type IgnoredWhy = 'not_json' | 'other_message' | 'other_controller';
