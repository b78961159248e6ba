/**
 * The partial summary, `reconcile-shadow/partial/v1` (docs/partial.md, docs/partial.schema.json): everything one
 * shard of an analysis counted, as JSON, so that partials of disjoint shards merge (merge.ts) into exactly what one
 * run over the whole input reports. In memory a partial is a `PartialState`; `encodePartial` and `decodePartial`
 * convert, the latter checking every field of untrusted JSON.
 *
 * Counter arrays are written sparse, `{length, nonZero: [[index, value], …]}`: most cells of the decisions' pair
 * tables are zero. The evidence of the rules that declare their own (rules/rule.ts RuleEvidence) is written by each
 * rule, under its name in the evidence's `rules`, a key absent when no rule of the list declares any.
 */
import { REJECT_REASONS, SOURCE_KINDS, type Rejection, type RejectReason, type SourceInputSummary, type SourceKind } from '../../collector/records.js';
import { modelDocument } from '../../model/document.js';
import { ValidationError } from '../../lib/validation-error.js';
import { parseModel } from '../../model/load.js';
import { LOOP_KINDS } from '../../model/types.js';
import { compileModel, type CompiledModel } from '../compiled-model.js';
import { emptyCounters, type ControllerCounters } from '../decisions/counters.js';
import { RULES } from '../decisions/rules.js';
import type { Rule, RuleState } from '../decisions/rules/rule.js';
import type { TimelineState } from '../decisions/timeline.js';
import type { OperationState, SummaryState, TimeMark } from '../summary/summary-state.js';
import type { Coverage } from './coverage.js';
import { fieldName } from '../../lib/yaml-source.js';
import { at, JsonReader, type Path } from '../../lib/json-reader.js';

export const PARTIAL_SCHEMA = 'reconcile-shadow/partial/v1';
export const INPUT_KINDS = ['journal', 'logs', 'sidecar'] as const;
export type InputKind = (typeof INPUT_KINDS)[number];

/** One input a partial analysed, and which of its shards. */
export interface InputPart {
  readonly kind: InputKind;
  /** The path as given (`-` for stdin); for a sidecar, its instance and start time. */
  readonly name: string;
  readonly shards: Coverage;
}

/** A rejection with where it came in the input, so merged samples keep the input's order. */
export interface PositionedRejection extends Rejection {
  readonly input: string;
  /** The journal's line number; for a log, the rank of the source's output (attempts and rejections) it came with. */
  readonly position: number;
}

export interface EvidencePart {
  readonly counters: ControllerCounters;
  readonly timeline: TimelineState;
  /** The own evidence of the rules that declare it, in the list's order. */
  readonly rules: readonly RuleState[];
}

export interface ControllerPart {
  readonly cm: CompiledModel;
  readonly summary: SummaryState;
  /** The decisions' evidence; null when the run did not collect it (`analyze --workers` for a summary alone). */
  readonly evidence: EvidencePart | null;
}

export interface PartialState {
  readonly inputs: readonly InputPart[];
  readonly controllers: readonly ControllerPart[];
  readonly input: {
    readonly received: Readonly<Partial<Record<SourceKind, number>>>;
    readonly rejected: number;
    readonly rejectedByReason: Readonly<Partial<Record<RejectReason, number>>>;
    /** The first rejections (REJECTION_SAMPLE) by input, then position. */
    readonly rejectionSample: readonly PositionedRejection[];
    /** Books of sources that keep their own (logs), once per input: the shard that owns them is the input's shard 0. */
    readonly sources: readonly { readonly input: string; readonly summary: SourceInputSummary }[];
  };
}

// ---- encoding -------------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function encodePartial(p: PartialState): Json {
  return {
    schema: PARTIAL_SCHEMA,
    inputs: p.inputs.map((i) => ({ kind: i.kind, name: i.name, shards: { count: i.shards.count, indices: [...i.shards.indices] } })),
    controllers: p.controllers.map((c) => ({
      controller: c.cm.model.controller,
      model: modelDocument(c.cm.model) as unknown as Json,
      summary: c.summary as unknown as Json,
      evidence: c.evidence && {
        counters: encodeRecord(c.evidence.counters),
        timeline: encodeTimeline(c.evidence.timeline),
        ...(c.evidence.rules.length > 0 && { rules: Object.fromEntries(c.evidence.rules.map((s) => [s.rule, s.evidence.toJSON(s.state) as Json])) }),
      },
    })),
    input: {
      received: p.input.received as Json,
      rejected: p.input.rejected,
      rejectedByReason: p.input.rejectedByReason as Json,
      rejectionSample: p.input.rejectionSample as unknown as Json,
      sources: p.input.sources as unknown as Json,
    },
  };
}

function encodeVector(v: Uint32Array | Float64Array): Json {
  const nonZero: Json[] = [];
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) nonZero.push([i, v[i]!]);
  return { length: v.length, nonZero };
}

/** Counters: arrays sparse, ±Infinity (the window bounds of a loop never seen) as null, nested records alike. */
function encodeRecord(r: object): Json {
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(r)) {
    out[k] =
      v instanceof Uint32Array || v instanceof Float64Array
        ? encodeVector(v)
        : typeof v === 'number'
          ? Number.isFinite(v)
            ? v
            : null
          : encodeRecord(v as object);
  }
  return out;
}

function encodeTimeline(t: TimelineState): Json {
  return {
    maxBuckets: t.maxBuckets,
    widthMs: t.widthMs,
    first: t.first,
    buckets: t.buckets.map((b) => ({ attempts: b.attempts, starvedOps: b.starvedOps, longestSeconds: encodeVector(b.longestSeconds) })),
  };
}

// ---- decoding -------------------------------------------------------------------------------------------------

/**
 * Models already compiled, by their document's JSON text: a fleet reads the same model from every peer at every
 * interval, and compiling it is most of what reading a partial costs. Bounded by the caller (FleetState keeps one per
 * reading).
 */
export type ModelCache = Map<string, CompiledModel>;

/**
 * A partial from untrusted JSON text; throws a ValidationError naming every problem as `where:line field: message`.
 * `rules`: the list whose rules' own evidence the partial must carry (RULES by default; a test plants one).
 */
export function decodePartial(text: string, where: string, models?: ModelCache, rules: readonly Rule[] = RULES): PartialState {
  const r = new JsonReader(text, where, 'partial summary');
  const value = r.json();
  // The schema first, alone: a summary or a decisions report given by mistake is named as such, not field by field.
  const schema = r.mapping(value, []).schema;
  if (schema !== PARTIAL_SCHEMA)
    r.refuse(
      ['schema'],
      `expected "${PARTIAL_SCHEMA}", got ${JSON.stringify(schema)} (a summary of analyze --format json cannot be merged; make partials with --format partial)`,
    );
  const doc = r.record(value, [], ['schema', 'inputs', 'controllers', 'input']);
  const inputs = r.array(doc.inputs, ['inputs']).map((v, i) => decodeInput(r, v, ['inputs', i]));
  const controllers = r.array(doc.controllers, ['controllers']).map((v, i) => decodeController(r, v, ['controllers', i], models, rules));
  const input = r.record(doc.input, ['input'], ['received', 'rejected', 'rejectedByReason', 'rejectionSample', 'sources']);
  // Names are checked against the inputs only once those read.
  const names = r.ok(['inputs']) ? new Set(inputs.map((i) => i.name)) : undefined;
  const inputName = (v: unknown, path: Path): string => {
    const name = r.string(v, path);
    if (names && !names.has(name)) r.fail(path, `names no input of this partial (${[...names].join(', ')})`);
    return name;
  };
  const partial = {
    inputs,
    controllers,
    input: {
      received: r.counts(input.received, ['input', 'received'], SOURCE_KINDS),
      rejected: r.count(input.rejected, ['input', 'rejected']),
      rejectedByReason: r.counts(input.rejectedByReason, ['input', 'rejectedByReason'], REJECT_REASONS),
      rejectionSample: r.array(input.rejectionSample, ['input', 'rejectionSample']).map((v, i) => {
        const path = ['input', 'rejectionSample', i];
        const s = r.record(v, path, ['input', 'position', 'source', 'reason', 'where', 'message'], ['controller']);
        inputName(s.input, at(path, 'input'));
        r.count(s.position, at(path, 'position'));
        r.oneOf(s.source, at(path, 'source'), SOURCE_KINDS);
        r.oneOf(s.reason, at(path, 'reason'), REJECT_REASONS);
        for (const k of ['where', 'message', ...(s.controller === undefined ? [] : ['controller'])]) r.string(s[k], at(path, k));
        // Kept as written: the summary lists a rejection's fields in the order its source wrote them.
        return s as unknown as PositionedRejection;
      }),
      sources: r.array(input.sources, ['input', 'sources']).map((v, i) => {
        const path = ['input', 'sources', i];
        const s = r.record(v, path, ['input', 'summary']);
        return { input: inputName(s.input, at(path, 'input')), summary: decodeSourceSummary(r, s.summary, at(path, 'summary')) };
      }),
    },
  };
  r.done();
  // With no problem found, every controller read.
  return { ...partial, controllers: partial.controllers as ControllerPart[] };
}

function decodeInput(r: JsonReader, v: unknown, path: Path): InputPart {
  const i = r.record(v, path, ['kind', 'name', 'shards']);
  const s = r.record(i.shards, at(path, 'shards'), ['count', 'indices']);
  const countPath = at(path, 'shards', 'count');
  const count = r.count(s.count, countPath);
  if (count < 1) r.fail(countPath, 'expected at least 1');
  const indices = r.array(s.indices, at(path, 'shards', 'indices')).map((x, k) => r.count(x, at(path, 'shards', 'indices', k)));
  if (r.ok(countPath))
    indices.forEach((x, k) => {
      const p = at(path, 'shards', 'indices', k);
      const previous = at(path, 'shards', 'indices', k - 1);
      if (x >= count || (k > 0 && r.ok(previous) && x <= indices[k - 1]!)) r.fail(p, `expected ascending shard indices below ${count}, got ${x}`);
    });
  return { kind: r.oneOf(i.kind, at(path, 'kind'), INPUT_KINDS), name: r.string(i.name, at(path, 'name')), shards: { count, indices } };
}

/** The controller, or undefined when its model cannot be read (a problem noted: the rest of it cannot be checked). */
function decodeController(r: JsonReader, v: unknown, path: Path, models: ModelCache | undefined, rules: readonly Rule[]): ControllerPart | undefined {
  const c = r.record(v, path, ['controller', 'model', 'summary', 'evidence']);
  const modelPath = at(path, 'model');
  const text = JSON.stringify(r.mapping(c.model, modelPath));
  if (!r.ok(modelPath)) return undefined;
  let cm = models?.get(text);
  if (!cm) {
    const file = `${r.where}#${fieldName(modelPath)}`;
    try {
      cm = compileModel(parseModel(text, file));
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      // The model was read from one line of JSON: its problems' `file:1` says nothing; each field does.
      r.failEach(
        modelPath,
        e.problems.map((p) => `not a valid model: ${p.startsWith(`${file}:1 `) ? p.slice(file.length + 3) : p}`),
      );
      return undefined;
    }
    models?.set(text, cm);
  }
  if (c.controller !== cm.model.controller)
    r.fail(at(path, 'controller'), `expected the model's controller "${cm.model.controller}", got ${JSON.stringify(c.controller)}`);
  const evidence = c.evidence === null ? null : r.record(c.evidence, at(path, 'evidence'), ['counters', 'timeline'], ['rules']);
  return {
    cm,
    summary: decodeSummary(r, cm, c.summary, at(path, 'summary')),
    evidence: evidence && {
      counters: decodeCounters(r, emptyCounters(cm), evidence.counters, at(path, 'evidence', 'counters')),
      timeline: decodeTimeline(r, cm.ops.length, evidence.timeline, at(path, 'evidence', 'timeline')),
      rules: decodeRuleStates(r, cm, rules, evidence.rules, at(path, 'evidence', 'rules')),
    },
  };
}

function decodeSummary(r: JsonReader, cm: CompiledModel, v: unknown, path: Path): SummaryState {
  const s = r.record(v, path, ['attempts', 'window', 'objects', 'operations', 'blockedBy', 'reorderedPairs']);
  const a = r.record(s.attempts, at(path, 'attempts'), ['total', 'byObservedLoop', 'bySource', 'diverged', 'structural', 'partial']);
  const byLoop = r.record(a.byObservedLoop, at(path, 'attempts', 'byObservedLoop'), LOOP_KINDS);
  const w = r.record(s.window, at(path, 'window'), ['first', 'last']);
  const mark = (x: unknown, p: Path): TimeMark | null => {
    if (x === null) return null;
    const m = r.record(x, p, ['ms', 'text']);
    return { ms: r.number(m.ms, at(p, 'ms')), text: r.string(m.text, at(p, 'text')) };
  };
  const ops = r.array(s.operations, at(path, 'operations'));
  // Each entry is the model's operation of its index: with another number of them, none can be checked.
  if (ops.length !== cm.ops.length) r.fail(at(path, 'operations'), `expected the model's ${cm.ops.length} operations, got ${ops.length}`);
  const opName = (x: unknown, p: Path): string => {
    const name = r.string(x, p);
    if (!cm.opIndex.has(name)) r.fail(p, `no operation "${name}" in model ${cm.model.name}`);
    return name;
  };
  const groups = new Set(cm.groups.map((g) => g.name));
  const groupName = (x: unknown, p: Path): string => {
    const name = r.string(x, p);
    if (!groups.has(name)) r.fail(p, `no group "${name}" in model ${cm.model.name}`);
    return name;
  };
  return {
    attempts: {
      total: r.count(a.total, at(path, 'attempts', 'total')),
      byObservedLoop: {
        sequential: r.count(byLoop.sequential, at(path, 'attempts', 'byObservedLoop', 'sequential')),
        phased: r.count(byLoop.phased, at(path, 'attempts', 'byObservedLoop', 'phased')),
      },
      bySource: r.counts(a.bySource, at(path, 'attempts', 'bySource'), SOURCE_KINDS),
      diverged: r.count(a.diverged, at(path, 'attempts', 'diverged')),
      structural: r.count(a.structural, at(path, 'attempts', 'structural')),
      partial: r.count(a.partial, at(path, 'attempts', 'partial')),
    },
    window: { first: mark(w.first, at(path, 'window', 'first')), last: mark(w.last, at(path, 'window', 'last')) },
    objects: r.count(s.objects, at(path, 'objects')),
    operations: (ops.length === cm.ops.length ? ops : []).map((o, i) => {
      const p = at(path, 'operations', i);
      const op = r.record(o, p, [
        'name',
        'observed',
        'outcomes',
        'unblocked',
        'newlyBlocked',
        'structural',
        'predicted',
        'inconsistent',
        'blockers',
        'longestStarvation',
      ]);
      if (op.name !== cm.ops[i]) r.fail(at(p, 'name'), `expected the model's operation "${cm.ops[i]}", got ${JSON.stringify(op.name)}`);
      const outcomes = r.record(op.outcomes, at(p, 'outcomes'), ['ok', 'error', 'stop', 'skip']);
      const longest = op.longestStarvation === null ? null : r.record(op.longestStarvation, at(p, 'longestStarvation'), ['ms', 'object']);
      const state: OperationState = {
        name: cm.ops[i]!,
        observed: r.count(op.observed, at(p, 'observed')),
        outcomes: {
          ok: r.count(outcomes.ok, at(p, 'outcomes', 'ok')),
          error: r.count(outcomes.error, at(p, 'outcomes', 'error')),
          stop: r.count(outcomes.stop, at(p, 'outcomes', 'stop')),
          skip: r.count(outcomes.skip, at(p, 'outcomes', 'skip')),
        },
        unblocked: r.count(op.unblocked, at(p, 'unblocked')),
        newlyBlocked: r.count(op.newlyBlocked, at(p, 'newlyBlocked')),
        structural: r.count(op.structural, at(p, 'structural')),
        predicted: r.count(op.predicted, at(p, 'predicted')),
        inconsistent: r.count(op.inconsistent, at(p, 'inconsistent')),
        blockers: r.array(op.blockers, at(p, 'blockers')).map((b, k) => {
          const bp = at(p, 'blockers', k);
          const x = r.record(b, bp, ['blocker', 'count']);
          return { blocker: r.string(x.blocker, at(bp, 'blocker')), count: r.count(x.count, at(bp, 'count')) };
        }),
        longestStarvation: longest && {
          ms: r.number(longest.ms, at(p, 'longestStarvation', 'ms')),
          object: r.string(longest.object, at(p, 'longestStarvation', 'object')),
        },
      };
      return state;
    }),
    blockedBy: r.array(s.blockedBy, at(path, 'blockedBy')).map((b, k) => {
      const p = at(path, 'blockedBy', k);
      const x = r.record(b, p, ['blocker', 'blocked', 'count']);
      return { blocker: groupName(x.blocker, at(p, 'blocker')), blocked: groupName(x.blocked, at(p, 'blocked')), count: r.count(x.count, at(p, 'count')) };
    }),
    reorderedPairs: r.array(s.reorderedPairs, at(path, 'reorderedPairs')).map((b, k) => {
      const p = at(path, 'reorderedPairs', k);
      const x = r.record(b, p, ['first', 'second', 'count']);
      return { first: opName(x.first, at(p, 'first')), second: opName(x.second, at(p, 'second')), count: r.count(x.count, at(p, 'count')) };
    }),
  };
}

/** The own evidence of every rule of `rules` that declares it, each read by its rule; `v` undefined when the key is absent. */
function decodeRuleStates(r: JsonReader, cm: CompiledModel, rules: readonly Rule[], v: unknown, path: Path): RuleState[] {
  const declaring = rules.filter((rule) => rule.evidence);
  const names = declaring.map((rule) => rule.name);
  if (v === undefined) {
    if (names.length > 0) r.fail(path, `required (the rules with evidence of their own: ${names.join(', ')})`);
    return [];
  }
  if (names.length === 0) {
    r.fail(path, 'unknown field (no rule declares evidence of its own)');
    return [];
  }
  const json = r.record(v, path, names);
  return declaring.map((rule) => ({ rule: rule.name, evidence: rule.evidence!, state: rule.evidence!.fromJSON(r, json[rule.name], at(path, rule.name), cm) }));
}

/** Fills `template` (the model's empty counters) from JSON of the same shape. */
function decodeCounters(r: JsonReader, template: ControllerCounters, v: unknown, path: Path): ControllerCounters {
  fillRecord(r, template as unknown as Record<string, unknown>, v, path);
  return template;
}

function fillRecord(r: JsonReader, into: Record<string, unknown>, v: unknown, path: Path): void {
  const json = r.record(v, path, Object.keys(into));
  for (const [k, slot] of Object.entries(into)) {
    const p = at(path, k);
    if (slot instanceof Uint32Array || slot instanceof Float64Array) fillVector(r, slot, json[k], p);
    else if (typeof slot === 'number') {
      // A window bound is null before the first attempt (JSON has no infinities).
      if (json[k] === null && !Number.isFinite(slot)) continue;
      const n = r.number(json[k], p);
      if ((k === 'opCount' || k === 'groupCount') && n !== slot) r.fail(p, `expected the model's ${slot}, got ${n}`);
      into[k] = n;
    } else fillRecord(r, slot as Record<string, unknown>, json[k], p);
  }
}

function fillVector(r: JsonReader, into: Uint32Array | Float64Array, v: unknown, path: Path): void {
  const json = r.record(v, path, ['length', 'nonZero']);
  // The cells are the model's: with another length, no index can be checked.
  if (json.length !== into.length) return r.fail(at(path, 'length'), `expected the model's ${into.length} cells, got ${JSON.stringify(json.length)}`);
  let last = -1;
  r.array(json.nonZero, at(path, 'nonZero')).forEach((cell, k) => {
    const p = at(path, 'nonZero', k);
    const pair = r.array(cell, p);
    if (pair.length !== 2) return r.fail(p, 'expected [index, value]');
    const index = r.count(pair[0], at(p, 0));
    if (!r.ok(at(p, 0))) return;
    if (index <= last || index >= into.length) r.fail(at(p, 0), `expected an index above ${last} and below ${into.length}, got ${index}`);
    last = index;
    into[index] = into instanceof Uint32Array ? uint32(r, pair[1], at(p, 1)) : r.number(pair[1], at(p, 1));
  });
}

function uint32(r: JsonReader, v: unknown, path: Path): number {
  const n = r.count(v, path);
  if (n > 0xffffffff) r.fail(path, `expected a count below 2^32, got ${n}`);
  return n;
}

function decodeTimeline(r: JsonReader, opCount: number, v: unknown, path: Path): TimelineState {
  const t = r.record(v, path, ['maxBuckets', 'widthMs', 'first', 'buckets']);
  const maxBuckets = r.count(t.maxBuckets, at(path, 'maxBuckets'));
  if (maxBuckets < 2) r.fail(at(path, 'maxBuckets'), `expected at least 2, got ${maxBuckets}`);
  const widthMs = r.count(t.widthMs, at(path, 'widthMs'));
  const doublings = Math.log2(widthMs / 60_000);
  if (!Number.isInteger(doublings) || doublings < 0) r.fail(at(path, 'widthMs'), `expected one minute doubled a whole number of times, got ${widthMs}`);
  const first = r.number(t.first, at(path, 'first'));
  if (!Number.isInteger(first)) r.fail(at(path, 'first'), `expected an integer, got ${first}`);
  const buckets = r.array(t.buckets, at(path, 'buckets'));
  if (r.ok(at(path, 'maxBuckets')) && buckets.length > maxBuckets) r.fail(at(path, 'buckets'), `expected at most ${maxBuckets} buckets, got ${buckets.length}`);
  return {
    maxBuckets,
    widthMs,
    first,
    buckets: buckets.map((b, i) => {
      const p = at(path, 'buckets', i);
      const x = r.record(b, p, ['attempts', 'starvedOps', 'longestSeconds']);
      const longestSeconds = new Float64Array(opCount);
      fillVector(r, longestSeconds, x.longestSeconds, at(p, 'longestSeconds'));
      return { attempts: r.count(x.attempts, at(p, 'attempts')), starvedOps: r.count(x.starvedOps, at(p, 'starvedOps')), longestSeconds };
    }),
  };
}

/** A source's books (collector/records.ts SourceInputSummary): the counts checked, the statements kept as written. */
function decodeSourceSummary(r: JsonReader, v: unknown, path: Path): SourceInputSummary {
  const s = r.record(
    v,
    path,
    ['source', 'unit', 'received', 'analyzed', 'dropped', 'ignored', 'attempts', 'notes', 'loop', 'caveats'],
    ['sampledPeriods', 'unmappedSample'],
  );
  r.oneOf(s.source, at(path, 'source'), SOURCE_KINDS);
  r.string(s.unit, at(path, 'unit'));
  for (const k of ['received', 'analyzed', 'attempts']) r.count(s[k], at(path, k));
  for (const k of ['dropped', 'ignored', 'notes']) for (const [key, n] of Object.entries(r.mapping(s[k], at(path, k)))) r.count(n, at(path, k, key));
  r.record(s.loop, at(path, 'loop'), ['configured', 'current', 'decidedBy', 'statement']);
  r.array(s.caveats, at(path, 'caveats')).forEach((c, i) => r.string(c, at(path, 'caveats', i)));
  if (s.sampledPeriods !== undefined) r.array(s.sampledPeriods, at(path, 'sampledPeriods'));
  if (s.unmappedSample !== undefined) r.mapping(s.unmappedSample, at(path, 'unmappedSample'));
  return s as unknown as SourceInputSummary;
}
