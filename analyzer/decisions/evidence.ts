/**
 * The evidence behind the decisions, collected as an analyzer listener: pure, in memory, bounded (the counters of
 * counters.ts, one small record per object, a fixed number of time buckets).
 *
 * Within the loop that ran the attempt (never pooled across loops):
 * - Pairs. For ops A and B that both ran, A before B, where the loop can run B after A failed: the 2x2 table of B
 *   failed/succeeded by A failed/succeeded, per stratum of the time since the object's previous attempt.
 *   An attempt counts for a pair only when both ops succeeded in the same object's previous attempt under the same
 *   loop, so every count is a change from a healthy state: a fault that persists counts once, at its onset, not once
 *   per retry (a failing object is retried within seconds, a healthy one every few minutes); and a failure of B that
 *   began before A's is never credited to A.
 * - Loop comparison. For each op that both loops (replayed on the attempt) would run: was it observed failing? Counted
 *   only when its last observed outcome on the object under this loop was ok, or when it had none: onsets, not retries.
 *   Restricting to runs both loops make compares the op on the same kind of attempt: the phased loop also runs ops
 *   after failures the sequential loop stops at, and those attempts fail more for reasons that are not the loop's.
 *   Per object the runs and failures are kept too, for the design effect (loop-comparison.ts).
 * - Noise floor. For consecutive attempts of one object with the same generation, how often an op flipped between
 *   ok and error: the A/A comparison.
 * - Groups. Failures counted per run of consecutive failing attempts of an object; a run is "judged" when some op
 *   outside the group was seen running after the group's failure.
 *
 * On every attempt, whatever loop ran it (both loops are replayed on it, so these compare the loops on the same
 * objects): the time each loop would keep an op from running that the other loop would run (starvation), the
 * unblocked op-runs and whether they would have succeeded, and the work each group's category decides.
 *
 * And the evidence each rule that declares its own counts (rules/rule.ts RuleEvidence), fed every attempt.
 */
import type { AnalysisListener } from '../analyzer.js';
import { ERROR, OK, PHASED, SEQUENTIAL, UNKNOWN, type CompiledModel } from '../compiled-model.js';
import { objectKey, type AttemptAnalysis } from '../engine.js';
import { groupBlocker, type LoopRun } from '../loops.js';
import type { ControllerAnalyzer } from '../controller-analyzer.js';
import { LOOP_KINDS, type LoopKind } from '../../model/types.js';
import { copyCounters, emptyCounters, GAP_STRATA, gapStratum, type ControllerCounters, type LoopCounters } from './counters.js';
import { followersOfFailure } from './ordering.js';
import { RULES } from './rules.js';
import { emptyRuleStates, type Rule, type RuleState } from './rules/rule.js';
import { DEFAULT_TIMELINE_BUCKETS, StarvationTimeline } from './timeline.js';

/**
 * Objects whose decision evidence (run clusters, rates, healthy intervals) one controller keeps; past it the least
 * recently seen is folded in and forgotten. Not the analyzer's maxTrackedObjects (analyzer/analyzer.ts), which bounds
 * the projection's outcome history and starvation timers.
 */
export const DEFAULT_MAX_EVIDENCE_OBJECTS = 100_000;
/** Per-object run counts are 16-bit; a count about to overflow closes the object's cluster and starts another. */
const MAX_CLUSTER_COUNT = 0xffff;
/**
 * An op's starvation state at the object's previous attempt, one byte per op (ObjectMemory.starved; a byte per op is
 * what an object's memory can spend on it): the loop that keeps the op from running while the other would run it
 * in the low two bits (`starver`), and why in the bits above (`cause`).
 */
const NOT_STARVED = 0;
const PHASED_STARVES = 1;
const SEQUENTIAL_STARVES = 2;
const starver = (state: number): number => state & 3;
const cause = (state: number): number => state & ~3;
/** Why: what the op's withheld run loses (`loss`), work with an effect, nothing, or unknown (the model does not say). */
const LOST = 0;
const NOTHING_LOST = 1 << 2;
const UNKNOWN_LOSS = 2 << 2;
/** Why: the phased loop does not run it because a critical group failed, the model's design. */
const BY_DESIGN = 3 << 2;
/** Per op: what running it changes, as the model says (WRITES: status or objects). */
const WRITES = 1;
const WRITES_UNKNOWN = 2;
/**
 * A group's state at the object's previous attempt under a loop (ObjectMemory.groupState): not failing, failing,
 * or failing with some op outside it observed running after its failure (the failure run is judged).
 */
const GROUP_OK = 0;
const GROUP_FAILING = 1;
const GROUP_JUDGED = 2;
/** ObjectMemory.seen: the loops the object was seen under, one bit each. */
const seenBit = (loop: LoopKind): number => (loop === 'sequential' ? 1 : 2);
/** A day, for the sample-ratio check's squares (intervals² per object-day), on a grid of 2^-8 so sums stay exact. */
const DAY_MS = 86_400_000;
const RATE_GRID = 2 ** 8;
const HOUR_MS = 3_600_000;

const loopIndex = (loop: LoopKind): 0 | 1 => (loop === 'sequential' ? 0 : 1);

/**
 * What is remembered about one object between its attempts. Up to `maxTrackedObjects` of these live at once, so
 * per-op state is a byte (or two) per op in typed arrays, some allocated only when first needed, and small
 * enumerations are numbers read through the named constants and accessors above (`seenBit`, `starver`, `cause`,
 * GROUP_*), not fields or objects of their own.
 */
class ObjectMemory {
  /** The loops it was seen under (`seenBit`): two bits in one number, not two fields. */
  seen = 0;
  /** The loop, generation and time of the previous attempt whose evidence was used. */
  loop: LoopKind | undefined;
  generation: number | undefined;
  codesMs = NaN;
  /** The previous attempt's time, whatever loop ran it; NaN before the first. */
  lastMs = NaN;
  /** Per op: the previous used attempt's outcome when it was observed `ok` or `error`, else UNKNOWN. */
  readonly codes: Uint8Array;
  /** Per group: GROUP_OK, GROUP_FAILING or GROUP_JUDGED at the previous used attempt. */
  readonly groupState: Uint8Array;
  /** Per loop: the last observed outcome of each op under it (UNKNOWN when never). */
  readonly last: [Uint8Array | undefined, Uint8Array | undefined] = [undefined, undefined];
  /** Per loop: common runs counted per op at [op], failures at [n + op] (one allocation for both): this object's cluster. */
  readonly counts: [Uint16Array | undefined, Uint16Array | undefined] = [undefined, undefined];
  /** Per op: which loop would keep it from running at the previous attempt, and why (`starver`, `cause`). */
  readonly starved: Uint8Array;
  /** Per op: the length of the open starvation streak, allocated when the object first starves. */
  streakMs: Float64Array | undefined;
  /** Ops in `starved` that are not NOT_STARVED: most objects have none, and skip the per-op loops. */
  starvedCount = 0;
  /**
   * The sample-ratio check: per loop, the intervals that start at a healthy attempt (no error observed) and end at
   * the object's next attempt under the same loop, and the time they span. A healthy object is reconciled at a cadence
   * the loop does not set (resyncs, watch events), so lines lost show as fewer such intervals per object-time.
   */
  readonly healthyIntervals: [number, number] = [0, 0];
  readonly healthyMs: [number, number] = [0, 0];
  /** The loop of the previous attempt if it was healthy, else undefined; its time. */
  cadenceLoop: LoopKind | undefined;
  cadenceAtMs = NaN;
  /**
   * Healthy attempts not yet in the pair tables: attempts with no failure among the ops counted for pairs, all with
   * the same set of such ops (`healthyOps`, under `healthyLoop`), per gap stratum. Each adds one to the `d` cell of
   * every pair among those ops; they are added when the set changes, the object is forgotten, or a snapshot is taken,
   * so the commonest attempt costs one count instead of a thousand.
   */
  healthyOps: Int32Array | undefined;
  healthyLoop: LoopKind | undefined;
  healthyCounts: Uint32Array | undefined;

  constructor(n: number, groups: number) {
    this.codes = new Uint8Array(n).fill(UNKNOWN);
    this.groupState = new Uint8Array(groups);
    this.starved = new Uint8Array(n);
  }
}

/** Whether `ops` holds exactly the first `count` entries of `candidate`. */
function sameOps(ops: Int32Array | undefined, candidate: Int32Array, count: number): boolean {
  if (ops?.length !== count) return false;
  for (let i = 0; i < count; i++) if (ops[i] !== candidate[i]) return false;
  return true;
}

/**
 * Whether an op the loop ran (replayed on the attempt) went unobserved: before the last op observed (a hole), or
 * after it (an attempt cut short, as when the line of the error that ended it was lost). The ops a recovery path ran
 * after the ending error are left out: their own errors are logged, not returned, so no input states them.
 */
function hasHole(order: readonly number[], run: LoopRun, recovery: readonly (readonly number[] | undefined)[], observed: Uint8Array): boolean {
  const recovered = run.endedBy >= 0 ? recovery[run.endedBy] : undefined;
  for (const op of order) if (run.ran[op] === 1 && observed[op] !== 1 && !recovered?.includes(op)) return true;
  return false;
}

/** Whether two starvation states continue one streak (the same loop keeps the op from running, for any reason). */
const sameStreak = (x: number, y: number): boolean => starver(x) === starver(y);

/** Adds one object's clusters to `into` (its per-object counts, which the counters do not hold yet). */
function foldClusters(memory: ObjectMemory, into: ControllerCounters): void {
  const n = into.opCount;
  for (const loop of LOOP_KINDS) {
    const counts = memory.counts[loopIndex(loop)];
    if (counts) foldCluster(counts, n, into.loops[loop]);
  }
}

/** Adds one object's healthy attempt rate under each loop to `into` (the sample-ratio check's sums). */
function foldRates(memory: ObjectMemory, into: ControllerCounters): void {
  for (const loop of LOOP_KINDS) {
    const i = loopIndex(loop);
    const intervals = memory.healthyIntervals[i];
    const ms = memory.healthyMs[i];
    if (intervals < 1 || !(ms > 0)) continue;
    const l = into.loops[loop];
    l.rateObjects++;
    l.rateIntervals += intervals;
    l.rateMs += ms;
    l.rateSquares += Math.round(((intervals * intervals) / (ms / DAY_MS)) * RATE_GRID) / RATE_GRID;
  }
}

function foldCluster(counts: Uint16Array, n: number, loop: LoopCounters): void {
  for (let op = 0; op < n; op++) {
    const runs = counts[op]!;
    if (runs === 0) continue;
    const failures = counts[n + op]!;
    loop.clusters[op]!++;
    loop.clusterSquares[op]! += onGrid((failures * failures) / runs);
  }
}

/**
 * A cluster's failures² / runs on a grid of 2^-20: sums of such values below 2^33 are exact in any order, so the sum
 * does not depend on the order objects are folded in, nor on how a sharded run's parts are merged (an addend is at
 * most its failures, so the sum stays below the failure count, far under 2^33).
 */
const GRID = 2 ** 20;
const onGrid = (x: number): number => Math.round(x * GRID) / GRID;

export interface EvidenceOptions {
  /** Objects remembered; the least recently seen is forgotten past this (its clusters folded in first). */
  readonly maxObjects?: number;
  readonly timelineBuckets?: number;
  /** The decision rules (RULES by default; a test plants one): those that declare evidence of their own have it counted. */
  readonly rules?: readonly Rule[];
}

/** One controller's evidence. */
export class ControllerEvidence {
  readonly timeline: StarvationTimeline;
  /** Op indices in the phased loop's order. */
  readonly phasedOrder: readonly number[];
  private readonly counters: ControllerCounters;
  /** The rules' own evidence, live: copied by `ruleSnapshot`. */
  private readonly ruleStates: readonly RuleState[];
  private readonly structural: Uint8Array;
  /** Per op: WRITES, WRITES_UNKNOWN or 0 (reads or computes only), from the model's `writes`. */
  private readonly writes: Uint8Array;
  private readonly objects = new Map<string, ObjectMemory>();
  private readonly maxObjects: number;
  private readonly n: number;
  /** Scratch space reused by every attempt. */
  private readonly codes: Uint8Array;
  private readonly groupFailed: Uint8Array;
  /**
   * Per loop, `[first * n + then]`: 1 when the loop can run `then` after `first` failed. Only those pairs are counted:
   * the others' "after a failure" row stays empty, so they can never be tested (ordering.ts calls them not testable).
   */
  private readonly follows: Readonly<Record<LoopKind, Uint8Array>>;
  /** Per loop and op: 1 when some op follows its failure. */
  private readonly hasFollowers: Readonly<Record<LoopKind, Uint8Array>>;
  /** countPairs: the ops that succeeded in the previous attempt and whether they failed now. */
  private readonly eligible: Int32Array;
  private readonly eligibleFailed: Uint8Array;
  private readonly seen: Int32Array;
  private readonly nextStarved: Uint8Array;
  private readonly previousGroupState: Uint8Array;
  private readonly firstFailure: Int32Array;
  private readonly blockerCount: Uint8Array;
  private readonly firstBlocker: Int32Array;
  private readonly freeing: Uint8Array;
  private readonly failedNonCritical: Int32Array;

  constructor(
    readonly cm: CompiledModel,
    options: EvidenceOptions = {},
  ) {
    this.n = cm.ops.length;
    this.counters = emptyCounters(cm);
    this.ruleStates = emptyRuleStates(options.rules ?? RULES, cm);
    this.structural = cm.oneLoopOnly;
    this.writes = new Uint8Array(this.n);
    for (const op of cm.model.operations) {
      const i = cm.opIndex.get(op.name);
      if (i !== undefined) this.writes[i] = op.writes === undefined ? WRITES_UNKNOWN : op.writes === 'none' ? 0 : WRITES;
    }
    this.timeline = new StarvationTimeline(this.n, options.timelineBuckets ?? DEFAULT_TIMELINE_BUCKETS);
    this.phasedOrder = cm.ops
      .map((_, i) => i)
      .filter((i) => cm.phasedPosition[i]! >= 0)
      .sort((a, b) => cm.phasedPosition[a]! - cm.phasedPosition[b]!);
    this.maxObjects = options.maxObjects ?? DEFAULT_MAX_EVIDENCE_OBJECTS;
    this.codes = new Uint8Array(this.n);
    this.groupFailed = new Uint8Array(cm.groups.length);
    const n = this.n;
    const follows = (loop: LoopKind): Uint8Array => {
      const matrix = new Uint8Array(n * n);
      followersOfFailure(cm, loop).forEach((followers, first) => matrix.set(followers, first * n));
      return matrix;
    };
    this.follows = { sequential: follows('sequential'), phased: follows('phased') };
    const anyFollower = (m: Uint8Array): Uint8Array => Uint8Array.from({ length: n }, (_, first) => (m.subarray(first * n, first * n + n).includes(1) ? 1 : 0));
    this.hasFollowers = { sequential: anyFollower(this.follows.sequential), phased: anyFollower(this.follows.phased) };
    this.eligible = new Int32Array(this.n);
    this.seen = new Int32Array(this.n);
    this.eligibleFailed = new Uint8Array(this.n);
    this.nextStarved = new Uint8Array(this.n);
    const groups = cm.groups.length;
    this.previousGroupState = new Uint8Array(groups);
    this.firstFailure = new Int32Array(groups);
    this.blockerCount = new Uint8Array(groups);
    this.firstBlocker = new Int32Array(groups);
    this.freeing = new Uint8Array(groups);
    this.failedNonCritical = new Int32Array(groups);
  }

  get trackedObjects(): number {
    return this.objects.size;
  }

  /**
   * The counters with every remembered object's clusters folded in: the state decisions read, and the partial state
   * a sharded run would merge (counters.ts). A copy: collecting goes on unchanged.
   */
  snapshot(): ControllerCounters {
    const c = copyCounters(this.counters);
    for (const memory of this.objects.values()) {
      foldClusters(memory, c);
      foldRates(memory, c);
      this.flushHealthy(memory, c, true);
    }
    return c;
  }

  /** The rules' own evidence, as `snapshot` the counters: each state a copy (merged into an empty one). */
  ruleSnapshot(): RuleState[] {
    return this.ruleStates.map((s) => ({ ...s, state: s.evidence.merge(s.evidence.create(this.cm), s.state) }));
  }

  add(controller: ControllerAnalyzer, a: AttemptAnalysis): void {
    const r = a.record;
    const loop = this.counters.loops[r.loop];
    loop.attempts++;
    loop.firstMs = Math.min(loop.firstMs, r.timeMs);
    loop.lastMs = Math.max(loop.lastMs, r.timeMs);
    const key = objectKey(r);
    const memory = this.recall(key);
    if (memory.cadenceLoop === r.loop && r.timeMs >= memory.cadenceAtMs) {
      memory.healthyIntervals[loopIndex(r.loop)]++;
      memory.healthyMs[loopIndex(r.loop)] += r.timeMs - memory.cadenceAtMs;
    }
    memory.cadenceLoop = r.origin.transition || r.operations.some((o) => o.outcome === 'error') ? undefined : r.loop;
    memory.cadenceAtMs = r.timeMs;
    loop.hourAttempts[Math.floor((((r.timeMs % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS)]!++;
    const bit = seenBit(r.loop);
    if ((memory.seen & bit) === 0) {
      loop.objects++;
      if (memory.seen !== 0) this.counters.objectsInBothLoops++;
      memory.seen |= bit;
    }

    this.countStarvation(memory, a);
    this.countWork(a);
    // A status transition lists only the failing operations: its missing successes would read as failures.
    if (!r.origin.transition) this.countObserved(loop, memory, a);
    this.countTimeline(controller, key, a);
    for (const s of this.ruleStates) s.evidence.observe(s.state, a, this.cm);
  }

  /** The attempt's starved op-runs, and the object's starvation streaks open at it (one-loop ops left out). */
  private countTimeline(controller: ControllerAnalyzer, key: string, a: AttemptAnalysis): void {
    const r = a.record;
    const starving = r.loop === 'sequential' ? a.unblocked : a.newlyBlocked;
    let starved = 0;
    for (const op of starving) starved += 1 - this.structural[op]!;
    const longest = this.timeline.add(r.timeMs, starved);
    const slot = starved > 0 ? controller.history.find(key) : undefined;
    const since = slot === undefined ? undefined : controller.starvation.openSince(slot);
    if (!since) return;
    for (const op of starving) {
      const seconds = (r.timeMs - since[op]!) / 1000;
      if (this.structural[op] === 0 && seconds > longest[op]!) longest[op] = seconds;
    }
  }

  /** The object's memory, created on first sight; the least recently seen object is forgotten past the bound. */
  private recall(key: string): ObjectMemory {
    let memory = this.objects.get(key);
    if (memory) {
      this.objects.delete(key);
    } else {
      memory = new ObjectMemory(this.n, this.cm.groups.length);
      if (this.objects.size >= this.maxObjects) {
        const [oldestKey, oldest] = this.objects.entries().next().value as [string, ObjectMemory];
        this.objects.delete(oldestKey);
        foldClusters(oldest, this.counters);
        foldRates(oldest, this.counters);
        this.flushHealthy(oldest, this.counters);
        this.counters.forgottenObjects++;
      }
    }
    this.objects.set(key, memory);
    return memory;
  }

  /** The evidence of the loop that ran the attempt, from the operations it observed. */
  private countObserved(loop: LoopCounters, memory: ObjectMemory, a: AttemptAnalysis): void {
    const r = a.record;
    loop.usedAttempts++;
    const order = r.loop === 'sequential' ? this.cm.sequentialOrder : this.phasedOrder;
    // The ops observed `ok` or `error`, in the order the loop ran them (a view of reused scratch space).
    const codes = this.codes.fill(UNKNOWN);
    const outcomes = a.outcomes;
    const observed = a.observed;
    let count = 0;
    for (let k = 0; k < order.length; k++) {
      const op = order[k]!;
      const code = outcomes[op]!;
      if (observed[op] === 1 && (code === OK || code === ERROR)) {
        this.seen[count++] = op;
        codes[op] = code;
      }
    }
    const seen = this.seen.subarray(0, count);
    const sequential = r.loop === 'sequential';
    if (hasHole(order, sequential ? a.sequential : a.phased, this.cm.recovery[sequential ? SEQUENTIAL : PHASED], observed)) loop.incompleteAttempts++;
    const sameLoop = memory.loop === r.loop;
    const previous = sameLoop ? memory.codes : undefined;
    if (previous) this.countPairs(loop, memory, r.loop, seen, codes, previous, gapStratum(r.timeMs - memory.codesMs));
    for (let k = 0; k < count; k++) {
      const op = seen[k]!;
      if (codes[op] === ERROR && previous?.[op] !== ERROR) loop.failureRuns[op]!++;
    }
    if (previous && r.generation !== undefined && memory.generation === r.generation) this.countNoise(loop, seen, codes, previous);
    this.countGroups(loop, seen, codes, sameLoop ? memory.groupState : undefined, memory.groupState);
    this.countCommonRuns(loop, memory, a, seen, codes, loopIndex(r.loop));
    memory.codes.set(codes);
    memory.loop = r.loop;
    memory.generation = r.generation;
    memory.codesMs = r.timeMs;
  }

  /**
   * Counts each pair (first before second in this attempt) whose two ops both succeeded in the previous attempt and
   * whose second op can run after the first one failed.
   */
  private countPairs(
    loop: LoopCounters,
    memory: ObjectMemory,
    kind: LoopKind,
    seen: Int32Array,
    codes: Uint8Array,
    previous: Uint8Array,
    stratum: number,
  ): void {
    const eligible = this.eligible;
    const failed = this.eligibleFailed;
    let count = 0;
    let failures = 0;
    for (let k = 0; k < seen.length; k++) {
      const op = seen[k]!;
      if (previous[op] !== OK) continue;
      eligible[count] = op;
      failures += failed[count++] = codes[op] === ERROR ? 1 : 0;
    }
    if (failures === 0) {
      if (!sameOps(memory.healthyOps, eligible, count) || memory.healthyLoop !== kind) {
        this.flushHealthy(memory, this.counters);
        memory.healthyOps = eligible.slice(0, count);
        memory.healthyLoop = kind;
        memory.healthyCounts = new Uint32Array(GAP_STRATA);
      }
      memory.healthyCounts![stratum]!++;
      return;
    }
    this.addPairs(loop.pairs, kind, eligible, failed, count, stratum, 1);
  }

  /** Adds `times` to the cells of every counted pair among `ops` (in loop order; `failed` per op) in one stratum. */
  private addPairs(p: Uint32Array, kind: LoopKind, ops: Int32Array, failed: Uint8Array | undefined, count: number, stratum: number, times: number): void {
    const n = this.n;
    const follows = this.follows[kind];
    const hasFollowers = this.hasFollowers[kind];
    const block = stratum * n * n * 4;
    for (let i = 0; i < count; i++) {
      const first = ops[i]!;
      if (hasFollowers[first] === 0) continue;
      const row = block + first * n * 4 + (failed ? failed[i]! * 2 : 0);
      const followers = first * n;
      for (let j = i + 1; j < count; j++) {
        const then = ops[j]!;
        if (follows[followers + then] === 1) p[row + then * 4 + (failed ? failed[j]! : 0)]! += times;
      }
    }
  }

  /** Adds the object's pending healthy attempts to `into`'s tables (and forgets them when `into` is the live state). */
  private flushHealthy(memory: ObjectMemory, into: ControllerCounters | undefined, keep = false): void {
    const ops = memory.healthyOps;
    const counts = memory.healthyCounts;
    const kind = memory.healthyLoop;
    if (!ops || !counts || !kind || !into) return;
    for (let stratum = 0; stratum < GAP_STRATA; stratum++) {
      if (counts[stratum]! > 0) this.addPairs(into.loops[kind].pairs, kind, ops, undefined, ops.length, stratum, counts[stratum]!);
    }
    if (!keep) counts.fill(0);
  }

  private countNoise(loop: LoopCounters, seen: Int32Array, codes: Uint8Array, previous: Uint8Array): void {
    for (let k = 0; k < seen.length; k++) {
      const op = seen[k]!;
      if (previous[op] === UNKNOWN) continue;
      loop.noiseComparisons[op]!++;
      if (previous[op] !== codes[op]) loop.noiseFlips[op]!++;
    }
  }

  /** Updates the group failure runs; `previous` is the previous attempt's state under the same loop, if any. */
  private countGroups(loop: LoopCounters, seen: Int32Array, codes: Uint8Array, previous: Uint8Array | undefined, state: Uint8Array): void {
    const cm = this.cm;
    const before = previous ? this.previousGroupState.fill(GROUP_OK) : undefined;
    if (before && previous) before.set(previous);
    state.fill(GROUP_OK);
    const firstFailure = this.firstFailure.fill(-1);
    for (let i = 0; i < seen.length; i++) {
      const op = seen[i]!;
      const g = cm.groupOf[op]!;
      if (g >= 0 && codes[op] === ERROR && firstFailure[g] === -1) firstFailure[g] = i;
    }
    for (let g = 0; g < cm.groups.length; g++) {
      const at = firstFailure[g]!;
      if (at < 0) continue;
      let judged = false;
      for (let j = at + 1; j < seen.length && !judged; j++) judged = cm.groupOf[seen[j]!] !== g;
      state[g] = judged ? GROUP_JUDGED : GROUP_FAILING;
      const was = before?.[g] ?? GROUP_OK;
      loop.groupFailedAttempts[g]!++;
      if (was === GROUP_OK) loop.groupFailureRuns[g]!++;
      if (judged && was !== GROUP_JUDGED) loop.groupJudgedRuns[g]!++;
    }
  }

  /** Observed ops both loops run, counted from the op's last observed outcome under this loop being ok (or none). */
  private countCommonRuns(loop: LoopCounters, memory: ObjectMemory, a: AttemptAnalysis, seen: Int32Array, codes: Uint8Array, index: 0 | 1): void {
    const n = this.n;
    const last = (memory.last[index] ??= new Uint8Array(n).fill(UNKNOWN));
    const sequentialRan = a.sequential.ran;
    const phasedRan = a.phased.ran;
    for (let k = 0; k < seen.length; k++) {
      const op = seen[k]!;
      const code = codes[op]!;
      if (sequentialRan[op] === 1 && phasedRan[op] === 1 && last[op] !== ERROR) {
        const failed = code === ERROR ? 1 : 0;
        loop.commonRuns[op]!++;
        loop.commonFailures[op]! += failed;
        let counts = (memory.counts[index] ??= new Uint16Array(2 * n));
        if (counts[op] === MAX_CLUSTER_COUNT) {
          foldCluster(counts, n, loop);
          counts = memory.counts[index] = new Uint16Array(2 * n);
        }
        counts[op]!++;
        counts[n + op]! += failed;
      }
      last[op] = code;
    }
  }

  /**
   * Starvation time: the interval since the object's previous attempt is attributed to the loop that would have kept
   * each op from running at that attempt while the other loop would have run it.
   */
  private countStarvation(memory: ObjectMemory, a: AttemptAnalysis): void {
    const c = this.counters;
    const now = a.record.timeMs;
    const elapsed = Number.isNaN(memory.lastMs) ? 0 : Math.max(0, now - memory.lastMs);
    memory.lastMs = Math.max(Number.isNaN(memory.lastMs) ? now : memory.lastMs, now);
    c.objectMs += elapsed;
    const state = memory.starved;
    let streak = memory.streakMs;
    if (streak && memory.starvedCount > 0) {
      for (let op = 0; op < this.n; op++) {
        const s = state[op]!;
        if (s === NOT_STARVED) continue;
        const length = (streak[op]! += elapsed);
        const why = cause(s);
        if (starver(s) === SEQUENTIAL_STARVES) {
          c.sequentialStarvedMs[op]! += elapsed;
          if (why === NOTHING_LOST) c.sequentialNoLossMs[op]! += elapsed;
          if (why === UNKNOWN_LOSS) c.sequentialUnknownMs[op]! += elapsed;
          if (length > c.sequentialLongestMs[op]!) c.sequentialLongestMs[op] = length;
        } else {
          c.phasedStarvedMs[op]! += elapsed;
          if (why === BY_DESIGN) c.phasedByDesignMs[op]! += elapsed;
          if (why === NOTHING_LOST) c.phasedNoLossMs[op]! += elapsed;
          if (why === UNKNOWN_LOSS) c.phasedUnknownMs[op]! += elapsed;
          if (length > c.phasedLongestMs[op]!) c.phasedLongestMs[op] = length;
        }
      }
    }
    if (memory.starvedCount === 0 && a.newlyBlocked.length === 0 && a.unblocked.length === 0) return;
    const next = this.nextStarved.fill(NOT_STARVED);
    for (const op of a.newlyBlocked) {
      if (this.structural[op] !== 0) continue;
      if (a.phased.blockerOf(op) <= groupBlocker(0)) next[op] = PHASED_STARVES | BY_DESIGN;
      else next[op] = PHASED_STARVES | this.loss(a.newlyBlocked, op, this.cm.sequentialPosition);
    }
    for (const op of a.unblocked) if (this.structural[op] === 0) next[op] = SEQUENTIAL_STARVES | this.loss(a.unblocked, op, this.cm.phasedPosition);
    streak ??= memory.streakMs = new Float64Array(this.n);
    let open = 0;
    for (let op = 0; op < this.n; op++) {
      if (!sameStreak(next[op]!, state[op]!)) streak[op] = 0;
      state[op] = next[op]!;
      if (next[op] !== NOT_STARVED) open++;
    }
    memory.starvedCount = open;
  }

  /**
   * What withholding `op` loses, where `withheld` is everything one loop keeps from running in the attempt and
   * `position` the order of the loop that runs them: work with an effect when it, or a withheld op that loop runs
   * after it, writes; unknown when none is known to write and some such op's `writes` is not given; else nothing (a
   * read whose consumers run in neither loop). As a starvation `cause`: LOST, UNKNOWN_LOSS or NOTHING_LOST.
   */
  private loss(withheld: readonly number[], op: number, position: Int16Array): number {
    let unknown = false;
    for (const w of withheld) {
      if (position[w]! < position[op]! || this.structural[w] === 1) continue;
      if (this.writes[w] === WRITES) return LOST;
      if (this.writes[w] === WRITES_UNKNOWN) unknown = true;
    }
    return unknown ? UNKNOWN_LOSS : NOTHING_LOST;
  }

  /** What each loop would keep from running, whether it would have succeeded, and what each group's category decides. */
  private countWork(a: AttemptAnalysis): void {
    const cm = this.cm;
    const c = this.counters;
    const n = this.n;
    const ended = a.sequential.endedBy;
    if (ended >= 0 && cm.groupOf[ended]! >= 0) c.sequentialSkippedOps[cm.groupOf[ended]!]! += cm.sequentialOrder.length - cm.sequentialPosition[ended]! - 1;
    if (a.newlyBlocked.some((op) => this.structural[op] === 0)) c.newlyBlockedAttempts++;
    for (const op of a.unblocked) {
      if (this.structural[op] === 1) continue;
      c.unblocked[op]!++;
      // Credit only work with an effect (or an effect the model does not state), as for starvation.
      if (a.outcomes[op] === OK && ended >= 0 && this.loss(a.unblocked, op, cm.phasedPosition) !== NOTHING_LOST) c.unblockedOk[ended * n + op]!++;
    }
    this.countFreed(a);
  }

  /**
   * Per group, the ok op-runs of blockable groups its category decides in this attempt: a failed non-critical group
   * lets the blockable groups after it run (a critical one would have blocked them); a failed critical group that is
   * the only one blocking a blockable group keeps that group's ops from running.
   */
  private countFreed(a: AttemptAnalysis): void {
    const cm = this.cm;
    const c = this.counters;
    const n = this.n;
    const run = a.phased;
    // Nothing failed or was blocked: no category decided anything.
    if (run.failedGroups.length === 0 && run.blockedBy.length === 0) return;
    const failed = this.groupFailed.fill(0);
    for (const g of run.failedGroups) failed[g] = 1;
    // Per blockable group: how many failed critical groups blocked it, and the first of them.
    const blockers = this.blockerCount.fill(0);
    const blocker = this.firstBlocker;
    for (const [critical, blocked] of run.blockedBy) if (blockers[blocked]!++ === 0) blocker[blocked] = critical;
    const freeing = this.freeing.fill(0);
    let failedNonCritical = 0;
    for (const step of cm.phasedSteps) {
      if (step.kind === 'op') continue;
      if (step.blockable && blockers[step.index] === 1) {
        const critical = blocker[step.index]!;
        for (const op of step.ops) {
          if (a.outcomes[op] !== OK) {
            if (step.mode === 'chain') break;
            continue;
          }
          c.freedOk[critical * n + op]!++;
          freeing[critical] = 1;
        }
      } else if (step.blockable && blockers[step.index] === 0) {
        for (let k = 0; k < failedNonCritical; k++) {
          const g = this.failedNonCritical[k]!;
          for (const op of step.ops) {
            if (run.ran[op] === 1 && a.outcomes[op] === OK) {
              c.freedOk[g * n + op]!++;
              freeing[g] = 1;
            }
          }
        }
      }
      if (failed[step.index] === 1 && step.category === 'nonCritical') this.failedNonCritical[failedNonCritical++] = step.index;
    }
    for (let g = 0; g < freeing.length; g++) if (freeing[g] === 1) c.freeingAttempts[g]!++;
  }
}

/** The listener: one ControllerEvidence per controller, created on its first attempt. */
export class DecisionEvidence implements AnalysisListener {
  private readonly controllers = new Map<string, ControllerEvidence>();

  /** The rules whose evidence is collected: the decisions of this evidence are those of this list. */
  readonly rules: readonly Rule[];

  constructor(private readonly options: EvidenceOptions = {}) {
    this.rules = options.rules ?? RULES;
  }

  attempt(controller: ControllerAnalyzer, analysis: AttemptAnalysis): void {
    let evidence = this.controllers.get(controller.model.controller);
    if (!evidence) {
      evidence = new ControllerEvidence(controller.cm, this.options);
      this.controllers.set(controller.model.controller, evidence);
    }
    evidence.add(controller, analysis);
  }

  /** The evidence for a controller, or undefined when no attempt of it was seen. */
  controller(name: string): ControllerEvidence | undefined {
    return this.controllers.get(name);
  }

  /** The evidence for a controller; empty (with this list's rules) when no attempt of it was seen. */
  of(cm: CompiledModel): ControllerEvidence {
    return this.controllers.get(cm.model.controller) ?? new ControllerEvidence(cm, this.options);
  }
}
