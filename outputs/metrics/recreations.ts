/**
 * Publishes the recreation analyzer's counts through the catalog metrics. Counters and histograms move on events (a decision,
 * a finished recreation, an eviction, a closed Reconciled=False period); gauges are set from a tracker snapshot on
 * every update (call it before each scrape or on a timer). Every series of the known kinds and resource types
 * exists from the first scrape, at 0. `reconcile_shadow_recreation_stuck_seconds` is the only per-object series:
 * the oldest stuck recreations up to the cap, removed as soon as they finish or drop out; stuck recreations beyond
 * the cap are counted once each under `evictions_total{cap="stuck_series"}`.
 *
 * Seconds are wall-clock seconds: a simulated world runs `speed` times faster than the wall clock, so its ages,
 * durations and thresholds are divided by `speed` (a live run has speed 1).
 */
import type { Metrics } from './registry.js';
import { LIFECYCLE_DECISIONS, type LifecycleDecision } from '../../analyzer/recreations/lifecycle-decision.js';
import type { RecreationListener } from '../../analyzer/recreations/recreation-analyzer.js';
import {
  DURATION_PHASES,
  IN_FLIGHT_PHASES,
  type FinishedRecreation,
  type InFlightRecreation,
  type TrackerSnapshot,
} from '../../analyzer/recreations/tracker.js';
import { UNRECONCILED_CAUSES, type UnreconciledPeriod } from '../../analyzer/recreations/unreconciled.js';

export const EVICTION_CAPS = ['in_flight', 'stuck_series'] as const;
export type EvictionCap = (typeof EVICTION_CAPS)[number];
const PREDICTED_FLOWS = ['blocking', 'sentinel'] as const;

export interface PublishOptions {
  readonly maxStuckSeries: number;
  /** Kinds whose gauges are always present (0 when nothing is in flight), e.g. the task config's resource kinds. */
  readonly kinds: readonly string[];
  /**
   * The tracker's stuck threshold per kind (TrackerOptions.stuckThresholdMs), published with the other per-kind
   * gauges as `reconcile_shadow_recreation_stuck_threshold_seconds` so dashboards draw each kind's own threshold.
   */
  readonly stuckThresholdMs: (kind: string) => number;
  /** HyperFleet resource types whose Reconciled=False periods are measured (`cluster`, `nodepool`). Default: none. */
  readonly resourceTypes?: readonly string[];
  /** Seconds of the recreation analyzer's clock per wall-clock second (a simulated world's speed). Default 1. */
  readonly speed?: number;
}

type StuckLabels = { kind: string; namespace: string; name: string };

export class RecreationMetrics implements RecreationListener {
  private stuckSeries = new Map<string, StuckLabels>();
  private overCap = new Set<string>();
  private readonly kinds = new Set<string>();
  private readonly resourceTypes = new Set<string>();
  private readonly speed: number;

  constructor(
    private readonly metrics: Metrics,
    private readonly options: PublishOptions,
  ) {
    this.speed = options.speed ?? 1;
    for (const kind of options.kinds) this.addKind(kind);
    for (const type of options.resourceTypes ?? []) this.addResourceType(type);
  }

  /** A kind's counters and histograms at 0 (its gauges are set by update). */
  private addKind(kind: string): void {
    if (this.kinds.has(kind)) return;
    this.kinds.add(kind);
    const m = this.metrics;
    for (const decision of [...LIFECYCLE_DECISIONS, 'conflict']) m.reconcile_shadow_lifecycle_decisions_total.inc({ kind, decision }, 0);
    for (const phase of DURATION_PHASES) m.reconcile_shadow_recreation_duration_seconds.zero({ kind, phase });
    for (const flow of PREDICTED_FLOWS) m.reconcile_shadow_recreation_predicted_unreconciled_seconds.zero({ kind, flow });
    for (const cap of EVICTION_CAPS) m.reconcile_shadow_recreation_evictions_total.inc({ kind, cap }, 0);
  }

  private addResourceType(resource_type: string): void {
    if (this.resourceTypes.has(resource_type)) return;
    this.resourceTypes.add(resource_type);
    for (const flow of UNRECONCILED_CAUSES) this.metrics.reconcile_shadow_unreconciled_seconds.zero({ resource_type, flow });
  }

  decision(d: LifecycleDecision): void {
    this.addKind(d.resource.kind);
    const counter = this.metrics.reconcile_shadow_lifecycle_decisions_total;
    counter.inc({ kind: d.resource.kind, decision: d.decision });
    if (d.conflict) counter.inc({ kind: d.resource.kind, decision: 'conflict' });
  }

  finished(r: FinishedRecreation): void {
    this.addKind(r.kind);
    const duration = this.metrics.reconcile_shadow_recreation_duration_seconds;
    const wall = (seconds: number): number => seconds / this.speed;
    if (r.deletionSeconds !== null) duration.observe({ kind: r.kind, phase: 'deletion' }, wall(r.deletionSeconds));
    if (r.creationSeconds !== null) duration.observe({ kind: r.kind, phase: 'creation' }, wall(r.creationSeconds));
    duration.observe({ kind: r.kind, phase: 'availability' }, wall(r.availabilitySeconds));
    duration.observe({ kind: r.kind, phase: 'total' }, wall(r.totalSeconds));
    if (r.predicted) {
      const predicted = this.metrics.reconcile_shadow_recreation_predicted_unreconciled_seconds;
      predicted.observe({ kind: r.kind, flow: 'blocking' }, wall(r.predicted.blocking));
      predicted.observe({ kind: r.kind, flow: 'sentinel' }, wall(r.predicted.sentinel));
    }
    this.dropStuckSeries(r.key);
  }

  evicted(r: InFlightRecreation): void {
    this.addKind(r.kind);
    this.metrics.reconcile_shadow_recreation_evictions_total.inc({ kind: r.kind, cap: 'in_flight' satisfies EvictionCap });
    this.dropStuckSeries(r.key);
  }

  unreconciled(p: UnreconciledPeriod): void {
    this.addResourceType(p.resourceType);
    this.metrics.reconcile_shadow_unreconciled_seconds.observe({ resource_type: p.resourceType, flow: p.cause }, p.seconds / this.speed);
  }

  /** Sets the gauges from the tracker's state. */
  update(s: TrackerSnapshot): void {
    for (const kind of s.inFlight.keys()) this.addKind(kind);
    const stuckByKind = new Map<string, number>();
    for (const st of s.stuck) stuckByKind.set(st.recreation.kind, (stuckByKind.get(st.recreation.kind) ?? 0) + 1);
    for (const kind of this.kinds) {
      const phases = s.inFlight.get(kind);
      for (const phase of IN_FLIGHT_PHASES) this.metrics.reconcile_shadow_recreations_in_flight.set({ kind, phase }, phases?.get(phase) ?? 0);
      this.metrics.reconcile_shadow_recreation_oldest_seconds.set({ kind }, (s.oldestSeconds.get(kind) ?? 0) / this.speed);
      this.metrics.reconcile_shadow_recreation_stuck.set({ kind }, stuckByKind.get(kind) ?? 0);
      this.metrics.reconcile_shadow_recreation_stuck_threshold_seconds.set({ kind }, this.options.stuckThresholdMs(kind) / 1000 / this.speed);
    }

    const gauge = this.metrics.reconcile_shadow_recreation_stuck_seconds;
    const next = new Map<string, StuckLabels>();
    const overCap = new Set<string>();
    s.stuck.forEach((st, i) => {
      const r = st.recreation;
      if (i < this.options.maxStuckSeries) {
        const labels = { kind: r.kind, namespace: r.namespace, name: r.name };
        gauge.set(labels, st.ageSeconds / this.speed);
        next.set(r.key, labels);
        return;
      }
      overCap.add(r.key);
      if (!this.overCap.has(r.key)) this.metrics.reconcile_shadow_recreation_evictions_total.inc({ kind: r.kind, cap: 'stuck_series' satisfies EvictionCap });
    });
    for (const [key, labels] of this.stuckSeries) if (!next.has(key)) gauge.remove(labels);
    this.stuckSeries = next;
    this.overCap = overCap;
  }

  private dropStuckSeries(key: string): void {
    const labels = this.stuckSeries.get(key);
    if (!labels) return;
    this.metrics.reconcile_shadow_recreation_stuck_seconds.remove(labels);
    this.stuckSeries.delete(key);
  }
}
