/**
 * Detects where the operator's logger may have dropped lines. controller-runtime's production zap logger wraps its core
 * in a sampler (per message text and level, per one-second window from the window's first line: the first 100 lines
 * are written, then every 100th). Dropped lines leave no trace, so the only sign is the rate of what was written.
 *
 * zap's `ts` has whole seconds and a window starts anywhere within one, so a window that reached 100 lines lies within
 * two adjacent `ts` seconds. The detector therefore flags both seconds of any pair in which one message reached the
 * threshold (default 100): no sampled window goes unflagged, at the price of flagging a steady rate of >= 50 lines per
 * second of one message that was in fact written whole. A pair can be judged only once its second second is complete,
 * so the caller closes seconds as the stream moves on (closeThrough) or when it ends (closeAll).
 */
import type { MessageSighting } from './zap-line.js';

export const DEFAULT_SAMPLING_THRESHOLD = 100;
export const MAX_SAMPLED_PERIODS = 1000;

/** A stretch of seconds in which lines may be missing; log-derived counts there are lower bounds. */
export interface SampledPeriod {
  /** First second, RFC 3339. */
  readonly from: string;
  /** End of the period (exclusive), RFC 3339. */
  readonly until: string;
  /** The message texts that reached the threshold. */
  readonly messages: readonly string[];
  /** The most lines of one message written in two adjacent seconds of the period. */
  readonly peakLines: number;
}

interface MutablePeriod {
  fromSecond: number;
  untilSecond: number;
  messages: Set<string>;
  peakLines: number;
}

const iso = (second: number): string => new Date(second * 1000).toISOString().replace('.000Z', 'Z');

export class SamplingDetector {
  /** Lines per second per `level\0message`, for seconds not yet judged. */
  private readonly counts = new Map<number, Map<string, number>>();
  private readonly flagged = new Set<number>();
  private readonly periodList: MutablePeriod[] = [];
  private closedThrough = -Infinity;
  private flaggedTotal = 0;

  constructor(private readonly threshold = DEFAULT_SAMPLING_THRESHOLD) {}

  see(sighting: MessageSighting): void {
    let perKey = this.counts.get(sighting.second);
    if (!perKey) this.counts.set(sighting.second, (perKey = new Map<string, number>()));
    const key = `${sighting.level}\u0000${sighting.message}`;
    perKey.set(key, (perKey.get(key) ?? 0) + 1);
  }

  /** Judges every second up to and including `second`; the caller guarantees that `second + 1` is complete. */
  closeThrough(second: number): void {
    // called at each new second of the stream, which holds a second or two still open: no copies of the whole map
    const due: number[] = [];
    for (const s of this.counts.keys()) if (s <= second) due.push(s);
    if (due.length > 1) due.sort((a, b) => a - b);
    for (const s of due) {
      this.judgePair(s);
      this.counts.delete(s);
    }
    if (second > this.closedThrough) this.closedThrough = second;
  }

  /** Forgets the flags of seconds before `second`: the caller has judged every attempt of them. */
  forgetBefore(second: number): void {
    for (const s of this.flagged) if (s < second) this.flagged.delete(s);
  }

  /** Judges everything seen, as at the end of the input. */
  closeAll(): void {
    const keys = [...this.counts.keys()];
    if (keys.length > 0) this.closeThrough(Math.max(...keys));
  }

  /** Whether lines of `second` may have been dropped (final once the second is closed). */
  isSampled(second: number): boolean {
    return this.flagged.has(second);
  }

  /**
   * Whether any second of [first, last] is sampled. An attempt's lines may be any distance apart (a clock jump, a
   * damaged time), so the shorter of the range and the flagged seconds is walked.
   */
  anySampledIn(first: number, last: number): boolean {
    if (last - first < this.flagged.size) {
      for (let s = first; s <= last; s++) if (this.flagged.has(s)) return true;
      return false;
    }
    for (const s of this.flagged) if (s >= first && s <= last) return true;
    return false;
  }

  /** Seconds flagged so far. */
  get sampledSeconds(): number {
    return this.flaggedTotal;
  }

  /** The most recent periods (at most MAX_SAMPLED_PERIODS), oldest first. */
  periods(): SampledPeriod[] {
    return this.periodList.map((p) => ({ from: iso(p.fromSecond), until: iso(p.untilSecond), messages: [...p.messages].sort(), peakLines: p.peakLines }));
  }

  private judgePair(s: number): void {
    const here = this.counts.get(s)!;
    const next = this.counts.get(s + 1);
    for (const [key, n] of here) {
      const lines = n + (next?.get(key) ?? 0);
      if (lines >= this.threshold) this.flag(s, key.slice(key.indexOf('\u0000') + 1), lines);
    }
  }

  private flag(s: number, message: string, lines: number): void {
    for (const second of [s, s + 1]) {
      if (!this.flagged.has(second)) {
        this.flagged.add(second);
        this.flaggedTotal++;
      }
    }
    const last = this.periodList[this.periodList.length - 1];
    if (last && s <= last.untilSecond && s + 2 >= last.fromSecond) {
      last.fromSecond = Math.min(last.fromSecond, s);
      last.untilSecond = Math.max(last.untilSecond, s + 2);
      last.messages.add(message);
      last.peakLines = Math.max(last.peakLines, lines);
      return;
    }
    this.periodList.push({ fromSecond: s, untilSecond: s + 2, messages: new Set([message]), peakLines: lines });
    if (this.periodList.length > MAX_SAMPLED_PERIODS) this.periodList.shift();
  }
}
