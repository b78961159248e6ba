/**
 * The replay: for each observed attempt, replays it through both loops in dry-run and compares them.
 * An op's outcome is the observed one when this attempt observed it; otherwise it is predicted as the last
 * observed outcome of the same op on the same object earlier in the input, or `ok` when there is none. Then
 * consequences apply: an op that fails (observed or predicted) makes the ops it causes fail too, where this attempt
 * did not observe them. Predicted and derived outcomes are marked as such and never reported as confirmed.
 * An error also carries its variant (which of the op's rules apply, read from its text), kept with the outcome.
 * Pure: no I/O, no clock; the only state is the per-object outcome history (outcome-history.ts), one byte per op.
 */
import type { AttemptRecord } from '../collector/records.js';
import { zeroedBytes } from './arena.js';
import { ERROR, OK, opIndexAt, PHASED, SEQUENTIAL, SKIP, STOP, UNKNOWN, variantOfText, type CompiledModel, type OutcomeCode } from './compiled-model.js';
import type { OutcomeHistory } from './outcome-history.js';
import { loopProjectionOf, type LoopProjection } from './loop-projection.js';

/**
 * One attempt's analysis. Its projection (both loops' runs and what differs between them: loop-projection.ts) is shared by
 * every attempt that fails alike, so never written to.
 */
export interface AttemptAnalysis extends LoopProjection {
  readonly record: AttemptRecord;
  /** Per op: the outcome used in both loops (observed or predicted). */
  readonly outcomes: Uint8Array;
  /** Per op: 1 when the outcome was observed in this attempt, 0 when predicted or derived. */
  readonly observed: Uint8Array;
  /** Per op: the variant of its error's rules (0: the op's own; see CompiledModel.variantStride). Never written to. */
  readonly variants: Readonly<Uint8Array>;
  /** Ops whose outcome is a consequence of another op's failure in this attempt (not observed); by op index. */
  readonly derived: readonly number[];
  /** Observed ops the observed loop should not have reached given the model (the model or the record is off). */
  readonly inconsistent: readonly number[];
}

export { OutcomeHistory } from './outcome-history.js';

/**
 * The key of an object's state: its controller and its name. Joined, not concatenated: `+` and template literals make
 * a tree of string pieces (a rope) that a map keeps as it is, 120 bytes per key where the flat string is 48.
 */
export const objectKey = (record: Pick<AttemptRecord, 'controller' | 'object'>): string => [record.controller, record.object].join('\u0000');
/** The object of an objectKey of `controller`. */
export const objectOfKey = (controller: string, key: string): string => key.slice(controller.length + 1);

/**
 * OUTCOME_CODE[outcome] without the keyed lookup, which costs a string-table probe for every outcome string a
 * source freshly decoded. Records are validated, so the default never runs; it reads as OK, as the lookup's
 * undefined did once stored in the Uint8Array.
 */
function outcomeCode(outcome: string): OutcomeCode {
  switch (outcome) {
    case 'ok':
      return OK;
    case 'error':
      return ERROR;
    case 'stop':
      return STOP;
    case 'skip':
      return SKIP;
    default:
      return OK;
  }
}

/** `key` is the record's objectKey, passed in by a caller that needs it too. */
export function analyzeAttempt(cm: CompiledModel, record: AttemptRecord, history: OutcomeHistory, key = objectKey(record)): AttemptAnalysis {
  return analyzeInSlot(cm, record, history, history.slotOf(key));
}

/** analyzeAttempt for the object whose history is in `slot` (OutcomeHistory.slotOf). */
export function analyzeInSlot(cm: CompiledModel, record: AttemptRecord, history: OutcomeHistory, slot: number): AttemptAnalysis {
  const n = cm.ops.length;
  const outcomes = zeroedBytes(n);
  const observed = zeroedBytes(n);
  const variants = new AttemptVariants(n);
  const past = history.rows;
  const row = slot * n;
  for (let i = 0; i < n; i++) {
    const last = past[row + i]!;
    if (last === UNKNOWN) continue;
    outcomes[i] = last & 3;
    if (last > 3) variants.set(i, last >> 2);
  }
  const operations = record.operations;
  const loop = record.loop === 'sequential' ? SEQUENTIAL : PHASED;
  for (let k = 0; k < operations.length; k++) {
    const op = operations[k]!;
    const i = opIndexAt(cm, op.name, k, loop);
    if (i === undefined) continue; // sources reject unknown ops before the engine; nothing to replay here
    const code = outcomeCode(op.outcome);
    outcomes[i] = code;
    observed[i] = 1;
    variants.set(i, code === ERROR && op.error !== undefined ? variantOfText(cm, i, op.error) : 0);
  }
  const derived = applyConsequences(cm, outcomes, observed, variants);

  const variantsOf = variants.array ?? cm.noVariants;
  const { sequential, phased, unblocked, newlyBlocked, structural, diverged, reordered } = loopProjectionOf(cm, outcomes, variantsOf);
  const observedRan = loop === SEQUENTIAL ? sequential.ran : phased.ran;
  let inconsistent: number[] | undefined;
  for (let i = 0; i < n; i++) {
    if (observed[i] !== 1) continue;
    if (observedRan[i] === 0) (inconsistent ??= []).push(i);
    past[row + i] = outcomes[i]! | (variantsOf[i]! << 2);
  }
  return {
    record,
    outcomes,
    observed,
    variants: variantsOf,
    derived,
    sequential,
    phased,
    unblocked,
    newlyBlocked,
    structural,
    diverged,
    reordered,
    inconsistent: inconsistent ?? NONE,
  };
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * One attempt's variants. Most attempts carry none: they read the model's shared all-zero array, and an array of their
 * own is made on the first non-zero write.
 */
class AttemptVariants {
  private own: Uint8Array | undefined;
  constructor(private readonly opCount: number) {}

  get(op: number): number {
    return this.own ? this.own[op]! : 0;
  }

  set(op: number, variant: number): void {
    if (!this.own) {
      if (variant === 0) return;
      this.own = zeroedBytes(this.opCount);
    }
    this.own[op] = variant;
  }

  /** The attempt's own variants, or undefined when every one is 0. */
  get array(): Readonly<Uint8Array> | undefined {
    return this.own;
  }
}

/**
 * For each failing op with consequences (in phased order, so a derived failure's own consequences follow), the ops
 * it causes take the consequence's outcome and variant where this attempt did not observe them. Returns them.
 */
function applyConsequences(cm: CompiledModel, outcomes: Uint8Array, observed: Uint8Array, variants: AttemptVariants): readonly number[] {
  let derived: number[] | undefined;
  const order = cm.causeOrder;
  for (let k = 0; k < order.length; k++) {
    const op = order[k]!;
    if (outcomes[op] !== ERROR) continue;
    const caused = cm.consequences[op * cm.variantStride + variants.get(op)];
    if (!caused) continue;
    for (const c of caused) {
      if (observed[c.op] === 1 || derived?.includes(c.op)) continue;
      outcomes[c.op] = c.outcome;
      variants.set(c.op, c.variant);
      (derived ??= []).push(c.op);
    }
  }
  return derived ?? NONE;
}

/**
 * The public per-attempt `jsonl` row (a contract: key order, sorted names, time and object echoed). `structural`
 * is present only when non-empty, so rows of models without one-loop ops are unchanged.
 */
export function attemptRow(cm: CompiledModel, a: AttemptAnalysis): string {
  const row = {
    time: a.record.time,
    object: a.record.object,
    observedModel: a.record.loop,
    diverged: a.diverged,
    unblocked: a.unblocked.map((op) => cm.ops[op]),
    newlyBlocked: a.newlyBlocked.map((op) => cm.ops[op]),
  };
  return JSON.stringify(a.structural.length === 0 ? row : { ...row, structural: a.structural.map((op) => cm.ops[op]) });
}
