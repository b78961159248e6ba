/**
 * Counters and gauges aggregated at scrape time. Where the label sets are known when the sidecar starts (a model's
 * operations × outcomes, its groups, the sources), the analysis writes plain Float64Array slots, one per label set
 * (a "row"): an increment is an array write, with no label hashing and no lookup. The client library reads the rows
 * only when /metrics is scraped (`get()`), so the cost of exposition is paid per scrape, not per attempt.
 *
 * Every row a table is made with exists from the first scrape, at 0, so a panel draws 0 and `increase()` sees the
 * first event; rows marked optional (label sets that are possible but not expected, e.g. a source the sidecar does
 * not run) appear once written. Series are listed in table order, then row order.
 *
 * The metrics are @prometheus-io/client's own Counter and Gauge, so the registry renders them as any other; anything
 * written through the library's `inc`/`set` is listed first, then the rows of the metric's tables.
 */
import { Counter, Gauge, type MetricValue } from '@prometheus-io/client';

export type LabelSet<L extends string> = Readonly<Record<L, string>>;

/** One series as the registry reads it; made once per row and reused at every scrape (only `value` changes). */
interface Series<L extends string> {
  readonly labels: LabelSet<L>;
  value: number;
}

/** Rows of one metric for one set of label sets (e.g. one controller's operations × outcomes). */
export class SeriesTable<L extends string> {
  /** The current value of each row; write through add/set so an optional row is listed. */
  readonly values: Float64Array;
  private readonly series: readonly Series<L>[];
  /** 1 for a row that is listed: from the start, or since it was first written. */
  private readonly listed: Uint8Array;

  /** `optional(row)`: true for a row listed only once written. */
  constructor(
    labels: readonly LabelSet<L>[],
    private readonly optional: (row: number) => boolean = () => false,
  ) {
    this.values = new Float64Array(labels.length);
    this.series = labels.map((l) => ({ labels: l, value: 0 }));
    this.listed = Uint8Array.from(labels, (_, row) => (optional(row) ? 0 : 1));
  }

  add(row: number, amount = 1): void {
    this.values[row]! += amount;
    this.listed[row] = 1;
  }

  set(row: number, value: number): void {
    this.values[row] = value;
    this.listed[row] = 1;
  }

  /** Appends the listed rows with their current values to `out`. */
  read(out: Series<L>[]): void {
    for (let row = 0; row < this.series.length; row++) {
      if (this.listed[row] === 0) continue;
      const s = this.series[row]!;
      s.value = this.values[row]!;
      out.push(s);
    }
  }

  /** Back to the start (the registry's resetMetrics). */
  reset(): void {
    this.values.fill(0);
    for (let row = 0; row < this.listed.length; row++) this.listed[row] = this.optional(row) ? 0 : 1;
  }
}

/** The tables of one metric, in the order they were made. */
class Tables<L extends string> {
  private readonly tables: SeriesTable<L>[] = [];

  create(labels: readonly LabelSet<L>[], optional?: (row: number) => boolean): SeriesTable<L> {
    const t = new SeriesTable(labels, optional);
    this.tables.push(t);
    return t;
  }

  read(): MetricValue<L>[] {
    const out: Series<L>[] = [];
    for (const t of this.tables) t.read(out);
    // The library's label type is conditional on L (no labels: none allowed), which TypeScript cannot resolve for a
    // generic L; every row's labels are L's, as MetricValue<L> requires.
    return out as unknown as MetricValue<L>[];
  }

  reset(): void {
    for (const t of this.tables) t.reset();
  }
}

// The library's constructor calls reset() before subclass fields exist, hence the lazily created `tables`.

export class TableCounter<L extends string> extends Counter<L> {
  private tables: Tables<L> | undefined;

  /** A table of rows with these label sets (see SeriesTable); increment them with `add`. */
  table(labels: readonly LabelSet<L>[], optional?: (row: number) => boolean): SeriesTable<L> {
    return (this.tables ??= new Tables()).create(labels, optional);
  }

  override async get(): ReturnType<Counter<L>['get']> {
    const own = await super.get();
    return this.tables ? { ...own, values: [...own.values, ...this.tables.read()] } : own;
  }

  override reset(): void {
    super.reset();
    this.tables?.reset();
  }
}

export class TableGauge<L extends string> extends Gauge<L> {
  private tables: Tables<L> | undefined;

  /** A table of rows with these label sets (see SeriesTable); set them with `set`. */
  table(labels: readonly LabelSet<L>[], optional?: (row: number) => boolean): SeriesTable<L> {
    return (this.tables ??= new Tables()).create(labels, optional);
  }

  override async get(): ReturnType<Gauge<L>['get']> {
    const own = await super.get();
    return this.tables ? { ...own, values: [...own.values, ...this.tables.read()] } : own;
  }

  override reset(): void {
    super.reset();
    this.tables?.reset();
  }
}
