/** Benchmark inputs, all from the simulator with fixed seeds so runs are comparable. */
import { formatAttemptLine } from '../collector/journal/format.js';
import type { AttemptRecord } from '../collector/records.js';
import { resolveModel } from '../sidecar/files.js';
import type { ReconcileModel } from '../model/types.js';
import { World } from '../simulator/world.js';

export const HYPERSHIFT: ReconcileModel = resolveModel('hypershift-hostedcluster');

/** A day of a 40-cluster fleet, half on each loop: about 40k attempts. */
export function fleetDay(seed = 42, objects = 40): AttemptRecord[] {
  return [...new World({ model: HYPERSHIFT, objects, durationMs: 24 * 3600_000, seed, observe: 'mixed' }).attempts()];
}

export function journalLines(records: readonly AttemptRecord[]): string[] {
  return records.map(formatAttemptLine);
}
