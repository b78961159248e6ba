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
/** chain: the group's first failing op ends the group; collect: every op runs and errors are collected. */
export type GroupMode = 'chain' | 'collect';

export interface ModelOperation {
  readonly name: string;
  /** Go format strings of the errors the operation returns, used to map log and status messages to it. */
  readonly errors: readonly string[];
  /** Present when the operation exists in only one of the two loops. */
  readonly only?: LoopKind;
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
