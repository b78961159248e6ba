/**
 * Starvation, in time: how long each loop keeps an op from running where the other loop would run it.
 *
 * Both loops are replayed on every attempt, so this compares them on the same attempts of the same objects. The time
 * from one attempt of an object to its next is attributed to the loop that, at the first one, would not run the op
 * while the other would. Counts of blocked attempts would weigh a stuck object retried every few seconds hundreds of
 * times; time weighs it by how long its work waited.
 *
 * The phased loop blocks the blockable groups while a critical group fails: that is the model's design, and the
 * classification check asks whether the blocked work needs the critical group. So the time a failed critical group
 * blocks an op is reported but is not harm. The rest is what the phased loop's order does: an op it moved after a
 * step that ends the attempt, or after an op of its chain. An op is `starved` when that time, net of the time the
 * sequential loop keeps it from running where the phased loop would run it, exceeds `maxStarvationShare` of the
 * object-time (1 % by default: about a quarter of an hour per object and day).
 */
import type { CompiledModel } from '../compiled-model.js';
import type { ControllerCounters } from './counters.js';
import type { DecisionThresholds } from './thresholds.js';
import { percent } from './wording.js';
import { formatDuration } from '../../lib/duration.js';

export type StarvationFinding = 'starved-under-phased' | 'ok';

export interface OperationStarvation {
  readonly operation: string;
  /** Share of object-time the phased loop would not run it while the sequential loop would. */
  readonly phasedShare: number;
  /** The part of phasedShare in which a failed critical group blocked it (by design). */
  readonly byDesignShare: number;
  /** Share of object-time the sequential loop would not run it while the phased loop would. */
  readonly sequentialShare: number;
  /** phasedShare − byDesignShare − sequentialShare: what the phased loop's order adds. */
  readonly extraShare: number;
  /** The longest such streak on one object, per loop, in seconds. */
  readonly phasedLongestSeconds: number;
  readonly sequentialLongestSeconds: number;
  readonly finding: StarvationFinding;
  readonly why: string;
}

export interface StarvationComparison {
  /** Object-time observed (seconds): the time between consecutive attempts of each object, summed. */
  readonly objectSeconds: number;
  /** Ops either loop kept from running at some time, the most starved under the phased loop first. */
  readonly operations: readonly OperationStarvation[];
}

const MINUTES_PER_DAY = 1440;

export function compareStarvation(cm: CompiledModel, counters: ControllerCounters, t: DecisionThresholds): StarvationComparison {
  const total = counters.objectMs;
  const operations: OperationStarvation[] = [];
  for (let op = 0; op < cm.ops.length; op++) {
    const phasedMs = counters.phasedStarvedMs[op]!;
    const sequentialMs = counters.sequentialStarvedMs[op]!;
    if (phasedMs === 0 && sequentialMs === 0) continue;
    const phasedShare = total === 0 ? 0 : phasedMs / total;
    const sequentialShare = total === 0 ? 0 : sequentialMs / total;
    const byDesignShare = total === 0 ? 0 : counters.phasedByDesignMs[op]! / total;
    const extraShare = phasedShare - byDesignShare - sequentialShare;
    const phasedLongestSeconds = counters.phasedLongestMs[op]! / 1000;
    const sequentialLongestSeconds = counters.sequentialLongestMs[op]! / 1000;
    const starved = extraShare > t.maxStarvationShare;
    const perDay = `${(extraShare * MINUTES_PER_DAY).toFixed(1)} min per object-day`;
    const design = byDesignShare > 0 ? ` (${percent(byDesignShare)} of the time behind a failed critical group, by design)` : '';
    const why = starved
      ? `the phased loop's order keeps it from running ${percent(phasedShare - byDesignShare)} of the time where the sequential loop would run it, the sequential loop ${percent(sequentialShare)} the other way: ${percent(extraShare)} more (${perDay}; ${percent(t.maxStarvationShare)} tolerated), longest ${formatDuration(phasedLongestSeconds)}${design}`
      : `kept from running ${percent(phasedShare)} of the time by the phased loop${design}, ${percent(sequentialShare)} by the sequential loop`;
    operations.push({ operation: cm.ops[op]!, phasedShare, byDesignShare, sequentialShare, extraShare, phasedLongestSeconds, sequentialLongestSeconds, finding: starved ? 'starved-under-phased' : 'ok', why });
  }
  operations.sort((x, y) => y.extraShare - x.extraShare || (x.operation < y.operation ? -1 : 1));
  return { objectSeconds: total / 1000, operations };
}
