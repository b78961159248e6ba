/**
 * The attempt journal: JSON Lines, one reconcile attempt per line, in execution order (a public contract).
 *   {"time","controller","object","generation","model":"sequential|phased","operations":[{"name","outcome","error?","durationSeconds?"}],
 *    "origin?":{"source","reconcileID?","where?","sampled?"}}
 * `origin` (optional) says where a derived attempt came from, e.g. `journal --logs` writes
 * `{"source":"logs","reconcileID":…,"where":"operator.log:12"}`; a line without it is the journal's own.
 * A bad line becomes a Rejection naming `file:line` and the field; it never stops the reading.
 */
import { LOOP_KINDS, OUTCOMES, type LoopKind, type Outcome } from '../../model/types.js';
import { SOURCE_KINDS, type AttemptOrigin, type AttemptRecord, type OperationRecord, type Rejection, type RejectReason, type SourceKind } from '../records.js';
import { isRecord } from '../../lib/is-record.js';

export const MAX_OPERATIONS_PER_ATTEMPT = 1000;
/** A namespace (63) + '/' + a name (253): longer is no Kubernetes object, and names are kept per tracked object. */
export const MAX_OBJECT_LENGTH = 317;

export interface JournalContext {
  /** Names reported in rejections, e.g. the file path or `-` for stdin. */
  readonly file: string;
  /** When given, an operation outside this set rejects the line. */
  readonly knownOperations?: ReadonlySet<string>;
  /** When given, a controller outside this set rejects the line (else the analyzer refuses it, without file:line). */
  readonly knownControllers?: ReadonlySet<string>;
  readonly source?: SourceKind;
}

export type ParsedLine = { ok: true; record: AttemptRecord } | { ok: false; rejection: Rejection };

class LineProblem extends Error {
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message);
  }
}

function problem(reason: RejectReason, message: string): never {
  throw new LineProblem(reason, message);
}

export function parseAttemptLine(text: string, lineNo: number, ctx: JournalContext): ParsedLine {
  const source = ctx.source ?? 'journal';
  const where = `${ctx.file}:${lineNo}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, rejection: { source, reason: 'invalid_json', where, message: `not JSON: ${(e as Error).message}` } };
  }
  try {
    return { ok: true, record: toAttempt(value, ctx, source) };
  } catch (e) {
    if (e instanceof LineProblem) return { ok: false, rejection: { source, reason: e.reason, where, message: e.message } };
    throw e;
  }
}

/** Validates one decoded journal value; shared with every source that accepts journal-shaped JSON. */
export function toAttempt(value: unknown, ctx: JournalContext, source: SourceKind = 'journal'): AttemptRecord {
  if (!isRecord(value)) problem('invalid_record', 'an attempt is a JSON object');
  // the journal's key for the loop is `model`, kept as the contract (test/fixtures/contract)
  const { time, controller, object, generation, model: loop, operations, origin } = value;
  if (typeof time !== 'string' || time === '') problem('invalid_record', 'time: required RFC 3339 string');
  const timeMs = Date.parse(time);
  if (Number.isNaN(timeMs)) problem('invalid_record', `time: ${JSON.stringify(time)} is not an RFC 3339 time`);
  if (typeof controller !== 'string' || controller === '') problem('invalid_record', 'controller: required string');
  if (ctx.knownControllers && !ctx.knownControllers.has(controller)) {
    problem('unknown_controller', `controller: no model describes "${controller}" (the models describe ${[...ctx.knownControllers].join(', ')})`);
  }
  if (typeof object !== 'string' || object === '') problem('invalid_record', 'object: required "namespace/name" string');
  if (object.length > MAX_OBJECT_LENGTH)
    problem('invalid_record', `object: ${object.length} characters; a Kubernetes namespace/name has at most ${MAX_OBJECT_LENGTH}`);
  if (generation !== undefined && (typeof generation !== 'number' || !Number.isInteger(generation) || generation < 0)) {
    problem('invalid_record', `generation: must be a non-negative integer, got ${JSON.stringify(generation)}`);
  }
  if (typeof loop !== 'string' || !(LOOP_KINDS as readonly string[]).includes(loop)) {
    problem('invalid_record', `model: must be sequential or phased, got ${JSON.stringify(loop)}`);
  }
  if (!Array.isArray(operations)) problem('invalid_record', 'operations: required list');
  if (operations.length > MAX_OPERATIONS_PER_ATTEMPT) {
    problem('too_many_operations', `operations: ${operations.length} exceeds the limit of ${MAX_OPERATIONS_PER_ATTEMPT}`);
  }
  const names = ctx.knownOperations && knownNames(ctx.knownOperations).forLoop(loop as LoopKind);
  const ops: OperationRecord[] = new Array<OperationRecord>(operations.length);
  for (let i = 0; i < operations.length; i++) ops[i] = toOperation(operations[i], i, names);
  const record: { -readonly [K in keyof AttemptRecord]: AttemptRecord[K] } = {
    time,
    timeMs,
    controller,
    object,
    loop: loop as LoopKind,
    operations: ops,
    origin: origin === undefined ? { source } : toOrigin(origin),
  };
  if (generation !== undefined) record.generation = generation;
  return record;
}

/**
 * The known operation names, each mapped to itself. Records carry these string objects instead of the ones JSON.parse
 * just made (which may be slices of the whole line): every later lookup by name (the analyzer's, the engine's) finds
 * its hash already computed and its key by identity, and a kept record holds no slice of its line.
 * Hashing each fresh name was the validator's largest cost, so the name a loop's previous attempt had at the same
 * position is tried first: a string comparison, and attempts of one loop list their operations in the same order.
 */
class KnownNames {
  private readonly byLoop: Readonly<Record<LoopKind, LoopNames>>;

  constructor(known: ReadonlySet<string>) {
    const byName = new Map([...known].map((n) => [n, n]));
    this.byLoop = { sequential: { byName, last: [] }, phased: { byName, last: [] } };
  }

  forLoop(loop: LoopKind): LoopNames {
    return this.byLoop[loop];
  }
}

interface LoopNames {
  readonly byName: ReadonlyMap<string, string>;
  /** The names of the loop's last attempt, by position: guesses only, each checked by comparison. */
  readonly last: string[];
}

const knownNamesBySet = new WeakMap<ReadonlySet<string>, KnownNames>();

function knownNames(known: ReadonlySet<string>): KnownNames {
  let names = knownNamesBySet.get(known);
  if (!names) knownNamesBySet.set(known, (names = new KnownNames(known)));
  return names;
}

/** The known name object equal to `name`, or undefined when it is not a known operation. */
function knownName(names: LoopNames, name: string, i: number): string | undefined {
  const guess = names.last[i];
  if (guess === name) return guess;
  const known = names.byName.get(name);
  if (known !== undefined) names.last[i] = known;
  return known;
}

/** The outcome as the constant of its name, or undefined for anything else. */
function knownOutcome(outcome: unknown): Outcome | undefined {
  switch (outcome) {
    case 'ok':
      return 'ok';
    case 'error':
      return 'error';
    case 'stop':
      return 'stop';
    case 'skip':
      return 'skip';
    default:
      return undefined;
  }
}

function toOperation(value: unknown, i: number, names: LoopNames | undefined): OperationRecord {
  if (!isRecord(value)) problem('invalid_record', `operations[${i}]: must be an object with name and outcome`);
  const { name, error, durationSeconds } = value;
  if (typeof name !== 'string' || name === '') problem('invalid_record', `operations[${i}].name: required string`);
  const known = names && knownName(names, name, i);
  if (names && known === undefined) problem('unknown_operation', `operations[${i}].name: unknown operation ${JSON.stringify(name)}`);
  const outcome = knownOutcome(value.outcome);
  if (outcome === undefined) {
    problem('invalid_record', `operations[${i}].outcome: must be one of ${OUTCOMES.join('|')}, got ${JSON.stringify(value.outcome)}`);
  }
  if (error !== undefined && typeof error !== 'string') problem('invalid_record', `operations[${i}].error: must be a string`);
  if (durationSeconds !== undefined && (typeof durationSeconds !== 'number' || !(durationSeconds >= 0))) {
    problem('invalid_record', `operations[${i}].durationSeconds: must be a non-negative number`);
  }
  // one literal per shape: adding properties to an object after it is made costs a shape transition each
  const n = known ?? name;
  if (error === undefined) return durationSeconds === undefined ? { name: n, outcome } : { name: n, outcome, durationSeconds };
  return durationSeconds === undefined ? { name: n, outcome, error } : { name: n, outcome, error, durationSeconds };
}

/** A line's `origin`: the source it was derived from, and where in that source's input. */
function toOrigin(value: unknown): AttemptOrigin {
  if (!isRecord(value)) problem('invalid_record', 'origin: must be an object with a source');
  const { source, reconcileID, where, sampled } = value;
  if (typeof source !== 'string' || !(SOURCE_KINDS as readonly string[]).includes(source)) {
    problem('invalid_record', `origin.source: must be one of ${SOURCE_KINDS.join('|')}, got ${JSON.stringify(source)}`);
  }
  if (reconcileID !== undefined && (typeof reconcileID !== 'string' || reconcileID === ''))
    problem('invalid_record', 'origin.reconcileID: must be a non-empty string');
  if (where !== undefined && (typeof where !== 'string' || where === '')) problem('invalid_record', 'origin.where: must be a non-empty string');
  if (sampled !== undefined && typeof sampled !== 'boolean') problem('invalid_record', 'origin.sampled: must be a boolean');
  return {
    source: source as SourceKind,
    ...(reconcileID === undefined ? {} : { reconcileID }),
    ...(where === undefined ? {} : { where }),
    ...(sampled === true ? { sampled } : {}),
  };
}

/** The journal line for a record (what `simulate` writes and sources can tee). */
export function formatAttemptLine(a: AttemptRecord): string {
  return JSON.stringify(journalLine(a));
}

/** The journal line for a record a source derived, with its `origin` (what `journal --logs` writes). */
export function formatDerivedAttemptLine(a: AttemptRecord): string {
  const o = a.origin;
  const origin = {
    source: o.source,
    ...(o.reconcileID === undefined ? {} : { reconcileID: o.reconcileID }),
    ...(o.where === undefined ? {} : { where: o.where }),
    ...(o.sampled ? { sampled: true } : {}),
  };
  return JSON.stringify({ ...journalLine(a), origin });
}

function journalLine(a: AttemptRecord): object {
  return {
    time: a.time,
    controller: a.controller,
    object: a.object,
    ...(a.generation === undefined ? {} : { generation: a.generation }),
    model: a.loop,
    operations: a.operations,
  };
}
