/**
 * The rows of `reconcile-shadow recreations`: one per recreation, finished or not, sorted by namespace, name and
 * trigger time. `jsonl` rows carry exactly the contract's fields in the contract's order; `json` and `table` add the
 * phase timestamps, the predicted unreconciled time under both flows, and the lifecycle decisions counted per kind.
 */
import { formatDuration } from '../../lib/duration.js';
import { plainTable } from '../../lib/table.js';
import type { RejectReason } from '../../collector/records.js';
import type { LifecycleDecisionKind } from './lifecycle-decision.js';
import type { RuleErrorExample, RecreationStats } from './recreation-analyzer.js';
import type { FinishedRecreation, InFlightRecreation, RecreationPhase } from './tracker.js';
import type { UnreconciledCause, UnreconciledPeriod } from './unreconciled.js';

export type RecreationEntry =
  | { readonly finished: true; readonly recreation: FinishedRecreation }
  | { readonly finished: false; readonly recreation: InFlightRecreation; readonly ageSeconds: number; readonly stuck: boolean };

export interface FinishedRow {
  kind: string;
  namespace: string;
  name: string;
  oldUid: string | null;
  newUid: string;
  trigger: string;
  finished: true;
  deletionSeconds: number | null;
  creationSeconds: number | null;
  availabilitySeconds: number;
  totalSeconds: number;
  stuck: boolean;
}

export interface UnfinishedRow {
  kind: string;
  namespace: string;
  name: string;
  oldUid: string | null;
  newUid: string | null;
  trigger: string;
  finished: false;
  phase: RecreationPhase;
  ageSeconds: number;
  stuck: boolean;
}

/** Unfinished recreations at `nowMs`, aged from their trigger. */
export function unfinishedEntries(inFlight: Iterable<InFlightRecreation>, nowMs: number, stuckThresholdMs: (kind: string) => number): RecreationEntry[] {
  const out: RecreationEntry[] = [];
  for (const r of inFlight) {
    const ageSeconds = Math.max(0, nowMs - r.triggeredAtMs) / 1000;
    out.push({ finished: false, recreation: r, ageSeconds, stuck: ageSeconds * 1000 > stuckThresholdMs(r.kind) });
  }
  return out;
}

export function sortEntries(entries: RecreationEntry[]): RecreationEntry[] {
  return entries.sort(
    (a, b) =>
      a.recreation.namespace.localeCompare(b.recreation.namespace) ||
      a.recreation.name.localeCompare(b.recreation.name) ||
      a.recreation.kind.localeCompare(b.recreation.kind) ||
      a.recreation.triggeredAtMs - b.recreation.triggeredAtMs,
  );
}

/** The contract row (expected.jsonl): these fields, in this order. */
export function contractRow(e: RecreationEntry): FinishedRow | UnfinishedRow {
  const r = e.recreation;
  const head = { kind: r.kind, namespace: r.namespace, name: r.name, oldUid: r.oldUid };
  if (e.finished) {
    const f = e.recreation;
    return {
      ...head,
      newUid: f.newUid,
      trigger: f.trigger,
      finished: true,
      deletionSeconds: f.deletionSeconds,
      creationSeconds: f.creationSeconds,
      availabilitySeconds: f.availabilitySeconds,
      totalSeconds: f.totalSeconds,
      stuck: f.stuck,
    };
  }
  return { ...head, newUid: r.newUid ?? null, trigger: r.trigger, finished: false, phase: r.phase, ageSeconds: e.ageSeconds, stuck: e.stuck };
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** The `json` row: the contract row plus timestamps, prediction and whether it was rebuilt after a restart. */
export function detailedRow(e: RecreationEntry): Record<string, unknown> {
  const r = e.recreation;
  return {
    ...contractRow(e),
    clusterId: r.clusterId,
    rebuilt: r.rebuilt,
    newGeneration: r.newGeneration ?? null,
    triggeredAt: iso(r.triggeredAtMs),
    deletionRequestedAt: iso(r.deletionRequestedAtMs),
    goneAt: iso(r.goneAtMs),
    createdAt: iso(r.createdAtMs),
    availableAt: e.finished ? iso(e.recreation.availableAtMs) : null,
    predictedUnreconciledSeconds: e.finished ? (e.recreation.predicted ?? null) : null,
  };
}

/** Reconciled=False periods aggregated by resource type and cause. */
export class UnreconciledSummary {
  private readonly byKey = new Map<string, { resourceType: string; cause: UnreconciledCause; count: number; totalSeconds: number; maxSeconds: number }>();

  add(p: UnreconciledPeriod): void {
    const key = `${p.resourceType}/${p.cause}`;
    const s = this.byKey.get(key) ?? { resourceType: p.resourceType, cause: p.cause, count: 0, totalSeconds: 0, maxSeconds: 0 };
    s.count++;
    s.totalSeconds += p.seconds;
    s.maxSeconds = Math.max(s.maxSeconds, p.seconds);
    this.byKey.set(key, s);
  }

  rows(): { resourceType: string; cause: UnreconciledCause; count: number; meanSeconds: number; maxSeconds: number }[] {
    return [...this.byKey.values()]
      .sort((a, b) => a.resourceType.localeCompare(b.resourceType) || a.cause.localeCompare(b.cause))
      .map((s) => ({ resourceType: s.resourceType, cause: s.cause, count: s.count, meanSeconds: round(s.totalSeconds / s.count), maxSeconds: s.maxSeconds }));
  }
}

export interface RecreationSummary {
  readonly recreations: { finished: number; unfinished: number; stuck: number; rebuilt: number };
  /** Over finished recreations with every phase measured: what each flow would have cost in total. */
  readonly predicted: { recreations: number; blockingSeconds: number; sentinelSeconds: number; meanExtraSeconds: number };
  readonly decisions: Record<string, Partial<Record<LifecycleDecisionKind | 'conflict', number>>>;
  readonly ruleErrors: readonly RuleErrorExample[];
  readonly rejected: Partial<Record<RejectReason, number>>;
  readonly objectsIgnored: number;
  readonly observations: number;
  readonly evicted: number;
  /** In flight when their cluster was hard-deleted. */
  readonly abandoned: number;
  readonly unreconciled: ReturnType<UnreconciledSummary['rows']>;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

export function summarize(entries: readonly RecreationEntry[], stats: RecreationStats, unreconciled: UnreconciledSummary): RecreationSummary {
  let finished = 0;
  let stuck = 0;
  let rebuilt = 0;
  let predictedCount = 0;
  let blocking = 0;
  let sentinel = 0;
  for (const e of entries) {
    if (e.recreation.rebuilt) rebuilt++;
    if ((e.finished && e.recreation.stuck) || (!e.finished && e.stuck)) stuck++;
    if (!e.finished) continue;
    finished++;
    const p = e.recreation.predicted;
    if (!p) continue;
    predictedCount++;
    blocking += p.blocking;
    sentinel += p.sentinel;
  }
  const decisions: RecreationSummary['decisions'] = {};
  for (const [kind, byDecision] of [...stats.decisions].sort(([a], [b]) => a.localeCompare(b))) decisions[kind] = Object.fromEntries(byDecision);
  return {
    recreations: { finished, unfinished: entries.length - finished, stuck, rebuilt },
    predicted: {
      recreations: predictedCount,
      blockingSeconds: round(blocking),
      sentinelSeconds: round(sentinel),
      meanExtraSeconds: predictedCount === 0 ? 0 : round((sentinel - blocking) / predictedCount),
    },
    decisions,
    ruleErrors: [...stats.ruleErrors.values()],
    rejected: Object.fromEntries(stats.rejected),
    objectsIgnored: stats.objectsIgnored,
    observations: stats.observations,
    evicted: stats.recreationsEvicted,
    abandoned: stats.recreationsAbandoned,
    unreconciled: unreconciled.rows(),
  };
}

const fmt = (s: number | null | undefined): string => (s === null || s === undefined ? '-' : formatDuration(s));

export function renderTable(entries: readonly RecreationEntry[], summary: RecreationSummary): string {
  const header = ['OBJECT', 'TRIGGER', 'STATE', 'DELETION', 'CREATION', 'AVAILABILITY', 'TOTAL/AGE', 'BLOCKING', 'SENTINEL', 'STUCK'];
  const rows = entries.map((e) => {
    const r = e.recreation;
    const object = `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
    if (e.finished) {
      const f = e.recreation;
      return [
        object,
        f.trigger,
        'available',
        fmt(f.deletionSeconds),
        fmt(f.creationSeconds),
        fmt(f.availabilitySeconds),
        fmt(f.totalSeconds),
        fmt(f.predicted?.blocking),
        fmt(f.predicted?.sentinel),
        f.stuck ? 'yes' : '',
      ];
    }
    return [object, r.trigger, r.phase, '', '', '', fmt(e.ageSeconds), '', '', e.stuck ? 'yes' : ''];
  });
  const out = [plainTable({ head: header, rows, numeric: [] })];
  const s = summary;
  out.push(
    `recreations: ${s.recreations.finished} finished, ${s.recreations.unfinished} unfinished, ${s.recreations.stuck} stuck, ${s.recreations.rebuilt} rebuilt`,
  );
  if (s.predicted.recreations > 0) {
    out.push(
      `predicted unreconciled time over ${s.predicted.recreations} recreations: blocking ${formatDuration(s.predicted.blockingSeconds)}, sentinel ${formatDuration(s.predicted.sentinelSeconds)} (${s.predicted.meanExtraSeconds}s more per recreation)`,
    );
  }
  for (const [kind, byDecision] of Object.entries(s.decisions)) {
    out.push(
      `decisions ${kind}: ${Object.entries(byDecision)
        .map(([d, n]) => `${d}=${n}`)
        .join(' ')}`,
    );
  }
  for (const e of s.ruleErrors) out.push(`rule error: resource ${e.resource} ${e.rule}: ${e.reason} x${e.count}: ${e.message}`);
  for (const u of s.unreconciled)
    out.push(`Reconciled=False ${u.resourceType}/${u.cause}: ${u.count} periods, mean ${formatDuration(u.meanSeconds)}, max ${formatDuration(u.maxSeconds)}`);
  const rejected = Object.entries(s.rejected);
  if (rejected.length > 0) out.push(`rejected lines: ${rejected.map(([r, n]) => `${r}=${n}`).join(' ')}`);
  out.push(`observations: ${s.observations} (${s.objectsIgnored} objects not managed by the task config)`);
  return out.join('\n') + '\n';
}
