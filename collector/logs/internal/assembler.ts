/**
 * Assembles reconcile attempts from operator log lines, in log order. Pure: no I/O and no clock; the source feeds it
 * lines and tells it when the input went quiet or ended.
 *
 * - Correlation: every line of one attempt carries its reconcileID (controller-runtime sets one per attempt), so the
 *   lines with one id are one attempt, whatever they are: progress lines, the end line, the Reconciler error (with the
 *   Reconcile() wrapper's status-update conflict after a clean loop), the requeue warning. Without an id the object
 *   key correlates them, and an end line followed by a line that can only open an attempt starts a new one.
 * - Timing: an attempt is judged once the stream has moved two `ts` seconds past its last line (its partners are
 *   written together, and the sampling detector can then judge its seconds), or went quiet, or ended; one that has
 *   written no end line yet waits up to `maxAttemptSeconds`. Attempts leave in the order of their first line.
 * - Observed loop: configured, or `auto`. With `auto`, an attempt proves a loop when only that loop can have written
 *   its lines (AttemptBuilder). The operator runs one loop until it restarts, so the loop is decided per operator
 *   run (a run starts where the controller starts): by the attempts that prove one, once one loop leads the other by
 *   PROOF_MARGIN proofs (or by any lead when the run ends or the hold limit is reached), or by the operator's build
 *   version line; the operator Deployment, when read, stands in until then. Attempts of an undecided run wait; then
 *   all of them take the run's loop. An attempt whose lines prove the other loop than its run's is read under the
 *   run's loop, which states nothing for it (`loop_contradicted`): a text the model places in one loop showed up in
 *   the other, so the model or the log is off for that text, and one such text does not flip a run. A run that ends
 *   unproven takes the loop of the run before it (`loop_from_previous_run`: the operator restarted, and only a changed
 *   HYPERSHIFT_RECONCILE_LEGACY would change its loop); when there is none, its attempts are dropped (`loop_unknown`).
 * - Several inputs (the logs of an operator's replicas and container restarts, merged by time before they reach the
 *   assembler): each input is one operator process, so each has runs of its own, and an input's end ends its run. A
 *   replica waiting for the leader lease writes its start-up lines while the leader reconciles; they open a run of
 *   the waiting replica's, never cut the leader's. Only the leader reconciles, so the runs' attempts do not overlap.
 * - Books, in lines: every line the source accepts (a line of an attempt, or a refused one) is received; it is then
 *   analyzed (part of an attempt handed on) or dropped with a reason. Other lines are ignored, counted by why.
 */
import type { OperatorLoop } from '../../hypershift/operator-loop.js';
import { buildEra } from '../../hypershift/operator-loop.js';
import { BoundedMap } from '../../../lib/bounded-ring.js';
import type { LoopKind, LoopSetting, ReconcileModel } from '../../../model/types.js';
import { AttemptBuilder, readingNotes } from '../../readings/attempt-builder.js';
import type { AttemptTexts, ProgressText } from '../../readings/types.js';
import type { AttemptReading } from '../../readings/attempt-readings.js';
import { SOURCE_NOTES, type AttemptRecord, type LoopKnowledge, type RecordSink, type SourceInputSummary, type SourceNote } from '../../records.js';
import { SamplingDetector, type SampledPeriod } from './sampling.js';
import { ZapLineClassifier, type AttemptLine, type LogPatterns, type RunLine } from './zap-line.js';
import type { LogDropReason, LogSourceStats, UnmappedSample, UnmappedSampleEntry } from '../types.js';

export interface LogLineAssemblerOptions {
  readonly model: ReconcileModel;
  readonly patterns: LogPatterns;
  readonly loop: LoopSetting;
  /** auto: attempts held while their run's loop is unproven; past this the oldest run's are dropped as `loop_unknown`. */
  readonly maxUndecided: number;
  readonly samplingThreshold: number;
  /** Attempts held for correlation and sampling judgement; beyond this the oldest is handed on early. */
  readonly maxPending: number;
  /** Distinct unmapped messages kept for the summary. */
  readonly unmappedSampleSize: number;
  /** auto: what the operator Deployment says, when the source can read it; used for runs whose lines prove nothing. */
  readonly operatorLoop?: () => OperatorLoop;
}

/** Proofs one loop must lead the other by before a run's loop is decided while the run goes on. */
const PROOF_MARGIN = 2;
/** Stream seconds an attempt is held after its last line. */
const HOLD_SECONDS = 2;
/** Stream seconds an attempt without an end line waits for one. */
const MAX_ATTEMPT_SECONDS = 120;
/** reconcileIDs of handed-on attempts remembered, to recognise a late line. */
const RECENT_IDS = 10_000;
const NO_PROGRESS: readonly ProgressText[] = Object.freeze([]);

interface Run {
  /** The run's loop, once decided. */
  loop?: LoopKind;
  /** Attempts of the run that prove each loop. */
  readonly proofs: Record<LoopKind, number>;
  /** Attempts judged but waiting for the run's loop. */
  readonly held: Judged[];
  attempts: number;
  /** Attempts still being assembled. */
  assembling: number;
  /** A later run started: once nothing of this one is assembling, it is settled. */
  ended: boolean;
}

const newRun = (): Run => ({ proofs: { sequential: 0, phased: 0 }, held: [], attempts: 0, assembling: 0, ended: false });

/**
 * An attempt being assembled. Every field is always present (one object shape), and what most attempts lack (lines
 * after the first, progress lines) is allocated only when it comes: most attempts are one end line.
 */
interface Pending {
  readonly correlation: string;
  readonly reconcileID: string | undefined;
  readonly first: AttemptLine;
  readonly run: Run;
  readonly firstSecond: number;
  lastSecond: number;
  /** Lines of the attempt. */
  lines: number;
  /** Where the lines after the first are (the first's is `first.where`); undefined while there is one line. */
  laterWheres: string[] | undefined;
  success: boolean;
  summary: string | undefined;
  summaryWhere: string | undefined;
  error: string | undefined;
  causes: readonly string[] | undefined;
  errorWhere: string | undefined;
  progress: ProgressText[] | undefined;
  /** An end line came (success, Reconciler error, summary, or a silent stop). */
  ended: boolean;
}

interface Judged {
  readonly pending: Pending;
  /** Its texts' reading: each loop's read on first use (attempt-readings.ts). */
  readonly reading: AttemptReading;
  readonly sampled: boolean;
}

/** The operator's log lines, one at a time, into attempts (the OTLP path's counterpart is otlp/internal/assembler.ts's SpanAssembler). */
export class LogLineAssembler {
  readonly stats: LogSourceStats;
  private readonly classifier: ZapLineClassifier;
  private readonly builder: AttemptBuilder;
  private readonly sampler: SamplingDetector;
  /** Attempts not yet judged, in the order of their first line. */
  private readonly queue: Pending[] = [];
  private readonly open = new Map<string, Pending>();
  /** Handed-on attempts' reconcileIDs (RECENT_IDS; the value is unused). */
  private readonly recentIds = new BoundedMap<string, true>(RECENT_IDS);
  /** Runs with attempts held for their loop, oldest first. */
  private readonly waiting: Run[] = [];
  private held = 0;
  /** Each input's current run (input 0's exists from the start). */
  private readonly runs: (Run | undefined)[] = [newRun()];
  /** The loop of the latest decided run, for a run after a restart that proves nothing. */
  private lastRunLoop: LoopKind | undefined;
  private readonly unmapped = new Map<string, UnmappedSampleEntry>();
  private unmappedTruncated = false;
  private streamSecond = -Infinity;

  constructor(
    private readonly options: LogLineAssemblerOptions,
    private readonly sink: RecordSink,
  ) {
    const known = new Set(options.model.operations.map((o) => o.name));
    const progress = options.patterns.progress.filter((p) => known.has(p.op));
    this.classifier = new ZapLineClassifier({ ...options.patterns, progress }, options.model.controller);
    this.builder = new AttemptBuilder(options.model, {
      nonOperationErrors: options.patterns.nonOperationErrors,
      loggedContinues: new Set(progress.filter((p) => p.outcome === 'error').map((p) => p.op)),
    });
    this.sampler = new SamplingDetector(options.samplingThreshold);
    this.stats = {
      lines: 0,
      received: 0,
      analyzed: 0,
      dropped: { invalid_json: 0, invalid_record: 0, line_too_long: 0, loop_unknown: 0, late_line: 0 },
      ignored: { not_json: 0, other_message: 0, other_controller: 0, run: 0 },
      attempts: 0,
      notes: Object.fromEntries(SOURCE_NOTES.map((n) => [n, 0])) as Record<SourceNote, number>,
      unmappedErrors: 0,
      sampledSeconds: 0,
      runs: 1,
      observedLoop: options.loop === 'auto' ? undefined : options.loop,
      loopDecidedBy: options.loop === 'auto' ? 'unknown' : 'config',
    };
  }

  /** One complete line of the log; `where` names it (`file:line`); `input` is which of several inputs it is from. */
  line(text: string, where: string, input = 0): void {
    this.stats.lines++;
    const c = this.classifier.classify(text, where);
    if (c.kind === 'ignored') this.stats.ignored[c.why]++;
    else if (c.kind === 'run') {
      this.stats.ignored.run++;
      this.startRun(c.line, input);
    } else {
      this.accept();
      if (c.kind === 'rejected') this.drop(c.reason as LogDropReason, where, c.message);
    }
    if ((c.kind === 'attempt' || c.kind === 'rejected' || c.kind === 'ignored') && c.sighting) this.sampler.see(c.sighting);
    if (c.kind === 'attempt') this.add(c.line, c.second, input);
    if (c.second !== undefined && c.second > this.streamSecond) {
      this.streamSecond = c.second;
      this.closeThrough(c.second);
    }
    // Overload: the oldest attempt goes before its seconds can be judged for sampling.
    if (this.queue.length > this.options.maxPending) this.judge(this.queue.shift()!);
  }

  /** A line the splitter refused as longer than the limit. */
  tooLong(where: string, bytes: number, limit: number): void {
    this.stats.lines++;
    this.accept();
    this.drop('line_too_long', where, `line of ${bytes} bytes exceeds the limit of ${limit} bytes`);
  }

  /** One of several inputs ended: its run can prove no more, and settles once its attempts are judged. */
  endInput(input: number): void {
    const run = this.runs[input];
    if (!run) return;
    run.ended = true;
    this.settleIfOver(run);
  }

  /** The input went quiet: nothing more is coming for the seconds seen, so every held attempt is judged. */
  flushQuiet(): void {
    this.sampler.closeAll();
    this.stats.sampledSeconds = this.sampler.sampledSeconds;
    for (const p of this.queue.splice(0)) this.judge(p);
  }

  /** The input ended: every attempt is judged, and each run still waiting takes its leading loop or drops its attempts. */
  end(): void {
    this.flushQuiet();
    for (const run of this.waiting.splice(0)) this.settle(run);
  }

  /** Attempts not yet handed on (being assembled, or waiting for their run's loop). */
  get pendingAttempts(): number {
    return this.queue.length + this.held;
  }

  sampledPeriods(): SampledPeriod[] {
    return this.sampler.periods();
  }

  unmappedSample(): UnmappedSample {
    return { total: this.stats.unmappedErrors, distinct: [...this.unmapped.values()].map((e) => ({ ...e })), truncated: this.unmappedTruncated };
  }

  /** What the source knows about the loop, as a sentence for the start line and the summary. */
  loopKnowledge(): LoopKnowledge {
    const configured = this.options.loop;
    const current = this.stats.observedLoop ?? null;
    if (configured !== 'auto') return { configured, current, decidedBy: 'config', statement: `configured: the ${configured} loop` };
    const deployment = this.options.operatorLoop?.();
    const parts = [
      deployment ? deployment.statement : 'the operator Deployment is not read',
      current
        ? `the lines last proved the ${current} loop`
        : 'no line has proved a loop yet; attempts wait for a line of their operator run that only one loop writes, and are dropped as loop_unknown if none comes',
    ];
    return { configured, current, decidedBy: this.stats.loopDecidedBy, statement: parts.join('; ') };
  }

  /** The source's books and reservations for the summary. */
  inputSummary(): SourceInputSummary {
    const s = this.stats;
    const periods = this.sampledPeriods();
    return {
      source: 'logs',
      unit: 'lines',
      received: s.received,
      analyzed: s.analyzed,
      dropped: { ...s.dropped },
      ignored: { ...s.ignored },
      attempts: s.attempts,
      notes: { ...s.notes },
      loop: this.loopKnowledge(),
      sampledPeriods: periods,
      unmappedSample: this.unmappedSample(),
      caveats: [
        'Counts from logs are lower bounds in sampled periods: the operator logger writes the first 100 lines of a message per second, then every 100th, and dropped lines leave no trace.',
        'A silent stop that logs nothing, and an operation whose error the loop goes on after without logging it, are not seen.',
        ...(periods.length > 0 ? [`${periods.length} sampled period(s) found; ${s.notes.sampled} attempt(s) in them.`] : []),
      ],
    };
  }

  private accept(): void {
    this.stats.received++;
    this.sink.received?.('logs', 1);
  }

  /** The input's current run; an input's first line opens its first run. */
  private runOf(input: number): Run {
    let run = this.runs[input];
    if (!run) {
      this.runs[input] = run = newRun();
      this.stats.runs++;
    }
    return run;
  }

  private startRun(line: RunLine, input: number): void {
    const era = line.kind === 'version' && line.version !== undefined ? buildEra(line.version) : undefined;
    let run = this.runOf(input);
    // The version line comes before the controller's start: both open the same run.
    if (run.attempts > 0) {
      // Once its attempts are judged, nothing more can prove the old run's loop.
      run.ended = true;
      this.settleIfOver(run);
      this.runs[input] = run = newRun();
      this.stats.runs++;
    }
    // A build from before the merge has only the sequential loop.
    if (era === 'before-merge' && this.options.loop === 'auto') run.loop = this.lastRunLoop = 'sequential';
  }

  private add(line: AttemptLine, second: number, input: number): void {
    if (line.reconcileID !== undefined && this.recentIds.has(line.reconcileID) && !this.open.has(line.correlation)) {
      this.drop('late_line', line.where, `a line of attempt ${line.reconcileID} after the attempt was handed on`);
      return;
    }
    // without a reconcileID the object correlates an attempt's lines, within one input (one operator process)
    const correlation = line.reconcileID === undefined && input > 0 ? `${input}\u0000${line.correlation}` : line.correlation;
    let p = this.open.get(correlation);
    if (p && line.reconcileID === undefined && opensAnother(p, line)) {
      this.open.delete(correlation);
      p = undefined;
    }
    if (!p) {
      const run = this.runOf(input);
      p = {
        correlation,
        reconcileID: line.reconcileID,
        first: line,
        run,
        firstSecond: second,
        lastSecond: second,
        lines: 1,
        laterWheres: undefined,
        success: false,
        summary: undefined,
        summaryWhere: undefined,
        error: undefined,
        causes: undefined,
        errorWhere: undefined,
        progress: undefined,
        ended: false,
      };
      run.attempts++;
      run.assembling++;
      this.open.set(correlation, p);
      this.queue.push(p);
    } else {
      p.lines++;
      (p.laterWheres ??= []).push(line.where);
      if (second > p.lastSecond) p.lastSecond = second;
    }
    switch (line.kind) {
      case 'success':
        p.success = true;
        p.ended = true;
        break;
      case 'summary':
        p.summary = line.text ?? '';
        p.summaryWhere = line.where;
        p.ended = true;
        break;
      case 'error':
        p.error = line.text;
        p.causes = line.causes;
        p.errorWhere = line.where;
        p.ended = true;
        break;
      case 'progress': {
        const progress = line.progress!;
        (p.progress ??= []).push(
          line.text === undefined ? { op: progress.op, outcome: progress.outcome } : { op: progress.op, outcome: progress.outcome, error: line.text },
        );
        if (progress.outcome === 'stop') p.ended = true;
        break;
      }
      case 'warning':
        break;
    }
  }

  private closeThrough(second: number): void {
    this.sampler.closeThrough(second - HOLD_SECONDS);
    this.stats.sampledSeconds = this.sampler.sampledSeconds;
    while (this.queue.length > 0) {
      const p = this.queue[0]!;
      const due = p.ended ? p.lastSecond + HOLD_SECONDS <= second : p.firstSecond + MAX_ATTEMPT_SECONDS <= second;
      if (!due) break;
      this.judge(this.queue.shift()!);
    }
    // the seconds before the oldest attempt still assembling are judged for good
    this.sampler.forgetBefore(this.queue[0]?.firstSecond ?? second - HOLD_SECONDS);
  }

  /** Reads an attempt under both loops, then hands it on under the loop its run has, or holds it for that loop. */
  private judge(p: Pending): void {
    this.read(p);
    p.run.assembling--;
    this.settleIfOver(p.run);
  }

  /** A run that has ended and has nothing assembling can wait no longer. */
  private settleIfOver(run: Run): void {
    if (!run.ended || run.assembling > 0) return;
    const at = this.waiting.indexOf(run);
    if (at >= 0) this.settle(this.waiting.splice(at, 1)[0]!);
  }

  private read(p: Pending): void {
    if (this.open.get(p.correlation) === p) this.open.delete(p.correlation);
    if (p.reconcileID !== undefined) this.recentIds.set(p.reconcileID, true);
    const sampled = this.sampler.anySampledIn(p.firstSecond, p.lastSecond);
    // every field present, absent ones undefined: one object shape for the readings' memo to read
    const texts: AttemptTexts = {
      success: p.success,
      summary: p.summary,
      error: p.error,
      errorCauses: p.causes,
      progress: p.progress ?? NO_PROGRESS,
      incomplete: sampled,
    };
    const reading = this.builder.reading(texts);
    const judged: Judged = { pending: p, reading, sampled };
    const configured = this.options.loop;
    if (configured !== 'auto') {
      this.emit(judged, configured, []);
      return;
    }
    const run = p.run;
    const proof = provenLoop(judged);
    if (proof !== undefined) run.proofs[proof]++;
    if (run.loop === undefined) {
      const lead = leader(run);
      if (lead !== undefined && Math.abs(run.proofs.sequential - run.proofs.phased) >= PROOF_MARGIN) this.decide(run, lead);
    } else if (proof !== undefined && proof !== run.loop && run.proofs[proof] > run.proofs[run.loop]) {
      run.loop = proof;
    }
    if (run.loop !== undefined) {
      this.emit(judged, run.loop, proof === undefined ? ['loop_inherited'] : []);
      return;
    }
    const deployment = this.options.operatorLoop?.().loop;
    if (deployment !== undefined) {
      this.emit(judged, deployment, ['loop_from_deployment']);
      return;
    }
    if (run.held.length === 0) this.waiting.push(run);
    run.held.push(judged);
    this.held++;
    while (this.held > this.options.maxUndecided && this.waiting.length > 0) this.settle(this.waiting.shift()!);
  }

  /** The run's loop is decided: its held attempts are handed on under it. */
  private decide(run: Run, loop: LoopKind, note: SourceNote = 'loop_inherited'): void {
    run.loop = loop;
    this.lastRunLoop = loop;
    const at = this.waiting.indexOf(run);
    if (at >= 0) this.waiting.splice(at, 1);
    for (const j of run.held.splice(0)) {
      this.held--;
      this.emit(j, loop, provenLoop(j) === undefined || note !== 'loop_inherited' ? [note] : []);
    }
  }

  /**
   * A run that can wait no longer (it ended, or the hold limit): it takes the loop more of its attempts proved, else
   * the previous run's; when there is none, its held attempts' lines are dropped, never read under an assumed loop.
   */
  private settle(run: Run): void {
    const lead = leader(run);
    if (lead !== undefined) {
      this.decide(run, lead);
      return;
    }
    if (this.lastRunLoop !== undefined) {
      this.decide(run, this.lastRunLoop, 'loop_from_previous_run');
      return;
    }
    for (const j of run.held.splice(0)) {
      this.held--;
      for (const where of wheresOf(j.pending))
        this.drop(
          'loop_unknown',
          where,
          `attempt ${j.pending.reconcileID ?? j.pending.first.object}: no line of its operator run proved which loop wrote it, no loop is configured, and the operator Deployment does not say`,
        );
    }
  }

  private emit(j: Judged, loop: LoopKind, notes: SourceNote[]): void {
    const { pending: p, reading, sampled } = j;
    const read = reading.under(loop);
    if (!read.consistent && reading.under(loop === 'sequential' ? 'phased' : 'sequential').consistent) notes.push('loop_contradicted');
    const readNotes = readingNotes(read);
    if (readNotes.length > 0) notes.push(...readNotes);
    if (sampled) notes.push('sampled');
    if (notes.length === 1) this.stats.notes[notes[0]!]++;
    else if (notes.length > 1) for (const n of new Set(notes)) this.stats.notes[n]++;
    const where = p.errorWhere ?? p.first.where;
    for (const u of read.unmapped) {
      this.stats.unmappedErrors++;
      this.keepUnmapped({ message: u.message, why: u.why, detail: u.detail, where, time: p.first.time, object: p.first.object, count: 1 });
    }
    const record: AttemptRecord = {
      time: p.first.time,
      timeMs: p.first.timeMs,
      controller: p.first.controller,
      object: p.first.object,
      loop,
      operations: read.operations,
      origin: originOf(p, sampled),
    };
    this.stats.attempts++;
    this.stats.analyzed += p.lines;
    this.stats.observedLoop = loop;
    if (this.options.loop === 'auto') this.stats.loopDecidedBy = notes.includes('loop_from_deployment') ? 'deployment' : 'input';
    this.sink.attempt(record);
  }

  private keepUnmapped(entry: UnmappedSampleEntry): void {
    const seen = this.unmapped.get(entry.message);
    if (seen) seen.count++;
    else if (this.unmapped.size < this.options.unmappedSampleSize) this.unmapped.set(entry.message, entry);
    else this.unmappedTruncated = true;
  }

  private drop(reason: LogDropReason, where: string, message: string): void {
    this.stats.dropped[reason]++;
    this.sink.reject({ source: 'logs', reason, where, message });
  }
}

/** The loop more of the run's attempts proved; undefined on a tie. */
function leader(run: Run): LoopKind | undefined {
  const { sequential, phased } = run.proofs;
  return sequential === phased ? undefined : sequential > phased ? 'sequential' : 'phased';
}

/** The loop only one of whose readings fits the attempt's lines; undefined when both (or neither) fit. */
function provenLoop(j: Judged): LoopKind | undefined {
  const sequential = j.reading.under('sequential').consistent;
  if (sequential === j.reading.under('phased').consistent) return undefined;
  return sequential ? 'sequential' : 'phased';
}

/** The record's origin (its keys in this order: the derived journal writes them so). */
function originOf(p: Pending, sampled: boolean): AttemptRecord['origin'] {
  if (p.reconcileID === undefined) return sampled ? { source: 'logs', where: p.first.where, sampled: true } : { source: 'logs', where: p.first.where };
  return sampled
    ? { source: 'logs', reconcileID: p.reconcileID, where: p.first.where, sampled: true }
    : { source: 'logs', reconcileID: p.reconcileID, where: p.first.where };
}

/** Where each line of the attempt is, in order. */
function wheresOf(p: Pending): string[] {
  return p.laterWheres ? [p.first.where, ...p.laterWheres] : [p.first.where];
}

/** Without a reconcileID: a line that opens an attempt, after the open one has ended, starts the next one. */
function opensAnother(p: Pending, line: AttemptLine): boolean {
  if (!p.ended) return false;
  if (line.kind === 'error') return p.error !== undefined;
  return line.kind === 'success' || line.kind === 'summary' || line.kind === 'progress';
}
