/**
 * A ReconcileModel turned into index arrays once, so replaying an attempt through both loops touches
 * only small typed arrays (the engine runs once per attempt, millions of times in a replay).
 */
import type { GroupCategory, GroupMode, Outcome, ReconcileModel } from '../model/types.js';

export const OK = 0;
export const ERROR = 1;
export const STOP = 2;
export const SKIP = 3;
/** No outcome known (not observed, no history). */
export const UNKNOWN = 255;
export type OutcomeCode = typeof OK | typeof ERROR | typeof STOP | typeof SKIP;

export const OUTCOME_CODE: Readonly<Record<Outcome, OutcomeCode>> = { ok: OK, error: ERROR, stop: STOP, skip: SKIP };
export const OUTCOME_NAME: readonly Outcome[] = ['ok', 'error', 'stop', 'skip'];

export interface CompiledOp {
  readonly kind: 'op';
  readonly op: number;
}

export interface CompiledGroup {
  readonly kind: 'group';
  readonly index: number;
  readonly name: string;
  readonly category: GroupCategory;
  readonly blockable: boolean;
  readonly mode: GroupMode;
  readonly ops: readonly number[];
}

export type CompiledStep = CompiledOp | CompiledGroup;

export interface CompiledModel {
  readonly model: ReconcileModel;
  /** Operation names; an operation's index is its position in `spec.operations`. */
  readonly ops: readonly string[];
  readonly opIndex: ReadonlyMap<string, number>;
  /** Op indices in the order the sequential loop runs them (`only: phased` ops left out). */
  readonly sequentialOrder: readonly number[];
  readonly phasedSteps: readonly CompiledStep[];
  readonly groups: readonly CompiledGroup[];
  /** Per op: the group it belongs to in the phased loop, or -1 for a fail-fast step or a sequential-only op. */
  readonly groupOf: Int16Array;
  /** Per op: position in each loop's order, or -1 when that loop never runs it. */
  readonly sequentialPosition: Int16Array;
  readonly phasedPosition: Int16Array;
  /** Per op: 1 when it exists in one loop only (`only:`). */
  readonly oneLoopOnly: Uint8Array;
  /** Op indices sorted by name, so per-attempt output is sorted without sorting. */
  readonly byName: readonly number[];
  /** Pairs [a, b] that the sequential loop runs a-then-b and the phased loop b-then-a. */
  readonly invertedPairs: readonly (readonly [number, number])[];
}

export function compileModel(model: ReconcileModel): CompiledModel {
  const ops = model.operations.map((o) => o.name);
  const opIndex = new Map(ops.map((name, i) => [name, i]));
  const indexOf = (name: string): number => {
    const i = opIndex.get(name);
    if (i === undefined) throw new Error(`model ${model.name}: unknown operation ${name}`);
    return i;
  };
  const sequentialOrder = model.operations.flatMap((o, i) => (o.only === 'phased' ? [] : [i]));
  const groups: CompiledGroup[] = [];
  const phasedSteps: CompiledStep[] = model.phased.map((step) => {
    if (step.kind === 'op') return { kind: 'op', op: indexOf(step.op) };
    const group: CompiledGroup = {
      kind: 'group',
      index: groups.length,
      name: step.group,
      category: step.category,
      blockable: step.blockable,
      mode: step.mode,
      ops: step.ops.map(indexOf),
    };
    groups.push(group);
    return group;
  });

  const n = ops.length;
  const groupOf = new Int16Array(n).fill(-1);
  const sequentialPosition = new Int16Array(n).fill(-1);
  const phasedPosition = new Int16Array(n).fill(-1);
  sequentialOrder.forEach((op, pos) => (sequentialPosition[op] = pos));
  let pos = 0;
  for (const step of phasedSteps) {
    if (step.kind === 'op') phasedPosition[step.op] = pos++;
    else
      for (const op of step.ops) {
        groupOf[op] = step.index;
        phasedPosition[op] = pos++;
      }
  }

  const invertedPairs: [number, number][] = [];
  for (const a of sequentialOrder) {
    for (const b of sequentialOrder) {
      const pa = phasedPosition[a]!;
      const pb = phasedPosition[b]!;
      if (sequentialPosition[a]! < sequentialPosition[b]! && pa >= 0 && pb >= 0 && pa > pb) invertedPairs.push([a, b]);
    }
  }

  const byName = ops.map((_, i) => i).sort((x, y) => (ops[x]! < ops[y]! ? -1 : ops[x]! > ops[y]! ? 1 : 0));
  const oneLoopOnly = Uint8Array.from(model.operations, (o) => (o.only === undefined ? 0 : 1));
  return { model, ops, opIndex, sequentialOrder, phasedSteps, groups, groupOf, sequentialPosition, phasedPosition, oneLoopOnly, byName, invertedPairs };
}
