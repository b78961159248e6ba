/**
 * What analyzes one controller's attempts: its compiled model, the outcome history projection reads, and the
 * starvation timers. Every source's records for that controller pass through `analyze`, in arrival order; the
 * Analyzer (analyzer.ts) keeps one per controller.
 */
import type { AttemptRecord } from '../collector/records.js';
import type { ReconcileModel } from '../model/types.js';
import { compileModel, opIndexAt, PHASED, SEQUENTIAL, type CompiledModel } from './compiled-model.js';
import { analyzeInSlot, objectKey, type AttemptAnalysis } from './engine.js';
import { OutcomeHistory } from './outcome-history.js';
import { StarvationTracker } from './starvation.js';

export class ControllerAnalyzer {
  readonly cm: CompiledModel;
  readonly history: OutcomeHistory;
  readonly starvation: StarvationTracker;

  constructor(readonly model: ReconcileModel) {
    this.cm = compileModel(model);
    this.history = new OutcomeHistory(this.cm.ops.length);
    this.starvation = new StarvationTracker(this.cm.ops.length);
  }

  /** Names of the operations a record may carry; anything else is refused before analysis. */
  get knownOperations(): ReadonlySet<string> {
    return new Set(this.cm.ops);
  }

  /** The first operation of `record` the model does not have, or undefined when it has them all. */
  unknownOperation(record: AttemptRecord): string | undefined {
    const loop = record.loop === 'sequential' ? SEQUENTIAL : PHASED;
    const operations = record.operations;
    for (let k = 0; k < operations.length; k++) if (opIndexAt(this.cm, operations[k]!.name, k, loop) === undefined) return operations[k]!.name;
    return undefined;
  }

  /** Analyzes one attempt; its object becomes the most recently seen. */
  analyze(record: AttemptRecord, key = objectKey(record)): AttemptAnalysis {
    const slot = this.history.slotOf(key);
    const analysis = analyzeInSlot(this.cm, record, this.history, slot);
    const observedRun = record.loop === 'sequential' ? analysis.sequential : analysis.phased;
    const starving = record.loop === 'sequential' ? analysis.unblocked : analysis.newlyBlocked;
    this.starvation.update(slot, record.object, record.timeMs, starving, observedRun.ran);
    return analysis;
  }

  get trackedObjects(): number {
    return this.history.objects;
  }

  /** The object analyzed least recently (its objectKey), or undefined when none is tracked. */
  leastRecentKey(): string | undefined {
    return this.history.leastRecent();
  }

  /** Drops everything kept about one object (its outcome history and starvation timers). */
  forget(key: string): void {
    const slot = this.history.find(key);
    if (slot === undefined) return;
    this.starvation.forget(slot);
    this.history.forget(key);
  }
}
