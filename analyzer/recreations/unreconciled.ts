/**
 * `Reconciled=False` periods of HyperFleet resources, as the API reports them, split by what caused them:
 * `delete` (deleted_time set), `create` (the first generation), `recreate` (a recreation was triggered while it
 * lasted) or `update`. A period runs from the condition's last_transition_time to the one of the next True (or to
 * the hard delete), so it is measured from the API's own times and survives a sidecar restart.
 */
import type { HyperFleetResource } from '../../collector/objects/observation.js';

export const UNRECONCILED_CAUSES = ['create', 'update', 'recreate', 'delete'] as const;
export type UnreconciledCause = (typeof UNRECONCILED_CAUSES)[number];

export interface UnreconciledPeriod {
  /** Lower-case kind, as the API's own metrics label it: `cluster`, `nodepool`. */
  readonly resourceType: string;
  readonly id: string;
  readonly cause: UnreconciledCause;
  readonly startMs: number;
  readonly endMs: number;
  readonly seconds: number;
}

interface Open {
  startMs: number;
  cause: UnreconciledCause;
  resourceType: string;
}

export class UnreconciledTracker {
  private readonly open = new Map<string, Open>();

  constructor(private readonly listener: (p: UnreconciledPeriod) => void) {}

  get openCount(): number {
    return this.open.size;
  }

  observe(r: HyperFleetResource, atMs: number): void {
    const reconciled = r.conditions.find((c) => c.type === 'Reconciled');
    if (!reconciled) return;
    const at = reconciled.lastTransitionTimeMs ?? atMs;
    const current = this.open.get(r.id);
    if (reconciled.status === 'True') {
      if (current) this.close(r.id, current, at);
      return;
    }
    if (current) {
      if (r.deletedTimeMs !== undefined) current.cause = 'delete';
      return;
    }
    const cause: UnreconciledCause = r.deletedTimeMs !== undefined ? 'delete' : r.generation <= 1 ? 'create' : 'update';
    this.open.set(r.id, { startMs: at, cause, resourceType: r.kind.toLowerCase() });
  }

  /** A recreation was triggered for this resource: its open update period is a recreate period. */
  recreationTriggered(id: string): void {
    const current = this.open.get(id);
    if (current && current.cause === 'update') current.cause = 'recreate';
  }

  /** The resource was hard-deleted: its open period ends now. */
  gone(id: string, atMs: number): void {
    const current = this.open.get(id);
    if (current) this.close(id, current, atMs);
  }

  private close(id: string, p: Open, endMs: number): void {
    this.open.delete(id);
    const end = Math.max(endMs, p.startMs);
    this.listener({ resourceType: p.resourceType, id, cause: p.cause, startMs: p.startMs, endMs: end, seconds: (end - p.startMs) / 1000 });
  }
}
