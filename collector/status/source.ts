/**
 * The HostedCluster status source: watches `hostedclusters.hypershift.openshift.io/v1beta1` and turns each
 * transition of the `ReconciliationSucceeded` condition into one AttemptRecord (origin {source: 'status',
 * transition: true}) stating only what the condition's text proves. Needs no operator change and only read access
 * (get/list/watch on hostedclusters, and on the operator Deployment for `loop: auto`); never reads Secrets.
 *
 * It sees transitions, not attempts: the operator rewrites the condition only when its text changes, so a cluster
 * failing the same way a thousand times is one record. See docs/status-source.md.
 *
 * Reading the text (shared with the log source, collector/attempt-builder.ts):
 * - True: the loop returned no error, so every operation of the observed loop is recorded ok.
 * - Sequential loop, False: the message is the failing operation's error; the operations before it are ok.
 * - Phased loop, False: `critical error: …; blocked operations: [...]` (mapped critical errors fail, blocked groups
 *   did not run, non-critical groups unknown) or `[e1, e2]` / a lone error (each mapped op fails, the rest ran ok).
 * A message no error format maps is counted (`unmapped_error`), kept in a bounded sample, and never guessed.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { LoopKind, ReconcileModel } from '../../model/types.js';
import { ErrorMapper } from '../error-mapping.js';
import { ResilientInformer, SYSTEM_TIMERS, type BackoffOptions, type RawKubeObject, type Timers } from '../kube/informer.js';
import { AttemptBuilder, type Interpretation } from '../attempt-builder.js';
import type { UnmappedSample, UnmappedSampleEntry } from '../logs/assembler.js';
import type { AttemptRecord, RecordSink, RejectReason, Source, SourceKind } from '../records.js';
import { readCondition, RECONCILIATION_SUCCEEDED, transitionTime, type ConditionState, type TransitionTime } from './condition.js';
import { DEFAULT_OPERATOR_DEPLOYMENT, OperatorLoopWatch, type DeploymentRef } from './operator-loop.js';

export type StatusLoop = LoopKind | 'auto';
/** What decided the loop of a transition. */
export type LoopDecidedBy = 'config' | 'deployment' | 'message' | 'fallback';

export interface HostedClusterStatusSourceOptions {
  readonly model: ReconcileModel;
  /** Default: loaded from the environment (in-cluster service account, KUBECONFIG, or ~/.kube/config). */
  readonly kubeConfig?: KubeConfig;
  /** Watch one namespace; default all namespaces (needs a ClusterRole binding instead of a Role). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** The loop the operator runs: `sequential`, `phased`, or `auto`. Default `auto`. */
  readonly loop?: StatusLoop;
  /** auto: the Deployment whose env says (HYPERSHIFT_RECONCILE_LEGACY). Default hypershift/operator; false: do not read it. */
  readonly operatorDeployment?: DeploymentRef | false;
  /** auto: how long start() waits for the Deployment before transitions are read without it. Default 10000 ms. */
  readonly loopDetectTimeoutMs?: number;
  /** auto: the loop assumed when neither the Deployment nor any message has told. Default `phased`. */
  readonly autoFallback?: LoopKind;
  /** Report the condition found when an object is first seen (e.g. at sidecar start). Default true. */
  readonly emitInitial?: boolean;
  /** Objects tracked at most; more are refused (`pending_limit`). Default 10000. */
  readonly maxTrackedObjects?: number;
  /** Distinct unmapped messages kept for the report. Default 50. */
  readonly unmappedSampleSize?: number;
  readonly backoff?: Partial<BackoffOptions>;
  readonly timers?: Timers;
  /** The watch went up or down (for `reconcile_shadow_source_up{source="status"}`). */
  readonly onState?: (up: boolean) => void;
  /** Every transition handed on, with what the record cannot carry (the blocked groups the text names, the times' origin). */
  readonly onTransition?: (t: StatusTransition) => void;
  /** A watch failure (already retried with backoff); for the log. */
  readonly onError?: (err: Error) => void;
}

export const STATUS_SOURCE_DEFAULTS = {
  loop: 'auto',
  operatorDeployment: DEFAULT_OPERATOR_DEPLOYMENT,
  loopDetectTimeoutMs: 10_000,
  autoFallback: 'phased',
  emitInitial: true,
  maxTrackedObjects: 10_000,
  unmappedSampleSize: 50,
} as const;

export interface StatusTransition {
  readonly object: string;
  readonly uid: string;
  readonly condition: ConditionState;
  readonly time: TransitionTime;
  /** First sight of the object, not a change seen happening. */
  readonly initial: boolean;
  readonly loop: LoopKind;
  readonly loopDecidedBy: LoopDecidedBy;
  /** Group names after `blocked operations:` in the message. */
  readonly blocked: readonly string[];
  readonly record: AttemptRecord;
}

export interface StatusSourceStats {
  transitions: number;
  initial: number;
  rejected: number;
  unmappedErrors: number;
  loopDecidedBy: Record<LoopDecidedBy, number>;
  /** auto: a message shape that says the other loop than the operator Deployment's env. */
  contradictingEvidence: number;
  watchErrors: number;
}

interface Tracked {
  readonly uid: string | undefined;
  readonly condition: ConditionState | undefined;
}

const HOSTED_CLUSTERS = '/apis/hypershift.openshift.io/v1beta1';

export class HostedClusterStatusSource implements Source {
  readonly kind: SourceKind = 'status';
  readonly stats: StatusSourceStats = {
    transitions: 0,
    initial: 0,
    rejected: 0,
    unmappedErrors: 0,
    loopDecidedBy: { config: 0, deployment: 0, message: 0, fallback: 0 },
    contradictingEvidence: 0,
    watchErrors: 0,
  };
  private readonly builder: AttemptBuilder;
  private readonly timers: Timers;
  private readonly informer: ResilientInformer;
  private readonly loopWatch: OperatorLoopWatch | undefined;
  private readonly tracked = new Map<string, Tracked>();
  private readonly unmapped = new Map<string, UnmappedSampleEntry>();
  private unmappedTruncated = false;
  /** auto: the loop the last message with evidence showed. */
  private evidence: LoopKind | undefined;

  constructor(
    private readonly options: HostedClusterStatusSourceOptions,
    private readonly sink: RecordSink,
  ) {
    this.builder = new AttemptBuilder(options.model, new ErrorMapper(options.model));
    this.timers = options.timers ?? SYSTEM_TIMERS;
    const kubeConfig = options.kubeConfig ?? defaultKubeConfig();
    const onError = (e: Error): void => {
      this.stats.watchErrors++;
      options.onError?.(e);
    };
    const path = options.namespace === undefined ? `${HOSTED_CLUSTERS}/hostedclusters` : `${HOSTED_CLUSTERS}/namespaces/${encodeURIComponent(options.namespace)}/hostedclusters`;
    this.informer = new ResilientInformer(
      { kubeConfig, path, labelSelector: options.labelSelector, backoff: options.backoff, timers: this.timers },
      {
        add: (o) => this.observe(o),
        update: (o) => this.observe(o),
        delete: (o) => this.tracked.delete(keyOf(o)),
        state: (up) => options.onState?.(up),
        error: onError,
      },
    );
    const deployment = options.operatorDeployment ?? STATUS_SOURCE_DEFAULTS.operatorDeployment;
    if ((options.loop ?? STATUS_SOURCE_DEFAULTS.loop) === 'auto' && deployment !== false) {
      this.loopWatch = new OperatorLoopWatch({ kubeConfig, deployment, backoff: options.backoff, timers: this.timers, onError });
    }
  }

  /** Starts watching; with `loop: auto` first waits (bounded) for the operator Deployment to be read. */
  async start(): Promise<void> {
    if (this.loopWatch) {
      this.loopWatch.start();
      let timer: unknown;
      const timeout = new Promise<void>((resolve) => (timer = this.timers.setTimeout(resolve, this.options.loopDetectTimeoutMs ?? STATUS_SOURCE_DEFAULTS.loopDetectTimeoutMs)));
      await Promise.race([this.loopWatch.whenSynced(), timeout]);
      this.timers.clearTimeout(timer);
    }
    this.informer.start();
  }

  async stop(): Promise<void> {
    await this.informer.stop();
    await this.loopWatch?.stop();
  }

  /** Resolves once the first list of HostedClusters has been read. */
  whenSynced(): Promise<void> {
    return this.informer.whenSynced();
  }

  get isUp(): boolean {
    return this.informer.isUp;
  }

  /** auto: the loop the operator Deployment's env selects, undefined while unread or when it does not say. */
  get deploymentLoop(): LoopKind | undefined {
    return this.loopWatch?.loop;
  }

  unmappedSample(): UnmappedSample {
    return { total: this.stats.unmappedErrors, distinct: [...this.unmapped.values()].map((e) => ({ ...e })), truncated: this.unmappedTruncated };
  }

  private observe(obj: RawKubeObject): void {
    const key = keyOf(obj);
    const uid = obj.metadata?.uid;
    const read = readCondition(obj, RECONCILIATION_SUCCEEDED);
    if ('problem' in read) {
      this.sink.received?.('status', 1);
      this.refuse('invalid_object', `hostedcluster ${key}`, read.problem);
      return;
    }
    const before = this.tracked.get(key);
    const previous = before?.uid === uid ? before : undefined;
    if (!before && this.tracked.size >= (this.options.maxTrackedObjects ?? STATUS_SOURCE_DEFAULTS.maxTrackedObjects)) {
      this.sink.received?.('status', 1);
      this.refuse('pending_limit', `hostedcluster ${key}`, `more than ${this.tracked.size} HostedClusters tracked; raise maxTrackedObjects or narrow namespace/labelSelector`);
      return;
    }
    const condition = read.condition;
    this.tracked.set(key, { uid, condition });
    if (!condition || (condition.status !== 'True' && condition.status !== 'False')) return;
    const initial = previous === undefined;
    if (initial && !(this.options.emitInitial ?? STATUS_SOURCE_DEFAULTS.emitInitial)) return;
    const time = transitionTime(previous?.condition, condition, this.timers.now());
    if (time) this.emit(key, uid ?? '', obj, condition, time, initial);
  }

  private emit(key: string, uid: string, obj: RawKubeObject, condition: ConditionState, time: TransitionTime, initial: boolean): void {
    this.sink.received?.('status', 1);
    const interpretation = this.builder.interpret({ success: condition.status === 'True', error: condition.status === 'False' ? condition.message : undefined });
    const [loop, decidedBy] = this.decideLoop(interpretation);
    const built = this.builder.build(loop, interpretation);
    const operations = built.operations;
    const where = `hostedcluster ${key}`;
    for (const u of built.unmapped) {
      this.stats.unmappedErrors++;
      this.keepUnmapped({ message: u.message, why: u.why, detail: u.detail, where, time: time.time, object: key, count: 1 });
      this.refuse('unmapped_error', where, `${u.detail}: ${JSON.stringify(u.message)}`);
    }
    for (const n of built.unknownNames) {
      this.refuse('unknown_operation', where, `${n.list}: ${JSON.stringify(n.name)} is neither a group nor an operation of model ${this.options.model.name}`);
    }
    const generation = condition.observedGeneration ?? obj.metadata?.generation;
    const record: AttemptRecord = {
      time: time.time,
      timeMs: time.timeMs,
      controller: this.options.model.controller,
      object: key,
      ...(generation === undefined ? {} : { generation }),
      model: loop,
      operations,
      origin: { source: 'status', transition: true },
    };
    this.stats.transitions++;
    if (initial) this.stats.initial++;
    this.stats.loopDecidedBy[decidedBy]++;
    this.sink.attempt(record);
    this.options.onTransition?.({ object: key, uid, condition, time, initial, loop, loopDecidedBy: decidedBy, blocked: interpretation.blocked, record });
  }

  /**
   * Configured loop; else the operator Deployment's env; else the message's shape (`critical error:`, an error on
   * two operations, or an operation only one loop has), remembered for messages that do not tell; else the fallback.
   * A lone error never tells here: unlike the log, the condition has no summary line whose absence would.
   */
  private decideLoop(i: Interpretation): [LoopKind, LoopDecidedBy] {
    const configured = this.options.loop ?? STATUS_SOURCE_DEFAULTS.loop;
    if (configured !== 'auto') return [configured, 'config'];
    const shown = this.builder.loopEvidence(i, true);
    if (shown !== undefined) this.evidence = shown;
    const fromEnv = this.loopWatch?.loop;
    if (fromEnv !== undefined) {
      if (shown !== undefined && shown !== fromEnv) this.stats.contradictingEvidence++;
      return [fromEnv, 'deployment'];
    }
    if (this.evidence !== undefined) return [this.evidence, 'message'];
    return [this.options.autoFallback ?? STATUS_SOURCE_DEFAULTS.autoFallback, 'fallback'];
  }

  private keepUnmapped(entry: UnmappedSampleEntry): void {
    const seen = this.unmapped.get(entry.message);
    if (seen) seen.count++;
    else if (this.unmapped.size < (this.options.unmappedSampleSize ?? STATUS_SOURCE_DEFAULTS.unmappedSampleSize)) this.unmapped.set(entry.message, entry);
    else this.unmappedTruncated = true;
  }

  private refuse(reason: RejectReason, where: string, message: string): void {
    this.stats.rejected++;
    this.sink.reject({ source: 'status', reason, where, message });
  }
}

function keyOf(obj: RawKubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

function defaultKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}
