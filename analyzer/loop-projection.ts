/**
 * An attempt's projection: both loops' runs and what differs between them. The loops read an outcome only to know
 * whether it is an error (with its variant) or a stop (ok and skip do the same), so the projection is a function of
 * the attempt's failing ops alone, and a fleet has few distinct sets of them (bench/README.md has the counts of the
 * simulated fleets): each is projected once and its projection shared, never written to, by every attempt with the
 * same failures. Running both loops and comparing them afresh cost each attempt more than the rest of the engine.
 */
import { ERROR, STOP, type CompiledModel } from './compiled-model.js';
import { runPhased, runSequential, type LoopRun } from './loops.js';

export interface LoopProjection {
  readonly sequential: LoopRun;
  readonly phased: LoopRun;
  /** Ops the phased loop runs and the sequential loop does not (one-loop ops left out); sorted by name. */
  readonly unblocked: readonly number[];
  /** Ops the sequential loop runs and the phased loop does not (one-loop ops left out); sorted by name. */
  readonly newlyBlocked: readonly number[];
  /**
   * Ops that exist in one loop only (`only:`) and that loop ran: a difference of the models' structure, not of
   * this attempt's outcomes, so never counted as unblocked, newly blocked or diverged. Sorted by name.
   */
  readonly structural: readonly number[];
  /** Unblocked or newly blocked is non-empty. */
  readonly diverged: boolean;
  /** Indices into `CompiledModel.invertedPairs` of pairs both loops ran, in a different relative order. */
  readonly reordered: readonly number[];
}

/** Distinct failure sets kept per model at most; past it the table starts afresh (results never depend on it). */
const MAX_PROJECTIONS = 4096;

interface Entry {
  /** The failing ops, encoded as in ProjectionTable.failures. */
  readonly failures: Int32Array;
  readonly projection: LoopProjection;
}

/** One model's projections by their failing ops, and the scratch an attempt's failures are collected in. */
class ProjectionTable {
  private byHash = new Map<number, Entry[]>();
  private size = 0;
  /** The attempt's failing ops in op order, each as (op * 4 + outcome code) * variantStride + variant. */
  private readonly failures: Int32Array;
  private failureCount = 0;

  constructor(private readonly cm: CompiledModel) {
    this.failures = new Int32Array(cm.ops.length);
  }

  project(outcomes: Uint8Array, variants: Readonly<Uint8Array>): LoopProjection {
    const stride = this.cm.variantStride;
    let count = 0;
    let hash = 0x811c9dc5;
    for (let op = 0; op < outcomes.length; op++) {
      const code = outcomes[op]!;
      if (code !== ERROR && code !== STOP) continue;
      const failure = (op * 4 + code) * stride + variants[op]!;
      this.failures[count++] = failure;
      hash = Math.imul(hash ^ failure, 0x01000193);
    }
    this.failureCount = count;
    const bucket = this.byHash.get(hash);
    if (bucket) for (const entry of bucket) if (this.sameFailures(entry.failures)) return entry.projection;
    return this.add(hash, project(this.cm, outcomes, variants));
  }

  private sameFailures(failures: Int32Array): boolean {
    if (failures.length !== this.failureCount) return false;
    for (let i = 0; i < failures.length; i++) if (failures[i] !== this.failures[i]) return false;
    return true;
  }

  private add(hash: number, projection: LoopProjection): LoopProjection {
    if (this.size === MAX_PROJECTIONS) {
      this.byHash = new Map();
      this.size = 0;
    }
    const entry = { failures: this.failures.slice(0, this.failureCount), projection };
    const bucket = this.byHash.get(hash);
    if (bucket) bucket.push(entry);
    else this.byHash.set(hash, [entry]);
    this.size++;
    return projection;
  }
}

const tables = new WeakMap<CompiledModel, ProjectionTable>();

/** Both loops run on these outcomes and variants, and compared; shared with every attempt that fails alike. */
export function loopProjectionOf(cm: CompiledModel, outcomes: Uint8Array, variants: Readonly<Uint8Array>): LoopProjection {
  let table = tables.get(cm);
  if (!table) tables.set(cm, (table = new ProjectionTable(cm)));
  return table.project(outcomes, variants);
}

function project(cm: CompiledModel, outcomes: Uint8Array, variants: Readonly<Uint8Array>): LoopProjection {
  const sequential = runSequential(cm, outcomes, variants);
  const phased = runPhased(cm, outcomes, variants);
  const unblocked: number[] = [];
  const newlyBlocked: number[] = [];
  const structural: number[] = [];
  for (const op of cm.byName) {
    if (phased.ran[op] === sequential.ran[op]) continue;
    if (cm.oneLoopOnly[op] === 1) structural.push(op);
    else if (phased.ran[op] === 1) unblocked.push(op);
    else newlyBlocked.push(op);
  }
  const reordered: number[] = [];
  cm.invertedPairs.forEach(([a, b], i) => {
    if (sequential.ran[a] === 1 && sequential.ran[b] === 1 && phased.ran[a] === 1 && phased.ran[b] === 1) reordered.push(i);
  });
  return Object.freeze({
    sequential,
    phased,
    unblocked: Object.freeze(unblocked),
    newlyBlocked: Object.freeze(newlyBlocked),
    structural: Object.freeze(structural),
    diverged: unblocked.length > 0 || newlyBlocked.length > 0,
    reordered: Object.freeze(reordered),
  });
}
