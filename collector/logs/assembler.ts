/**
 * Assembles reconcile attempts from operator log lines, in log order. Pure: no I/O and no clock; the source feeds it
 * lines and tells it when the input went quiet or ended.
 *
 * - Correlation: a phased attempt with errors writes `reconciliation completed with errors` and then controller-
 *   runtime's `Reconciler error`, with the same reconcileID; the two become one attempt. A line whose partner never
 *   comes (sampled away) still makes an attempt, with what it proves.
 * - Timing: an attempt is handed on once the stream has moved two `ts` seconds past it (or went quiet, or ended),
 *   because only then can the sampling detector judge its second; attempts leave in the order their first line came.
 * - Observed loop: configured, or `auto`: decided by evidence in the lines (AttemptBuilder.loopEvidence); attempts
 *   seen before any evidence wait (up to `maxUndecided`), then take the decided loop, or the fallback.
 */
import type { LoopKind, ReconcileModel } from '../../model/types.js';
import type { ErrorMapper } from '../error-mapping.js';
import type { AttemptRecord, RecordSink, RejectReason } from '../records.js';
import { AttemptBuilder, type Interpretation, type UnmappedWhy } from '../attempt-builder.js';
import { SamplingDetector, type SampledPeriod } from './sampling.js';
import { ZapLineClassifier, type EndLine, type IgnoredWhy, type LogPatterns } from './zap-line.js';

export type ObservedLoop = LoopKind | 'auto';

export interface AssemblerOptions {
  readonly model: ReconcileModel;
  readonly mapper: ErrorMapper;
  readonly patterns: LogPatterns;
  readonly loop: ObservedLoop;
  /** auto: the loop assumed when no line has told (a fleet with no errors looks the same under both). */
  readonly autoFallback: LoopKind;
  /** auto: attempts held while undecided before the fallback is taken. */
  readonly maxUndecided: number;
  readonly samplingThreshold: number;
  /** Attempts held for correlation and sampling judgement; beyond this the oldest is handed on early. */
  readonly maxPending: number;
  /** Distinct unmapped messages kept for the report. */
  readonly unmappedSampleSize: number;
}

export interface UnmappedSampleEntry {
  readonly message: string;
  readonly why: UnmappedWhy;
  readonly detail: string;
  /** Where and when it was first seen, and on which object. */
  readonly where: string;
  readonly time: string;
  readonly object: string;
  count: number;
}

export interface UnmappedSample {
  /** Every unmapped message, counted (also those not kept). */
  readonly total: number;
  /** Distinct messages, first seen first, at most `unmappedSampleSize`. */
  readonly distinct: readonly UnmappedSampleEntry[];
  /** True when distinct messages beyond the bound were only counted. */
  readonly truncated: boolean;
}

export interface LogSourceStats {
  lines: number;
  ignored: Record<IgnoredWhy, number>;
  endLines: { success: number; completedWithErrors: number; reconcilerError: number };
  rejected: number;
  attempts: number;
  /** Attempts in a second where lines may have been sampled away (origin.sampled). */
  sampledAttempts: number;
  unmappedErrors: number;
  /** The loop the last attempt was read under; undefined while auto is undecided. */
  observedLoop: LoopKind | undefined;
  loopDecidedBy: 'config' | 'evidence' | 'fallback' | undefined;
  /** auto: times the evidence switched the loop (e.g. the operator restarted with HYPERSHIFT_RECONCILE_LEGACY). */
  loopSwitches: number;
  /** Fixed loop: attempts whose lines say the other loop wrote them (check the configuration). */
  contradictingEvidence: number;
  sampledSeconds: number;
}

interface Pending {
  readonly first: EndLine;
  readonly second: number;
  success: boolean;
  summary?: string;
  summaryWhere?: string;
  error?: string;
  errorCauses?: readonly string[];
  errorWhere?: string;
}

interface Closed {
  readonly pending: Pending;
  readonly interpretation: Interpretation;
  readonly sampled: boolean;
}

export class AttemptAssembler {
  readonly stats: LogSourceStats;
  private readonly classifier: ZapLineClassifier;
  private readonly builder: AttemptBuilder;
  private readonly sampler: SamplingDetector;
  /** Attempts not yet handed on, in the order of their first line. */
  private readonly queue: Pending[] = [];
  /** Attempts with a summary line still waiting for their `Reconciler error`, by correlation id. */
  private readonly awaitingError = new Map<string, Pending>();
  private readonly undecided: Closed[] = [];
  private readonly unmapped = new Map<string, UnmappedSampleEntry>();
  private unmappedTruncated = false;
  private streamSecond = -Infinity;

  constructor(
    private readonly options: AssemblerOptions,
    private readonly sink: RecordSink,
  ) {
    this.classifier = new ZapLineClassifier(options.patterns, options.model.controller);
    this.builder = new AttemptBuilder(options.model, options.mapper);
    this.sampler = new SamplingDetector(options.samplingThreshold);
    this.stats = {
      lines: 0,
      ignored: { not_json: 0, other_message: 0, other_controller: 0 },
      endLines: { success: 0, completedWithErrors: 0, reconcilerError: 0 },
      rejected: 0,
      attempts: 0,
      sampledAttempts: 0,
      unmappedErrors: 0,
      observedLoop: options.loop === 'auto' ? undefined : options.loop,
      loopDecidedBy: options.loop === 'auto' ? undefined : 'config',
      loopSwitches: 0,
      contradictingEvidence: 0,
      sampledSeconds: 0,
    };
  }

  /** One complete line of the log; `where` names it in rejections (`file:line`). */
  line(text: string, where: string): void {
    this.stats.lines++;
    const c = this.classifier.classify(text, where);
    if (c.kind === 'ignored') this.stats.ignored[c.why]++;
    else this.sink.received?.('logs', 1);
    if (c.kind === 'rejected') this.refuse(c.reason, where, c.message);
    if (c.sighting) this.sampler.see(c.sighting);
    if (c.kind === 'end') this.accept(c.line);
    if (c.second !== undefined && c.second > this.streamSecond) {
      this.streamSecond = c.second;
      this.closeThrough(c.second - 2);
    }
    // Overload: the oldest attempt goes before its second can be judged for sampling.
    if (this.queue.length > this.options.maxPending) this.handOn(1);
  }

  /** A line the splitter refused as longer than the limit. */
  tooLong(where: string, bytes: number, limit: number): void {
    this.stats.lines++;
    this.sink.received?.('logs', 1);
    this.refuse('line_too_long', where, `line of ${bytes} bytes exceeds the limit of ${limit} bytes`);
  }

  /** The input went quiet: nothing more is coming for the seconds seen, so every held attempt is handed on. */
  flushQuiet(): void {
    this.sampler.closeAll();
    this.handOn(this.queue.length);
  }

  /** The input ended: hand on everything; auto attempts still undecided take the fallback loop. */
  end(): void {
    this.flushQuiet();
    if (this.undecided.length > 0) this.decide(this.options.autoFallback, 'fallback');
  }

  get pendingAttempts(): number {
    return this.queue.length + this.undecided.length;
  }

  sampledPeriods(): SampledPeriod[] {
    return this.sampler.periods();
  }

  unmappedSample(): UnmappedSample {
    return { total: this.stats.unmappedErrors, distinct: [...this.unmapped.values()].map((e) => ({ ...e })), truncated: this.unmappedTruncated };
  }

  private accept(line: EndLine): void {
    const second = Math.floor(line.timeMs / 1000);
    this.stats.endLines[line.kind]++;
    if (line.kind === 'success') {
      this.queue.push({ first: line, second, success: true });
    } else if (line.kind === 'completedWithErrors') {
      const p: Pending = { first: line, second, success: false, summary: line.text ?? '', summaryWhere: line.where };
      this.queue.push(p);
      this.awaitingError.set(line.correlation, p);
    } else {
      const partner = this.awaitingError.get(line.correlation);
      if (partner) {
        this.awaitingError.delete(line.correlation);
        partner.error = line.text;
        partner.errorCauses = line.causes;
        partner.errorWhere = line.where;
      } else {
        this.queue.push({ first: line, second, success: false, error: line.text, errorCauses: line.causes, errorWhere: line.where });
      }
    }
  }

  private closeThrough(second: number): void {
    this.sampler.closeThrough(second);
    let n = 0;
    while (n < this.queue.length && this.queue[n]!.second <= second) n++;
    this.handOn(n);
  }

  /** Hands on the first `n` queued attempts. */
  private handOn(n: number): void {
    for (const p of this.queue.splice(0, n)) {
      // Handed on without its Reconciler error: a late one starts an attempt of its own (the correlation key may
      // already belong to a newer attempt of the same object when there is no reconcileID).
      if (this.awaitingError.get(p.first.correlation) === p) this.awaitingError.delete(p.first.correlation);
      const sampled = this.sampler.isSampled(p.second);
      const interpretation = this.builder.interpret({ success: p.success, summary: p.summary, error: p.error, errorCauses: p.errorCauses });
      this.route({ pending: p, interpretation, sampled });
    }
    this.stats.sampledSeconds = this.sampler.sampledSeconds;
  }

  private route(c: Closed): void {
    const evidence = this.builder.loopEvidence(c.interpretation, c.sampled);
    if (this.options.loop !== 'auto') {
      if (evidence !== undefined && evidence !== this.options.loop) this.stats.contradictingEvidence++;
      this.emit(c, this.options.loop);
      return;
    }
    if (evidence !== undefined) {
      if (this.stats.observedLoop !== undefined && evidence !== this.stats.observedLoop) this.stats.loopSwitches++;
      this.undecided.push(c);
      this.decide(evidence, 'evidence');
      return;
    }
    if (this.stats.observedLoop !== undefined) {
      this.emit(c, this.stats.observedLoop);
      return;
    }
    this.undecided.push(c);
    if (this.undecided.length > this.options.maxUndecided) this.decide(this.options.autoFallback, 'fallback');
  }

  private decide(loop: LoopKind, by: 'evidence' | 'fallback'): void {
    this.stats.observedLoop = loop;
    this.stats.loopDecidedBy = by;
    for (const c of this.undecided.splice(0)) this.emit(c, loop);
  }

  private emit(c: Closed, loop: LoopKind): void {
    const { pending: p, interpretation, sampled } = c;
    const built = this.builder.build(loop, interpretation);
    const errorWhere = p.errorWhere ?? p.first.where;
    for (const u of built.unmapped) {
      this.stats.unmappedErrors++;
      this.keepUnmapped({ message: u.message, why: u.why, detail: u.detail, where: errorWhere, time: p.first.time, object: p.first.object, count: 1 });
      this.refuse('unmapped_error', errorWhere, `${u.detail}: ${JSON.stringify(u.message)}`);
    }
    for (const n of built.unknownNames) {
      this.refuse('unknown_operation', p.summaryWhere ?? errorWhere, `${n.list}: ${JSON.stringify(n.name)} is neither a group nor an operation of model ${this.options.model.name}`);
    }
    const record: AttemptRecord = {
      time: p.first.time,
      timeMs: p.first.timeMs,
      controller: p.first.controller,
      object: p.first.object,
      model: loop,
      operations: built.operations,
      origin: sampled ? { source: 'logs', sampled: true } : { source: 'logs' },
    };
    this.stats.attempts++;
    if (sampled) this.stats.sampledAttempts++;
    this.sink.attempt(record);
  }

  private keepUnmapped(entry: UnmappedSampleEntry): void {
    const seen = this.unmapped.get(entry.message);
    if (seen) seen.count++;
    else if (this.unmapped.size < this.options.unmappedSampleSize) this.unmapped.set(entry.message, entry);
    else this.unmappedTruncated = true;
  }

  private refuse(reason: RejectReason, where: string, message: string): void {
    this.stats.rejected++;
    this.sink.reject({ source: 'logs', reason, where, message });
  }
}
