/**
 * One controller's shadow: its compiled model, the outcome history projection reads, and the starvation timers.
 * Every source's records for that controller pass through `analyze`, in arrival order.
 */
import type { AttemptRecord } from '../collector/records.js';
import type { ReconcileModel } from '../model/types.js';
import { compileModel, type CompiledModel } from './compiled-model.js';
import { analyzeAttempt, objectKey, OutcomeHistory, type AttemptAnalysis } from './engine.js';
import { StarvationTracker } from './starvation.js';

export class ControllerShadow {
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

  analyze(record: AttemptRecord, key = objectKey(record)): AttemptAnalysis {
    const analysis = analyzeAttempt(this.cm, record, this.history, key);
    const observedRun = record.model === 'sequential' ? analysis.sequential : analysis.phased;
    const starving = record.model === 'sequential' ? analysis.unblocked : analysis.newlyBlocked;
    this.starvation.update(key, record.object, record.timeMs, starving, observedRun.ran);
    return analysis;
  }

  get trackedObjects(): number {
    return this.history.objects;
  }

  /** Drops everything kept about one object (its outcome history and starvation timers). */
  forget(key: string): void {
    this.history.forget(key);
    this.starvation.forget(key);
  }
}
