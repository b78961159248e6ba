/**
 * The analyzer every source feeds: it routes each attempt to its controller's analyzer, refuses what no model
 * describes, and tells the outputs (summary, metrics, traces, jsonl) about each result, each a guarded listener
 * (lib/listeners.ts), as the recreation analyzer tells its own. It is the RecordSink the sources write to, so a source
 * never knows what happens downstream.
 */
import type { AttemptRecord, RecordSink, Rejection, SourceInputSummary, SourceKind } from '../collector/records.js';
import { Listeners } from '../lib/listeners.js';
import type { ReconcileModel } from '../model/types.js';
import { objectOfKey, type AttemptAnalysis } from './engine.js';
import type { SummaryState } from './summary/summary-state.js';
import { ControllerSummaryBuilder, InputLedger } from './summary/summary.js';
import { SUMMARY_SCHEMA, type Summary } from './summary/types.js';
import { ControllerAnalyzer } from './controller-analyzer.js';

export interface AnalysisListener {
  attempt?(controller: ControllerAnalyzer, analysis: AttemptAnalysis): void;
  /** An object's state was forgotten to keep the tracked objects under the cap. */
  evicted?(controller: ControllerAnalyzer, object: string): void;
  reject?(rejection: Rejection): void;
  received?(source: SourceKind, count: number): void;
  /** A source describes its own input (books, notes), read when wanted: at a scrape, for /summary. */
  described?(source: SourceKind, summary: () => SourceInputSummary): void;
}

interface Controller {
  readonly analyzer: ControllerAnalyzer;
  readonly summary: ControllerSummaryBuilder;
}

/**
 * Objects whose outcome history and starvation timers one controller's analyzer keeps at most (the config's
 * maxTrackedObjects); past it the least recently seen is forgotten. The decision evidence has its own bound
 * (analyzer/decisions/evidence.ts DEFAULT_MAX_EVIDENCE_OBJECTS).
 */
export const DEFAULT_MAX_TRACKED_OBJECTS = 20_000;

/** Where a refused record came from when its source says (logs: file:line), else which object it was about. */
const whereFrom = (record: AttemptRecord): string => record.origin.where ?? record.object;

export class Analyzer implements RecordSink {
  private readonly byController = new Map<string, Controller>();
  private readonly listeners: Listeners<AnalysisListener>;
  readonly ledger = new InputLedger();

  /**
   * @param onListenerError a failing output (metrics, traces, a writer) is reported here and never changes another
   * record's result or another output's view.
   */
  constructor(
    models: readonly ReconcileModel[],
    onListenerError: (error: unknown) => void = (e) => {
      throw e;
    },
    private readonly maxTrackedObjects = DEFAULT_MAX_TRACKED_OBJECTS,
  ) {
    this.listeners = new Listeners(onListenerError);
    for (const model of models) {
      if (this.byController.has(model.controller)) throw new Error(`two models describe controller "${model.controller}"`);
      const analyzer = new ControllerAnalyzer(model);
      const summary = new ControllerSummaryBuilder(analyzer.cm, analyzer.starvation, () => analyzer.trackedObjects);
      this.byController.set(model.controller, { analyzer, summary });
    }
  }

  listen(listener: AnalysisListener): void {
    this.listeners.add(listener);
  }

  get controllers(): ControllerAnalyzer[] {
    return [...this.byController.values()].map((c) => c.analyzer);
  }

  attempt(record: AttemptRecord): void {
    const c = this.byController.get(record.controller);
    if (!c) {
      this.reject({
        source: record.origin.source,
        reason: 'unknown_controller',
        where: whereFrom(record),
        message: `no model describes controller "${record.controller}"`,
      });
      return;
    }
    const unknown = c.analyzer.unknownOperation(record);
    if (unknown !== undefined) {
      this.reject({
        source: record.origin.source,
        reason: 'unknown_operation',
        where: whereFrom(record),
        message: `operation "${unknown}" is not in model ${c.analyzer.model.name}`,
      });
      return;
    }
    const analysis = c.analyzer.analyze(record);
    c.summary.add(analysis);
    this.listeners.emit('attempt', c.analyzer, analysis);
    this.evictBeyondCap(c);
  }

  /** Keeps per-object state bounded: a sender of ever-new object names cannot grow memory without end. */
  private evictBeyondCap(c: Controller): void {
    if (c.analyzer.trackedObjects <= this.maxTrackedObjects) return;
    const oldestKey = c.analyzer.leastRecentKey()!;
    c.analyzer.forget(oldestKey);
    const oldestObject = objectOfKey(c.analyzer.model.controller, oldestKey);
    this.listeners.emit('evicted', c.analyzer, oldestObject);
  }

  reject(rejection: Rejection): void {
    this.ledger.reject(rejection);
    this.listeners.emit('reject', rejection);
  }

  inputSummary(source: SourceKind, summary: () => SourceInputSummary): void {
    this.ledger.describe(source, summary);
    this.listeners.emit('described', source, summary);
  }

  received(source: SourceKind, count: number): void {
    this.ledger.receive(source, count);
    this.listeners.emit('received', source, count);
  }

  /** Each controller's summary as plain data, in the models' order: the partial state a sharded run merges. */
  summaryStates(): { readonly controller: ControllerAnalyzer; readonly state: SummaryState }[] {
    return [...this.byController.values()].map((c) => ({ controller: c.analyzer, state: c.summary.snapshot() }));
  }

  /** What `analyze` counts, as `analyze --format json` prints it and /summary serves it. */
  summary(): Summary {
    return { schema: SUMMARY_SCHEMA, controllers: [...this.byController.values()].map((c) => c.summary.build()), input: this.ledger.build() };
  }
}
