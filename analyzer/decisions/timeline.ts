/**
 * Starvation over time in a fixed number of buckets: when the attempts outgrow the buckets, neighbouring buckets
 * merge and the width doubles, so a week-long journal costs the same memory as an hour-long one.
 * Per bucket: attempts, starved op-runs (work the other loop would have run and the observed loop did not), and per
 * op the longest open starvation sampled in the bucket.
 */

export const DEFAULT_TIMELINE_BUCKETS = 240;
const INITIAL_WIDTH_MS = 60_000;

export interface TimelinePoint {
  readonly startMs: number;
  readonly attempts: number;
  readonly starvedOps: number;
  /** Per op: the longest open starvation (seconds) sampled in this bucket. */
  readonly longestSeconds: Float64Array;
}

interface Bucket {
  attempts: number;
  starvedOps: number;
  longestSeconds: Float64Array;
  sampled: boolean;
}

export class StarvationTimeline {
  private originMs: number | undefined;
  private widthMs = INITIAL_WIDTH_MS;
  private buckets: Bucket[] = [];

  constructor(
    private readonly opCount: number,
    private readonly maxBuckets = DEFAULT_TIMELINE_BUCKETS,
  ) {}

  /**
   * One attempt. `sample` is asked for the per-op longest open starvation only for the first attempt of a bucket,
   * because reading it walks every starving object. Attempts older than the first one land in the first bucket.
   */
  add(timeMs: number, starvedOps: number, sample: () => Float64Array): void {
    if (this.originMs === undefined) this.originMs = Math.floor(timeMs / INITIAL_WIDTH_MS) * INITIAL_WIDTH_MS;
    let index = Math.max(0, Math.floor((timeMs - this.originMs) / this.widthMs));
    while (index >= this.maxBuckets) {
      this.coarsen();
      index = Math.floor((timeMs - this.originMs) / this.widthMs);
    }
    while (this.buckets.length <= index) this.buckets.push({ attempts: 0, starvedOps: 0, longestSeconds: new Float64Array(this.opCount), sampled: false });
    const bucket = this.buckets[index]!;
    bucket.attempts++;
    bucket.starvedOps += starvedOps;
    if (!bucket.sampled) {
      bucket.sampled = true;
      const longest = sample();
      for (let op = 0; op < this.opCount; op++) bucket.longestSeconds[op] = Math.max(bucket.longestSeconds[op]!, longest[op]!);
    }
  }

  private coarsen(): void {
    const merged: Bucket[] = [];
    for (let i = 0; i < this.buckets.length; i += 2) {
      const x = this.buckets[i]!;
      const y = this.buckets[i + 1];
      if (y) {
        x.attempts += y.attempts;
        x.starvedOps += y.starvedOps;
        for (let op = 0; op < this.opCount; op++) x.longestSeconds[op] = Math.max(x.longestSeconds[op]!, y.longestSeconds[op]!);
        x.sampled ||= y.sampled;
      }
      merged.push(x);
    }
    this.buckets = merged;
    this.widthMs *= 2;
  }

  get bucketWidthMs(): number {
    return this.widthMs;
  }

  points(): TimelinePoint[] {
    const origin = this.originMs ?? 0;
    return this.buckets.map((b, i) => ({ startMs: origin + i * this.widthMs, attempts: b.attempts, starvedOps: b.starvedOps, longestSeconds: b.longestSeconds.slice() }));
  }
}
