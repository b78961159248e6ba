/**
 * The two reconcile loops as pure functions of the operations' outcomes (observed or predicted).
 * Sequential: operations run in order; the first error or stop ends the attempt.
 * Phased: steps run in order; a fail-fast step's error or stop ends the attempt; a blockable group is skipped
 * when a critical group has failed earlier in the attempt (checked when the group is reached, as executeOrBlock
 * does); a chain group's first failing op ends the group; a collect group runs every op.
 * A `stop` inside a group ends that group's chain without failing it: it is a nil return from the group's function.
 */
import { ERROR, STOP, type CompiledModel } from './compiled-model.js';

export const NO_BLOCKER = -1;
/** Blockers are op indices (>= 0) or groups, encoded as -(2 + group index). */
export const groupBlocker = (group: number): number => -2 - group;
export const blockerGroup = (blocker: number): number => -2 - blocker;

export interface LoopRun {
  /** Per op: 1 when the loop ran it (whatever its outcome), else 0. */
  readonly ran: Uint8Array;
  /** Per op that did not run: what kept it from running (see groupBlocker), or NO_BLOCKER when nothing did. */
  readonly blocker: Int32Array;
  /** The op whose error or stop ended the attempt, or -1. */
  readonly endedBy: number;
  /** Phased only: groups that ran and failed. */
  readonly failedGroups: readonly number[];
  /** Phased only: [critical group that had failed, blockable group skipped because of it]. */
  readonly blockedBy: readonly (readonly [number, number])[];
}

const endsLoop = (code: number): boolean => code === ERROR || code === STOP;

export function runSequential(cm: CompiledModel, outcomes: Uint8Array): LoopRun {
  const n = cm.ops.length;
  const ran = new Uint8Array(n);
  const blocker = new Int32Array(n).fill(NO_BLOCKER);
  let endedBy = -1;
  for (const op of cm.sequentialOrder) {
    if (endedBy >= 0) {
      blocker[op] = endedBy;
      continue;
    }
    ran[op] = 1;
    if (endsLoop(outcomes[op]!)) endedBy = op;
  }
  return { ran, blocker, endedBy, failedGroups: [], blockedBy: [] };
}

export function runPhased(cm: CompiledModel, outcomes: Uint8Array): LoopRun {
  const n = cm.ops.length;
  const ran = new Uint8Array(n);
  const blocker = new Int32Array(n).fill(NO_BLOCKER);
  const failedGroups: number[] = [];
  const failedCritical: number[] = [];
  const blockedBy: [number, number][] = [];
  let endedBy = -1;

  for (const step of cm.phasedSteps) {
    if (endedBy >= 0) {
      if (step.kind === 'op') blocker[step.op] = endedBy;
      else for (const op of step.ops) blocker[op] = endedBy;
      continue;
    }
    if (step.kind === 'op') {
      ran[step.op] = 1;
      if (endsLoop(outcomes[step.op]!)) endedBy = step.op;
      continue;
    }
    if (step.blockable && failedCritical.length > 0) {
      for (const critical of failedCritical) blockedBy.push([critical, step.index]);
      for (const op of step.ops) blocker[op] = groupBlocker(failedCritical[0]!);
      continue;
    }
    let failed = false;
    let chainEnd = -1;
    for (const op of step.ops) {
      if (chainEnd >= 0) {
        blocker[op] = chainEnd;
        continue;
      }
      ran[op] = 1;
      const code = outcomes[op]!;
      if (code === ERROR) failed = true;
      if (step.mode === 'chain' && endsLoop(code)) chainEnd = op;
    }
    if (failed) {
      failedGroups.push(step.index);
      if (step.category === 'critical') failedCritical.push(step.index);
    }
  }
  return { ran, blocker, endedBy, failedGroups, blockedBy };
}
