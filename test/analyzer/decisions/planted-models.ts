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
 *
 * The HostedCluster fleet of the verdict's acceptance (`hostedClusterFleet`): the built-in model at realistic sizes
 * (200 objects over 7 days by default), with the outages above plus a long-failing status step the phased loop runs
 * before critical work the sequential loop did earlier, a base rate on the op a regression is planted on, and,
 * optionally, flakier objects and lost lines. Like the plants, every op it names is picked from the model's shape.
 * Nothing here reads analyzer/ or simulator/: the orders are computed from the model itself.
 */
import { parseModel } from '../../../model/load.js';
import { resolveModel } from '../../../sidecar/files.js';
import type { GroupStep, ReconcileModel } from '../../../model/types.js';
import type { Loss, Outage, Plant, PlantedWorldOptions, Population } from './planted-world.js';

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

/** Each loop's order of the ops both run, and the groups, computed from the model as the loops run them. */
interface Orders {
  readonly sequential: ReadonlyMap<string, number>;
  readonly phased: ReadonlyMap<string, number>;
  /** The group of each op in a group (fail-fast steps have none). */
  readonly groupOf: ReadonlyMap<string, GroupStep>;
  /** Pairs [first, then]: the sequential loop runs `first` before `then`, the phased loop `then` before `first`. */
  readonly inverted: readonly (readonly [string, string])[];
}

function ordersOf(model: ReconcileModel): Orders {
  const sequential = new Map(model.operations.filter((o) => o.only !== 'phased').map((o, i) => [o.name, i]));
  const phasedOps = model.phased.flatMap((step) => (step.kind === 'op' ? [step.op] : step.ops));
  const phased = new Map(phasedOps.map((op, i) => [op, i]));
  const groupOf = new Map(model.phased.flatMap((step) => (step.kind === 'group' ? step.ops.map((op) => [op, step] as const) : [])));
  const both = [...sequential.keys()].filter((op) => phased.has(op));
  const inverted = both.flatMap((a) =>
    both.filter((b) => sequential.get(a)! < sequential.get(b)! && phased.get(a)! > phased.get(b)!).map((b) => [a, b] as const),
  );
  return { sequential, phased, groupOf, inverted };
}

/**
 * A reversed prerequisite from the model: a pair the phased loop runs in the opposite order, whose op (the one it
 * now runs first) is in a non-critical, non-blockable group, so its failures end nothing; the prerequisite is the op
 * the sequential loop ran first.
 */
export function hostedClusterReversed(model: ReconcileModel): Plant & { kind: 'reversed-prerequisite' } {
  const orders = ordersOf(model);
  const candidates = orders.inverted.filter(([, then]) => orders.groupOf.get(then)?.category === 'nonCritical');
  const [prerequisite, op] = candidates[0]!;
  return { kind: 'reversed-prerequisite', op, prerequisite, probability: 0.6 };
}

/**
 * A misclassified group from the model: the first non-critical, non-blockable group with an outage, whose downstream
 * op is the first op of the next non-blockable group that the sequential loop runs after it.
 */
export function hostedClusterMisclassified(model: ReconcileModel): Plant & { kind: 'misclassified' } {
  const orders = ordersOf(model);
  const outaged = new Set(hostedClusterOutages(model).map((o) => o.op));
  const groups = model.phased.filter((s) => s.kind === 'group');
  for (const [index, g] of groups.entries()) {
    if (g.category !== 'nonCritical' || g.blockable || !g.ops.some((op) => outaged.has(op))) continue;
    const last = Math.max(...g.ops.map((op) => orders.sequential.get(op)!));
    const later = groups.find((h, i) => i > index && !h.blockable && orders.sequential.get(h.ops[0]!)! > last);
    if (later) return { kind: 'misclassified', group: g.group, downstream: [later.ops[0]!], probability: 0.8 };
  }
  throw new Error(`model ${model.name}: no non-critical group to plant a misclassification on`);
}

/** The base failure rate of the op a regression is planted on (the acceptance criteria: an op failing 0.5 % of the time). */
export const REGRESSION_BASE_RATE = 0.005;

/**
 * The op a phased-only regression is planted on: the op of the first non-critical, non-blockable group of one op
 * without an outage. Both loops reach it on every attempt that gets past the fail-fast steps and the critical
 * groups before it, and its failure ends only the sequential loop's attempt, so both loops run it often.
 */
export function hostedClusterRegressionOp(model: ReconcileModel): string {
  const outaged = new Set(hostedClusterOutages(model).map((o) => o.op));
  const group = model.phased.find((s) => s.kind === 'group' && s.category === 'nonCritical' && !s.blockable && s.ops.length === 1 && !outaged.has(s.ops[0]!));
  if (group?.kind !== 'group') throw new Error(`model ${model.name}: no non-critical group to plant a regression on`);
  return group.ops[0]!;
}

/** The regression plant: `factor` times the base rate on the phased loop's objects (1: the null world's twin). */
export function hostedClusterRegression(model: ReconcileModel, factor: number): Plant & { kind: 'phased-regression' } {
  return { kind: 'phased-regression', op: hostedClusterRegressionOp(model), baseRate: REGRESSION_BASE_RATE, factor };
}

/**
 * A status step that fails for long stretches (a condition waiting on the hosted control plane, say): the middle
 * one of the fail-fast steps that the phased loop runs before a critical group's op that the sequential loop runs
 * before them. While it fails, the phased loop never reaches that op and the sequential loop does: work moved behind
 * it, which is harm only when the loop then withholds work with an effect.
 */
export function hostedClusterStatusOutage(model: ReconcileModel): Outage {
  const orders = ordersOf(model);
  const steps = [
    ...new Set(
      orders.inverted.filter(([first, then]) => !orders.groupOf.has(then) && orders.groupOf.get(first)?.category === 'critical').map(([, then]) => then),
    ),
  ];
  steps.sort((x, y) => orders.phased.get(x)! - orders.phased.get(y)!);
  const op = steps[Math.floor(steps.length / 2)];
  if (op === undefined) throw new Error(`model ${model.name}: no fail-fast step runs before a critical group in the phased loop only`);
  return { op, perHour: 0.05, meanMinutes: 60 };
}

export interface FleetOptions {
  readonly objects?: number;
  readonly days?: number;
  readonly population?: Population;
  readonly loss?: Loss;
}

/** The acceptance fleet: the built-in model, 200 objects over 7 days unless told, half on each loop. */
export function hostedClusterFleet(seed: number, plant: Plant, options: FleetOptions = {}): PlantedWorldOptions {
  const model = HOSTED_CLUSTER;
  return {
    model,
    objects: options.objects ?? 200,
    durationMs: (options.days ?? 7) * 86_400_000,
    seed,
    plant,
    flakeRate: 0.0005,
    outages: [...hostedClusterOutages(model), hostedClusterStatusOutage(model)],
    ...(options.population ? { population: options.population } : {}),
    ...(options.loss ? { loss: options.loss } : {}),
  };
}

/** The flakiest fifth of the fleet (five times the flake rate and outages), all on the phased loop. */
export const FLAKY_ON_PHASED: Population = { share: 0.2, factor: 5, onPhased: true };
/** 30 % of the phased loop's lines lost at random. */
export const PHASED_LINES_LOST: Loss = { loop: 'phased', share: 0.3, errorsOnly: false };
/** 30 % of the phased loop's lines that carry an error lost. */
export const PHASED_ERROR_LINES_LOST: Loss = { loop: 'phased', share: 0.3, errorsOnly: true };
