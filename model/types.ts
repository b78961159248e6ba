/**
 * The reconcile model: one controller's reconcile loop described in both shapes, the sequential loop
 * (first error or stop ends the attempt) and the phased loop (critical and non-critical groups).
 * This is the in-memory form of the public `reconcile-shadow/v1 ReconcileModel` YAML format.
 */

export type LoopKind = 'sequential' | 'phased';
export const LOOP_KINDS: readonly LoopKind[] = ['sequential', 'phased'];

/** What one operation did in one attempt. */
export type Outcome = 'ok' | 'error' | 'stop' | 'skip';
export const OUTCOMES: readonly Outcome[] = ['ok', 'error', 'stop', 'skip'];

export type GroupCategory = 'critical' | 'nonCritical';

/**
 * What an operation's error does to the loop running it:
 * - `end`: the attempt ends (the sequential loop's default, and a phased fail-fast step's);
 * - `endGroup`: the group ends and the loop goes on (the default inside a `chain` group);
 * - `continue`: the loop, or the group, goes on with the next operation (the default inside a `collect` group).
 */
export type ErrorEffect = 'end' | 'endGroup' | 'continue';
export const ERROR_EFFECTS: readonly ErrorEffect[] = ['end', 'endGroup', 'continue'];

/** Per-loop overrides of an error's effect; a loop left out keeps the default of the operation's place in it. */
export type LoopEffects = Partial<Readonly<Record<LoopKind, ErrorEffect>>>;

/**
 * A Go format string an error of the operation can start with (its outermost format), and what differs for errors of
 * this format: the loop it exists in (`only`), its effect, its consequences. A format with `onError` or `causes` is a
 * *variant*: the engine matches an observed error's text against the op's variants to know which rules apply.
 */
export interface ErrorFormat {
  readonly format: string;
  /** Present when an error of the op starts with this text in one loop only (the other wraps it, or lacks it). */
  readonly only?: LoopKind;
  readonly onError?: LoopEffects;
  /** Replaces the operation's `causes` for errors of this format (`[]`: none). */
  readonly causes?: readonly Consequence[];
}

/**
 * When the operation fails and the loop goes on, `op` (later in the loop) fails too: with an error of format `error`
 * (`outcome: 'error'`), or by returning nil early and ending the attempt silently (`outcome: 'stop'`).
 */
export interface Consequence {
  readonly op: string;
  readonly outcome: 'error' | 'stop';
  /** Set exactly when `outcome` is `error`: one of `op`'s formats. */
  readonly error?: string;
}
/** chain: the group's first failing op ends the group; collect: every op runs and errors are collected. */
export type GroupMode = 'chain' | 'collect';

export interface ModelOperation {
  readonly name: string;
  /** Go format strings of the errors the operation returns, used to map log and status messages to it. */
  readonly errors: readonly ErrorFormat[];
  /** Present when the operation exists in only one of the two loops. */
  readonly only?: LoopKind;
  /** What its errors do, per loop, when that differs from the default of its place in the loop. */
  readonly onError?: LoopEffects;
  /** Operations that fail as a consequence when this one fails and the loop goes on. */
  readonly causes?: readonly Consequence[];
  /** What running it changes: nothing (reads or computes only), the object's status, or other objects. */
  readonly writes?: 'none' | 'status' | 'objects';
}

/** A fail-fast step of the phased loop: an error or stop ends the attempt, as in the sequential loop. */
export interface FailFastStep {
  readonly kind: 'op';
  readonly op: string;
}

/** A group of the phased loop, run through `execute` or (blockable) `executeOrBlock`. */
export interface GroupStep {
  readonly kind: 'group';
  readonly group: string;
  readonly category: GroupCategory;
  readonly blockable: boolean;
  readonly mode: GroupMode;
  readonly ops: readonly string[];
  /**
   * Run through `execute`, but the group's function returns nil at once when a critical group has failed earlier
   * (it checks `shouldBlock()` itself): its ops count as run with outcome `skip`, it never fails, and, unlike a
   * blockable group, it is not listed as blocked.
   */
  readonly skipWhenBlocked: boolean;
}

export type PhasedStep = FailFastStep | GroupStep;

export interface ReconcileModel {
  readonly name: string;
  readonly controller: string;
  /** Every operation, in the order the sequential loop runs them (including `only: phased` ones, which it skips). */
  readonly operations: readonly ModelOperation[];
  /** The steps of the phased loop, in the order they run. */
  readonly phased: readonly PhasedStep[];
}
