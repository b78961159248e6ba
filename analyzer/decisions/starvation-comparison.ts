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
 * step that ends the attempt, or after an op of its chain.
 *
 * Harm is work lost: the time counts only where the other loop runs, among what this loop withholds, the op or a
 * later one that writes (status or objects, the model's `writes`). A read whose consumers run in neither loop loses
 * nothing (`noLoss`); where no withheld op is known to write and some op's `writes` is not given, the time is
 * `unknown`: reported, never harm by itself. An op is `starved-under-phased` when its lost time, net of the lost time
 * the sequential loop keeps it from running where the phased loop would, exceeds `maxStarvationShare` of the
 * object-time (1 % by default: about a quarter of an hour per object and day); `effect-unknown` when only the
 * unknown time would take it over.
 */
import type { CompiledModel } from '../compiled-model.js';
import type { ControllerCounters } from './counters.js';
import type { DecisionThresholds } from './thresholds.js';
import { percent } from './wording.js';
import { formatDuration } from '../../lib/duration.js';

export type StarvationFinding = 'starved-under-phased' | 'effect-unknown' | 'ok';

export interface OperationStarvation {
  readonly operation: string;
  /** Share of object-time the phased loop would not run it while the sequential loop would. */
  readonly phasedShare: number;
  /** The part of phasedShare in which a failed critical group blocked it (by design). */
  readonly byDesignShare: number;
  /** Share of object-time the sequential loop would not run it while the phased loop would. */
  readonly sequentialShare: number;
  /** Of phasedShare (not by design) and sequentialShare: the time in which nothing with an effect was withheld, and unknown. */
  readonly phasedNoLossShare: number;
  readonly phasedUnknownShare: number;
  readonly sequentialNoLossShare: number;
  readonly sequentialUnknownShare: number;
  /** Lost time the phased loop's order adds: (phased − by design − no loss − unknown) − (sequential − no loss − unknown). */
  readonly extraShare: number;
  /** The ops whose `writes` the model does not give, withheld with it (effect-unknown only). */
  readonly unknownWrites: readonly string[];
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
  const share = (ms: number): number => (total === 0 ? 0 : ms / total);
  const unstated = cm.model.operations.filter((o) => o.writes === undefined && o.only === undefined).map((o) => o.name);
  const operations: OperationStarvation[] = [];
  for (let op = 0; op < cm.ops.length; op++) {
    const phasedMs = counters.phasedStarvedMs[op]!;
    const sequentialMs = counters.sequentialStarvedMs[op]!;
    if (phasedMs === 0 && sequentialMs === 0) continue;
    const phasedShare = share(phasedMs);
    const sequentialShare = share(sequentialMs);
    const byDesignShare = share(counters.phasedByDesignMs[op]!);
    const phasedNoLossShare = share(counters.phasedNoLossMs[op]!);
    const phasedUnknownShare = share(counters.phasedUnknownMs[op]!);
    const sequentialNoLossShare = share(counters.sequentialNoLossMs[op]!);
    const sequentialUnknownShare = share(counters.sequentialUnknownMs[op]!);
    const phasedLost = phasedShare - byDesignShare - phasedNoLossShare - phasedUnknownShare;
    const sequentialLost = sequentialShare - sequentialNoLossShare - sequentialUnknownShare;
    const extraShare = phasedLost - sequentialLost;
    const phasedLongestSeconds = counters.phasedLongestMs[op]! / 1000;
    const sequentialLongestSeconds = counters.sequentialLongestMs[op]! / 1000;
    const starved = extraShare > t.maxStarvationShare;
    const unknown = !starved && extraShare + phasedUnknownShare > t.maxStarvationShare;
    const perDay = (x: number): string => `${(x * MINUTES_PER_DAY).toFixed(1)} min per object-day`;
    const design = byDesignShare > 0 ? ` (${percent(byDesignShare)} of the time behind a failed critical group, by design)` : '';
    const noLoss = phasedNoLossShare > 0 ? `; ${percent(phasedNoLossShare)} of the time nothing withheld with it writes (no work lost)` : '';
    const unknownWrites = unknown
      ? [cm.ops[op]!, ...cm.ops.filter((name, later) => cm.sequentialPosition[later]! > cm.sequentialPosition[op]! && unstated.includes(name))].filter((name) =>
          unstated.includes(name),
        )
      : [];
    let why: string;
    if (starved) {
      why = `the phased loop's order keeps it from running, with work that writes, ${percent(phasedLost)} of the time where the sequential loop would run it, the sequential loop ${percent(sequentialLost)} the other way: ${percent(extraShare)} more (${perDay(extraShare)}; ${percent(t.maxStarvationShare)} tolerated), longest ${formatDuration(phasedLongestSeconds)}${design}${noLoss}`;
    } else if (unknown) {
      why = `the phased loop's order keeps it from running ${percent(phasedUnknownShare)} of the time (${perDay(phasedUnknownShare)}) with no withheld op known to write: give \`writes\` for ${unknownWrites.slice(0, 5).join(', ')}${unknownWrites.length > 5 ? ', …' : ''} in the model to know whether work is lost${design}`;
    } else {
      why = `kept from running ${percent(phasedShare)} of the time by the phased loop${design}${noLoss}, ${percent(sequentialShare)} by the sequential loop; work with an effect lost: ${percent(Math.max(0, extraShare))} net`;
    }
    operations.push({
      operation: cm.ops[op]!,
      phasedShare,
      byDesignShare,
      sequentialShare,
      phasedNoLossShare,
      phasedUnknownShare,
      sequentialNoLossShare,
      sequentialUnknownShare,
      extraShare,
      unknownWrites,
      phasedLongestSeconds,
      sequentialLongestSeconds,
      finding: starved ? 'starved-under-phased' : unknown ? 'effect-unknown' : 'ok',
      why,
    });
  }
  operations.sort((x, y) => y.extraShare - x.extraShare || (x.operation < y.operation ? -1 : 1));
  return { objectSeconds: total / 1000, operations };
}
