/**
 * The benchmark harness: each benchmark measures its figure and its baseline side by side in one process, on the
 * same data, after a warm-up, taking the median of several repeats (absolute times on a shared machine drift;
 * ratios measured side by side do not drift as much).
 */
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

/** Runs `fn` (which processes `items` items) `repeats` times after one warm-up; returns the median items/s. */
export function throughput(items: number, fn: () => void, repeats = 5): number {
  fn();
  const rates: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = process.hrtime.bigint();
    fn();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(items / seconds);
  }
  return median(rates);
}

export async function throughputAsync(items: number, fn: () => Promise<void>, repeats = 5): Promise<number> {
  await fn();
  const rates: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = process.hrtime.bigint();
    await fn();
    rates.push(items / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return median(rates);
}

/**
 * Median seconds per call of two functions, alternated call by call so that load from elsewhere on the machine
 * hits both alike.
 */
export async function timeSideBySide(a: () => Promise<unknown>, b: () => Promise<unknown>, repeats = 21): Promise<[number, number]> {
  await a();
  await b();
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < repeats; i++) {
    for (const [fn, times] of [[a, ta], [b, tb]] as const) {
      const start = process.hrtime.bigint();
      await fn();
      times.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
  }
  return [median(ta), median(tb)];
}

/** Median seconds per call. */
export async function timeAsync(fn: () => Promise<unknown>, repeats = 9): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return median(times);
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
  const rows = results.map((r) => [r.name, `${formatNumber(r.figure)} ${r.unit}`, r.baseline === null ? '-' : `${formatNumber(r.baseline)} ${r.unit}`, r.ratio === null ? '-' : `${r.ratio.toFixed(2)}x`, r.target, r.met ? 'met' : 'MISSED']);
  const head = ['benchmark', 'figure', 'baseline', 'ratio', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
