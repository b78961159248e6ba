/**
 * Counters and gauges aggregated at scrape time. Where the label sets are known when the sidecar starts (a model's
 * operations × outcomes, its groups, the sources), the analysis writes plain Float64Array slots, one per label set
 * (a "row"): an increment is an array write, with no label hashing and no lookup. prom-client reads the rows only
 * when /metrics is scraped (`get()`), so the cost of exposition is paid per scrape, not per attempt.
 *
 * The metrics are prom-client's own Counter and Gauge, so the registry renders them as any other; anything written
 * through prom-client's `inc`/`set` is listed first, then the rows of the metric's tables.
 */
import { Counter, Gauge } from 'prom-client';

export type LabelSet<L extends string> = Readonly<Record<L, string>>;

/** One series as the registry reads it; made once per row and reused at every scrape (only `value` changes). */
interface Series<L extends string> {
  readonly labels: LabelSet<L>;
  value: number;
}

interface Listed<L extends string> {
  readonly values: Float64Array;
  readonly row: number;
  readonly series: Series<L>;
}

/**
 * The series of one metric, in the order their rows were first written (the order prom-client lists series it
 * creates itself), for every table of the metric.
 */
class Listing<L extends string> {
  private readonly listed: Listed<L>[] = [];

  add(values: Float64Array, row: number, labels: LabelSet<L>): void {
    this.listed.push({ values, row, series: { labels, value: 0 } });
  }

  /** The series with the values they have now. */
  read(): Series<L>[] {
    const out = new Array<Series<L>>(this.listed.length);
    for (let i = 0; i < this.listed.length; i++) {
      const l = this.listed[i]!;
      l.series.value = l.values[l.row]!;
      out[i] = l.series;
    }
    return out;
  }

  clear(): void {
    this.listed.length = 0;
  }
}

/** Rows of one metric for one set of label sets (e.g. one controller's operations × outcomes). */
export class SeriesTable<L extends string> {
  /** The current value of each row; write through add/set so the row is listed. */
  readonly values: Float64Array;
  private readonly written: Uint8Array;

  constructor(
    private readonly labels: readonly LabelSet<L>[],
    private readonly listing: Listing<L>,
  ) {
    this.values = new Float64Array(labels.length);
    this.written = new Uint8Array(labels.length);
  }

  get size(): number {
    return this.labels.length;
  }

  add(row: number, amount = 1): void {
    this.values[row]! += amount;
    if (this.written[row] === 0) this.list(row);
  }

  set(row: number, value: number): void {
    this.values[row] = value;
    if (this.written[row] === 0) this.list(row);
  }

  private list(row: number): void {
    this.written[row] = 1;
    this.listing.add(this.values, row, this.labels[row]!);
  }

  /** Back to no series (the registry's resetMetrics). */
  reset(): void {
    this.values.fill(0);
    this.written.fill(0);
  }
}

/** The tables of one metric and the listing they share. */
class Tables<L extends string> {
  private readonly listing = new Listing<L>();
  private readonly tables: SeriesTable<L>[] = [];

  create(labels: readonly LabelSet<L>[]): SeriesTable<L> {
    const t = new SeriesTable(labels, this.listing);
    this.tables.push(t);
    return t;
  }

  read(): Series<L>[] {
    return this.listing.read();
  }

  reset(): void {
    this.listing.clear();
    for (const t of this.tables) t.reset();
  }
}

// prom-client's constructor calls reset() before subclass fields exist, hence the lazily created `tables`.

export class TableCounter<L extends string> extends Counter<L> {
  private tables: Tables<L> | undefined;

  /** A table of rows with these label sets; increment them with `add`. */
  table(labels: readonly LabelSet<L>[]): SeriesTable<L> {
    return (this.tables ??= new Tables()).create(labels);
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

  /** A table of rows with these label sets; set them with `set`. */
  table(labels: readonly LabelSet<L>[]): SeriesTable<L> {
    return (this.tables ??= new Tables()).create(labels);
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
