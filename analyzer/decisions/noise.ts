/**
 * The noise floor (the A/A baseline), per loop: how often an op's outcome flips between consecutive attempts of one
 * object when nothing in its spec changed (same generation). Conflicts and other flaky errors live here; a
 * difference in an op's failure rate no larger than its own flip rate is not counted as evidence of anything.
 */
import type { LoopKind } from '../../model/types.js';
import type { ControllerCounters, LoopCounters } from './counters.js';

export interface OperationNoise {
  readonly op: string;
  readonly comparisons: number;
  readonly flips: number;
  readonly rate: number;
}

export interface NoiseFloor {
  readonly loop: LoopKind;
  /** All flips over all comparisons, or null when no two consecutive attempts shared a generation. */
  readonly overall: number | null;
  readonly comparisons: number;
  readonly flips: number;
  /** Ops that flipped at least once, flakiest first. */
  readonly operations: readonly OperationNoise[];
}

/** Per op index: the flip rate under one loop, or null without comparisons. */
export function noiseRates(loop: LoopCounters): (number | null)[] {
  return Array.from(loop.noiseComparisons, (c, op) => (c === 0 ? null : loop.noiseFlips[op]! / c));
}

export function noiseFloor(counters: ControllerCounters, loop: LoopKind, ops: readonly string[]): NoiseFloor {
  const l = counters.loops[loop];
  let comparisons = 0;
  let flips = 0;
  const operations: OperationNoise[] = [];
  ops.forEach((op, i) => {
    const c = l.noiseComparisons[i]!;
    const f = l.noiseFlips[i]!;
    comparisons += c;
    flips += f;
    if (f > 0) operations.push({ op, comparisons: c, flips: f, rate: f / c });
  });
  operations.sort((x, y) => y.rate - x.rate || (x.op < y.op ? -1 : 1));
  return { loop, overall: comparisons === 0 ? null : flips / comparisons, comparisons, flips, operations };
}
