/**
 * Starvation over time in a bounded number of buckets: when the attempts outgrow the buckets, neighbouring buckets
 * merge and the width doubles, so a week-long journal costs the same memory as an hour-long one.
 * Per bucket: attempts, starved op-runs (work the other loop would have run and the observed loop did not), and per
 * op the longest starvation streak open at an attempt in the bucket (the attempt's object's own streak).
 *
 * Buckets are aligned to the epoch (bucket k of width w covers [k·w, (k+1)·w)), and the width is the smallest of
 * 1 min · 2^j that fits every attempt's time in `maxBuckets`. Every value is a sum or a maximum, so the timeline of a
 * set of attempts does not depend on their order, and two timelines merge (`merge`) into exactly the timeline of all
 * their attempts: what a run sharded by object needs.
 */

export const DEFAULT_TIMELINE_BUCKETS = 240;
const INITIAL_WIDTH_MS = 60_000;

export interface TimelinePoint {
  readonly startMs: number;
  readonly attempts: number;
  readonly starvedOps: number;
  /** Per op: the longest starvation streak (seconds) open at an attempt in this bucket. */
  readonly longestSeconds: Float64Array;
}

interface Bucket {
  attempts: number;
  starvedOps: number;
  longestSeconds: Float64Array;
}

/** A timeline as plain data: the partial state a sharded run carries. */
export interface TimelineState {
  readonly maxBuckets: number;
  readonly widthMs: number;
  /** The first bucket's index (its start / widthMs); the buckets follow one per width, empty ones included. */
  readonly first: number;
  readonly buckets: readonly Readonly<Bucket>[];
}

export class StarvationTimeline {
  private widthMs = INITIAL_WIDTH_MS;
  private first = 0;
  private buckets: Bucket[] = [];

  constructor(
    private readonly opCount: number,
    private readonly maxBuckets = DEFAULT_TIMELINE_BUCKETS,
  ) {
    // Two buckets always hold any two times (even either side of the epoch); one might never.
    if (!(maxBuckets >= 2)) throw new RangeError(`a starvation timeline needs at least 2 buckets, got ${maxBuckets}`);
  }

  /**
   * One attempt with its starved op-runs. Returns its bucket's per-op longest streaks (seconds), for the caller to
   * raise to the streaks open at this attempt.
   */
  add(timeMs: number, starvedOps: number): Float64Array {
    const bucket = this.bucket(Math.floor(timeMs / INITIAL_WIDTH_MS), INITIAL_WIDTH_MS);
    bucket.attempts++;
    bucket.starvedOps += starvedOps;
    return bucket.longestSeconds;
  }

  /** A timeline holding what a state holds. */
  static fromState(opCount: number, state: TimelineState): StarvationTimeline {
    const t = new StarvationTimeline(opCount, state.maxBuckets);
    t.merge(state);
    return t;
  }

  /** Adds another timeline's buckets (of the same ops and bound) into this one. */
  merge(other: TimelineState): void {
    if (other.maxBuckets !== this.maxBuckets) throw new RangeError(`cannot merge timelines of ${other.maxBuckets} and ${this.maxBuckets} buckets`);
    while (this.widthMs < other.widthMs) this.coarsen();
    other.buckets.forEach((b, i) => {
      if (b.longestSeconds.length !== this.opCount) throw new RangeError(`cannot merge timelines of ${b.longestSeconds.length} and ${this.opCount} operations`);
      addInto(this.bucket(other.first + i, other.widthMs), b);
    });
  }

  /** The bucket holding index `index` of width `widthMs` (<= this width), made room for as needed. */
  private bucket(index: number, widthMs: number): Bucket {
    for (;;) {
      const at = Math.floor(index / (this.widthMs / widthMs));
      if (this.buckets.length === 0) this.first = at;
      const low = Math.min(this.first, at);
      const high = Math.max(this.first + this.buckets.length - 1, at);
      if (high - low + 1 > this.maxBuckets) {
        this.coarsen();
        continue;
      }
      while (this.first > low) {
        this.buckets.unshift(this.emptyBucket());
        this.first--;
      }
      while (this.first + this.buckets.length <= high) this.buckets.push(this.emptyBucket());
      return this.buckets[at - this.first]!;
    }
  }

  private emptyBucket(): Bucket {
    return { attempts: 0, starvedOps: 0, longestSeconds: new Float64Array(this.opCount) };
  }

  private coarsen(): void {
    const first = Math.floor(this.first / 2);
    const merged: Bucket[] = [];
    this.buckets.forEach((b, i) => {
      const at = Math.floor((this.first + i) / 2) - first;
      if (merged[at]) addInto(merged[at], b);
      else merged[at] = b;
    });
    this.buckets = merged;
    this.first = first;
    this.widthMs *= 2;
  }

  get bucketWidthMs(): number {
    return this.widthMs;
  }

  points(): TimelinePoint[] {
    return this.buckets.map((b, i) => ({
      startMs: (this.first + i) * this.widthMs,
      attempts: b.attempts,
      starvedOps: b.starvedOps,
      longestSeconds: b.longestSeconds.slice(),
    }));
  }

  /** A copy of the state (collecting goes on unchanged). */
  state(): TimelineState {
    return {
      maxBuckets: this.maxBuckets,
      widthMs: this.widthMs,
      first: this.first,
      buckets: this.buckets.map((b) => ({ ...b, longestSeconds: b.longestSeconds.slice() })),
    };
  }
}

function addInto(into: Bucket, from: Readonly<Bucket>): void {
  into.attempts += from.attempts;
  into.starvedOps += from.starvedOps;
  for (let op = 0; op < into.longestSeconds.length; op++) into.longestSeconds[op] = Math.max(into.longestSeconds[op]!, from.longestSeconds[op]!);
}
