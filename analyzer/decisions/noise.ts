/**
 * The noise floor (the A/A baseline): how often an op's outcome flips between consecutive attempts of one object
 * when nothing in its spec changed (same generation). Conflicts and other flaky errors live here; a difference in
 * an op's failure rate no larger than its own flip rate is not counted as evidence of anything.
 */
import type { ControllerEvidence } from './evidence.js';

export interface OperationNoise {
  readonly op: string;
  readonly comparisons: number;
  readonly flips: number;
  readonly rate: number;
}

export interface NoiseFloor {
  /** All flips over all comparisons, or null when no two consecutive attempts shared a generation. */
  readonly overall: number | null;
  readonly comparisons: number;
  readonly flips: number;
  /** Ops that flipped at least once, flakiest first. */
  readonly operations: readonly OperationNoise[];
}

/** Per op index: the flip rate, or null without comparisons. */
export function noiseRates(evidence: ControllerEvidence): (number | null)[] {
  return evidence.cm.ops.map((_, op) => (evidence.noiseComparisons[op] === 0 ? null : evidence.noiseFlips[op]! / evidence.noiseComparisons[op]!));
}

export function noiseFloor(evidence: ControllerEvidence): NoiseFloor {
  let comparisons = 0;
  let flips = 0;
  const operations: OperationNoise[] = [];
  evidence.cm.ops.forEach((op, i) => {
    const c = evidence.noiseComparisons[i]!;
    const f = evidence.noiseFlips[i]!;
    comparisons += c;
    flips += f;
    if (f > 0) operations.push({ op, comparisons: c, flips: f, rate: f / c });
  });
  operations.sort((x, y) => y.rate - x.rate || (x.op < y.op ? -1 : 1));
  return { overall: comparisons === 0 ? null : flips / comparisons, comparisons, flips, operations };
}
