/**
 * Turns what one attempt wrote (its log lines, or a status condition's text) into the operation outcomes it proves,
 * and nothing more: an operation the texts do not settle is left out of the record, and the engine predicts it.
 * Shared by the log source and the status source. Everything an operation's error does to a loop is read from the
 * model (`model/effects.ts`); nothing here knows HyperShift.
 *
 * How a text is read (HyperShift reference sections 1, 2.1 and 6):
 * - The error is taken apart into its messages: zap's errorCauses when present (exact), else the aggregate's shape;
 *   a `critical error: …; blocked operations: […]` text is split into its critical errors and blocked groups.
 *   Messages that are no operation's (the Reconcile() wrapper's status-update conflict, by shape) are set aside.
 * - Each message is mapped to the operations whose outermost format matches it (ErrorMapper). A format shared by
 *   several operations gives several candidates; a message no format matches is unknown (it may be any operation's).
 * - A *reading* assigns one candidate to every mapped message. Each reading is built under a loop, and refused when
 *   the loop cannot have written the texts that way (e.g. the sequential loop returns one operation's error; the phased
 *   loop writes `critical error:` exactly when a critical group failed; a blocked list must be the blockable groups
 *   after the first critical failure; a summary names every failed critical group).
 * - The record states what every consistent reading agrees on. When several readings remain, the attempt is
 *   ambiguous: only their common outcomes are stated, and it is counted (never credited to one candidate).
 * - A loop is *proven* by an attempt when only that loop has a consistent reading: the other loop cannot have written
 *   those lines. A lone error in a report group fits both loops and proves nothing.
 */
import { consequencesOf, errorEffect, formatsIn, inLoop, phasedPlaces, type PhasedPlace } from '../../model/effects.js';
import type { ErrorFormat, GroupStep, LoopKind, ModelOperation, Outcome, ReconcileModel } from '../../model/types.js';
import { BoundedMemo, ShapeReading, SubstitutedReading, messagesOf, textsKey, type AttemptReading } from './attempt-readings.js';
import { ErrorMapper, NonOperationErrors, parseLogSummary, parseReconcileError, type FormatMatch, type FormatSelection } from './error-mapping.js';
import type { OperationRecord, SourceNote } from '../records.js';

/** What one attempt wrote; each part may be missing (not written, or sampled away). */
export interface AttemptTexts {
  /** The reconciler's own `successfully reconciled` (or a status condition that is True). */
  readonly success: boolean;
  /** `summary` of the phased loop's `reconciliation completed with errors`. */
  readonly summary?: string;
  /** The returned error's text (`Reconciler error`, or a False condition's message). */
  readonly error?: string;
  /** The innermost messages of the error's zap `errorCauses`, when the logger wrote them. */
  readonly errorCauses?: readonly string[];
  /** Lines that report one operation's outcome while the attempt runs (a silent stop, an error the loop went on after). */
  readonly progress?: readonly ProgressText[];
  /** Lines of this attempt may be missing (the logger may have sampled them away). */
  readonly incomplete?: boolean;
}

export interface ProgressText {
  /** The operation the line reports on (from the log patterns). */
  readonly op: string;
  readonly outcome: 'error' | 'stop';
  /** The line's error text, when it carries one. */
  readonly error?: string;
}

export type UnmappedWhy = 'no_format' | 'ambiguous' | 'outside_loop' | 'inconsistent';

export interface UnmappedMessage {
  readonly message: string;
  readonly why: UnmappedWhy;
  /** A sentence for the summary: what matched, or why the match was refused. */
  readonly detail: string;
}

/** A name in a summary or blocked list that is not a group or operation of the model. */
export interface UnknownName {
  readonly list: 'blocked operations' | 'critical failures';
  readonly name: string;
}

/** An attempt read under one loop. */
export interface BuiltAttempt {
  /** What every consistent reading agrees on, in the loop's order. */
  readonly operations: OperationRecord[];
  /** No reading fits the texts under this loop (the record then states nothing). */
  readonly consistent: boolean;
  /** Why not, when inconsistent. */
  readonly inconsistency?: string;
  /** Several readings fit, differing in what they state: only their common outcomes are in `operations`. */
  readonly ambiguous: boolean;
  /** A message with several candidates that the other evidence settled on one operation. */
  readonly resolved: boolean;
  readonly unmapped: UnmappedMessage[];
  readonly unknownNames: UnknownName[];
  /** Messages set aside as no operation's (status-update conflicts and the like). */
  readonly nonOperation: number;
}

/** One message of the returned error, with its readings under each loop. */
interface Element {
  readonly message: string;
  readonly candidates: Readonly<Record<LoopKind, readonly FormatMatch[]>>;
}

/** The texts of an attempt taken apart once, then read under either loop. */
export interface Interpretation {
  readonly texts: AttemptTexts;
  /** The error is aggregate()'s `critical error: …`. */
  readonly critical: boolean;
  readonly elements: readonly Element[];
  /** The blocked list of the `critical error:` text; undefined when the text has none. */
  readonly textBlocked?: readonly string[];
  readonly summary?: { readonly critical: readonly string[]; readonly blocked: readonly string[] };
  readonly nonOperation: number;
}

/** A reading's assignment: per element, its operation and format, or undefined for a message no format matches. */
type Reading = readonly (FormatMatch | undefined)[];

type Built = { readonly ok: true; readonly operations: Map<string, OperationRecord> } | { readonly ok: false; readonly why: string };

/** More readings than this are not enumerated: messages with several candidates are then read as unknown. */
const MAX_READINGS = 64;
/**
 * Texts read before, remembered with what they say (reading is a pure function of the texts): most attempts write the
 * same few texts (`successfully reconciled`, a conflict after it), and reading one is the log source's largest cost.
 * Shapes (attempt-readings.ts) are kept as well: texts of a known shape are read by putting their messages into it.
 */
const MEMO_SIZE = 2048;
const SHAPES_SIZE = 1024;

/** Each loop's formats: a format marked `only:` is a text an error of the operation starts with in that loop alone. */
const LOOP_FORMATS: Readonly<Record<LoopKind, FormatSelection>> = { sequential: (f) => inLoop(f, 'sequential'), phased: (f) => inLoop(f, 'phased') };
const BOTH_LOOPS = [LOOP_FORMATS.sequential, LOOP_FORMATS.phased];
/** A model's compiled formats, shared by every builder of the model (a mapper is never changed once built). */
const mappersByModel = new WeakMap<ReconcileModel, ErrorMapper>();

const withOutcome = (name: string, outcome: Outcome, error?: string): OperationRecord => (error === undefined ? { name, outcome } : { name, outcome, error });

export interface AttemptBuilderOptions {
  /** Go formats of errors that are no operation's (e.g. the Reconcile() wrapper's status-update conflict). */
  readonly nonOperationErrors?: readonly string[];
  /** Operations whose errors the loop goes on after are always logged (a progress line): no such line means none. */
  readonly loggedContinues?: ReadonlySet<string>;
}

export class AttemptBuilder {
  private readonly mapper: ErrorMapper;
  private readonly nonOperation: NonOperationErrors;
  private readonly ops: ReadonlyMap<string, ModelOperation>;
  private readonly places: ReadonlyMap<string, PhasedPlace>;
  private readonly sequentialOrder: readonly string[];
  private readonly inSequential: ReadonlySet<string>;
  private readonly phasedSteps: readonly (string | GroupStep)[];
  private readonly groupByName: ReadonlyMap<string, GroupStep>;
  private readonly stepIndex: ReadonlyMap<string | GroupStep, number>;
  private readonly loggedContinues: ReadonlySet<string>;
  private readonly orders: Readonly<Record<LoopKind, readonly string[]>>;
  /** Per loop, the operations that may fail without a trace (their error can leave the loop going, uncollected). */
  private readonly silent: Readonly<Record<LoopKind, ReadonlySet<string>>>;
  private readonly memo = new BoundedMemo<AttemptReading>(MEMO_SIZE);
  /**
   * Readings of texts that are at most one error, per (success, incomplete, the error is its own lone cause):
   * without an error, and by the error.
   */
  private readonly plainNoError: (AttemptReading | undefined)[] = new Array<AttemptReading | undefined>(8).fill(undefined);
  private readonly plainByError: (BoundedMemo<AttemptReading> | undefined)[] = new Array<BoundedMemo<AttemptReading> | undefined>(8).fill(undefined);
  private readonly shapes = new BoundedMemo<ShapeReading>(SHAPES_SIZE);
  /** A number per error format, for shape keys (formats are the model's objects). */
  private readonly formatIds = new Map<ErrorFormat, number>();
  private readonly buildUnder = (loop: LoopKind, i: Interpretation): BuiltAttempt => this.build(loop, i);
  /** One frozen `ok` record per operation, shared by every record that states it (records are never changed). */
  private readonly okRecords: ReadonlyMap<string, OperationRecord>;

  constructor(
    private readonly model: ReconcileModel,
    options: AttemptBuilderOptions = {},
  ) {
    let mapper = mappersByModel.get(model);
    if (!mapper) mappersByModel.set(model, (mapper = new ErrorMapper(model)));
    this.mapper = mapper;
    this.nonOperation = new NonOperationErrors(options.nonOperationErrors ?? []);
    this.loggedContinues = options.loggedContinues ?? new Set();
    this.ops = new Map(model.operations.map((o) => [o.name, o]));
    this.places = phasedPlaces(model);
    this.sequentialOrder = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
    this.inSequential = new Set(this.sequentialOrder);
    this.phasedSteps = model.phased.map((s) => (s.kind === 'op' ? s.op : s));
    this.stepIndex = new Map(this.phasedSteps.map((s, i) => [s, i]));
    this.groupByName = new Map(model.phased.filter((s): s is GroupStep => s.kind === 'group').map((g) => [g.group, g]));
    this.okRecords = new Map(model.operations.map((o) => [o.name, Object.freeze({ name: o.name, outcome: 'ok' as const })]));
    this.orders = { sequential: this.sequentialOrder, phased: this.phasedSteps.flatMap((s) => (typeof s === 'string' ? [s] : s.ops)) };
    const silentIn = (loop: LoopKind): Set<string> =>
      new Set(model.operations.filter((o) => this.runsIn(o.name, loop) && this.mayFailSilently(o, loop)).map((o) => o.name));
    this.silent = { sequential: silentIn('sequential'), phased: silentIn('phased') };
  }

  /**
   * The texts taken apart, to be read under either loop (AttemptReading.under). The same texts read the same, and
   * texts of the same shape alike, so readings are remembered (attempt-readings.ts).
   */
  reading(texts: AttemptTexts): AttemptReading {
    // Most attempts write at most one error text (zap writes a lone error's cause as the error itself) and nothing
    // else: their readings are kept by that text (a string the caller usually holds already, its hash computed),
    // without making the texts' key.
    const causes = texts.errorCauses;
    const loneCause = causes !== undefined && causes.length === 1 && causes[0] === texts.error;
    if (texts.summary === undefined && (causes === undefined || loneCause) && (texts.progress === undefined || texts.progress.length === 0)) {
      const flags = (texts.success ? 1 : 0) + (texts.incomplete === true ? 2 : 0) + (loneCause ? 4 : 0);
      if (texts.error === undefined) return (this.plainNoError[flags] ??= this.read(texts));
      const memo = (this.plainByError[flags] ??= new BoundedMemo<AttemptReading>(MEMO_SIZE));
      let reading = memo.get(texts.error);
      if (reading === undefined) memo.set(texts.error, (reading = this.read(texts)));
      return reading;
    }
    const key = textsKey(texts);
    let reading = this.memo.get(key);
    if (reading === undefined) this.memo.set(key, (reading = this.read(texts)));
    return reading;
  }

  /** The texts taken apart, and their reading: a new one, or one of the same shape's with these texts' messages. */
  private read(texts: AttemptTexts): AttemptReading {
    const interpretation = this.interpret(texts);
    const shapeKey = this.shapeKey(interpretation);
    const shape = this.shapes.get(shapeKey);
    if (shape) return new SubstitutedReading(interpretation, shape, this.buildUnder);
    const first = new ShapeReading(interpretation, this.buildUnder);
    this.shapes.set(shapeKey, first);
    return first;
  }

  /**
   * Everything a reading depends on but the wording of the messages: the texts' structure, the formats each message
   * matches under each loop, and which messages are the same text (a reading compares them).
   */
  private shapeKey(i: Interpretation): string {
    const t = i.texts;
    let key = `${t.success ? 'S' : 's'}${t.incomplete === true ? 'I' : 'i'}${t.summary === undefined ? 'm' : 'M'}${t.error === undefined ? 'e' : 'E'}`;
    key += `${i.critical ? 'C' : 'c'}${i.nonOperation}|${i.textBlocked ? JSON.stringify(i.textBlocked) : '~'}|${i.summary ? JSON.stringify(i.summary) : '~'}`;
    const messages = messagesOf(i);
    const sameAs = (k: number): number => messages.indexOf(messages[k]!);
    i.elements.forEach((e, k) => {
      key += `|${this.matchesKey(e.candidates.sequential)}/${this.matchesKey(e.candidates.phased)}=${sameAs(k)}`;
    });
    let m = i.elements.length;
    for (const p of t.progress ?? []) {
      key += `|${p.op.length}:${p.op}${p.outcome}`;
      if (p.error === undefined) continue;
      const [seq, ph] = this.mapper.mapEach(p.error, BOTH_LOOPS).map((matches) => this.formatId(matches.find((x) => x.operation === p.op)?.format));
      key += `=${sameAs(m++)}#${seq}#${ph}`;
    }
    return key;
  }

  private matchesKey(matches: readonly FormatMatch[]): string {
    return matches.map((x) => `${x.operation}#${this.formatId(x.format)}`).join(',');
  }

  private formatId(format: ErrorFormat | undefined): number {
    if (format === undefined) return -1;
    let id = this.formatIds.get(format);
    if (id === undefined) this.formatIds.set(format, (id = this.formatIds.size));
    return id;
  }

  /** Takes the texts apart: the error's messages (non-operation ones set aside), each mapped under both loops. */
  interpret(texts: AttemptTexts): Interpretation {
    const leaves =
      texts.errorCauses && texts.errorCauses.length > 0
        ? [...new Set(texts.errorCauses)]
        : texts.error === undefined
          ? []
          : this.mapper.splitAggregate(texts.error);
    let critical = false;
    let textBlocked: readonly string[] | undefined;
    let nonOperation = 0;
    const messages: string[] = [];
    for (const leaf of leaves) {
      if (this.nonOperation.matches(leaf)) {
        nonOperation++;
        continue;
      }
      const parsed = parseReconcileError(leaf, this.mapper);
      if (parsed.critical) {
        critical = true;
        textBlocked = parsed.blocked ?? [];
      }
      for (const m of parsed.errors) {
        if (this.nonOperation.matches(m)) nonOperation++;
        else messages.push(m);
      }
    }
    const elements = messages.map((message) => ({ message, candidates: this.candidates(message) }));
    const summary = texts.summary === undefined ? undefined : parseLogSummary(texts.summary);
    return { texts, critical, elements, ...(textBlocked ? { textBlocked } : {}), ...(summary ? { summary } : {}), nonOperation };
  }

  /** The attempt read under each loop. A loop whose reading is consistent while the other's is not is proven. */
  buildBoth(i: Interpretation): Readonly<Record<LoopKind, BuiltAttempt>> {
    return { sequential: this.build('sequential', i), phased: this.build('phased', i) };
  }

  /** The attempt read under `loop`: what every consistent reading states. */
  build(loop: LoopKind, i: Interpretation): BuiltAttempt {
    const unmapped: UnmappedMessage[] = [];
    const unknownNames = this.unknownNames(i);
    for (const e of i.elements) {
      if (e.candidates[loop].length > 0) continue;
      const elsewhere = e.candidates[loop === 'sequential' ? 'phased' : 'sequential'];
      unmapped.push(
        elsewhere.length > 0
          ? { message: e.message, why: 'outside_loop', detail: `maps to ${names(elsewhere)}, which the ${loop} loop does not return` }
          : { message: e.message, why: 'no_format', detail: `no error format of model ${this.model.name} matches` },
      );
    }
    const readings = this.readings(i, loop);
    const results = readings.map((r) => ({ r, built: this.buildReading(loop, i, r) }));
    const fitting = results.flatMap(({ r, built }) => (built.ok ? [{ r, operations: built.operations }] : []));
    const base = { unmapped, unknownNames, nonOperation: i.nonOperation };
    if (fitting.length === 0) {
      const why = results.find((x) => !x.built.ok)?.built;
      const inconsistency = why && !why.ok ? why.why : 'no reading fits';
      for (const e of i.elements) if (e.candidates[loop].length > 0) unmapped.push({ message: e.message, why: 'inconsistent', detail: inconsistency });
      return { ...base, operations: [], consistent: false, inconsistency, ambiguous: false, resolved: false };
    }
    const operations = this.agreed(
      loop,
      fitting.map((f) => f.operations),
    );
    let ambiguous = false;
    let resolved = false;
    i.elements.forEach((e, k) => {
      if (e.candidates[loop].length < 2) return;
      const ops = new Set(fitting.map((f) => f.r[k]?.operation ?? '?'));
      if (ops.size > 1) {
        ambiguous = true;
        unmapped.push({
          message: e.message,
          why: 'ambiguous',
          detail: `a format shared by ${[...ops].join(', ')}; the attempt's other lines do not say which`,
        });
      } else resolved = true;
    });
    return { ...base, operations, consistent: true, ambiguous, resolved };
  }

  /** Candidates of `message` under each loop: its formats that the loop writes, of operations the loop runs. */
  private candidates(message: string): Record<LoopKind, readonly FormatMatch[]> {
    const [sequential, phased] = this.mapper.mapEach(message, BOTH_LOOPS);
    return { sequential: sequential!.filter((m) => this.runsIn(m.operation, 'sequential')), phased: phased!.filter((m) => this.runsIn(m.operation, 'phased')) };
  }

  private runsIn(op: string, loop: LoopKind): boolean {
    return loop === 'sequential' ? this.inSequential.has(op) : this.places.get(op)?.kind !== 'absent';
  }

  /**
   * Every assignment of candidates to messages. A message without candidates in this loop but with some in the other
   * cannot be this loop's: no reading. One without any is unknown in every reading.
   */
  private readings(i: Interpretation, loop: LoopKind): Reading[] {
    let out: (FormatMatch | undefined)[][] = [[]];
    for (const e of i.elements) {
      const here = e.candidates[loop];
      if (here.length === 0) {
        const other = e.candidates[loop === 'sequential' ? 'phased' : 'sequential'];
        if (other.length > 0) return [];
        out = out.map((r) => [...r, undefined]);
        continue;
      }
      const next = out.flatMap((r) => here.map((m) => [...r, m]));
      out = next.length <= MAX_READINGS ? next : out.map((r) => [...r, undefined]);
    }
    return out;
  }

  private buildReading(loop: LoopKind, i: Interpretation, r: Reading): Built {
    return loop === 'sequential' ? this.sequentialReading(i, r) : this.phasedReading(i, r);
  }

  // ---- the sequential loop: it runs its operations in order and returns the first error ----

  private sequentialReading(i: Interpretation, r: Reading): Built {
    const { texts } = i;
    if (i.critical || texts.summary !== undefined) return refuse('a phased-loop line (its summary, or "critical error: …") in a sequential attempt');
    const mapped = r.filter((m): m is FormatMatch => m !== undefined);
    if (mapped.length > 1)
      return refuse(`the sequential loop returns one operation's error, but the text carries errors of ${mapped.map((m) => m.operation).join(', ')}`);
    let end: { op: string; outcome: 'error' | 'stop'; message?: string } | undefined;
    const [failing] = mapped;
    if (failing) {
      const effect = this.effect(failing.operation, 'sequential', failing.format);
      if (effect !== 'end') return refuse(`${failing.operation}'s error does not end the sequential loop (${effect}), so it is never the returned error`);
      end = { op: failing.operation, outcome: 'error', message: i.elements[r.indexOf(failing)]!.message };
    }
    const progress = this.progressIn('sequential', texts);
    if (!progress.ok) return progress;
    for (const stop of progress.stops) {
      if (end && (end.op !== stop.op || end.outcome !== 'stop')) return refuse(`${stop.op} stopped the attempt silently, but it also ended at ${end.op}`);
      end = { op: stop.op, outcome: 'stop' };
    }
    if (texts.success && end) return refuse(`"successfully reconciled" after ${end.op} ended the attempt`);
    const order = this.sequentialOrder;
    const errors = progress.errors;
    let reached: number;
    if (texts.success) reached = order.length;
    else if (end) reached = order.indexOf(end.op);
    else reached = Math.max(-1, ...[...errors.keys()].map((op) => order.indexOf(op)));
    for (const op of errors.keys())
      if (order.indexOf(op) > reached && !(end && op === end.op)) return refuse(`${op} went on after its error, but the attempt ended before it`);
    const records = new Map<string, OperationRecord>();
    for (let k = 0; k < reached; k++) this.claimPassed(order[k]!, 'sequential', errors, texts, records);
    if (end) records.set(end.op, withOutcome(end.op, end.outcome, end.message));
    else if (reached >= 0 && !texts.success) this.claimPassed(order[reached]!, 'sequential', errors, texts, records);
    this.dropConsequences(records, progress.formats, failing ? new Map([[failing.operation, failing.format]]) : undefined);
    return { ok: true, operations: records };
  }

  // ---- the phased loop: fail-fast steps, then report groups, then the summary and aggregate() ----

  private phasedReading(i: Interpretation, r: Reading): Built {
    const { texts } = i;
    const progress = this.progressIn('phased', texts);
    if (!progress.ok) return progress;
    const mapped = r.flatMap((m, k) => (m ? [{ ...m, message: i.elements[k]!.message, place: this.places.get(m.operation)! }] : []));
    const failFast = mapped.filter((m) => m.place.kind === 'failFast');
    const failFastStops = progress.stops.filter((s) => this.places.get(s.op)?.kind === 'failFast');
    const endsEarly = failFast.length > 0 || failFastStops.length > 0;
    const loopEnded = texts.success || texts.summary !== undefined || i.critical || mapped.some((m) => m.place.kind === 'group');

    if (endsEarly) {
      if (loopEnded || failFast.length + failFastStops.length > 1 || mapped.length > failFast.length) {
        return refuse("a fail-fast step's error or stop ends the phased loop at once; nothing else can be in its texts");
      }
      const end = failFast[0]
        ? { op: failFast[0].operation, outcome: 'error' as const, message: failFast[0].message, format: failFast[0].format }
        : { op: failFastStops[0]!.op, outcome: 'stop' as const };
      if (end.outcome === 'error') {
        const effect = this.effect(end.op, 'phased', end.format);
        if (effect !== 'end') return refuse(`${end.op}'s error does not end the phased loop (${effect}), so it is never the returned error`);
      }
      return this.phasedFailFastEnd(end.op, end.outcome, 'message' in end ? end.message : undefined, progress, texts, failFast[0]?.format);
    }

    if (!loopEnded) {
      // Only unknown messages, set-aside ones, or progress lines: the attempt went at least as far as its progress
      // lines, and an unknown message may be any step's.
      const steps = this.failFastSteps();
      const reached = Math.max(-1, ...[...progress.errors.keys()].map((op) => steps.indexOf(op)));
      const records = new Map<string, OperationRecord>();
      for (let k = 0; k <= reached; k++) this.claimPassed(steps[k]!, 'phased', progress.errors, texts, records);
      this.dropConsequences(records, progress.formats);
      return { ok: true, operations: records };
    }
    return this.phasedLoopEnd(i, mapped, progress);
  }

  private phasedFailFastEnd(
    op: string,
    outcome: 'error' | 'stop',
    message: string | undefined,
    progress: ProgressRead,
    texts: AttemptTexts,
    format?: ErrorFormat,
  ): Built {
    const steps = this.failFastSteps();
    const at = steps.indexOf(op);
    for (const e of progress.errors.keys())
      if (steps.indexOf(e) > at || steps.indexOf(e) < 0) return refuse(`${e} went on after its error, but the attempt ended at ${op}`);
    const records = new Map<string, OperationRecord>();
    for (let k = 0; k < at; k++) this.claimPassed(steps[k]!, 'phased', progress.errors, texts, records);
    records.set(op, withOutcome(op, outcome, message));
    this.dropConsequences(records, progress.formats, outcome === 'error' ? new Map([[op, format]]) : undefined);
    return { ok: true, operations: records };
  }

  private phasedLoopEnd(i: Interpretation, mapped: readonly (FormatMatch & { message: string; place: PhasedPlace })[], progress: ProgressRead): Built {
    const { texts } = i;
    const summaryCritical = i.summary?.critical ?? [];
    const criticalRun = i.critical || summaryCritical.length > 0;
    if (texts.success && (mapped.length > 0 || criticalRun)) return refuse('"successfully reconciled" with an operation\'s error in the same attempt');
    if (!i.critical && summaryCritical.length > 0 && mapped.length > 0)
      return refuse('the summary names a critical failure, but the error text is not "critical error: …"');
    const failedOps = new Map<string, { message: string; format: ErrorFormat }>();
    const failedCritical = new Set<GroupStep>();
    for (const m of mapped) {
      if (m.place.kind !== 'group') return refuse(`${m.operation} is a fail-fast step, whose error ends the attempt before the loop's end`);
      const group = m.place.group;
      if (criticalRun && group.category !== 'critical')
        return refuse(`${m.operation} is in non-critical group ${group.group}, and a critical failure drops non-critical errors from the text`);
      if (!criticalRun && group.category === 'critical')
        return refuse(`${m.operation} is in critical group ${group.group}, whose failure would make the text "critical error: …"`);
      if (failedOps.has(m.operation)) return refuse(`${m.operation} returns one error per attempt, but two messages are read as its`);
      failedOps.set(m.operation, { message: m.message, format: m.format });
      if (group.category === 'critical') failedCritical.add(group);
    }
    const named = this.groupsNamed(summaryCritical);
    if (i.summary) {
      for (const g of failedCritical) if (!named.has(g)) return refuse(`${g.group} failed, but the summary's critical failures do not list it`);
      for (const g of named) failedCritical.add(g);
    }
    const unknownElements = i.elements.length - mapped.length;
    // Without a critical failure, an unknown message is a non-critical group's; with one, a critical group's.
    const criticalSettled = !criticalRun || i.summary !== undefined || (texts.error !== undefined && unknownElements === 0);
    const nonCriticalComplete = !criticalRun && (texts.success || (texts.error !== undefined && unknownElements === 0));
    const firstFailure = criticalSettled && failedCritical.size > 0 ? Math.min(...[...failedCritical].map((g) => this.stepIndex.get(g)!)) : undefined;
    const listed = i.textBlocked ?? (i.summary ? i.summary.blocked : undefined);
    const listedBlocked = listed === undefined ? undefined : this.groupsNamed(listed);
    if (listedBlocked && firstFailure !== undefined) {
      const expected = this.phasedSteps.filter((s, k): s is GroupStep => typeof s !== 'string' && s.blockable && k > firstFailure);
      if (expected.length !== listedBlocked.size || expected.some((g) => !listedBlocked.has(g))) {
        return refuse(`blocked groups [${[...listedBlocked].map((g) => g.group).join(', ')}] are not the blockable groups after the first critical failure`);
      }
    }
    for (const s of progress.stops) if (this.places.get(s.op)?.kind !== 'group') return refuse(`${s.op} stopped silently, but the loop reached its end`);

    const records = new Map<string, OperationRecord>();
    for (const step of this.failFastSteps()) this.claimPassed(step, 'phased', progress.errors, texts, records);
    const stops = new Set(progress.stops.map((s) => s.op));
    this.phasedSteps.forEach((step, k) => {
      if (typeof step === 'string') return;
      const afterFailure = criticalRun && (firstFailure !== undefined ? k > firstFailure : listedBlocked?.has(step) === true);
      if (step.blockable && (listedBlocked ? listedBlocked.has(step) : afterFailure)) return;
      if (step.skipWhenBlocked && afterFailure) {
        for (const op of step.ops) records.set(op, withOutcome(op, 'skip'));
        return;
      }
      if (step.category === 'critical') {
        const known = step.ops.some((op) => failedOps.has(op));
        // A group the summary names as failed without a message that says where: a one-operation group says it.
        if (failedCritical.has(step) && !known && step.ops.length === 1) records.set(step.ops[0]!, withOutcome(step.ops[0]!, 'error'));
        else if (failedCritical.has(step)) this.groupOutcomes(step, failedOps, stops, texts.error !== undefined && unknownElements === 0, records);
        else if (criticalSettled) this.groupOutcomes(step, failedOps, stops, true, records);
      } else if (!criticalRun) this.groupOutcomes(step, failedOps, stops, nonCriticalComplete, records);
    });
    this.dropConsequences(records, progress.formats, new Map([...failedOps].map(([op, f]) => [op, f.format])));
    return { ok: true, operations: records };
  }

  /**
   * A group's ops in order: a listed failure is `error`, a silent stop `stop`, and an op whose effect ends the group
   * ends it; the others ran `ok` when the group's errors are all known (`complete`), or, in a chain, when they came
   * before a known failure (a chain stops at its first error).
   */
  private groupOutcomes(
    group: GroupStep,
    failed: ReadonlyMap<string, { message: string; format: ErrorFormat }>,
    stops: ReadonlySet<string>,
    complete: boolean,
    records: Map<string, OperationRecord>,
  ): void {
    const firstFailure = group.ops.findIndex((op) => failed.has(op));
    for (let k = 0; k < group.ops.length; k++) {
      const op = group.ops[k]!;
      const failure = failed.get(op);
      if (failure) {
        records.set(op, withOutcome(op, 'error', failure.message));
        if (this.effect(op, 'phased', failure.format) !== 'continue') return;
        continue;
      }
      if (stops.has(op)) {
        records.set(op, withOutcome(op, 'stop'));
        return;
      }
      const beforeChainFailure = group.mode === 'chain' && firstFailure >= 0 && k < firstFailure;
      if (complete || beforeChainFailure) records.set(op, this.okRecords.get(op)!);
    }
  }

  private failFastSteps(): string[] {
    return this.phasedSteps.filter((s): s is string => typeof s === 'string');
  }

  /**
   * An operation the attempt went past: `error` when a progress line says it failed and the loop went on; otherwise
   * `ok`, unless it may have failed without a trace (its error can leave this loop going, and no progress line is
   * configured for it, or lines may be missing): then it is left out.
   */
  private claimPassed(
    op: string,
    loop: LoopKind,
    errors: ReadonlyMap<string, string | undefined>,
    texts: AttemptTexts,
    records: Map<string, OperationRecord>,
  ): void {
    if (errors.has(op)) {
      records.set(op, withOutcome(op, 'error', errors.get(op)));
      return;
    }
    if (this.silent[loop].has(op) && (!this.loggedContinues.has(op) || texts.incomplete)) return;
    records.set(op, this.okRecords.get(op)!);
  }

  /** The loop can go on after an error of `op` without collecting it (a fail-fast step or sequential op with `continue`). */
  private mayFailSilently(op: ModelOperation, loop: LoopKind): boolean {
    const place = this.places.get(op.name)!;
    if (loop === 'phased' && place.kind === 'group') return false;
    return [undefined, ...formatsIn(op, loop)].some((f) => errorEffect(op, loop, place, f) === 'continue');
  }

  private effect(op: string, loop: LoopKind, format?: ErrorFormat): string {
    return errorEffect(this.ops.get(op)!, loop, this.places.get(op)!, format);
  }

  /** The progress lines under `loop`: silent stops, and errors the loop went on after (checked against the model). */
  private progressIn(loop: LoopKind, texts: AttemptTexts): ProgressRead | { ok: false; why: string } {
    const stops: ProgressText[] = [];
    const errors = new Map<string, string | undefined>();
    const formats = new Map<string, ErrorFormat | undefined>();
    for (const p of texts.progress ?? []) {
      if (!this.runsIn(p.op, loop)) return refuse(`${p.op} reported progress, but the ${loop} loop does not run it`);
      if (p.outcome === 'stop') {
        stops.push(p);
        continue;
      }
      const format = p.error === undefined ? undefined : this.mapper.map(p.error, LOOP_FORMATS[loop]).find((m) => m.operation === p.op)?.format;
      const effect = this.effect(p.op, loop, format);
      if (effect !== 'continue' || (loop === 'phased' && this.places.get(p.op)?.kind === 'group')) {
        return refuse(`${p.op} logged an error and went on, which its error does not do in the ${loop} loop (${effect})`);
      }
      errors.set(p.op, p.error);
      formats.set(p.op, format);
    }
    return { ok: true, stops, errors, formats };
  }

  /**
   * What fails because another operation failed (the model's `causes`, per format) is left to the engine: an `ok`
   * claimed for a consequence is dropped (a consequence seen in the texts keeps its own outcome).
   */
  private dropConsequences(records: Map<string, OperationRecord>, ...failed: (ReadonlyMap<string, ErrorFormat | undefined> | undefined)[]): void {
    for (const byOp of failed) {
      for (const [op, format] of byOp ?? []) {
        for (const c of consequencesOf(this.ops.get(op)!, format)) if (records.get(c.op)?.outcome === 'ok') records.delete(c.op);
      }
    }
  }

  /** Outcomes every reading states alike, in the loop's order; an error's text only when all readings give it. */
  private agreed(loop: LoopKind, all: readonly Map<string, OperationRecord>[]): OperationRecord[] {
    const order = this.orders[loop];
    const out: OperationRecord[] = [];
    if (all.length === 1) {
      for (const op of order) {
        const r = all[0]!.get(op);
        if (r) out.push(r);
      }
      return out;
    }
    for (const op of order) {
      const first = all[0]!.get(op);
      if (!first) continue;
      if (!all.every((m) => m.get(op)?.outcome === first.outcome)) continue;
      const sameText = all.every((m) => m.get(op)?.error === first.error);
      out.push(sameText ? first : withOutcome(op, first.outcome));
    }
    return out;
  }

  private groupsNamed(list: readonly string[]): Set<GroupStep> {
    const out = new Set<GroupStep>();
    for (const name of list) {
      const place = this.places.get(name);
      const group = this.groupByName.get(name) ?? (place?.kind === 'group' ? place.group : undefined);
      if (group) out.add(group);
    }
    return out;
  }

  private unknownNames(i: Interpretation): UnknownName[] {
    const unknown: UnknownName[] = [];
    const check = (list: readonly string[] | undefined, kind: UnknownName['list']): void => {
      for (const name of list ?? []) {
        const known = this.groupByName.has(name) || this.places.get(name)?.kind === 'group';
        if (!known && !unknown.some((u) => u.list === kind && u.name === name)) unknown.push({ list: kind, name });
      }
    };
    check(i.textBlocked, 'blocked operations');
    check(i.summary?.blocked, 'blocked operations');
    check(i.summary?.critical, 'critical failures');
    return unknown;
  }
}

interface ProgressRead {
  readonly ok: true;
  readonly stops: readonly ProgressText[];
  readonly errors: ReadonlyMap<string, string | undefined>;
  /** The matched format of each error, for its effect and consequences. */
  readonly formats: ReadonlyMap<string, ErrorFormat | undefined>;
}

function refuse(why: string): { ok: false; why: string } {
  return { ok: false, why };
}

function names(matches: readonly FormatMatch[]): string {
  return matches.map((m) => m.operation).join(', ');
}

/** The reservations an attempt read this way carries, as bounded source notes. */
export function readingNotes(b: BuiltAttempt): SourceNote[] {
  const notes: SourceNote[] = [];
  if (!b.consistent) notes.push('inconsistent_lines');
  if (b.ambiguous) notes.push('ambiguous_error');
  if (b.resolved) notes.push('shared_format_resolved');
  if (b.unmapped.some((u) => u.why === 'no_format')) notes.push('unmapped_error');
  if (b.nonOperation > 0) notes.push('status_update_error');
  if (b.unknownNames.length > 0) notes.push('unknown_name');
  return notes;
}
