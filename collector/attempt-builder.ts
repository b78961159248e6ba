/**
 * Turns the end lines of one attempt into the operation outcomes they prove, and nothing more: an operation the
 * text does not settle is left out of the record, and the engine predicts it from the object's history.
 *
 * What the lines prove (HyperShift reference sections 1, 2.1 and 6):
 * - `successfully reconciled`: the loop ran to its end, so every operation of the observed loop succeeded.
 * - Sequential loop, `Reconciler error` on operation X: the loop ran in order up to X, so the operations before X
 *   succeeded and X failed; nothing after X ran.
 * - Phased loop, a lone error on a fail-fast step X (phases 0-5 still return at once, with no summary line): the
 *   fail-fast steps before X succeeded, X failed; a report group that ran before X is unknown.
 * - Phased loop, the end of the loop (`reconciliation completed with errors` and/or aggregate()'s text): every
 *   fail-fast step succeeded.
 *   - With a critical failure (`critical error: …`, or critical failures in the summary): aggregate() lists every
 *     critical error and drops the non-critical ones. Failed critical groups: the mapped op failed, a chain's ops before
 *     it succeeded; the other critical groups succeeded; blocked groups did not run; non-critical groups are unknown.
 *   - Without one (`[e1, e2]` or a single message, empty summary): every error is listed. The mapped ops failed, a
 *     chain's ops after its failing op did not run, and every other op of every group succeeded.
 * A message that maps to no operation, to several, or to one the text's shape rules out, is reported as unmapped and
 * settles nothing it would have settled (e.g. "every other op succeeded" no longer holds); it is never guessed.
 */
import type { GroupStep, LoopKind, ReconcileModel } from '../model/types.js';
import { parseLogSummary, parseReconcileError, type ErrorMapper, type ErrorMatch } from './error-mapping.js';
import type { OperationRecord } from './records.js';

/** The end lines of one attempt (correlated by reconcileID); each part may be missing (sampled away). */
export interface AttemptTexts {
  readonly success: boolean;
  /** `summary` of `reconciliation completed with errors`; undefined when that line was not seen. */
  readonly summary?: string;
  /** `error` of `Reconciler error`; undefined when that line was not seen. */
  readonly error?: string;
  /** The innermost messages of the error's zap `errorCauses`, when the logger wrote them. */
  readonly errorCauses?: readonly string[];
}

export type UnmappedWhy = 'no_format' | 'ambiguous' | 'outside_loop' | 'inconsistent';

export interface UnmappedMessage {
  readonly message: string;
  readonly why: UnmappedWhy;
  /** A sentence for the report: what matched, or why the match was refused. */
  readonly detail: string;
}

/** A name in a summary or blocked list that is not a group or operation of the model. */
export interface UnknownName {
  readonly list: 'blocked operations' | 'critical failures';
  readonly name: string;
}

export interface BuiltAttempt {
  readonly operations: OperationRecord[];
  readonly unmapped: UnmappedMessage[];
  readonly unknownNames: UnknownName[];
}

/** The texts of an attempt taken apart once, then read under either loop. */
export interface Interpretation {
  readonly texts: AttemptTexts;
  /** aggregate()'s `critical error: …` shape. */
  readonly textCritical: boolean;
  /** The error messages carried by the text, aggregate elements split, each with its mapping. */
  readonly elements: readonly { readonly message: string; readonly match: ErrorMatch }[];
  readonly blocked: readonly string[];
  /** Group names in the summary's `critical failures: [...]`. */
  readonly criticalNames: readonly string[];
}

const ok = (name: string): OperationRecord => ({ name, outcome: 'ok' });
const failed = (name: string, error?: string): OperationRecord => (error === undefined ? { name, outcome: 'error' } : { name, outcome: 'error', error });

export class AttemptBuilder {
  private readonly sequentialOrder: readonly string[];
  private readonly placedOrder: readonly string[];
  private readonly failFast: ReadonlySet<string>;
  private readonly groupOfOp: ReadonlyMap<string, GroupStep>;
  private readonly groupByName: ReadonlyMap<string, GroupStep>;
  private readonly onlyIn: ReadonlyMap<string, LoopKind>;

  constructor(
    private readonly model: ReconcileModel,
    private readonly mapper: ErrorMapper,
  ) {
    this.sequentialOrder = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
    this.placedOrder = model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : s.ops));
    this.failFast = new Set(model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : [])));
    const groups = model.phased.filter((s): s is GroupStep => s.kind === 'group');
    this.groupOfOp = new Map(groups.flatMap((g) => g.ops.map((op) => [op, g] as const)));
    this.groupByName = new Map(groups.map((g) => [g.group, g]));
    this.onlyIn = new Map(model.operations.flatMap((o) => (o.only ? [[o.name, o.only] as const] : [])));
  }

  /**
   * Splits the error into its messages: by zap's errorCauses when present (exact), else by the text's aggregate shape
   * (ErrorMapper.splitAggregate, which can only start a new element where a known format begins, so an unformatted
   * element is read as the tail of the one before it). A `critical error:` text wraps its aggregate with fmt.Errorf,
   * which has no causes, so it is always split by shape.
   */
  interpret(texts: AttemptTexts): Interpretation {
    const parsed = texts.error === undefined ? undefined : parseReconcileError(texts.error, this.mapper);
    const summary = texts.summary === undefined ? undefined : parseLogSummary(texts.summary);
    const messages = parsed && !parsed.critical && texts.errorCauses ? [...new Set(texts.errorCauses)] : (parsed?.errors ?? []);
    return {
      texts,
      textCritical: parsed?.critical ?? false,
      elements: messages.map((message) => ({ message, match: this.mapper.map(message) })),
      blocked: [...new Set([...(parsed?.blocked ?? []), ...(summary?.blocked ?? [])])],
      criticalNames: summary?.critical ?? [],
    };
  }

  /**
   * Which loop wrote these lines, when they say so: a summary line or a `critical error:` text exist only in the
   * phased loop, as does an error on two operations at once; a lone error on an operation the phased loop runs inside
   * a report group can only come from the sequential loop (the phased loop logs a summary first), unless the summary
   * may have been sampled away.
   */
  loopEvidence(i: Interpretation, mayBeSampled: boolean): LoopKind | undefined {
    if (i.texts.summary !== undefined || i.textCritical) return 'phased';
    const ops = new Set(i.elements.flatMap((e) => (e.match.kind === 'mapped' ? [e.match.operation] : [])));
    if (ops.size >= 2) return 'phased';
    const [op] = ops;
    if (op === undefined || i.elements.length !== 1) return undefined;
    const only = this.onlyIn.get(op);
    if (only) return only;
    return this.groupOfOp.has(op) && !mayBeSampled ? 'sequential' : undefined;
  }

  build(loop: LoopKind, i: Interpretation): BuiltAttempt {
    return loop === 'sequential' ? this.sequential(i) : this.phased(i);
  }

  private sequential(i: Interpretation): BuiltAttempt {
    const unmapped: UnmappedMessage[] = [];
    if (i.texts.error === undefined) {
      return { operations: i.texts.success ? this.sequentialOrder.map(ok) : [], unmapped, unknownNames: [] };
    }
    if (i.textCritical) {
      for (const e of i.elements) unmapped.push(inconsistent(e.message, 'a phased-loop "critical error:" text, but the observed loop is sequential'));
      return { operations: [], unmapped, unknownNames: [] };
    }
    const mapped = new Map<string, string>();
    for (const e of i.elements) {
      const op = this.mappedIn(e, 'sequential', unmapped);
      if (op !== undefined && !mapped.has(op)) mapped.set(op, e.message);
    }
    if (mapped.size > 1) {
      const names = [...mapped.keys()].join(', ');
      for (const message of mapped.values()) unmapped.push(inconsistent(message, `the sequential loop returns one operation's error, but this text maps to ${names}`));
      return { operations: [], unmapped, unknownNames: [] };
    }
    const [entry] = mapped;
    if (!entry) return { operations: [], unmapped, unknownNames: [] };
    const [failing, message] = entry;
    const at = this.sequentialOrder.indexOf(failing);
    return { operations: [...this.sequentialOrder.slice(0, at).map(ok), failed(failing, message)], unmapped, unknownNames: [] };
  }

  private phased(i: Interpretation): BuiltAttempt {
    const unmapped: UnmappedMessage[] = [];
    const { summary, error } = i.texts;
    if (error === undefined && summary === undefined) {
      return { operations: i.texts.success ? this.placedOrder.map(ok) : [], unmapped, unknownNames: [] };
    }
    const mapped = new Map<string, string>();
    let allMapped = error !== undefined;
    for (const e of i.elements) {
      const op = this.mappedIn(e, 'phased', unmapped);
      if (op === undefined) allMapped = false;
      else if (!mapped.has(op)) mapped.set(op, e.message);
    }

    const [lone] = mapped;
    if (lone && summary === undefined && !i.textCritical && i.elements.length === 1 && this.failFast.has(lone[0])) {
      const steps = this.model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : []));
      return { operations: [...steps.slice(0, steps.indexOf(lone[0])).map(ok), failed(lone[0], lone[1])], unmapped, unknownNames: [] };
    }

    // A lone error no format places may be a fail-fast step's (the loop ended there) or a group's (the loop ran to
    // its end); without the summary line, which only the loop's end writes, the text proves no operation's outcome.
    if (summary === undefined && !i.textCritical && i.elements.length === 1 && unmapped.length > 0) return { operations: [], unmapped, unknownNames: [] };

    // The loop reached its end (the summary line and aggregate() are written there).
    const critical = i.textCritical || i.criticalNames.length > 0;
    let consistent = true;
    for (const [op, message] of mapped) {
      const group = this.groupOfOp.get(op);
      const why = !group
        ? `${op} is a fail-fast step, whose error ends the attempt before the loop's end`
        : critical && group.category !== 'critical'
          ? `${op} is in non-critical group ${group.group}, and a critical failure drops non-critical errors from the text`
          : !critical && group.category === 'critical'
            ? `${op} is in critical group ${group.group}, whose failure would make the text "critical error: …"`
            : undefined;
      if (why !== undefined) {
        mapped.delete(op);
        consistent = false;
        unmapped.push(inconsistent(message, why));
      }
    }
    // A text at odds with its own shape settles no group beyond the operations it names.
    if (!consistent) allMapped = false;
    const unknownNames: UnknownName[] = [];
    const blocked = this.groups(i.blocked, 'blocked operations', unknownNames);
    const failedCritical = this.groups(i.criticalNames, 'critical failures', unknownNames);
    for (const op of mapped.keys()) failedCritical.add(this.groupOfOp.get(op)!);
    // Without a critical failure none failed; with one, the summary or a fully mapped text names every failed group.
    const criticalSettled = consistent && (!critical || summary !== undefined || allMapped);

    const operations: OperationRecord[] = [];
    for (const step of this.model.phased) {
      if (step.kind === 'op') {
        operations.push(ok(step.op));
        continue;
      }
      if (blocked.has(step) || (critical && step.category === 'nonCritical')) continue;
      const settled = step.category === 'critical' ? criticalSettled : allMapped;
      const errorAt = step.ops.findIndex((op) => mapped.has(op));
      if (errorAt < 0 && !failedCritical.has(step)) {
        if (settled) operations.push(...step.ops.map(ok));
        continue;
      }
      if (errorAt < 0) {
        // The group failed, but its message did not map: only a one-operation group says which operation.
        if (step.ops.length === 1) operations.push(failed(step.ops[0]!));
        continue;
      }
      step.ops.forEach((op, k) => {
        const message = mapped.get(op);
        if (message !== undefined) operations.push(failed(op, message));
        else if (step.mode === 'chain' ? k < errorAt : allMapped) operations.push(ok(op));
      });
    }
    return { operations, unmapped, unknownNames };
  }

  /** The operation an element maps to when the loop runs it; otherwise records why not. */
  private mappedIn(e: Interpretation['elements'][number], loop: LoopKind, unmapped: UnmappedMessage[]): string | undefined {
    const m = e.match;
    if (m.kind === 'unmapped') {
      unmapped.push(
        m.why === 'ambiguous'
          ? { message: e.message, why: 'ambiguous', detail: `error formats of several operations match equally: ${m.candidates.join(', ')}` }
          : { message: e.message, why: 'no_format', detail: `no error format of model ${this.model.name} matches` },
      );
      return undefined;
    }
    const runs = loop === 'sequential' ? this.onlyIn.get(m.operation) !== 'phased' : this.groupOfOp.has(m.operation) || this.failFast.has(m.operation);
    if (!runs) {
      unmapped.push({ message: e.message, why: 'outside_loop', detail: `maps to ${m.operation}, which the ${loop} loop does not run` });
      return undefined;
    }
    return m.operation;
  }

  private groups(names: readonly string[], list: UnknownName['list'], unknown: UnknownName[]): Set<GroupStep> {
    const out = new Set<GroupStep>();
    for (const name of names) {
      const group = this.groupByName.get(name) ?? this.groupOfOp.get(name);
      if (group) out.add(group);
      else unknown.push({ list, name });
    }
    return out;
  }
}

function inconsistent(message: string, detail: string): UnmappedMessage {
  return { message, why: 'inconsistent', detail };
}
