/**
 * The benchmark harness: each benchmark measures its figure and its baseline side by side in one process, on the
 * same data. Both are timed in CPU time of this process (user + system), not wall time: the machine is shared, and
 * time spent descheduled while other work runs is no cost of ours. The two alternate, run by run, after a warm-up
 * of each, and the median of each is taken, so load that comes and goes hits both alike.
 */
import { plainTable } from '../lib/table.js';

export interface BenchResult {
  readonly name: string;
  /** What the figure measures, with its unit. */
  readonly unit: string;
  readonly figure: number;
  readonly baseline: number | null;
  readonly ratio: number | null;
  /** e.g. ">= 0.5x baseline", "<= 1 KiB/object". */
  readonly target: string;
  readonly met: boolean;
  readonly notes?: string;
}

/** CPU seconds this process has used so far (every thread: the main one and V8's GC helpers). */
export function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Seconds of CPU one call takes. */
export async function cpuTime(fn: () => unknown): Promise<number> {
  const start = cpuSeconds();
  await fn();
  return cpuSeconds() - start;
}

/**
 * Median CPU seconds per call of `figure` and of `baseline`, called alternately `repeats` times each after one
 * warm-up call of each.
 */
export async function sideBySide(figure: () => unknown, baseline: () => unknown, repeats = 7): Promise<[number, number]> {
  await figure();
  await baseline();
  const tf: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < repeats; i++) {
    tf.push(await cpuTime(figure));
    tb.push(await cpuTime(baseline));
  }
  return [median(tf), median(tb)];
}

/** Items per CPU second of `figure` and of `baseline`, which each process the same `items` (see sideBySide). */
export async function throughputSideBySide(items: number, figure: () => unknown, baseline: () => unknown, repeats = 7): Promise<[number, number]> {
  const [f, b] = await sideBySide(figure, baseline, repeats);
  return [items / f, items / b];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** At-least target: figure / baseline >= min. */
export function atLeast(name: string, unit: string, figure: number, baseline: number, min: number, notes?: string): BenchResult {
  const ratio = figure / baseline;
  return { name, unit, figure, baseline, ratio, target: `>= ${min}x baseline`, met: ratio >= min, ...(notes ? { notes } : {}) };
}

/** At-most target on a cost (time): figure / baseline <= max. */
export function atMost(name: string, unit: string, figure: number, baseline: number, max: number, notes?: string): BenchResult {
  const ratio = figure / baseline;
  return { name, unit, figure, baseline, ratio, target: `<= ${max}x baseline`, met: ratio <= max, ...(notes ? { notes } : {}) };
}

export function formatNumber(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  if (n >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

export function renderTable(results: readonly BenchResult[]): string {
  const rows = results.map((r) => [
    r.name,
    `${formatNumber(r.figure)} ${r.unit}`,
    r.baseline === null ? '-' : `${formatNumber(r.baseline)} ${r.unit}`,
    r.ratio === null ? '-' : `${r.ratio.toFixed(2)}x`,
    r.target,
    r.met ? 'met' : 'MISSED',
  ]);
  return plainTable({ head: ['benchmark', 'figure', 'baseline', 'ratio', 'target', ''], rows, numeric: [] }, { rule: true });
}
