/**
 * Planted worlds: a generator of journals with a known truth, written for the decision tests and independent of the
 * simulator (its fault model, its scheduling) and of the engine (it runs both loops itself, from the model's
 * description and model/effects.ts, and never calls analyzer/). A fleet is split in two halves by a seeded shuffle,
 * one on each loop, and each object is reconciled as controller-runtime would: after an error with a backoff of 1 s
 * doubling up to a cap, when healthy at exponentially spread intervals. Times are whole milliseconds, as a journal's.
 *
 * Every op of every object fails on its own: a one-off error with `flakeRate` per run, and outages (an onset rate
 * per object-hour, an exponential duration) on the ops listed. Faults are independent across ops, so a world
 * without a plant has no dependence between ops and no difference between the loops. A plant adds one truth:
 * - `reversed-prerequisite`: `op` fails with `probability` whenever it runs before `prerequisite` has run in the
 *   same attempt; only a loop that orders `op` first (the phased loop, for a reordered pair) ever does;
 * - `misclassified`: each op of `downstream` fails with `probability` when an op of the non-critical `group` failed
 *   earlier in the same attempt; only a loop that goes on after that failure (the phased loop) shows it;
 * - `phased-regression`: `op` fails one-off with `baseRate` on the sequential loop's objects and `factor` times that
 *   on the phased loop's (instead of `flakeRate`): a regression that only the phased loop's objects have. With
 *   `factor` 1 it is the null world's twin with the same base rate.
 * Two more truths are about the data rather than the loop:
 * - `population`: a share of the objects is flakier (their flake rate and outage onsets times `factor`); spread by
 *   the shuffle like every object, or, with `onPhased`, all put on the phased loop (a population imbalance: ops that
 *   run identically in both loops then differ, and none of it is the loop's doing);
 * - `loss`: lines of one loop's attempts lost between the operator and the journal, at random (`share` of them) or
 *   only those that carry an error (`share` of those). Decided from a stream of its own, so the world behind the
 *   lines is the same as without the loss.
 */
import type { AttemptRecord, OperationRecord } from '../../../collector/records.js';
import { errorEffect, phasedPlaces } from '../../../model/effects.js';
import type { LoopKind, ModelOperation, ReconcileModel } from '../../../model/types.js';

export interface Outage {
  readonly op: string;
  readonly perHour: number;
  readonly meanMinutes: number;
}

export type Plant =
  | { readonly kind: 'none' }
  | { readonly kind: 'reversed-prerequisite'; readonly op: string; readonly prerequisite: string; readonly probability: number }
  | { readonly kind: 'misclassified'; readonly group: string; readonly downstream: readonly string[]; readonly probability: number }
  | { readonly kind: 'phased-regression'; readonly op: string; readonly baseRate: number; readonly factor: number };

/** Flakier objects: `share` of the fleet, `factor` times the flake rate and outage onsets; `onPhased` puts them all on the phased loop. */
export interface Population {
  readonly share: number;
  readonly factor: number;
  readonly onPhased: boolean;
}

/** Lines of `loop`'s attempts lost before the journal: `share` of all of them, or of those that carry an error. */
export interface Loss {
  readonly loop: LoopKind;
  readonly share: number;
  readonly errorsOnly: boolean;
}

export interface PlantedWorldOptions {
  readonly model: ReconcileModel;
  /** Objects; the first half of a seeded shuffle runs the sequential loop, the rest the phased loop. */
  readonly objects: number;
  readonly durationMs: number;
  readonly seed: number;
  readonly plant: Plant;
  readonly flakeRate: number;
  readonly outages: readonly Outage[];
  readonly startMs?: number;
  /** Mean interval between a healthy object's reconciles. */
  readonly healthyMeanMs?: number;
  /** Cap of the error backoff (1 s, doubling). */
  readonly backoffCapMs?: number;
  readonly specChangesPerDay?: number;
  readonly population?: Population;
  readonly loss?: Loss;
}

export const PLANTED_START_MS = Date.parse('2026-12-01T00:00:00Z');
const BACKOFF_MIN_MS = 1000;

/** Marsaglia's xorshift32, seeded through an integer hash so that nearby seeds give unrelated streams. */
export class Xorshift {
  private state: number;

  constructor(seed: number) {
    let h = (seed ^ 0x9e3779b9) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    this.state = (h ^ (h >>> 16)) >>> 0 || 1;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 4294967296;
  }

  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }
}

interface Fleet {
  readonly name: string;
  readonly loop: LoopKind;
  /** Multiplies the flake rate and the outage onsets (1, or the population's factor). */
  readonly flakiness: number;
  generation: number;
  consecutiveFailures: number;
  nextMs: number;
  /** Per outage: next onset time and end of the current episode. */
  readonly nextOnsetMs: Float64Array;
  readonly activeUntilMs: Float64Array;
}

/** The step sequence of one loop: ops, each with its group (phased) and what its error does. */
interface Step {
  readonly op: ModelOperation;
  readonly group: { readonly name: string; readonly critical: boolean; readonly blockable: boolean; readonly skipWhenBlocked: boolean } | null;
  readonly onError: 'end' | 'endGroup' | 'continue';
}

function stepsOf(model: ReconcileModel, loop: LoopKind): Step[] {
  const places = phasedPlaces(model);
  const byName = new Map(model.operations.map((o) => [o.name, o]));
  if (loop === 'sequential') {
    return model.operations.filter((o) => o.only !== 'phased').map((op) => ({ op, group: null, onError: errorEffect(op, 'sequential', places.get(op.name)!) }));
  }
  return model.phased.flatMap((step): Step[] => {
    if (step.kind === 'op') {
      const op = byName.get(step.op)!;
      return [{ op, group: null, onError: errorEffect(op, 'phased', places.get(op.name)!) }];
    }
    const group = { name: step.group, critical: step.category === 'critical', blockable: step.blockable, skipWhenBlocked: step.skipWhenBlocked };
    return step.ops.map((name) => {
      const op = byName.get(name)!;
      return { op, group, onError: errorEffect(op, 'phased', places.get(name)!) };
    });
  });
}

export function* plantedWorld(o: PlantedWorldOptions): Generator<AttemptRecord> {
  const random = new Xorshift(o.seed);
  const start = o.startMs ?? PLANTED_START_MS;
  const end = start + o.durationMs;
  const healthyMean = o.healthyMeanMs ?? 600_000;
  const cap = o.backoffCapMs ?? 300_000;
  const specChangeMs = (o.specChangesPerDay ?? 1) > 0 ? 86_400_000 / (o.specChangesPerDay ?? 1) : Infinity;
  const steps = { sequential: stepsOf(o.model, 'sequential'), phased: stepsOf(o.model, 'phased') };
  const outageOf = new Map<string, number[]>();
  o.outages.forEach((outage, i) => outageOf.set(outage.op, [...(outageOf.get(outage.op) ?? []), i]));

  const order = Array.from({ length: o.objects }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const population = o.population;
  // The flaky objects are the last of the shuffle (a random set); with onPhased they move to its end, the phased half.
  const flaky = new Set(population ? order.slice(o.objects - Math.round(population.share * o.objects)) : []);
  if (population && !population.onPhased) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random.next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
  }
  const fleet: Fleet[] = order.map((index, rank) => {
    const flakiness = flaky.has(index) ? population!.factor : 1;
    return {
      name: `planted/obj-${String(index).padStart(3, '0')}`,
      loop: rank < o.objects / 2 ? 'sequential' : 'phased',
      flakiness,
      generation: 1,
      consecutiveFailures: 0,
      nextMs: Math.round(start + random.next() * healthyMean),
      nextOnsetMs: Float64Array.from(o.outages, (x) => start + random.exponential(3_600_000 / (x.perHour * flakiness))),
      activeUntilMs: new Float64Array(o.outages.length),
    };
  });
  const queue = new FleetQueue(fleet);
  const loss = o.loss;
  const lossRandom = new Xorshift(o.seed ^ 0x5bd1e995);

  for (;;) {
    const object = queue.peek();
    const now = object.nextMs;
    if (now >= end) return;
    o.outages.forEach((outage, i) => {
      while (object.nextOnsetMs[i]! <= now) {
        object.activeUntilMs[i] = Math.max(object.activeUntilMs[i]!, object.nextOnsetMs[i]! + random.exponential(outage.meanMinutes * 60_000));
        object.nextOnsetMs[i]! += random.exponential(3_600_000 / (outage.perHour * object.flakiness));
      }
    });
    const down = (op: string): boolean => (outageOf.get(op) ?? []).some((i) => object.activeUntilMs[i]! > now);
    const flake = (op: string): number => {
      if (o.plant.kind === 'phased-regression' && o.plant.op === op)
        return o.plant.baseRate * (object.loop === 'phased' ? o.plant.factor : 1) * object.flakiness;
      return o.flakeRate * object.flakiness;
    };
    const operations = runLoop(steps[object.loop], o.plant, flake, down, random);
    const failed = operations.some((r) => r.outcome === 'error');
    const lost = loss !== undefined && loss.loop === object.loop && (failed || !loss.errorsOnly) && lossRandom.next() < loss.share;
    if (!lost) {
      yield {
        time: new Date(now).toISOString(),
        timeMs: now,
        controller: o.model.controller,
        object: object.name,
        generation: object.generation,
        loop: object.loop,
        operations,
        origin: { source: 'journal' },
      };
    }
    object.consecutiveFailures = failed ? object.consecutiveFailures + 1 : 0;
    const delay = failed ? Math.min(cap, BACKOFF_MIN_MS * 2 ** (object.consecutiveFailures - 1)) : random.exponential(healthyMean);
    if (random.next() < 1 - Math.exp(-delay / specChangeMs)) object.generation++;
    object.nextMs = Math.round(now + delay);
    queue.updateTop();
  }
}

/**
 * The fleet ordered by next reconcile time (ties: the earlier object of the fleet), as a binary heap: the next
 * object in O(log n), so a fleet of hundreds generates as fast as one of twenty.
 */
class FleetQueue {
  private readonly heap: number[];

  constructor(private readonly fleet: readonly Fleet[]) {
    this.heap = fleet.map((_, i) => i);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  peek(): Fleet {
    return this.fleet[this.heap[0]!]!;
  }

  /** The first object's time moved on: restore the order. */
  updateTop(): void {
    this.down(0);
  }

  private before(a: number, b: number): boolean {
    const x = this.fleet[a]!.nextMs;
    const y = this.fleet[b]!.nextMs;
    return x < y || (x === y && a < b);
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/** One attempt through one loop's steps: what ran, in order, with its outcome. */
function runLoop(steps: readonly Step[], plant: Plant, flake: (op: string) => number, down: (op: string) => boolean, random: Xorshift): OperationRecord[] {
  const ran = new Set<string>();
  const failedGroups = new Set<string>();
  const records: OperationRecord[] = [];
  let criticalFailed = false;
  let endedGroup: string | null = null;
  let previousGroup: string | null = null;
  for (const step of steps) {
    const group = step.group;
    if (group?.name !== previousGroup) {
      // Entering a new group (or a fail-fast step): the previous group's failure counts from here on.
      if (previousGroup !== null && failedGroups.has(previousGroup) && criticalGroup(steps, previousGroup)) criticalFailed = true;
      previousGroup = group?.name ?? null;
      endedGroup = null;
    }
    if (group && criticalFailed && group.blockable) continue;
    if (group && criticalFailed && group.skipWhenBlocked) {
      records.push({ name: step.op.name, outcome: 'skip' });
      continue;
    }
    if (group && endedGroup === group.name) continue;
    const error = fails(step.op.name, plant, flake, down, ran, failedGroups, random);
    ran.add(step.op.name);
    records.push(error ? { name: step.op.name, outcome: 'error', error: `${step.op.name}: ${error}` } : { name: step.op.name, outcome: 'ok' });
    if (!error) continue;
    if (group) failedGroups.add(group.name);
    if (step.onError === 'end') break;
    if (step.onError === 'endGroup' && group) endedGroup = group.name;
  }
  return records;
}

function criticalGroup(steps: readonly Step[], name: string): boolean {
  return steps.some((s) => s.group?.name === name && s.group.critical);
}

/** Why `op` fails in this run, or null when it succeeds. */
function fails(
  op: string,
  plant: Plant,
  flake: (op: string) => number,
  down: (op: string) => boolean,
  ran: ReadonlySet<string>,
  failedGroups: ReadonlySet<string>,
  random: Xorshift,
): string | null {
  if (down(op)) return 'outage';
  if (random.next() < flake(op)) return 'the object has been modified; please apply your changes to the latest version and try again';
  if (plant.kind === 'reversed-prerequisite' && plant.op === op && !ran.has(plant.prerequisite) && random.next() < plant.probability)
    return `${plant.prerequisite} has not run yet`;
  if (plant.kind === 'misclassified' && plant.downstream.includes(op) && failedGroups.has(plant.group) && random.next() < plant.probability)
    return `${plant.group} failed`;
  return null;
}
