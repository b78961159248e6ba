/**
 * The checks of a model's per-loop behaviour that need both loops placed: which effects an error may have where it
 * runs, what a format marked `only:` may say, and whether a consequence can happen at all. Each problem is reported
 * with the line of the field, like every other model problem.
 */
import { errorEffect, phasedPlaces, type PhasedPlace } from './effects.js';
import type { FieldPath, YamlSource } from '../lib/yaml-source.js';
import {
  LOOP_KINDS,
  type Consequence,
  type ErrorEffect,
  type ErrorFormat,
  type LoopEffects,
  type LoopKind,
  type LoopRecovery,
  type ModelOperation,
  type PhasedStep,
} from './types.js';

interface Placement {
  readonly op: ModelOperation;
  /** Position in each loop's order, or -1 when the loop does not run it. */
  readonly sequential: number;
  readonly phased: number;
  readonly place: PhasedPlace;
}

const runsIn = (p: Placement, loop: LoopKind): boolean => p[loop] >= 0;

/** The effects an error may have where the op sits in `loop`, and why the others are not. */
function allowedEffects(p: Placement, loop: LoopKind): { allowed: readonly ErrorEffect[]; where: string } {
  if (loop === 'sequential') return { allowed: ['end', 'continue'], where: 'the sequential loop' };
  if (p.place.kind === 'group') return { allowed: ['endGroup', 'continue'], where: `group ${p.place.group.group} (a group's function cannot end the attempt)` };
  return { allowed: ['end', 'continue'], where: 'a fail-fast step of the phased loop' };
}

export function checkLoopBehaviour(c: Pick<YamlSource, 'fail'>, operations: readonly ModelOperation[], phased: readonly PhasedStep[]): void {
  const places = phasedPlaces({ name: '', controller: '', operations, phased });
  const phasedOrder = phased.flatMap((s) => (s.kind === 'op' ? [s.op] : s.ops));
  const sequentialOrder = operations.filter((o) => o.only !== 'phased').map((o) => o.name);
  const placements = new Map<string, Placement>(
    operations.map((op) => [op.name, { op, sequential: sequentialOrder.indexOf(op.name), phased: phasedOrder.indexOf(op.name), place: places.get(op.name)! }]),
  );

  operations.forEach((op, i) => {
    const at: FieldPath = ['spec', 'operations', i];
    const p = placements.get(op.name)!;
    if (op.onError) checkEffects(c, [...at, 'onError'], p, op.onError);
    if (op.causes) checkCauses(c, [...at, 'causes'], p, op.causes, placements);
    if (op.recovery) checkRecovery(c, [...at, 'recovery'], p, op.recovery, placements);
    op.errors.forEach((format, j) => checkFormat(c, [...at, 'errors', j], p, format, placements));
  });
}

function checkEffects(c: Pick<YamlSource, 'fail'>, at: FieldPath, p: Placement, effects: LoopEffects, only?: LoopKind): void {
  for (const loop of LOOP_KINDS) {
    const effect = effects[loop];
    if (effect === undefined) continue;
    if (!runsIn(p, loop)) {
      c.fail([...at, loop], `the ${loop} loop never runs "${p.op.name}" (only: ${p.op.only})`);
      continue;
    }
    if (only !== undefined && only !== loop) {
      c.fail([...at, loop], `this format exists only in the ${only} loop`);
      continue;
    }
    const { allowed, where } = allowedEffects(p, loop);
    if (!allowed.includes(effect)) c.fail([...at, loop], `"${effect}" is not allowed in ${where}: use ${allowed.join(' | ')}`);
  }
}

function checkFormat(c: Pick<YamlSource, 'fail'>, at: FieldPath, p: Placement, format: ErrorFormat, placements: ReadonlyMap<string, Placement>): void {
  if (format.only !== undefined && p.op.only !== undefined && format.only !== p.op.only) {
    c.fail([...at, 'only'], `"${p.op.name}" exists only in the ${p.op.only} loop`);
    return;
  }
  if (format.onError) checkEffects(c, [...at, 'onError'], p, format.onError, format.only);
  if (format.causes) checkCauses(c, [...at, 'causes'], p, format.causes, placements, format);
}

/**
 * A recovery path runs when the op's error ends the attempt in that loop (the sequential loop, or a phased fail-fast
 * step), and runs operations the loop would only reach later: each must run in that loop, after the op.
 */
function checkRecovery(c: Pick<YamlSource, 'fail'>, at: FieldPath, p: Placement, recovery: LoopRecovery, placements: ReadonlyMap<string, Placement>): void {
  for (const loop of LOOP_KINDS) {
    const ops = recovery[loop];
    if (ops === undefined) continue;
    if (!runsIn(p, loop)) {
      c.fail([...at, loop], `the ${loop} loop never runs "${p.op.name}" (only: ${p.op.only})`);
      continue;
    }
    if (loop === 'phased' && p.place.kind === 'group') {
      c.fail([...at, loop], `"${p.op.name}" is in group ${p.place.group.group}: its error ends the group, not the attempt`);
      continue;
    }
    if ([undefined, ...p.op.errors].every((f) => errorEffect(p.op, loop, p.place, f) !== 'end')) {
      c.fail([...at, loop], `an error of "${p.op.name}" never ends the ${loop} loop, so no recovery path runs before it returns`);
      continue;
    }
    ops.forEach((name, k) => {
      const then = placements.get(name);
      if (!then) return c.fail([...at, loop, k], `unknown operation "${name}"`);
      if (!runsIn(then, loop)) return c.fail([...at, loop, k], `the ${loop} loop never runs "${name}"`);
      if (then[loop] <= p[loop])
        c.fail([...at, loop, k], `"${name}" runs before "${p.op.name}" in the ${loop} loop: a recovery path runs what the loop has not reached`);
    });
  }
}

/**
 * A consequence happens when the op fails and a loop goes on to run the other op later: both must be in the phased
 * loop with the consequence after the op (and after it in the sequential loop too when both are there, so a derived
 * outcome never lands on an op a loop ran earlier), and the op's error must let some loop go on.
 */
function checkCauses(
  c: Pick<YamlSource, 'fail'>,
  at: FieldPath,
  p: Placement,
  causes: readonly Consequence[],
  placements: ReadonlyMap<string, Placement>,
  format?: ErrorFormat,
): void {
  const loops = LOOP_KINDS.filter((loop) => runsIn(p, loop));
  if (causes.length > 0 && loops.every((loop) => errorEffect(p.op, loop, p.place, format) === 'end')) {
    c.fail(at, `an error of "${p.op.name}" ends the attempt in every loop that runs it, so nothing runs after it to fail (set onError)`);
    return;
  }
  causes.forEach((consequence, k) => {
    const here = [...at, k];
    const then = placements.get(consequence.op);
    if (!then) return c.fail([...here, 'op'], `unknown operation "${consequence.op}"`);
    if (then === p) return c.fail([...here, 'op'], 'an operation cannot be its own consequence');
    for (const loop of ['phased', 'sequential'] as const) {
      const both = runsIn(p, loop) && runsIn(then, loop);
      if (loop === 'phased' && !both) return c.fail([...here, 'op'], `"${p.op.name}" and "${consequence.op}" must both run in the phased loop`);
      if (both && then[loop] < p[loop])
        return c.fail([...here, 'op'], `"${consequence.op}" runs before "${p.op.name}" in the ${loop} loop: a consequence runs later`);
    }
    if (consequence.error !== undefined && !then.op.errors.some((f) => f.format === consequence.error)) {
      c.fail([...here, 'error'], `not one of the formats of "${consequence.op}"`);
    }
  });
}
