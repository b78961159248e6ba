/**
 * The two reconcile loops as pure functions of the operations' outcomes (observed or predicted) and, for errors,
 * which variant of the op's rules applies (model/effects.ts).
 * Sequential: operations run in order; a stop ends the attempt, and an error does unless its effect is `continue`;
 * an error that ends it first runs the op's recovery path, if the model gives one (later ops the code runs before
 * returning the error).
 * Phased: steps run in order; a fail-fast step's stop ends the attempt, and its error does unless its effect is
 * `continue`. A blockable group is skipped when a critical group has failed earlier in the attempt (checked when the
 * group is reached, as executeOrBlock does); a `skipWhenBlocked` group then runs but does nothing. In a group an error
 * ends the group when its effect is `endGroup` (a chain group's default) and the group goes on when it is `continue`
 * (a collect group's default); either way the group has failed. A `stop` inside a group is a nil return from the
 * group's function: it ends a chain group without failing it.
 */
import { CONTINUE, END, ERROR, PHASED, SEQUENTIAL, STOP, type CompiledModel } from './compiled-model.js';

export const NO_BLOCKER = -1;
/** Blockers are op indices (>= 0) or groups, encoded as -(2 + group index). */
export const groupBlocker = (group: number): number => -2 - group;
export const blockerGroup = (blocker: number): number => -2 - blocker;

export interface LoopRun {
  /** Per op: 1 when the loop ran it (whatever its outcome), else 0. */
  readonly ran: Uint8Array;
  /** Per op that did not run: what kept it from running (see groupBlocker), or NO_BLOCKER when nothing did. */
  readonly blocker: readonly number[];
  /** `blocker[op]`, without building the whole array when it was not needed yet. */
  blockerOf(op: number): number;
  /** The op whose error or stop ended the attempt, or -1. */
  readonly endedBy: number;
  /** Phased only: groups that ran and failed. */
  readonly failedGroups: readonly number[];
  /** Phased only: [critical group that had failed, blockable group skipped because of it]. */
  readonly blockedBy: readonly (readonly [number, number])[];
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * A run's `blocker` is read only where the loops diverge, so it is derived on first read from what the run kept:
 * the loop runs a prefix of its order (of a chain group's ops) and stops at `endedBy` (at the group's last op that
 * ran). It is a plain array: an Int32Array of a model's size lives off the V8 heap (a malloc and a finalizer each).
 */
abstract class Run implements LoopRun {
  private blockers: number[] | undefined;

  constructor(
    protected readonly cm: CompiledModel,
    readonly ran: Uint8Array,
    readonly endedBy: number,
    readonly failedGroups: readonly number[],
    readonly blockedBy: readonly (readonly [number, number])[],
  ) {}

  get blocker(): readonly number[] {
    if (!this.blockers) {
      this.blockers = new Array<number>(this.ran.length).fill(NO_BLOCKER);
      this.fillBlockers(this.blockers);
    }
    return this.blockers;
  }

  blockerOf(op: number): number {
    if (this.blockers) return this.blockers[op]!;
    return this.ran[op] === 1 ? NO_BLOCKER : this.blockerOfSkipped(op);
  }

  protected abstract fillBlockers(blocker: number[]): void;

  /** What kept `op`, which did not run, from running. */
  protected abstract blockerOfSkipped(op: number): number;
}

class SequentialRun extends Run {
  protected fillBlockers(blocker: number[]): void {
    for (const op of this.cm.sequentialOrder) if (this.ran[op] === 0) blocker[op] = this.endedBy;
  }

  protected blockerOfSkipped(op: number): number {
    return this.cm.sequentialPosition[op]! >= 0 ? this.endedBy : NO_BLOCKER;
  }
}

class PhasedRun extends Run {
  protected fillBlockers(blocker: number[]): void {
    let ended = false;
    for (const step of this.cm.phasedSteps) {
      if (ended) {
        // an op the ending step's recovery path ran is not blocked
        if (step.kind === 'op') {
          if (this.ran[step.op] === 0) blocker[step.op] = this.endedBy;
        } else for (const op of step.ops) if (this.ran[op] === 0) blocker[op] = this.endedBy;
        continue;
      }
      if (step.kind === 'op') {
        ended = step.op === this.endedBy;
        continue;
      }
      // blockedBy lists, per skipped group, every critical group that had failed, the first one first
      const skipped = this.blockedBy.find(([, group]) => group === step.index);
      if (skipped) {
        for (const op of step.ops) blocker[op] = groupBlocker(skipped[0]);
        continue;
      }
      let chainEnd = -1;
      for (const op of step.ops) {
        if (this.ran[op] === 1) chainEnd = op;
        else blocker[op] = chainEnd;
      }
    }
  }

  /** The same answers as fillBlockers, for one op. */
  protected blockerOfSkipped(op: number): number {
    const cm = this.cm;
    const position = cm.phasedPosition[op]!;
    if (position < 0) return NO_BLOCKER;
    if (this.endedBy >= 0 && position > cm.phasedPosition[this.endedBy]!) return this.endedBy;
    const group = cm.groupOf[op]!;
    if (group < 0) return NO_BLOCKER;
    const skipped = this.blockedBy.find(([, g]) => g === group);
    if (skipped) return groupBlocker(skipped[0]);
    let chainEnd = -1;
    for (const other of cm.groups[group]!.ops) {
      if (other === op) break;
      if (this.ran[other] === 1) chainEnd = other;
    }
    return chainEnd;
  }
}

/** When `op`'s error ended the attempt, the later ops its recovery path ran before the loop returned. */
function runRecovery(ran: Uint8Array, recovery: readonly (readonly number[] | undefined)[], op: number, code: number): void {
  const ops = code === ERROR ? recovery[op] : undefined;
  if (ops) for (const other of ops) ran[other] = 1;
}

/** Whether `op`'s outcome ends the attempt when it runs as a step of a loop (not inside a group) with these effects. */
function endsAttempt(effects: Uint8Array, stride: number, op: number, code: number, variant: number): boolean {
  return code === STOP || (code === ERROR && effects[op * stride + variant] === END);
}

/** `variants`: per op, which of its rules an error follows (model/effects.ts); by default every op's own. */
export function runSequential(cm: CompiledModel, outcomes: Uint8Array, variants: Readonly<Uint8Array> = cm.noVariants): LoopRun {
  const ran = new Uint8Array(cm.ops.length);
  let endedBy = -1;
  const order = cm.sequentialOrder;
  const effects = cm.effects[SEQUENTIAL];
  const stride = cm.variantStride;
  for (let i = 0; i < order.length; i++) {
    const op = order[i]!;
    ran[op] = 1;
    if (endsAttempt(effects, stride, op, outcomes[op]!, variants[op]!)) {
      endedBy = op;
      runRecovery(ran, cm.recovery[SEQUENTIAL], op, outcomes[op]!);
      break;
    }
  }
  return new SequentialRun(cm, ran, endedBy, NONE, NONE);
}

export function runPhased(cm: CompiledModel, outcomes: Uint8Array, variants: Readonly<Uint8Array> = cm.noVariants): LoopRun {
  const ran = new Uint8Array(cm.ops.length);
  let failedGroups: number[] | undefined;
  let failedCritical: number[] | undefined;
  let blockedBy: [number, number][] | undefined;
  let endedBy = -1;
  const effects = cm.effects[PHASED];
  const stride = cm.variantStride;

  for (const step of cm.phasedSteps) {
    if (step.kind === 'op') {
      ran[step.op] = 1;
      if (endsAttempt(effects, stride, step.op, outcomes[step.op]!, variants[step.op]!)) {
        endedBy = step.op;
        runRecovery(ran, cm.recovery[PHASED], step.op, outcomes[step.op]!);
        break;
      }
      continue;
    }
    if (failedCritical && (step.blockable || step.skipWhenBlocked)) {
      if (step.skipWhenBlocked) for (const op of step.ops) ran[op] = 1;
      else {
        blockedBy ??= [];
        for (const critical of failedCritical) blockedBy.push([critical, step.index]);
      }
      continue;
    }
    let failed = false;
    const chain = step.mode === 'chain';
    for (const op of step.ops) {
      ran[op] = 1;
      const code = outcomes[op]!;
      if (code === ERROR) {
        failed = true;
        if (effects[op * stride + variants[op]!] !== CONTINUE) break;
      } else if (code === STOP && chain) break;
    }
    if (failed) {
      (failedGroups ??= []).push(step.index);
      if (step.category === 'critical') (failedCritical ??= []).push(step.index);
    }
  }
  return new PhasedRun(cm, ran, endedBy, failedGroups ?? NONE, blockedBy ?? NONE);
}
