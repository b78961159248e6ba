/**
 * How long a recreation keeps the resource unreconciled under each flow, from its measured phases.
 * - blocking (today's `recreate_on_change`): the adapter deletes, polls inside the event until the object is gone,
 *   then creates at once: lead + deletion + creation + availability — what was measured.
 * - sentinel (the designed `recreate.when`): the adapter deletes and returns "deletion pending"; the object is
 *   created by the first Sentinel event after it is gone, so the deletion is rounded up to the event interval
 *   (an object gone at the rediscovery right after the delete is created in the same event).
 */

export interface MeasuredPhases {
  /** Trigger → deletion requested: the adapter's reaction, the same under both flows. */
  readonly leadSeconds: number;
  readonly deletionSeconds: number;
  readonly creationSeconds: number;
  readonly availabilitySeconds: number;
}

export interface PredictedUnreconciled {
  readonly blocking: number;
  readonly sentinel: number;
}

export function predictUnreconciled(p: MeasuredPhases, sentinelIntervalSeconds: number): PredictedUnreconciled {
  const after = p.creationSeconds + p.availabilitySeconds;
  const waited = p.deletionSeconds <= 0 ? 0 : Math.ceil(p.deletionSeconds / sentinelIntervalSeconds) * sentinelIntervalSeconds;
  return { blocking: p.leadSeconds + p.deletionSeconds + after, sentinel: p.leadSeconds + waited + after };
}
