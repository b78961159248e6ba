/**
 * The evidence behind the decisions, collected as an analyzer listener: pure, in memory, bounded (op pairs x 4
 * counters, one small record per object, a fixed number of time buckets).
 *
 * Pairs. For ops A and B that both ran in one attempt, A before B in the loop that ran the attempt: the 2x2 table of
 * B failed/succeeded by A failed/succeeded (layout in fisher.ts). An attempt counts for a pair only when both ops
 * succeeded in the same object's previous attempt, so every count is a change from a healthy state:
 * - a fault that persists is counted once, at its onset, not once per retry (a failing object is retried every few
 *   seconds, a healthy one every few minutes, so raw attempts would weigh one stuck fault hundreds of times);
 * - a failure of B that began before A's is never credited to A: an unrelated fault that keeps B failing while A
 *   flakes would otherwise look like dependence, because A's one-off errors land mostly in the frequent retries of
 *   objects that are already failing.
 * Only an attempt in which A failed and B still ran shows whether B depends on A; the sequential loop never runs
 * anything after a failure, so that row only fills from attempts the phased loop ran.
 *
 * Noise floor. For consecutive attempts of one object with the same generation (no spec change), how often an op's
 * outcome flipped between `ok` and `error`: the A/A comparison, flaky errors such as conflicts.
 *
 * Groups. Failures counted per run of consecutive failing attempts of an object; a run is "judged" when some op
 * outside the group was seen running after the group's failure.
 */
import type { AnalysisListener } from '../analyzer.js';
import { ERROR, OK, UNKNOWN, type CompiledModel } from '../compiled-model.js';
import { objectKey, type AttemptAnalysis } from '../engine.js';
import type { ControllerShadow } from '../shadow.js';
import type { LoopKind } from '../../model/types.js';
import type { TwoByTwo } from './fisher.js';
import { DEFAULT_TIMELINE_BUCKETS, StarvationTimeline } from './timeline.js';

export const DEFAULT_MAX_TRACKED_OBJECTS = 100_000;

export interface GroupCounters {
  /** Attempts in which an op of the group was observed failing. */
  failedAttempts: number;
  /** Runs of consecutive failing attempts per object. */
  failureRuns: number;
  /** Failure runs in which some op outside the group was observed running after the group's failure. */
  judgedRuns: number;
  /** Op-runs the sequential loop skipped because an op of this group ended the attempt. */
  sequentialSkippedOps: number;
  /** Op-runs the phased loop ran that the sequential loop skipped because of this group (one-loop ops left out). */
  unblockedOps: number;
  unblockingAttempts: number;
  readonly unblockedByOp: Uint32Array;
  /** Critical groups: op-runs of blockable groups the phased loop skipped only because this group had failed. */
  soleBlockedOps: number;
  soleBlockingAttempts: number;
  readonly soleBlockedGroups: Uint32Array;
}

interface ObjectMemory {
  loop: LoopKind;
  generation: number | undefined;
  /** Per op: the previous attempt's outcome when it was observed `ok` or `error`, else UNKNOWN. */
  codes: Uint8Array;
  /** Per group: 0 not failing, 1 failing, 2 failing with something observed after it. */
  groupState: Uint8Array;
}

export interface EvidenceOptions {
  /** Objects whose previous attempt is remembered; the least recently seen is forgotten past this. */
  readonly maxTrackedObjects?: number;
  readonly timelineBuckets?: number;
}

/** One controller's evidence. */
export class ControllerEvidence {
  attempts = 0;
  /** Attempts where the phased loop skipped an op the sequential loop ran (one-loop ops left out). */
  newlyBlockedAttempts = 0;
  forgottenObjects = 0;
  /** Per op: runs of consecutive attempts of one object in which it was observed failing. */
  readonly failureRuns: Uint32Array;
  readonly noiseComparisons: Uint32Array;
  readonly noiseFlips: Uint32Array;
  readonly groups: readonly GroupCounters[];
  readonly timeline: StarvationTimeline;
  /** Op indices in the phased loop's order. */
  readonly phasedOrder: readonly number[];
  private readonly pairs: Uint32Array;
  private readonly structural: Uint8Array;
  private readonly objects = new Map<string, ObjectMemory>();
  private readonly maxObjects: number;
  private readonly n: number;

  constructor(
    readonly cm: CompiledModel,
    options: EvidenceOptions = {},
  ) {
    const n = (this.n = cm.ops.length);
    this.pairs = new Uint32Array(n * n * 4);
    this.failureRuns = new Uint32Array(n);
    this.noiseComparisons = new Uint32Array(n);
    this.noiseFlips = new Uint32Array(n);
    this.structural = Uint8Array.from(cm.model.operations, (o) => (o.only === undefined ? 0 : 1));
    this.groups = cm.groups.map(() => ({
      failedAttempts: 0,
      failureRuns: 0,
      judgedRuns: 0,
      sequentialSkippedOps: 0,
      unblockedOps: 0,
      unblockingAttempts: 0,
      unblockedByOp: new Uint32Array(n),
      soleBlockedOps: 0,
      soleBlockingAttempts: 0,
      soleBlockedGroups: new Uint32Array(cm.groups.length),
    }));
    this.timeline = new StarvationTimeline(n, options.timelineBuckets ?? DEFAULT_TIMELINE_BUCKETS);
    this.phasedOrder = cm.ops.map((_, i) => i).filter((i) => cm.phasedPosition[i]! >= 0).sort((a, b) => cm.phasedPosition[a]! - cm.phasedPosition[b]!);
    this.maxObjects = options.maxTrackedObjects ?? DEFAULT_MAX_TRACKED_OBJECTS;
  }

  /** The table of ordered pair (first, second): attempts after a previous attempt where both succeeded. */
  table(first: number, second: number): TwoByTwo {
    const i = (first * this.n + second) * 4;
    const p = this.pairs;
    return { a: p[i + 3]!, b: p[i + 2]!, c: p[i + 1]!, d: p[i]! };
  }

  get trackedObjects(): number {
    return this.objects.size;
  }

  add(shadow: ControllerShadow, a: AttemptAnalysis): void {
    const r = a.record;
    this.attempts++;
    const order = r.model === 'sequential' ? this.cm.sequentialOrder : this.phasedOrder;
    const seen: number[] = [];
    const codes = new Uint8Array(this.n).fill(UNKNOWN);
    for (const op of order) {
      const code = a.outcomes[op]!;
      if (a.observed[op] === 1 && (code === OK || code === ERROR)) {
        seen.push(op);
        codes[op] = code;
      }
    }
    const key = objectKey(r);
    const previous = this.recall(key, r.model);
    this.countPairs(seen, codes, previous?.codes);
    for (const op of seen) if (codes[op] === ERROR && previous?.codes[op] !== ERROR) this.failureRuns[op]!++;
    if (previous && r.generation !== undefined && previous.generation === r.generation) this.countNoise(seen, codes, previous.codes);
    const groupState = this.countGroups(seen, codes, previous?.groupState);
    this.countWork(a);
    if (a.newlyBlocked.some((op) => this.structural[op] === 0)) this.newlyBlockedAttempts++;
    const starved = (r.model === 'sequential' ? a.unblocked : a.newlyBlocked).filter((op) => this.structural[op] === 0).length;
    this.timeline.add(r.timeMs, starved, () => this.withoutStructural(shadow.starvation.currentLongestSeconds(r.timeMs)));
    this.remember(key, { loop: r.model, generation: r.generation, codes, groupState });
  }

  /** The object's previous attempt, unless it ran under the other loop (pair orders differ between loops). */
  private recall(key: string, loop: LoopKind): ObjectMemory | undefined {
    const memory = this.objects.get(key);
    return memory?.loop === loop ? memory : undefined;
  }

  private remember(key: string, memory: ObjectMemory): void {
    this.objects.delete(key);
    this.objects.set(key, memory);
    if (this.objects.size > this.maxObjects) {
      const oldest = this.objects.keys().next().value as string;
      this.objects.delete(oldest);
      this.forgottenObjects++;
    }
  }

  /** Counts each pair (first before second in this attempt) whose two ops both succeeded in the previous attempt. */
  private countPairs(seen: readonly number[], codes: Uint8Array, previous: Uint8Array | undefined): void {
    if (!previous) return;
    const eligible = seen.filter((op) => previous[op] === OK);
    const n = this.n;
    const p = this.pairs;
    for (let i = 0; i < eligible.length; i++) {
      const first = eligible[i]!;
      const row = first * n * 4 + (codes[first] === ERROR ? 2 : 0);
      for (let j = i + 1; j < eligible.length; j++) {
        const second = eligible[j]!;
        p[row + second * 4 + (codes[second] === ERROR ? 1 : 0)]!++;
      }
    }
  }

  private countNoise(seen: readonly number[], codes: Uint8Array, previous: Uint8Array): void {
    for (const op of seen) {
      if (previous[op] === UNKNOWN) continue;
      this.noiseComparisons[op]!++;
      if (previous[op] !== codes[op]) this.noiseFlips[op]!++;
    }
  }

  private countGroups(seen: readonly number[], codes: Uint8Array, previous: Uint8Array | undefined): Uint8Array {
    const cm = this.cm;
    const state = new Uint8Array(cm.groups.length);
    const firstFailure = new Int32Array(cm.groups.length).fill(-1);
    seen.forEach((op, i) => {
      const g = cm.groupOf[op]!;
      if (g >= 0 && codes[op] === ERROR && firstFailure[g] === -1) firstFailure[g] = i;
    });
    for (let g = 0; g < cm.groups.length; g++) {
      const at = firstFailure[g]!;
      if (at < 0) continue;
      let judged = false;
      for (let j = at + 1; j < seen.length && !judged; j++) judged = cm.groupOf[seen[j]!] !== g;
      state[g] = judged ? 2 : 1;
      const before = previous?.[g] ?? 0;
      const c = this.groups[g]!;
      c.failedAttempts++;
      if (before === 0) c.failureRuns++;
      if (judged && before !== 2) c.judgedRuns++;
    }
    return state;
  }

  /** What each group's failure kept from running, in either loop, and what the other classification would free. */
  private countWork(a: AttemptAnalysis): void {
    const cm = this.cm;
    const ended = a.sequential.endedBy;
    if (ended >= 0 && cm.groupOf[ended]! >= 0) {
      this.groups[cm.groupOf[ended]!]!.sequentialSkippedOps += cm.sequentialOrder.length - cm.sequentialPosition[ended]! - 1;
    }
    const unblocking = new Set<number>();
    for (const op of a.unblocked) {
      const blocker = a.sequential.blocker[op]!;
      if (this.structural[op] === 1 || blocker < 0 || cm.groupOf[blocker]! < 0) continue;
      const g = cm.groupOf[blocker]!;
      const c = this.groups[g]!;
      c.unblockedOps++;
      c.unblockedByOp[op]!++;
      unblocking.add(g);
    }
    for (const g of unblocking) this.groups[g]!.unblockingAttempts++;
    const blockers = new Set(a.phased.blockedBy.map(([critical]) => critical));
    if (blockers.size === 1) {
      const c = this.groups[a.phased.blockedBy[0]![0]]!;
      c.soleBlockingAttempts++;
      for (const [, blocked] of a.phased.blockedBy) {
        c.soleBlockedOps += cm.groups[blocked]!.ops.length;
        c.soleBlockedGroups[blocked]!++;
      }
    }
  }

  private withoutStructural(longest: Float64Array): Float64Array {
    for (let op = 0; op < this.n; op++) if (this.structural[op] === 1) longest[op] = 0;
    return longest;
  }
}

/** The listener: one ControllerEvidence per controller, created on its first attempt. */
export class DecisionEvidence implements AnalysisListener {
  private readonly controllers = new Map<string, ControllerEvidence>();

  constructor(private readonly options: EvidenceOptions = {}) {}

  attempt(shadow: ControllerShadow, analysis: AttemptAnalysis): void {
    let evidence = this.controllers.get(shadow.model.controller);
    if (!evidence) {
      evidence = new ControllerEvidence(shadow.cm, this.options);
      this.controllers.set(shadow.model.controller, evidence);
    }
    evidence.add(shadow, analysis);
  }

  /** The evidence for a controller, or undefined when no attempt of it was seen. */
  controller(name: string): ControllerEvidence | undefined {
    return this.controllers.get(name);
  }
}
