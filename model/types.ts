/**
 * The reconcile model: one controller's reconcile loop described in both shapes, the sequential loop
 * (first error or stop ends the attempt) and the phased loop (critical and non-critical groups).
 * This is the in-memory form of the public `reconcile-shadow/v1 ReconcileModel` YAML format.
 */

export type LoopKind = 'sequential' | 'phased';
export const LOOP_KINDS: readonly LoopKind[] = ['sequential', 'phased'];

/** Which loop an input was written under, as configured (`--loop`, a source's `loop`): one, or `auto` to find out. */
export type LoopSetting = LoopKind | 'auto';
export const LOOP_SETTINGS: readonly LoopSetting[] = ['auto', ...LOOP_KINDS];

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

/**
 * What an operation does besides returning, as its code shows: `none` (it reads or computes only: what it sets on the
 * object in memory is written by a later operation), `status` (it updates the object's status), `objects` (it creates,
 * updates or deletes objects: other objects, or the object's spec or metadata). Absent: unknown.
 */
export type OperationWrites = 'none' | 'status' | 'objects';
export const OPERATION_WRITES: readonly OperationWrites[] = ['none', 'status', 'objects'];

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
  /**
   * Per loop: later operations the loop runs when this operation's error ends the attempt, before it returns the error
   * (a recovery path; their own errors are logged, not returned). Absent: none.
   */
  readonly recovery?: LoopRecovery;
  /** What the operation writes when it runs; absent when the model does not say (user and older models). */
  readonly writes?: 'none' | 'status' | 'objects';
}

/** Per loop, the operations a recovery path runs (see ModelOperation.recovery). */
export type LoopRecovery = Partial<Readonly<Record<LoopKind, readonly string[]>>>;

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

/**
 * One build (release) of the operator, as it differs from the model as written (its newest build, listed first with no
 * differences). See model/builds.ts.
 */
export interface ModelBuild {
  readonly name: string;
  /** The upstream commit the build's differences were read at. */
  readonly commit: string;
  /** The operator versions (major.minor) of this build. */
  readonly versions: readonly string[];
  /** The `LatestSupportedVersion` (major.minor) the build reports in its install annotation and start line. */
  readonly supported: readonly string[];
  /** The loops the build can run (a build from before the phased loop has only the sequential one). */
  readonly loops: readonly LoopKind[];
  /** Operations only the build has (in its sequential loop), each after the operation named. */
  readonly add: readonly { readonly after: string; readonly operation: ModelOperation }[];
  /** Operations the build does not have. */
  readonly remove: readonly string[];
  /** Operations the build runs in one loop only. */
  readonly only: Readonly<Record<string, LoopKind>>;
  /** Formats the build lacks (`remove`), has besides (`add`, in both loops or `only` one), or has in one loop only (`format`). */
  readonly formats: readonly { readonly op: string; readonly remove?: string; readonly add?: string; readonly format?: string; readonly only?: LoopKind }[];
  /** What the model cannot say about the build from the code at its commit (e.g. a backport not merged there). */
  readonly notes: readonly string[];
}

export interface ReconcileModel {
  readonly name: string;
  readonly controller: string;
  /** The operator builds the model knows, newest first (absent: one build). */
  readonly builds?: readonly ModelBuild[];
  /** The build this model was derived for (modelForBuild), absent for the model as written. */
  readonly build?: string;
  /** How the build was chosen (selectBuild): the version read and where, or that it was unknown. */
  readonly buildStatement?: string;
  /** Every operation, in the order the sequential loop runs them (including `only: phased` ones, which it skips). */
  readonly operations: readonly ModelOperation[];
  /** The steps of the phased loop, in the order they run. */
  readonly phased: readonly PhasedStep[];
}
