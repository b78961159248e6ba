/**
 * The recreation pipeline, the second of the sidecar's two: the adapter's task config (read from disk here) compiled
 * once, one RecreationAnalyzer fed by the recreation inputs (the objects and HyperFleet sources, or the simulator's
 * adapter world), and the outputs subscribed to it as guarded listeners, as the attempt pipeline's are. Its
 * rejections are counted with every other input's, by the attempt pipeline's books.
 */
import { CelRuntime } from '../analyzer/recreations/cel.js';
import { trackerOptionsOf, type RecreationSettings } from '../analyzer/recreations/config.js';
import { CompiledTaskConfig } from '../analyzer/recreations/rules.js';
import { RecreationAnalyzer } from '../analyzer/recreations/recreation-analyzer.js';
import type { ObjectWatch } from '../collector/objects/observation.js';
import type { Rejection } from '../collector/records.js';
import type { RecreationPipelineView } from '../outputs/component.js';
import { loadAdapterConfigFile, loadTaskConfigWithProposals } from './files.js';

export class RecreationPipeline implements RecreationPipelineView {
  readonly analyzer: RecreationAnalyzer;
  readonly kinds: readonly string[];
  readonly stuckThresholdMs: (kind: string) => number;
  readonly maxStuckSeries: number;
  /** What the objects source watches: the kinds the task config discovers. */
  readonly watches: readonly ObjectWatch[];

  /**
   * Throws a ValidationError (`adapter task config`) when the task config cannot be read or compiled.
   * @param resourceTypes HyperFleet resource types whose Reconciled=False periods are measured.
   * @param failed an output listening to the recreation analyzer threw (counted; the pipeline goes on).
   * @param rejected a record that could not become an observation.
   */
  constructor(
    settings: RecreationSettings,
    readonly resourceTypes: readonly string[],
    failed: (error: unknown) => void,
    rejected: (r: Rejection) => void,
  ) {
    const compiled = CompiledTaskConfig.compile(loadTaskConfigWithProposals(settings.taskConfig, settings.proposals), new CelRuntime(), {
      env: settings.env ?? {},
      ...(settings.adapterConfig ? { adapterConfig: loadAdapterConfigFile(settings.adapterConfig) } : {}),
    });
    const tracker = trackerOptionsOf(settings);
    this.analyzer = new RecreationAnalyzer(compiled, tracker, { rejected }, failed);
    this.kinds = [...new Set(compiled.resources.map((r) => r.kind))];
    this.stuckThresholdMs = tracker.stuckThresholdMs;
    this.maxStuckSeries = settings.maxStuckSeries;
    this.watches = compiled.watchTargets();
  }
}
