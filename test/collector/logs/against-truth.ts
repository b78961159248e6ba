/**
 * Joins the attempts the log source derived with what really happened (a journal, one attempt per reconcileID), and
 * counts what a log source must get right: every attempt that wrote lines derived once, the loop right, and no
 * operation claimed `ok` or `error` against the journal. `ok` and `skip` match each other (a log never tells them
 * apart, and both loops treat them alike); an operation the journal's model never runs is counted apart.
 */
import { Readable } from 'node:stream';
import { OperatorLogSource, type OperatorLogSourceOptions } from '../../../collector/logs/source.js';
import type { AttemptRecord, Rejection, SourceInputSummary } from '../../../collector/records.js';
import type { LoopKind, ReconcileModel } from '../../../model/types.js';

export interface TruthAttempt {
  readonly loop: LoopKind;
  readonly operations: readonly { readonly name: string; readonly outcome: string }[];
}

/** A journal line as written: the journal's wire key for the loop is `model` (collector/journal/format.ts). */
export interface TruthJournalLine {
  readonly model: TruthAttempt['loop'];
  readonly operations: TruthAttempt['operations'];
}

export const truthOfLine = (line: TruthJournalLine): TruthAttempt => ({ loop: line.model, operations: line.operations });

export interface Figures {
  /** Attempts that wrote at least one line the log kept. */
  readonly withLines: number;
  readonly derived: number;
  /** reconcileIDs handed on more than once. */
  readonly doubled: number;
  readonly loopRight: number;
  readonly loopWrong: number;
  readonly claims: number;
  readonly falseOk: number;
  readonly falseError: number;
  /** `stop` or `skip` claimed against the journal. */
  readonly falseOther: number;
  /** Claims on operations the journal's model never runs (e.g. a model's operation the journal predates). */
  readonly outsideJournal: number;
}

const alike = (outcome: string | undefined): boolean => outcome === 'ok' || outcome === 'skip';

export const loopAccuracy = (f: Figures): number => f.loopRight / (f.loopRight + f.loopWrong);

export function againstTruth(records: readonly AttemptRecord[], truth: ReadonlyMap<string, TruthAttempt>, withLines: ReadonlySet<string>): Figures {
  const ran = new Set([...truth.values()].flatMap((a) => a.operations.map((o) => o.name)));
  const seen = new Map<string, number>();
  let loopRight = 0;
  let loopWrong = 0;
  let claims = 0;
  let falseOk = 0;
  let falseError = 0;
  let falseOther = 0;
  let outsideJournal = 0;
  for (const r of records) {
    const id = r.origin.reconcileID ?? '';
    seen.set(id, (seen.get(id) ?? 0) + 1);
    const t = truth.get(id);
    if (!t) throw new Error(`derived attempt ${id} is no attempt of the journal`);
    if (r.loop === t.loop) loopRight++;
    else loopWrong++;
    const outcome = new Map(t.operations.map((o) => [o.name, o.outcome]));
    for (const o of r.operations) {
      claims++;
      const real = outcome.get(o.name);
      if (real === undefined && !ran.has(o.name)) outsideJournal++;
      else if (real === o.outcome || (alike(o.outcome) && alike(real))) continue;
      else if (o.outcome === 'ok') falseOk++;
      else if (o.outcome === 'error') falseError++;
      else falseOther++;
    }
  }
  return {
    withLines: withLines.size,
    derived: [...withLines].filter((id) => seen.has(id)).length,
    doubled: [...seen.values()].filter((n) => n > 1).length,
    loopRight,
    loopWrong,
    claims,
    falseOk,
    falseError,
    falseOther,
    outsideJournal,
  };
}

export interface SourceRun {
  readonly records: AttemptRecord[];
  readonly rejections: Rejection[];
  readonly summary: SourceInputSummary;
}

/** Reads a whole log through the one log source (stream input, no timers). */
export async function readLog(lines: Readable, name: string, model: ReconcileModel, options: Partial<OperatorLogSourceOptions> = {}): Promise<SourceRun> {
  const records: AttemptRecord[] = [];
  const rejections: Rejection[] = [];
  let summary: (() => SourceInputSummary) | undefined;
  const source = new OperatorLogSource(
    { input: { stream: lines, name }, model, loop: 'auto', scheduler: () => () => undefined, ...options },
    { attempt: (r) => records.push(r), reject: (r) => rejections.push(r), inputSummary: (_s, r) => (summary = r) },
  );
  await source.start();
  await source.ended;
  return { records, rejections, summary: summary!() };
}

/** The reconcileIDs of the model's controller's lines in a log. */
export function reconcileIdsIn(lines: readonly string[], controller: string): Set<string> {
  const ids = new Set<string>();
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    const v = JSON.parse(line) as { controller?: unknown; reconcileID?: unknown };
    if (v.controller === controller && typeof v.reconcileID === 'string') ids.add(v.reconcileID);
  }
  return ids;
}
