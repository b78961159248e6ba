/**
 * What an operation's error does, read from the model, in one place for the engine and for the sources that
 * interpret an operator's output:
 * - its effect per loop: the default of the operation's place in the loop (sequential: `end`; phased fail-fast step:
 *   `end`; chain group: `endGroup`; collect group: `continue`), overridden by the operation's `onError`, overridden in
 *   turn by the matched format's `onError`;
 * - its consequences: the operation's `causes`, replaced by the matched format's `causes` when it has its own;
 * - the formats an error of the operation can start with in each loop (a format marked `only:` exists in one loop).
 * A format that overrides `onError` or `causes` is a *variant*: which one an observed error was is read from its text.
 * The engine compiles these rules into typed arrays; nothing restates them.
 */
import { goFormatPattern } from './go-format.js';
import type { Consequence, ErrorEffect, ErrorFormat, GroupStep, LoopKind, ModelOperation, ReconcileModel } from './types.js';

/** Where an operation sits in the phased loop: a fail-fast step, a group, or nowhere (`only: sequential`). */
export type PhasedPlace = { readonly kind: 'failFast' } | { readonly kind: 'group'; readonly group: GroupStep } | { readonly kind: 'absent' };

export function phasedPlaces(model: ReconcileModel): ReadonlyMap<string, PhasedPlace> {
  const places = new Map<string, PhasedPlace>(model.operations.map((o) => [o.name, { kind: 'absent' }]));
  for (const step of model.phased) {
    if (step.kind === 'op') places.set(step.op, { kind: 'failFast' });
    else for (const op of step.ops) places.set(op, { kind: 'group', group: step });
  }
  return places;
}

/** The effect of an error of `op` (of `format`, when known) in `loop`. */
export function errorEffect(op: ModelOperation, loop: LoopKind, place: PhasedPlace, format?: ErrorFormat): ErrorEffect {
  const fallback: ErrorEffect = loop === 'sequential' || place.kind !== 'group' ? 'end' : place.group.mode === 'chain' ? 'endGroup' : 'continue';
  return format?.onError?.[loop] ?? op.onError?.[loop] ?? fallback;
}

/** What fails as a consequence when `op` fails (with an error of `format`, when known) and the loop goes on. */
export function consequencesOf(op: ModelOperation, format?: ErrorFormat): readonly Consequence[] {
  return format?.causes ?? op.causes ?? [];
}

/** The formats an error of `op` can start with in `loop`. */
export function formatsIn(op: ModelOperation, loop: LoopKind): readonly ErrorFormat[] {
  return op.errors.filter((f) => inLoop(f, loop));
}

/** Whether an error of the format can be written by `loop` (a format marked `only:` is one loop's text). */
export function inLoop(format: ErrorFormat, loop: LoopKind): boolean {
  return format.only === undefined || format.only === loop;
}

/** A format with rules of its own (an effect or consequences that differ from the operation's). */
export function isVariant(format: ErrorFormat): boolean {
  return format.onError !== undefined || format.causes !== undefined;
}

type VariantPattern = { readonly format: ErrorFormat; readonly pattern: RegExp };
const patternsByOp = new WeakMap<ModelOperation, readonly VariantPattern[]>();

/** `op`'s variant formats, in model order, with the pattern an error text must match to be one. */
export function variantPatterns(op: ModelOperation): readonly VariantPattern[] {
  let patterns = patternsByOp.get(op);
  if (!patterns) {
    patterns = op.errors.filter(isVariant).map((format) => ({ format, pattern: goFormatPattern(format.format) }));
    patternsByOp.set(op, patterns);
  }
  return patterns;
}

/** The variant an error text of `op` is (the first matching in model order), or undefined: the operation's rules apply. */
export function variantOf(op: ModelOperation, text: string): ErrorFormat | undefined {
  return variantPatterns(op).find((v) => v.pattern.test(text))?.format;
}
