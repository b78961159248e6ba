/**
 * Reads and validates a ReconcileModel from YAML (or JSON, which is YAML) text. Every problem is reported with
 * `file:line field: message`, as for every file people write (lib/yaml-source.ts, lib/schema.ts); a model with any
 * problem is refused whole (ValidationError), so nothing starts half-configured. The walk is written out rather than
 * one schema because its rules tie parts together (where each operation is placed, what its consequences may be);
 * each value is still checked by a schema field. Pure: sidecar/files.ts reads model files.
 */
import { checkKeys, checkValue, type EnumField } from '../lib/schema.js';
import { ValidationError } from '../lib/validation-error.js';
import { fieldName, YamlSource, type FieldPath } from '../lib/yaml-source.js';
import { checkLoopBehaviour } from './loop-behaviour.js';
import { parseBuilds } from './builds.js';
import { BUILD_ANNOTATION, BUILD_STATEMENT_ANNOTATION } from './document.js';
import {
  ERROR_EFFECTS,
  LOOP_KINDS,
  OPERATION_WRITES,
  type Consequence,
  type ErrorEffect,
  type ErrorFormat,
  type GroupCategory,
  type GroupMode,
  type LoopEffects,
  type LoopKind,
  type LoopRecovery,
  type ModelOperation,
  type OperationWrites,
  type PhasedStep,
  type ReconcileModel,
} from './types.js';
import { isRecord } from '../lib/is-record.js';

/** The models that ship in model/builtin/, by name. */
export const BUILTIN_MODELS = ['hypershift-hostedcluster'] as const;

type Path = FieldPath;
type Checker = YamlSource;

const NAME = { kind: 'string', required: true } as const;

function requireString(c: Checker, path: Path, value: unknown): string | undefined {
  return checkValue(c, path, value, NAME);
}

/** One of `allowed` (required unless there is a fallback); the enum field checks it, `T` names the values' type. */
function oneOf<T extends string>(c: Checker, path: Path, value: unknown, allowed: readonly T[], fallback?: T): T | undefined {
  const field: EnumField = fallback === undefined ? { kind: 'enum', values: allowed, required: true } : { kind: 'enum', values: allowed, default: fallback };
  return checkValue(c, path, value, field) as T | undefined;
}

/** An optional boolean field, false when absent. */
function flag(c: Checker, at: Path, value: unknown): boolean {
  return checkValue(c, at, value, { kind: 'boolean', default: false }) ?? false;
}

const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]*$/;

export function parseModel(text: string, file = 'model.yaml'): ReconcileModel {
  const c = new YamlSource(text, file);
  const raw = c.value;
  if (c.problems.length > 0) throw new ValidationError('model', c.problems);
  if (!isRecord(raw)) throw new ValidationError('model', [`${file}:1 (document): a model is a YAML mapping`]);

  checkKeys(c, [], raw, ['apiVersion', 'kind', 'metadata', 'spec']);
  if (raw.apiVersion !== 'reconcile-shadow/v1') c.fail(['apiVersion'], `must be "reconcile-shadow/v1", got ${JSON.stringify(raw.apiVersion)}`);
  if (raw.kind !== 'ReconcileModel') c.fail(['kind'], `must be "ReconcileModel", got ${JSON.stringify(raw.kind)}`);

  let name: string | undefined;
  let build: string | undefined;
  let buildStatement: string | undefined;
  if (isRecord(raw.metadata)) {
    checkKeys(c, ['metadata'], raw.metadata, ['name', 'labels', 'annotations']);
    name = requireString(c, ['metadata', 'name'], raw.metadata.name);
    const annotations = raw.metadata.annotations;
    const annotated = isRecord(annotations) ? annotations[BUILD_ANNOTATION] : undefined;
    if (annotated !== undefined) build = requireString(c, ['metadata', 'annotations', BUILD_ANNOTATION], annotated);
    const stated = isRecord(annotations) ? annotations[BUILD_STATEMENT_ANNOTATION] : undefined;
    if (stated !== undefined) buildStatement = requireString(c, ['metadata', 'annotations', BUILD_STATEMENT_ANNOTATION], stated);
  } else c.fail(['metadata'], 'required mapping with a name');

  const spec = raw.spec;
  if (!isRecord(spec)) {
    c.fail(['spec'], 'required mapping with controller, operations and phased');
    throw new ValidationError('model', c.problems);
  }
  checkKeys(c, ['spec'], spec, ['controller', 'operations', 'phased', 'builds']);
  const controller = requireString(c, ['spec', 'controller'], spec.controller);
  const operations = parseOperations(c, spec.operations);
  const phased = parsePhased(c, spec.phased, operations);
  if (c.problems.length === 0) checkLoopBehaviour(c, operations, phased);
  const builds = c.problems.length === 0 && spec.builds !== undefined ? parseBuilds(c, spec.builds, operations, phased, parseOperation) : undefined;

  if (c.problems.length > 0 || name === undefined || controller === undefined) throw new ValidationError('model', c.problems);
  return {
    name,
    controller,
    operations,
    phased,
    ...(builds && { builds }),
    ...(build !== undefined && { build }),
    ...(buildStatement !== undefined && { buildStatement }),
  };
}

function parseOperations(c: Checker, value: unknown): ModelOperation[] {
  const path = ['spec', 'operations'];
  if (!Array.isArray(value) || value.length === 0) {
    c.fail(path, 'required non-empty list of operations');
    return [];
  }
  const seen = new Set<string>();
  const out: ModelOperation[] = [];
  value.forEach((item: unknown, i) => {
    const op = parseOperation(c, [...path, i], item, seen);
    if (op !== undefined) out.push(op);
  });
  return out;
}

/** One operation of spec.operations (or one a build adds); `seen` holds the names taken. */
export function parseOperation(c: Checker, at: Path, item: unknown, seen: Set<string>): ModelOperation | undefined {
  const fail = (path: Path, message: string): undefined => {
    c.fail(path, message);
    return undefined;
  };
  if (!isRecord(item)) return fail(at, 'must be a mapping with a name');
  checkKeys(c, at, item, ['name', 'errors', 'only', 'onError', 'causes', 'recovery', 'writes', 'description']);
  const name = requireString(c, [...at, 'name'], item.name);
  if (name === undefined) return;
  if (!NAME_PATTERN.test(name)) return fail([...at, 'name'], `"${name}" is not a valid operation name (letters, digits, _ . -)`);
  if (seen.has(name)) return fail([...at, 'name'], `duplicate operation "${name}"`);
  seen.add(name);
  const errors: ErrorFormat[] = [];
  if (item.errors !== undefined) {
    if (!Array.isArray(item.errors)) c.fail([...at, 'errors'], 'must be a list of Go format strings or {format, only, onError, causes} mappings');
    else
      item.errors.forEach((e: unknown, j) => {
        const format = parseErrorFormat(c, [...at, 'errors', j], e);
        if (format !== undefined) errors.push(format);
      });
  }
  const only = item.only === undefined ? undefined : oneOf<LoopKind>(c, [...at, 'only'], item.only, LOOP_KINDS);
  const onError = item.onError === undefined ? undefined : parseLoopEffects(c, [...at, 'onError'], item.onError);
  const causes = item.causes === undefined ? undefined : parseCauses(c, [...at, 'causes'], item.causes);
  const recovery = item.recovery === undefined ? undefined : parseRecovery(c, [...at, 'recovery'], item.recovery);
  const writes = item.writes === undefined ? undefined : oneOf<OperationWrites>(c, [...at, 'writes'], item.writes, OPERATION_WRITES);
  return {
    name,
    errors,
    ...(only && { only }),
    ...(onError && { onError }),
    ...(causes && { causes }),
    ...(recovery && { recovery }),
    ...(writes && { writes }),
  };
}

/** A plain string (both loops, the operation's rules) or a mapping with rules of its own. */
function parseErrorFormat(c: Checker, at: Path, value: unknown): ErrorFormat | undefined {
  if (typeof value === 'string') {
    if (value !== '') return { format: value };
    c.fail(at, 'must be a non-empty string');
    return undefined;
  }
  if (!isRecord(value)) {
    c.fail(at, 'must be a Go format string or a {format, only, onError, causes} mapping');
    return undefined;
  }
  checkKeys(c, at, value, ['format', 'only', 'onError', 'causes']);
  const format = requireString(c, [...at, 'format'], value.format);
  const only = value.only === undefined ? undefined : oneOf<LoopKind>(c, [...at, 'only'], value.only, LOOP_KINDS);
  const onError = value.onError === undefined ? undefined : parseLoopEffects(c, [...at, 'onError'], value.onError);
  const causes = value.causes === undefined ? undefined : parseCauses(c, [...at, 'causes'], value.causes);
  if (format === undefined) return undefined;
  return { format, ...(only && { only }), ...(onError && { onError }), ...(causes && { causes }) };
}

function parseLoopEffects(c: Checker, at: Path, value: unknown): LoopEffects | undefined {
  if (!isRecord(value)) {
    c.fail(at, 'must be a mapping of loop to effect, e.g. {phased: continue}');
    return undefined;
  }
  checkKeys(c, at, value, LOOP_KINDS);
  const effects: Partial<Record<LoopKind, ErrorEffect>> = {};
  for (const loop of LOOP_KINDS) {
    if (value[loop] === undefined) continue;
    const effect = oneOf<ErrorEffect>(c, [...at, loop], value[loop], ERROR_EFFECTS);
    if (effect !== undefined) effects[loop] = effect;
  }
  return effects;
}

function parseRecovery(c: Checker, at: Path, value: unknown): LoopRecovery | undefined {
  if (!isRecord(value)) {
    c.fail(at, 'must be a mapping of loop to operation names, e.g. {sequential: [UpdateStatus]}');
    return undefined;
  }
  checkKeys(c, at, value, LOOP_KINDS);
  const recovery: Partial<Record<LoopKind, string[]>> = {};
  for (const loop of LOOP_KINDS) {
    const ops = value[loop];
    if (ops === undefined) continue;
    if (!Array.isArray(ops) || ops.length === 0 || !ops.every((o) => typeof o === 'string' && o !== '')) {
      c.fail([...at, loop], 'must be a non-empty list of operation names');
      continue;
    }
    recovery[loop] = ops as string[];
  }
  return recovery;
}

function parseCauses(c: Checker, at: Path, value: unknown): Consequence[] | undefined {
  if (!Array.isArray(value)) {
    c.fail(at, 'must be a list of {op, error} or {op, outcome: stop}');
    return undefined;
  }
  const out: Consequence[] = [];
  value.forEach((item: unknown, k) => {
    const here = [...at, k];
    if (!isRecord(item)) return c.fail(here, 'must be a mapping {op, error} or {op, outcome: stop}');
    checkKeys(c, here, item, ['op', 'error', 'outcome']);
    const op = requireString(c, [...here, 'op'], item.op);
    const outcome = oneOf<'error' | 'stop'>(c, [...here, 'outcome'], item.outcome, ['error', 'stop'], 'error');
    if (outcome === 'stop' && item.error !== undefined) return c.fail([...here, 'error'], 'a stop carries no error (leave out error, or outcome)');
    const error = outcome === 'error' ? requireString(c, [...here, 'error'], item.error) : undefined;
    if (op === undefined || outcome === undefined || (outcome === 'error' && error === undefined)) return;
    out.push(error === undefined ? { op, outcome } : { op, outcome, error });
  });
  return out;
}

function parsePhased(c: Checker, value: unknown, operations: readonly ModelOperation[]): PhasedStep[] {
  const path = ['spec', 'phased'];
  if (!Array.isArray(value) || value.length === 0) {
    c.fail(path, 'required non-empty list of steps');
    return [];
  }
  const byName = new Map(operations.map((o) => [o.name, o]));
  const placed = new Map<string, string>();
  const groups = new Set<string>();
  const steps: PhasedStep[] = [];

  const place = (op: unknown, at: Path): string | undefined => {
    if (typeof op !== 'string' || op === '') {
      c.fail(at, 'must be an operation name');
      return undefined;
    }
    const known = byName.get(op);
    if (!known) {
      c.fail(at, `unknown operation "${op}"`);
      return undefined;
    }
    if (known.only === 'sequential') {
      c.fail(at, `operation "${op}" is marked only: sequential and cannot be placed in phased`);
      return undefined;
    }
    const earlier = placed.get(op);
    if (earlier !== undefined) {
      c.fail(at, `operation "${op}" appears more than once (first at ${earlier})`);
      return undefined;
    }
    placed.set(op, fieldName(at));
    return op;
  };

  value.forEach((item: unknown, i) => {
    const at = [...path, i];
    if (!isRecord(item)) return c.fail(at, 'must be a mapping with "op" or "group"');
    if ('op' in item && 'group' in item) return c.fail(at, 'a step has either "op" or "group", not both');
    if ('op' in item) {
      checkKeys(c, at, item, ['op']);
      const op = place(item.op, [...at, 'op']);
      if (op !== undefined) steps.push({ kind: 'op', op });
      return;
    }
    if (!('group' in item)) return c.fail(at, 'a step needs "op" (fail-fast) or "group"');
    checkKeys(c, at, item, ['group', 'category', 'blockable', 'mode', 'skipWhenBlocked', 'ops', 'description']);
    const group = requireString(c, [...at, 'group'], item.group);
    if (group !== undefined && groups.has(group)) c.fail([...at, 'group'], `duplicate group "${group}"`);
    if (group !== undefined) groups.add(group);
    const category = oneOf<GroupCategory>(c, [...at, 'category'], item.category, ['critical', 'nonCritical']);
    const mode = oneOf<GroupMode>(c, [...at, 'mode'], item.mode, ['chain', 'collect'], 'chain');
    const blockable = flag(c, [...at, 'blockable'], item.blockable);
    const skipWhenBlocked = flag(c, [...at, 'skipWhenBlocked'], item.skipWhenBlocked);
    if (skipWhenBlocked && blockable) {
      c.fail([...at, 'skipWhenBlocked'], 'only a group that is not blockable can skip itself when blocked (a blockable group is not run at all)');
    }
    const ops: string[] = [];
    if (!Array.isArray(item.ops) || item.ops.length === 0) c.fail([...at, 'ops'], 'required non-empty list of operation names');
    else
      item.ops.forEach((op: unknown, j) => {
        const placedOp = place(op, [...at, 'ops', j]);
        if (placedOp !== undefined) ops.push(placedOp);
      });
    if (group !== undefined && category !== undefined && mode !== undefined) {
      steps.push({ kind: 'group', group, category, blockable, mode, ops, skipWhenBlocked });
    }
  });

  for (const op of operations) {
    if (op.only !== 'sequential' && !placed.has(op.name)) {
      const index = operations.indexOf(op);
      c.fail(
        ['spec', 'operations', index, 'name'],
        `operation "${op.name}" is not placed in spec.phased (mark it only: sequential if the phased loop dropped it)`,
      );
    }
  }
  return steps;
}
