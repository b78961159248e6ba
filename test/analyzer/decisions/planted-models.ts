/**
 * The models and fleets of the planted worlds (planted-world.ts): a small model of our own, where counts can be
 * reasoned about, and the built-in HostedCluster model, where the tests assert verdicts and flagged sets only (its
 * details follow upstream). Plants on the built-in model are chosen from the model itself, not by name, so they
 * follow it as it changes.
 *
 * The small model (sequential order as listed; phased groups below):
 *
 *   sequential: Fetch, Validate, Namespace, Secret, Deploy, Config, Expose, Report
 *   phased:     Fetch, Validate, [Core (critical): Namespace, Deploy], [Reporting: Report], [Secrets: Secret],
 *               [Settings: Config], [Exposure (blockable): Expose]
 *
 * The phased loop moves Report from last to just after Core, and Deploy before Secret and Config.
 */
import { parseModel } from '../../../model/load.js';
import { resolveModel } from '../../../sidecar/files.js';
import type { ReconcileModel } from '../../../model/types.js';
import { compileModel } from '../../../analyzer/compiled-model.js';
import type { Outage, Plant, PlantedWorldOptions } from './planted-world.js';

export const SMALL = parseModel(`
apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: planted-small}
spec:
  controller: gadget
  operations: [{name: Fetch}, {name: Validate}, {name: Namespace}, {name: Secret}, {name: Deploy}, {name: Config}, {name: Expose}, {name: Report}]
  phased:
    - op: Fetch
    - op: Validate
    - {group: Core, category: critical, ops: [Namespace, Deploy]}
    - {group: Reporting, category: nonCritical, ops: [Report]}
    - {group: Secrets, category: nonCritical, ops: [Secret]}
    - {group: Settings, category: nonCritical, ops: [Config]}
    - {group: Exposure, category: nonCritical, blockable: true, ops: [Expose]}
`);

const SMALL_OUTAGES: readonly Outage[] = [
  { op: 'Fetch', perHour: 0.02, meanMinutes: 5 },
  { op: 'Namespace', perHour: 0.03, meanMinutes: 10 },
  { op: 'Secret', perHour: 0.12, meanMinutes: 10 },
  { op: 'Config', perHour: 0.06, meanMinutes: 10 },
  { op: 'Expose', perHour: 0.04, meanMinutes: 10 },
  { op: 'Report', perHour: 0.04, meanMinutes: 5 },
];

/** A day and a bit of 24 objects, 12 on each loop: enough for every default threshold, about 6k attempts. */
export function smallWorld(seed: number, plant: Plant): PlantedWorldOptions {
  return { model: SMALL, objects: 24, durationMs: 26 * 3_600_000, seed, plant, flakeRate: 0.002, outages: SMALL_OUTAGES };
}

/** Report needs Config to have run first: only the phased loop runs it before. */
export const SMALL_REVERSED: Plant = { kind: 'reversed-prerequisite', op: 'Report', prerequisite: 'Config', probability: 0.6 };
/** Secrets is non-critical, but Config fails when it failed. */
export const SMALL_MISCLASSIFIED: Plant = { kind: 'misclassified', group: 'Secrets', downstream: ['Config'], probability: 0.8 };

export const HOSTED_CLUSTER: ReconcileModel = resolveModel('hypershift-hostedcluster');

/**
 * Outages on a few ops of each kind of place, none planted to affect another: a fail-fast step, ops of critical
 * groups, of non-critical groups and of a blockable group, picked from the model by position, so a change to the
 * model moves them rather than breaking the world.
 */
function hostedClusterOutages(model: ReconcileModel): Outage[] {
  const inBothLoops = new Set(model.operations.filter((o) => o.only === undefined).map((o) => o.name));
  const groups = model.phased.filter((s) => s.kind === 'group').filter((g) => g.ops.every((op) => inBothLoops.has(op)));
  // The two largest critical groups (their first op), four non-critical groups and a blockable one.
  const critical = groups.filter((g) => g.category === 'critical').sort((x, y) => y.ops.length - x.ops.length);
  const nonCritical = groups.filter((g) => g.category === 'nonCritical' && !g.blockable);
  const blockable = groups.filter((g) => g.blockable);
  const firstFailFast = model.phased.find((s) => s.kind === 'op')!;
  return [
    { op: firstFailFast.op, perHour: 0.01, meanMinutes: 5 },
    ...critical.slice(0, 2).map((g) => ({ op: g.ops[0]!, perHour: 0.05, meanMinutes: 8 })),
    ...nonCritical.slice(0, 4).map((g) => ({ op: g.ops[0]!, perHour: 0.25, meanMinutes: 8 })),
    { op: blockable[0]!.ops[0]!, perHour: 0.1, meanMinutes: 8 },
  ];
}

export function hostedClusterWorld(seed: number, plant: Plant): PlantedWorldOptions {
  return { model: HOSTED_CLUSTER, objects: 20, durationMs: 25 * 3_600_000, seed, plant, flakeRate: 0.0005, outages: hostedClusterOutages(HOSTED_CLUSTER) };
}

/**
 * A reversed prerequisite from the model: a pair the phased loop runs in the opposite order, whose op (the one it
 * now runs first) is in a non-critical, non-blockable group, so its failures end nothing; the prerequisite is the op
 * the sequential loop ran first.
 */
export function hostedClusterReversed(model: ReconcileModel): Plant & { kind: 'reversed-prerequisite' } {
  const cm = compileModel(model);
  const candidates = cm.invertedPairs.filter(([, then]) => {
    const g = cm.groups[cm.groupOf[then]!];
    return g !== undefined && g.category === 'nonCritical';
  });
  const [prerequisite, op] = candidates[0]!;
  return { kind: 'reversed-prerequisite', op: cm.ops[op]!, prerequisite: cm.ops[prerequisite]!, probability: 0.6 };
}

/**
 * A misclassified group from the model: the first non-critical, non-blockable group with an outage, whose downstream
 * op is the first op of the next non-blockable group that the sequential loop runs after it.
 */
export function hostedClusterMisclassified(model: ReconcileModel): Plant & { kind: 'misclassified' } {
  const cm = compileModel(model);
  const outaged = new Set(hostedClusterOutages(model).map((o) => o.op));
  for (const g of cm.groups) {
    if (g.category !== 'nonCritical' || g.blockable || !g.ops.some((op) => outaged.has(cm.ops[op]!))) continue;
    const last = Math.max(...g.ops.map((op) => cm.sequentialPosition[op]!));
    const later = cm.groups.find((h) => h.index > g.index && !h.blockable && cm.sequentialPosition[h.ops[0]!]! > last);
    if (later) return { kind: 'misclassified', group: g.name, downstream: [cm.ops[later.ops[0]!]!], probability: 0.8 };
  }
  throw new Error(`model ${model.name}: no non-critical group to plant a misclassification on`);
}
