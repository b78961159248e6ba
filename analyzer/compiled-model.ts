/**
 * A ReconcileModel turned into index arrays once, so replaying an attempt through both loops touches
 * only small typed arrays (the engine runs once per attempt, millions of times in a replay).
 * Effects and consequences are compiled from model/effects.ts, the one statement of those rules.
 */
import { consequencesOf, errorEffect, isVariant, phasedPlaces, variantPatterns } from '../model/effects.js';
import type { ErrorEffect, ErrorFormat, GroupCategory, GroupMode, LoopKind, Outcome, ReconcileModel } from '../model/types.js';

export const OK = 0;
export const ERROR = 1;
export const STOP = 2;
export const SKIP = 3;
/** No outcome known (not observed, no history). */
export const UNKNOWN = 255;
export type OutcomeCode = typeof OK | typeof ERROR | typeof STOP | typeof SKIP;

export const OUTCOME_CODE: Readonly<Record<Outcome, OutcomeCode>> = { ok: OK, error: ERROR, stop: STOP, skip: SKIP };
export const OUTCOME_NAME: readonly Outcome[] = ['ok', 'error', 'stop', 'skip'];

/** What an error does to the loop running it (see model/types.ts ErrorEffect). */
export const END = 0;
export const END_GROUP = 1;
export const CONTINUE = 2;
const EFFECT_CODE: Readonly<Record<ErrorEffect, number>> = { end: END, endGroup: END_GROUP, continue: CONTINUE };
export const SEQUENTIAL = 0;
export const PHASED = 1;

/** An op's outcome derived from another's failure: the op, its outcome (ERROR or STOP) and the variant it carries. */
export interface CompiledConsequence {
  readonly op: number;
  readonly outcome: typeof ERROR | typeof STOP;
  readonly variant: number;
}

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
  /** After a critical failure the group runs but its ops do nothing (`skip`): it never fails nor is blocked. */
  readonly skipWhenBlocked: boolean;
  readonly ops: readonly number[];
}

export type CompiledStep = CompiledOp | CompiledGroup;

export interface CompiledModel {
  readonly model: ReconcileModel;
  /**
   * Operation names; an operation's index is its position in `spec.operations`. The strings are V8's internalized
   * copies, as JSON.parse returns short strings, so a freshly parsed name equal to one of them is the same string and
   * compares by identity (see opIndexAt).
   */
  readonly ops: readonly string[];
  readonly opIndex: ReadonlyMap<string, number>;
  /**
   * Per loop (SEQUENTIAL, PHASED), per position in an attempt's operations: the op index the last attempt of that loop
   * had there, or -1. Hints only, each checked against the name before use (see opIndexAt), so sharing them is safe.
   */
  readonly positionHints: readonly [Int16Array, Int16Array];
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
  /**
   * Variants of an op's error: 0 is the op's own rules, v >= 1 its v-th format with rules of its own (in model order).
   * `variantStride` is the most variants any op has; per-op tables below are indexed op * variantStride + variant.
   */
  readonly variantStride: number;
  /** Per loop (SEQUENTIAL, PHASED): the effect code (END, END_GROUP, CONTINUE) of an error of each op and variant. */
  readonly effects: readonly [Uint8Array, Uint8Array];
  /** Per op: the patterns an error text is matched against to know its variant, or undefined when it has none. */
  readonly variantPatterns: readonly (readonly { readonly pattern: RegExp; readonly variant: number }[] | undefined)[];
  /** Per op and variant: what fails as a consequence of its error, or undefined. */
  readonly consequences: readonly (readonly CompiledConsequence[] | undefined)[];
  /** Ops that have consequences, in phased order, so a consequence's own consequences are applied after it. */
  readonly causeOrder: readonly number[];
  /** Every op's variant 0: what an attempt without any variant reads (never written to). */
  readonly noVariants: Readonly<Uint8Array>;
  /** Per loop (SEQUENTIAL, PHASED), per op: the ops its recovery path runs when its error ends the attempt, or undefined. */
  readonly recovery: readonly [readonly (readonly number[] | undefined)[], readonly (readonly number[] | undefined)[]];
}

/**
 * The index of the op named `name`, listed at `position` in an attempt of `loop`, or undefined when the model has no
 * such op. Attempts of one loop list their ops in the same order, so the op the loop's last attempt had at that position
 * is tried first: an identity comparison of two internalized strings, where a map lookup would hash the name.
 */
export function opIndexAt(cm: CompiledModel, name: string, position: number, loop: typeof SEQUENTIAL | typeof PHASED): number | undefined {
  const hints = cm.positionHints[loop];
  const hint = position < hints.length ? hints[position]! : -1;
  if (hint >= 0 && cm.ops[hint] === name) return hint;
  const i = cm.opIndex.get(name);
  if (i !== undefined && position < hints.length) hints[position] = i;
  return i;
}

/**
 * The one internalized string equal to `text`: V8 internalizes property names, so a computed key hands it back. Names
 * of a model are turned into these once, when it is compiled.
 */
function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0] ?? text;
}

/** The variant an error text of `op` is: the first of its variant formats it matches, else 0 (most ops have none). */
export function variantOfText(cm: CompiledModel, op: number, text: string): number {
  const patterns = cm.variantPatterns[op];
  if (!patterns) return 0;
  for (const p of patterns) if (p.pattern.test(text)) return p.variant;
  return 0;
}

export function compileModel(model: ReconcileModel): CompiledModel {
  const ops = model.operations.map((o) => internalized(o.name));
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
      skipWhenBlocked: step.skipWhenBlocked,
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
  const positionHints: [Int16Array, Int16Array] = [new Int16Array(n).fill(-1), new Int16Array(n).fill(-1)];
  const recoveryIn = (loop: LoopKind): (number[] | undefined)[] => model.operations.map((o) => o.recovery?.[loop]?.map(indexOf));
  const recovery: CompiledModel['recovery'] = [recoveryIn('sequential'), recoveryIn('phased')];
  return {
    model,
    ops,
    opIndex,
    positionHints,
    recovery,
    sequentialOrder,
    phasedSteps,
    groups,
    groupOf,
    sequentialPosition,
    phasedPosition,
    oneLoopOnly,
    byName,
    invertedPairs,
    ...compileRules(model, opIndex, phasedPosition),
  };
}

/** Effects, variants and consequences as tables: the rules of model/effects.ts, looked up by index. */
function compileRules(
  model: ReconcileModel,
  opIndex: ReadonlyMap<string, number>,
  phasedPosition: Int16Array,
): Pick<CompiledModel, 'variantStride' | 'effects' | 'variantPatterns' | 'consequences' | 'causeOrder' | 'noVariants'> {
  const places = phasedPlaces(model);
  const variantsOf = model.operations.map((o) => o.errors.filter(isVariant));
  const stride = 1 + Math.max(0, ...variantsOf.map((v) => v.length));
  const n = model.operations.length;
  const effects: [Uint8Array, Uint8Array] = [new Uint8Array(n * stride), new Uint8Array(n * stride)];
  const consequences: (CompiledConsequence[] | undefined)[] = new Array<CompiledConsequence[] | undefined>(n * stride).fill(undefined);
  const variantOfFormat = (op: number, format: string): number => 1 + variantsOf[op]!.findIndex((f) => f.format === format);

  model.operations.forEach((op, i) => {
    const place = places.get(op.name)!;
    const formats: (ErrorFormat | undefined)[] = [undefined, ...variantsOf[i]!];
    formats.forEach((format, v) => {
      effects[SEQUENTIAL][i * stride + v] = EFFECT_CODE[errorEffect(op, 'sequential', place, format)];
      effects[PHASED][i * stride + v] = EFFECT_CODE[errorEffect(op, 'phased', place, format)];
      const caused = consequencesOf(op, format).map((c): CompiledConsequence => {
        const then = opIndex.get(c.op)!;
        return c.outcome === 'stop' ? { op: then, outcome: STOP, variant: 0 } : { op: then, outcome: ERROR, variant: variantOfFormat(then, c.error!) };
      });
      if (caused.length > 0) consequences[i * stride + v] = caused;
    });
  });
  const variantPatternsByOp = model.operations.map((op) => {
    const patterns = variantPatterns(op).map((p, k) => ({ pattern: p.pattern, variant: k + 1 }));
    return patterns.length > 0 ? patterns : undefined;
  });
  const causeOrder = model.operations
    .map((_, i) => i)
    .filter((i) => consequences.slice(i * stride, (i + 1) * stride).some((c) => c !== undefined))
    .sort((a, b) => phasedPosition[a]! - phasedPosition[b]!);
  return { variantStride: stride, effects, variantPatterns: variantPatternsByOp, consequences, causeOrder, noVariants: new Uint8Array(n) };
}
