/**
 * Operator builds: a model's `spec.builds` says how each release of the operator differs from the model as written
 * (which describes the newest build), as data: operations a build lacks, operations it runs in one loop only, formats
 * it lacks or has besides. `modelForBuild` derives a build's model from them, `buildForVersion` picks the build of an
 * operator version. One model file stays the one source of truth; no build is a copy. Pure.
 */
import { checkKeys, checkValue } from '../lib/schema.js';
import { fieldName, type FieldPath, type YamlSource } from '../lib/yaml-source.js';
import { isRecord } from '../lib/is-record.js';
import { checkLoopBehaviour } from './loop-behaviour.js';
import { LOOP_KINDS, type ErrorFormat, type LoopKind, type ModelBuild, type ModelOperation, type PhasedStep, type ReconcileModel } from './types.js';

const VERSION = /^\d+\.\d+$/;

/** model/load.ts's reader of one operation (passed in, so the two modules do not import each other). */
export type ParseOperation = (c: YamlSource, at: FieldPath, item: unknown, seen: Set<string>) => ModelOperation | undefined;

/** Parses and checks `spec.builds`; each build's derived model is checked like the model itself. */
export function parseBuilds(
  c: YamlSource,
  value: unknown,
  operations: readonly ModelOperation[],
  phased: readonly PhasedStep[],
  parseOperation: ParseOperation,
): ModelBuild[] {
  const path = ['spec', 'builds'];
  if (!Array.isArray(value)) {
    c.fail(path, 'must be a list of builds ({name, commit, versions, ...})');
    return [];
  }
  const byName = new Map(operations.map((o) => [o.name, o]));
  const names = new Set<string>();
  const versions = new Map<string, string>();
  const out: ModelBuild[] = [];
  value.forEach((item: unknown, i) => {
    const at: FieldPath = [...path, i];
    if (!isRecord(item)) return c.fail(at, 'must be a mapping with a name');
    checkKeys(c, at, item, ['name', 'commit', 'versions', 'supported', 'loops', 'add', 'remove', 'only', 'formats', 'notes']);
    const name = checkValue(c, [...at, 'name'], item.name, { kind: 'string', required: true });
    const commit = checkValue(c, [...at, 'commit'], item.commit, { kind: 'string', required: true });
    if (name === undefined || commit === undefined) return;
    if (names.has(name)) return c.fail([...at, 'name'], `duplicate build "${name}"`);
    names.add(name);
    const vs = stringList(c, [...at, 'versions'], item.versions, false) ?? [];
    const supported = stringList(c, [...at, 'supported'], item.supported, false) ?? [];
    supported.forEach((v, j) => (VERSION.test(v) ? undefined : c.fail([...at, 'supported', j], `"${v}" is not a major.minor version`)));
    for (const [j, v] of vs.entries()) {
      if (!VERSION.test(v)) c.fail([...at, 'versions', j], `"${v}" is not a major.minor version`);
      else if (versions.has(v)) c.fail([...at, 'versions', j], `version ${v} is already build "${versions.get(v)}"'s`);
      else versions.set(v, name);
    }
    const loops = (item.loops === undefined ? [...LOOP_KINDS] : (stringList(c, [...at, 'loops'], item.loops, true) ?? [])) as LoopKind[];
    loops.forEach((l, j) => (LOOP_KINDS.includes(l) ? undefined : c.fail([...at, 'loops', j], `must be sequential or phased, got "${l}"`)));
    const remove = stringList(c, [...at, 'remove'], item.remove, false) ?? [];
    remove.forEach((op, j) => (byName.has(op) ? undefined : c.fail([...at, 'remove', j], `unknown operation "${op}"`)));
    const only: Record<string, LoopKind> = {};
    if (item.only !== undefined) {
      if (!isRecord(item.only)) c.fail([...at, 'only'], 'must be a mapping of operation to the one loop it runs in, e.g. {PublicEndpointExposed: phased}');
      else
        for (const [op, loop] of Object.entries(item.only)) {
          if (!byName.has(op)) c.fail([...at, 'only', op], `unknown operation "${op}"`);
          else if (loop !== 'sequential' && loop !== 'phased') c.fail([...at, 'only', op], `must be sequential or phased, got ${JSON.stringify(loop)}`);
          else only[op] = loop;
        }
    }
    const add: ModelBuild['add'][number][] = [];
    if (item.add !== undefined) {
      if (!Array.isArray(item.add)) c.fail([...at, 'add'], 'must be a list of {after, operation}');
      else {
        const seen = new Set(operations.map((o) => o.name));
        item.add.forEach((a: unknown, j) => {
          const here = [...at, 'add', j];
          if (!isRecord(a)) return c.fail(here, 'must be a mapping {after, operation}');
          checkKeys(c, here, a, ['after', 'operation']);
          const after = checkValue(c, [...here, 'after'], a.after, { kind: 'string', required: true });
          if (after !== undefined && !byName.has(after) && !add.some((x) => x.operation.name === after))
            c.fail([...here, 'after'], `unknown operation "${after}"`);
          const operation = parseOperation(c, [...here, 'operation'], a.operation, seen);
          // The phased loop is the model's: an operation only a build has runs in its sequential loop.
          if (operation !== undefined && operation.only !== 'sequential')
            c.fail([...here, 'operation', 'only'], "an operation a build adds must be only: sequential (the phased loop is the model's)");
          if (after !== undefined && operation !== undefined) add.push({ after, operation });
        });
      }
    }
    const formats = parseFormatChanges(c, [...at, 'formats'], item.formats, byName);
    const notes = stringList(c, [...at, 'notes'], item.notes, false) ?? [];
    const build: ModelBuild = { name, commit, versions: vs, supported, loops, add, remove, only, formats, notes };
    out.push(build);
  });
  const first = out[0];
  if (first && (first.add.length > 0 || first.remove.length > 0 || Object.keys(first.only).length > 0 || first.formats.length > 0)) {
    c.fail([...path, 0], `the first build ("${first.name}") is the model as written: it takes no add, remove, only or formats`);
  }
  // A build's model must be a valid model too: check it with the model's own rules, reported at the build.
  for (const [i, build] of out.entries()) {
    const derived = applyBuild({ name: '', controller: '', operations, phased }, build);
    const here = { fail: (p: FieldPath, message: string): void => c.fail([...path, i], `build "${build.name}": ${fieldName(p)}: ${message}`) };
    checkLoopBehaviour(here, derived.operations, derived.phased);
  }
  return out;
}

function stringList(c: YamlSource, at: FieldPath, value: unknown, required: boolean): string[] | undefined {
  if (value === undefined && !required) return undefined;
  if (!Array.isArray(value) || (required && value.length === 0) || !value.every((v) => typeof v === 'string' && v !== '')) {
    c.fail(at, required ? 'required non-empty list of strings' : 'must be a list of strings');
    return undefined;
  }
  return value as string[];
}

function parseFormatChanges(c: YamlSource, at: FieldPath, value: unknown, byName: ReadonlyMap<string, ModelOperation>): ModelBuild['formats'] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    c.fail(at, 'must be a list of {op, remove} or {op, add, only}');
    return [];
  }
  const out: ModelBuild['formats'][number][] = [];
  value.forEach((item: unknown, j) => {
    const here = [...at, j];
    if (!isRecord(item)) return c.fail(here, 'must be a mapping {op, remove}, {op, add, only} or {op, format, only}');
    const op = checkValue(c, [...here, 'op'], item.op, { kind: 'string', required: true });
    if (op === undefined) return;
    const known = byName.get(op);
    if (!known) return c.fail([...here, 'op'], `unknown operation "${op}"`);
    checkKeys(c, here, item, ['op', 'remove', 'add', 'format', 'only']);
    const modes = [item.remove, item.add, item.format].filter((v) => v !== undefined).length;
    if (modes !== 1)
      return c.fail(here, 'needs exactly one of remove (a format of the operation), add (a new format) and format (one the build has in one loop only)');
    if (item.format !== undefined) {
      const format = checkValue(c, [...here, 'format'], item.format, { kind: 'string', required: true });
      const loop = checkValue(c, [...here, 'only'], item.only, { kind: 'enum', values: LOOP_KINDS, required: true });
      if (format === undefined || loop === undefined) return;
      if (!known.errors.some((f) => f.format === format && f.only === undefined))
        return c.fail([...here, 'format'], `operation "${op}" has no format "${format}" in both loops`);
      out.push({ op, format, only: loop });
      return;
    }
    const only = item.only === undefined ? undefined : checkValue(c, [...here, 'only'], item.only, { kind: 'enum', values: LOOP_KINDS, required: true });
    if (item.remove !== undefined) {
      const format = checkValue(c, [...here, 'remove'], item.remove, { kind: 'string', required: true });
      if (format === undefined) return;
      if (!known.errors.some((f) => f.format === format)) return c.fail([...here, 'remove'], `operation "${op}" has no format "${format}"`);
      if (only !== undefined) return c.fail([...here, 'only'], 'a removed format takes no only (remove it, and add it back with only)');
      out.push({ op, remove: format });
      return;
    }
    const format = checkValue(c, [...here, 'add'], item.add, { kind: 'string', required: true });
    if (format === undefined) return;
    const removed = value.some((other: unknown) => isRecord(other) && other.op === op && other.remove === format);
    if (known.errors.some((f) => f.format === format) && !removed)
      return c.fail([...here, 'add'], `operation "${op}" already has format "${format}" (remove it first to change its only)`);
    out.push({ op, add: format, ...(only !== undefined && { only: only }) });
  });
  return out;
}

/** The model of one build: the model with the build's differences applied. */
export function applyBuild(model: ReconcileModel, build: ModelBuild): ReconcileModel {
  const removed = new Set(build.remove);
  const withAdded = [...model.operations];
  for (const { after, operation } of build.add) withAdded.splice(withAdded.findIndex((o) => o.name === after) + 1, 0, operation);
  const operations = withAdded
    .filter((o) => !removed.has(o.name))
    .map((o): ModelOperation => {
      let errors: ErrorFormat[] = o.errors
        .filter((f) => !build.formats.some((c) => c.op === o.name && c.remove === f.format))
        .map((f) => {
          const restricted = build.formats.find((c) => c.op === o.name && c.format === f.format);
          return restricted?.only
            ? { format: f.format, only: restricted.only, ...(f.onError && { onError: f.onError }), ...(f.causes && { causes: f.causes }) }
            : f;
        });
      for (const c of build.formats) if (c.op === o.name && c.add !== undefined) errors = [...errors, { format: c.add, ...(c.only && { only: c.only }) }];
      const only = build.only[o.name] ?? o.only;
      // In the loader's key order, so that a build's model and its document read back are the same JSON (a partial
      // summary's merge compares them).
      const { name, onError, causes, recovery, writes } = o;
      return {
        name,
        errors,
        ...(only && { only }),
        ...(onError && { onError }),
        ...(causes && { causes }),
        ...(recovery && { recovery }),
        ...(writes && { writes }),
      };
    });
  const gone = (op: string): boolean => removed.has(op) || build.only[op] === 'sequential';
  const phased = model.phased.flatMap((s): PhasedStep[] => {
    if (s.kind === 'op') return gone(s.op) ? [] : [s];
    const ops = s.ops.filter((op) => !gone(op));
    return ops.length === 0 ? [] : [{ ...s, ops }];
  });
  return { ...model, operations, phased };
}

/** A model's build by name; the model as written when the model has no builds or `name` is its newest. */
export function modelForBuild(model: ReconcileModel, name: string): ReconcileModel {
  const build = model.builds?.find((b) => b.name === name);
  if (!build) throw new Error(`model ${model.name} has no build "${name}" (builds: ${(model.builds ?? []).map((b) => b.name).join(', ') || 'none'})`);
  // A build's model is a model of its own: the differences it was derived by are the newest build's, not its.
  const { builds: _builds, ...derived } = applyBuild(model, build);
  return { ...derived, build: build.name };
}

/** Which build of the model an operator version is, and a sentence saying how it was chosen. */
export interface BuildChoice {
  readonly build: string | undefined;
  readonly statement: string;
}

/**
 * The build of an operator version: `4.22.3`, `v5.0`, `release-4.22`, an image tag `4.22.3-multi` (major.minor against
 * each build's `versions`), a build's name, or the install annotation's `… Latest supported OCP: 5.1.0` (against each
 * build's `supported`, which several builds can share: it then does not say). Undefined when the version is unknown or
 * says no one build: the newest build then applies, and the statement says so.
 */
export function buildForVersion(model: ReconcileModel, version: string | undefined, from: string): BuildChoice {
  const builds = model.builds ?? [];
  const newest = builds[0]?.name;
  if (builds.length === 0) return { build: undefined, statement: `model ${model.name} describes one build` };
  const fallback = `using the model of build ${newest}`;
  if (version === undefined || version.trim() === '')
    return { build: undefined, statement: `${from}: not given, the operator's version is unknown; ${fallback}` };
  const named = builds.find((b) => b.name === version);
  if (named) return { build: named.name, statement: `${from}: build ${named.name} (upstream ${named.commit})` };
  const supported = /Latest supported OCP: (\d+)\.(\d+)/.exec(version);
  if (supported) {
    const minor = `${supported[1]}.${supported[2]}`;
    const matching = builds.filter((b) => b.supported.includes(minor));
    if (matching.length === 1)
      return { build: matching[0]!.name, statement: `${from}: latest supported OCP ${minor}, build ${matching[0]!.name} (upstream ${matching[0]!.commit})` };
    const which = matching.length === 0 ? 'no build the model knows' : `builds ${matching.map((b) => b.name).join(' and ')} alike`;
    return { build: undefined, statement: `${from}: latest supported OCP ${minor} is ${which}; ${fallback}` };
  }
  const m = /^v?(\d+)\.(\d+)(?:[.+-]|$)/.exec(version.trim().replace(/^release-/, ''));
  if (!m) return { build: undefined, statement: `${from}: "${version}" is no major.minor version; ${fallback}` };
  const minor = `${m[1]}.${m[2]}`;
  const build = builds.find((b) => b.versions.includes(minor));
  if (!build)
    return {
      build: undefined,
      statement: `${from}: version ${minor} is no build the model knows (${builds.flatMap((b) => b.versions).join(', ')}); ${fallback}`,
    };
  return { build: build.name, statement: `${from}: version ${minor}, build ${build.name} (upstream ${build.commit})` };
}

/**
 * The model to analyse an operator of this version with: its build's model, stating how the build was chosen (the
 * newest build's when the version does not say which). A model without builds is returned as it is.
 */
export function selectBuild(model: ReconcileModel, version: string | undefined, from: string): ReconcileModel {
  const first = model.builds?.[0];
  if (first === undefined) return model;
  const choice = buildForVersion(model, version, from);
  return { ...modelForBuild(model, choice.build ?? first.name), buildStatement: choice.statement };
}
