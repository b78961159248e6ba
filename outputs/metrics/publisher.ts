/**
 * Publishes analysis results as Prometheus metrics (the catalog's objects), aggregated at scrape time: every label
 * set an attempt can move is a row of a table made once per controller (operations × outcomes, operations, groups,
 * pairs) or per source, so an attempt costs array writes, and the client library reads them when /metrics is scraped.
 * Every label set the models and the configured sources allow exists from the first scrape, at 0 (per source, the
 * reasons that source can reject under), except reordered pairs: a model's inverted pairs grow with the square of its
 * operations (110 for HyperShift, a million for two swapped halves of 2,000), so a pair appears when it is first
 * counted. A reason a source did not declare still counts: its series appears when first counted.
 * Gauges that depend on "now" (starvation, tracked objects), and the notes a source keeps in its own input summary,
 * are refreshed just before each scrape; the models'
 * operations are published once, as info series.
 *
 * Times are wall-clock: the analysis may run on a simulated clock (`now`, sped up `speed` times), but the
 * last-record timestamp is the wall-clock time the record was handed on, and starvation ages are wall-clock seconds
 * (analysis seconds divided by `speed`), so Prometheus can compare them with `time()` and with the alert thresholds.
 */
import type { Rejection, RejectReason, SourceInputSummary, SourceKind } from '../../collector/records.js';
import { REJECT_REASONS, SOURCE_KINDS, SOURCE_NOTES } from '../../collector/records.js';
import type { AnalysisListener } from '../../analyzer/analyzer.js';
import { LOOP_KINDS } from '../../model/types.js';
import { OUTCOME_NAME, type CompiledModel } from '../../analyzer/compiled-model.js';
import type { AttemptAnalysis } from '../../analyzer/engine.js';
import type { Metrics } from './registry.js';
import type { SeriesTable } from './series-table.js';
import type { ControllerAnalyzer } from '../../analyzer/controller-analyzer.js';

const OUTCOMES = OUTCOME_NAME.length;

export interface PublisherOptions {
  /** The sidecar's version, for reconcile_shadow_info. */
  readonly version: string;
  /**
   * The sources the sidecar runs and the reasons each can reject under: their series exist from the first scrape;
   * others appear when they first count.
   */
  readonly sources?: readonly { readonly kind: SourceKind; readonly reasons: readonly RejectReason[] }[];
  /** Wall-clock milliseconds, for the timestamps Prometheus compares with time(). Default: Date.now. */
  readonly wallClock?: () => number;
  /** Analysis seconds per wall-clock second (the simulator's speed; 1 for live sources). */
  readonly speed?: number;
}

/** One controller's tables; rows are indexed by op, op × outcome, group × group or inverted pair. */
interface ControllerTables {
  /** Row: (sequential 0 | phased 2) + (diverged 0 | not 1). */
  readonly attempts: SeriesTable<string>;
  /** Row: op × 4 + outcome code. */
  readonly observed: SeriesTable<string>;
  readonly unblocked: SeriesTable<string>;
  readonly newlyBlocked: SeriesTable<string>;
  readonly structural: SeriesTable<string>;
  /** Row: index into the model's inverted pairs. */
  readonly reordered: SeriesTable<string>;
  /** Row: blocker group × group count + blocked group. */
  readonly blockedBy: SeriesTable<string>;
  readonly groups: number;
  readonly starved: SeriesTable<string>;
  /** The controller's row in the per-controller tables. */
  readonly row: number;
}

/** A source's row in the per-source tables. */
const SOURCE_ROW = new Map<SourceKind, number>(SOURCE_KINDS.map((s, i) => [s, i]));
const REASON_ROW = new Map<string, number>(REJECT_REASONS.map((r, i) => [r, i]));

export class MetricsPublisher implements AnalysisListener {
  private readonly tables = new Map<ControllerAnalyzer, ControllerTables>();
  private readonly controllerRow = new Map<string, number>();
  private readonly tracked: SeriesTable<string>;
  private readonly evictedObjects: SeriesTable<string>;
  private readonly unmapped: SeriesTable<string>;
  private readonly receivedRecords: SeriesTable<string>;
  private readonly dropped: SeriesTable<string>;
  private readonly incomplete: SeriesTable<string>;
  private readonly lastRecord: SeriesTable<string>;
  /** Row: source × SOURCE_NOTES.length + note; listed for the sources that describe their input. */
  private readonly noted: SeriesTable<string>;
  private readonly describedSources = new Map<SourceKind, () => SourceInputSummary>();
  private readonly wallClock: () => number;
  private readonly speed: number;

  /** @param now the analysis clock (ms): wall clock, or the simulator's virtual clock. */
  constructor(
    private readonly metrics: Metrics,
    analyzers: readonly ControllerAnalyzer[],
    private readonly now: () => number,
    options: PublisherOptions,
  ) {
    this.wallClock = options.wallClock ?? Date.now;
    this.speed = options.speed ?? 1;
    const controllers = analyzers.map((s) => ({ controller: s.model.controller }));
    controllers.forEach((c, i) => this.controllerRow.set(c.controller, i));
    this.tracked = metrics.reconcile_shadow_tracked_objects.table(controllers);
    this.evictedObjects = metrics.reconcile_shadow_tracked_objects_evicted_total.table(controllers);
    this.unmapped = metrics.reconcile_shadow_unmapped_errors_total.table(controllers);
    const declared = new Map((options.sources ?? []).map((s) => [s.kind, new Set<string>(s.reasons)]));
    const undeclared = (source: SourceKind): boolean => !declared.has(source);
    const sources = SOURCE_KINDS.map((source) => ({ source }));
    const bySource = (row: number): boolean => undeclared(SOURCE_KINDS[row]!);
    this.receivedRecords = metrics.reconcile_shadow_records_received_total.table(sources, bySource);
    this.dropped = metrics.reconcile_shadow_records_dropped_total.table(
      SOURCE_KINDS.flatMap((source) => REJECT_REASONS.map((reason) => ({ source, reason }))),
      (row) => !declared.get(SOURCE_KINDS[Math.floor(row / REJECT_REASONS.length)]!)?.has(REJECT_REASONS[row % REJECT_REASONS.length]!),
    );
    this.incomplete = metrics.reconcile_shadow_attempts_incomplete_total.table(sources, bySource);
    this.noted = metrics.reconcile_shadow_attempts_noted_total.table(
      SOURCE_KINDS.flatMap((source) => SOURCE_NOTES.map((note) => ({ source, note }))),
      () => true,
    );
    // A timestamp has no zero: a source's series appears with its first record.
    this.lastRecord = metrics.reconcile_shadow_source_last_record_timestamp_seconds.table(sources, () => true);
    analyzers.forEach((s, row) => {
      this.tables.set(s, this.tablesFor(s, row));
      publishOperations(metrics, s.cm);
    });
    metrics.reconcile_shadow_info.set({ version: options.version, models: analyzers.map((s) => s.model.name).join(',') }, 1);
  }

  private tablesFor(s: ControllerAnalyzer, row: number): ControllerTables {
    const m = this.metrics;
    const cm = s.cm;
    const controller = s.model.controller;
    const attempts = LOOP_KINDS.flatMap((observed_loop) => ['true', 'false'].map((diverged) => ({ controller, observed_loop, diverged })));
    const groups = cm.groups.map((g) => g.name);
    const byOp = cm.ops.map((operation) => ({ controller, operation }));
    // One-loop operations are never unblocked or newly blocked, only structural; the others never structural.
    const oneLoop = (op: number): boolean => cm.oneLoopOnly[op] === 1;
    const bothLoops = (op: number): boolean => cm.oneLoopOnly[op] === 0;
    // A critical group can block a blockable group after it in the phased loop (groups are indexed in that order).
    const canBlock = (row: number): boolean => {
      const [blocker, blocked] = [cm.groups[Math.floor(row / groups.length)]!, cm.groups[row % groups.length]!];
      return blocker.category === 'critical' && blocked.blockable && blocker.index < blocked.index;
    };
    return {
      attempts: m.reconcile_shadow_attempts_total.table(attempts),
      observed: m.reconcile_shadow_operation_observed_total.table(
        cm.ops.flatMap((operation) => OUTCOME_NAME.map((outcome) => ({ controller, operation, outcome }))),
      ),
      unblocked: m.reconcile_shadow_operation_unblocked_total.table(byOp, oneLoop),
      newlyBlocked: m.reconcile_shadow_operation_newly_blocked_total.table(byOp, oneLoop),
      structural: m.reconcile_shadow_operation_structural_total.table(byOp, bothLoops),
      reordered: m.reconcile_shadow_reordered_pairs_total.table(
        cm.invertedPairs.map(([a, b]) => ({ controller, first: cm.ops[a]!, second: cm.ops[b]! })),
        () => true,
      ),
      blockedBy: m.reconcile_shadow_blocked_by_total.table(
        groups.flatMap((blocker) => groups.map((blocked) => ({ controller, blocker, blocked }))),
        (row) => !canBlock(row),
      ),
      groups: groups.length,
      starved: m.reconcile_shadow_operation_starved_seconds.table(cm.ops.map((operation) => ({ controller, operation }))),
      row,
    };
  }

  attempt(controller: ControllerAnalyzer, a: AttemptAnalysis): void {
    const t = this.tables.get(controller);
    if (!t) return;
    // an attempt a probability sampler kept stands for its adjusted count of attempts (collector/otlp/internal/sampling.ts)
    const w = a.record.origin.adjustedCount ?? 1;
    t.attempts.add((a.record.loop === 'sequential' ? 0 : 2) + (a.diverged ? 0 : 1), w);
    const { observed, outcomes } = a;
    for (let op = 0; op < observed.length; op++) if (observed[op] === 1) t.observed.add(op * OUTCOMES + outcomes[op]!, w);
    for (const op of a.unblocked) t.unblocked.add(op, w);
    for (const op of a.newlyBlocked) t.newlyBlocked.add(op, w);
    for (const op of a.structural) t.structural.add(op, w);
    for (const pair of a.reordered) t.reordered.add(pair, w);
    for (const [blocker, blocked] of a.phased.blockedBy) t.blockedBy.add(blocker * t.groups + blocked, w);
    const origin = a.record.origin;
    const source = SOURCE_ROW.get(origin.source)!;
    if (origin.incomplete || origin.sampled || origin.transition) this.incomplete.add(source, w);
    this.lastRecord.set(source, this.wallClock() / 1000);
  }

  evicted(controller: ControllerAnalyzer): void {
    const t = this.tables.get(controller);
    if (t) this.evictedObjects.add(t.row);
  }

  reject(r: Rejection): void {
    this.dropped.add(SOURCE_ROW.get(r.source)! * REJECT_REASONS.length + REASON_ROW.get(r.reason)!);
    if (r.reason !== 'unmapped_error' || !r.controller) return;
    const row = this.controllerRow.get(r.controller);
    if (row === undefined) this.metrics.reconcile_shadow_unmapped_errors_total.inc({ controller: r.controller });
    else this.unmapped.add(row);
  }

  received(source: SourceKind, count: number): void {
    this.receivedRecords.add(SOURCE_ROW.get(source)!, count);
  }

  /** A source that keeps notes: its series exist from now on, at 0, and follow its summary at every scrape. */
  described(source: SourceKind, summary: () => SourceInputSummary): void {
    this.describedSources.set(source, summary);
    const first = SOURCE_ROW.get(source)! * SOURCE_NOTES.length;
    for (let note = 0; note < SOURCE_NOTES.length; note++) this.noted.set(first + note, 0);
  }

  /** Sets the gauges that depend on the time of the scrape, and the sources' notes. */
  refresh(): void {
    for (const [source, summary] of this.describedSources) {
      const notes = summary().notes;
      const first = SOURCE_ROW.get(source)! * SOURCE_NOTES.length;
      SOURCE_NOTES.forEach((note, i) => this.noted.set(first + i, notes[note] ?? 0));
    }
    const now = this.now();
    for (const [s, t] of this.tables) {
      const starved = s.starvation.currentLongestSeconds(now);
      for (let op = 0; op < starved.length; op++) t.starved.set(op, starved[op]! / this.speed);
      this.tracked.set(t.row, s.trackedObjects);
    }
  }
}

/** Where an operation runs in the phased loop (reconcile_shadow_operation_info{category}). */
type OperationCategory = 'critical' | 'nonCritical' | 'failFast' | 'sequentialOnly';

/**
 * The model's operations as info series (value 1) with their group and category, so rules select operations by
 * joining on them (e.g. `category="critical"`) and never have to be regenerated for a user's own model.
 */
function publishOperations(metrics: Metrics, cm: CompiledModel): void {
  const controller = cm.model.controller;
  cm.ops.forEach((operation, op) => {
    const group = cm.groups[cm.groupOf[op]!];
    const category: OperationCategory = group ? group.category : cm.phasedPosition[op]! >= 0 ? 'failFast' : 'sequentialOnly';
    metrics.reconcile_shadow_operation_info.set({ controller, operation, group: group?.name ?? '', category }, 1);
  });
}
