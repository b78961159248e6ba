/**
 * What an operation's error does to each loop, read from the model: the default of the operation's place in the loop
 * (sequential: `end`; phased fail-fast step: `end`; chain group: `endGroup`; collect group: `continue`), overridden
 * by the operation's `onError`, overridden in turn by the matched format's `onError`. The engine compiles the same
 * rules into typed arrays; sources that interpret an operator's output read them here.
 */
import type { ErrorEffect, ErrorFormat, GroupStep, LoopKind, ModelOperation, ReconcileModel } from './types.js';

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
