/**
 * The HostedCluster's `ReconciliationSucceeded` condition and when it changed (hypershift `hostedcluster_controller.go`
 * Reconcile(), which sets it after the loop; docs/status-source.md).
 *
 * The operator sets it after every attempt, but writes it only when it differs (lastTransitionTime aside), and
 * lastTransitionTime moves only when `status` flips. So the times of the transitions this source reports are:
 * - status changed (or lastTransitionTime moved): the condition's lastTransitionTime;
 * - only message or reason changed: the time the watch delivered the change (lastTransitionTime still holds the
 *   time of the last status flip, which is earlier than this attempt);
 * - first sight of an object (sidecar start, or a new object): lastTransitionTime, a lower bound of when the
 *   current message was first set.
 */
import type { RawKubeObject } from '../kube/informer.js';

export const RECONCILIATION_SUCCEEDED = 'ReconciliationSucceeded';

export interface ConditionState {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string | undefined;
  readonly observedGeneration: number | undefined;
}

export type ConditionRead = { readonly condition: ConditionState | undefined } | { readonly problem: string };

/** The condition of `type`, undefined when the object has none yet; a problem when the status is malformed. */
export function readCondition(obj: RawKubeObject, type: string): ConditionRead {
  const status = obj.status as { conditions?: unknown } | undefined;
  if (status?.conditions === undefined) return { condition: undefined };
  if (!Array.isArray(status.conditions)) return { problem: 'status.conditions: not a list' };
  const index = status.conditions.findIndex((c) => (c as { type?: unknown } | null)?.type === type);
  if (index < 0) return { condition: undefined };
  const c = status.conditions[index] as Record<string, unknown>;
  const field = `status.conditions[${index}]`;
  if (typeof c.status !== 'string') return { problem: `${field}.status: not a string` };
  for (const k of ['reason', 'message', 'lastTransitionTime'] as const) {
    if (c[k] !== undefined && typeof c[k] !== 'string') return { problem: `${field}.${k}: not a string` };
  }
  if (c.observedGeneration !== undefined && !Number.isInteger(c.observedGeneration)) return { problem: `${field}.observedGeneration: not an integer` };
  return {
    condition: {
      status: c.status,
      reason: (c.reason as string | undefined) ?? '',
      message: (c.message as string | undefined) ?? '',
      lastTransitionTime: c.lastTransitionTime as string | undefined,
      observedGeneration: c.observedGeneration as number | undefined,
    },
  };
}

export interface TransitionTime {
  /** RFC 3339, as it will appear in the record. */
  readonly time: string;
  readonly timeMs: number;
  readonly from: 'lastTransitionTime' | 'observed';
}

/** When `next` became the condition, or undefined when it is no change from `previous`. */
export function transitionTime(previous: ConditionState | undefined, next: ConditionState, observedAtMs: number): TransitionTime | undefined {
  const flipped = previous === undefined || previous.status !== next.status || previous.lastTransitionTime !== next.lastTransitionTime;
  if (!flipped && previous.message === next.message && previous.reason === next.reason) return undefined;
  const ltt = next.lastTransitionTime === undefined ? NaN : Date.parse(next.lastTransitionTime);
  if (flipped && !Number.isNaN(ltt)) return { time: next.lastTransitionTime!, timeMs: ltt, from: 'lastTransitionTime' };
  return { time: new Date(observedAtMs).toISOString(), timeMs: observedAtMs, from: 'observed' };
}
