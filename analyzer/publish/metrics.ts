/**
 * Publishes analysis results as Prometheus metrics (the catalog's objects). Label children are bound once per
 * operation, group and pair, so an attempt costs array lookups and increments, not label hashing.
 * Gauges that depend on "now" (starvation, tracked objects) are refreshed just before each scrape; the models'
 * operations are published once, as info series.
 */
import type { Counter, Gauge } from 'prom-client';
import type { Rejection, SourceKind } from '../../collector/records.js';
import type { AnalysisListener } from '../analyzer.js';
import { OUTCOME_NAME, type CompiledModel } from '../compiled-model.js';
import type { AttemptAnalysis } from '../engine.js';
import type { Metrics } from '../metrics/registry.js';
import type { ControllerShadow } from '../shadow.js';

type CounterChild = ReturnType<Counter['labels']>;
type GaugeChild = ReturnType<Gauge['labels']>;

/** Children bound for one controller. */
interface Bound {
  readonly attempts: Record<string, CounterChild>;
  readonly observed: CounterChild[][];
  readonly unblocked: CounterChild[];
  readonly newlyBlocked: CounterChild[];
  readonly reordered: CounterChild[];
  readonly blockedBy: Map<number, CounterChild>;
  readonly starved: GaugeChild[];
  readonly tracked: GaugeChild;
}

export class MetricsPublisher implements AnalysisListener {
  private readonly bound = new Map<ControllerShadow, Bound>();

  constructor(
    private readonly metrics: Metrics,
    shadows: readonly ControllerShadow[],
    private readonly now: () => number,
    info: { version: string },
  ) {
    for (const s of shadows) {
      this.bound.set(s, this.bind(s));
      publishOperations(metrics, s.cm);
    }
    metrics.reconcile_shadow_info.set({ version: info.version, models: shadows.map((s) => s.model.name).join(',') }, 1);
  }

  private bind(s: ControllerShadow): Bound {
    const m = this.metrics;
    const controller = s.model.controller;
    const attempts: Record<string, CounterChild> = {};
    for (const observed_model of ['sequential', 'phased']) {
      for (const diverged of ['true', 'false']) attempts[`${observed_model}/${diverged}`] = m.reconcile_shadow_attempts_total.labels({ controller, observed_model, diverged });
    }
    return {
      attempts,
      observed: s.cm.ops.map((operation) => OUTCOME_NAME.map((outcome) => m.reconcile_shadow_operation_observed_total.labels({ controller, operation, outcome }))),
      unblocked: s.cm.ops.map((operation) => m.reconcile_shadow_operation_unblocked_total.labels({ controller, operation })),
      newlyBlocked: s.cm.ops.map((operation) => m.reconcile_shadow_operation_newly_blocked_total.labels({ controller, operation })),
      reordered: s.cm.invertedPairs.map(([a, b]) => m.reconcile_shadow_reordered_pairs_total.labels({ controller, first: s.cm.ops[a]!, second: s.cm.ops[b]! })),
      blockedBy: new Map(),
      starved: s.cm.ops.map((operation) => m.reconcile_shadow_operation_starved_seconds.labels({ controller, operation })),
      tracked: m.reconcile_shadow_tracked_objects.labels({ controller }),
    };
  }

  attempt(shadow: ControllerShadow, a: AttemptAnalysis): void {
    const b = this.bound.get(shadow);
    if (!b) return;
    b.attempts[`${a.record.model}/${a.diverged}`]!.inc();
    for (let op = 0; op < a.observed.length; op++) if (a.observed[op] === 1) b.observed[op]![a.outcomes[op]!]!.inc();
    for (const op of a.unblocked) b.unblocked[op]!.inc();
    for (const op of a.newlyBlocked) b.newlyBlocked[op]!.inc();
    for (const pair of a.reordered) b.reordered[pair]!.inc();
    for (const [blocker, blocked] of a.phased.blockedBy) this.blockedByChild(shadow, b, blocker, blocked).inc();
    const origin = a.record.origin;
    if (origin.incomplete || origin.sampled || origin.transition) this.metrics.reconcile_shadow_attempts_incomplete_total.inc({ source: origin.source });
    this.metrics.reconcile_shadow_source_last_record_timestamp_seconds.set({ source: origin.source }, this.now() / 1000);
  }

  private blockedByChild(s: ControllerShadow, b: Bound, blocker: number, blocked: number): CounterChild {
    const key = blocker * 65536 + blocked;
    let child = b.blockedBy.get(key);
    if (!child) {
      child = this.metrics.reconcile_shadow_blocked_by_total.labels({ controller: s.model.controller, blocker: s.cm.groups[blocker]!.name, blocked: s.cm.groups[blocked]!.name });
      b.blockedBy.set(key, child);
    }
    return child;
  }

  evicted(shadow: ControllerShadow): void {
    this.metrics.reconcile_shadow_tracked_objects_evicted_total.inc({ controller: shadow.model.controller });
  }

  reject(r: Rejection): void {
    this.metrics.reconcile_shadow_records_dropped_total.inc({ source: r.source, reason: r.reason });
    if (r.reason === 'unmapped_error' && r.controller) this.metrics.reconcile_shadow_unmapped_errors_total.inc({ controller: r.controller });
  }

  received(source: SourceKind, count: number): void {
    this.metrics.reconcile_shadow_records_received_total.inc({ source }, count);
  }

  /** Sets the gauges that depend on the time of the scrape. */
  refresh(): void {
    const now = this.now();
    for (const [s, b] of this.bound) {
      const starved = s.starvation.currentLongestSeconds(now);
      for (let op = 0; op < starved.length; op++) b.starved[op]!.set(starved[op]!);
      b.tracked.set(s.trackedObjects);
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

/** Bounded kinds of failure inside the sidecar (reconcile_shadow_internal_errors_total{kind}). */
export const INTERNAL_ERROR_KINDS = ['publish', 'trace_export', 'source', 'report', 'evaluation'] as const;
export type InternalErrorKind = (typeof INTERNAL_ERROR_KINDS)[number];
