/**
 * The HostedCluster status source: watches `hostedclusters.hypershift.openshift.io/v1beta1` and turns each
 * transition of the `ReconciliationSucceeded` condition into one AttemptRecord (origin {source: 'status',
 * transition: true}) stating only what the condition's text proves. Needs no operator change and only read access
 * (get/list/watch on hostedclusters, and on the operator Deployment for `loop: auto`); never reads Secrets.
 *
 * It sees transitions, not attempts: the operator rewrites the condition only when its text changes, so a cluster
 * failing the same way a thousand times is one record. See docs/status-source.md.
 *
 * Reading the text is the log source's (collector/readings/attempt-builder.ts): True means the loop returned no error; False
 * carries the loop's error (the first failing operation's, or the phased `aggregate()`), read under the loop the
 * operator runs. Which loop that is: configured; else the operator Deployment (collector/hypershift/operator-loop.ts: the switch
 * and the build's version); else a message only one loop can have written, remembered for the messages after it.
 * When none of these says, the transition is dropped (`loop_unknown`), never read under an assumed loop.
 * A message no error format maps is noted (`unmapped_error`), kept in a bounded sample, and never guessed.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { SourceHooks } from '../component.js';
import { kubeConfigFromEnvironment } from '../kube/credentials.js';
import type { LoopKind, LoopSetting, ReconcileModel } from '../../model/types.js';
import type { BackoffOptions } from '../kube/backoff.js';
import { ResilientInformer, SYSTEM_TIMERS, type RawKubeObject, type Timers } from '../kube/informer.js';
import { AttemptBuilder, readingNotes } from '../readings/attempt-builder.js';
import type { BuiltAttempt } from '../readings/types.js';
import type { UnmappedSample, UnmappedSampleEntry } from '../logs/types.js';
import type { DeploymentRef } from '../hypershift/operator-deployment.js';
import { HYPERSHIFT_OPERATOR, OperatorLoopWatch, type OperatorLoop } from '../hypershift/operator-loop.js';
import {
  SOURCE_NOTES,
  type AttemptRecord,
  type LoopDecidedBy,
  type LoopKnowledge,
  type RecordSink,
  type RejectReason,
  type Source,
  type SourceInputSummary,
  type SourceKind,
  type SourceNote,
} from '../records.js';
import { STATUS_SOURCE_DEFAULTS } from './defaults.js';
import { readCondition, RECONCILIATION_SUCCEEDED, transitionTime, type ConditionState, type TransitionTime } from './condition.js';

export interface HostedClusterStatusSourceOptions {
  readonly model: ReconcileModel;
  /** Default: loaded from the environment (in-cluster service account, KUBECONFIG, or ~/.kube/config). */
  readonly kubeConfig?: KubeConfig;
  /** Watch one namespace; default all namespaces (needs a ClusterRole binding instead of a Role). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** The loop the operator runs: `sequential`, `phased`, or `auto`. Default `auto`. */
  readonly loop?: LoopSetting;
  /** auto: the operator Deployment (its HYPERSHIFT_RECONCILE_LEGACY and build version). Default hypershift/operator; false: do not read it. */
  readonly operatorDeployment?: DeploymentRef | false;
  /** auto: how long start() waits for the Deployment before transitions are read without it. Default 10000 ms. */
  readonly loopDetectTimeoutMs?: number;
  /** Report the condition found when an object is first seen (e.g. at sidecar start). Default true. */
  readonly emitInitial?: boolean;
  /** Objects tracked at most; more are refused (`pending_limit`). Default 10000. */
  readonly maxTrackedObjects?: number;
  /** Distinct unmapped messages kept for the summary. Default 50. */
  readonly unmappedSampleSize?: number;
  readonly backoff?: Partial<BackoffOptions>;
  readonly timers?: Timers;
  /** The sidecar's health hooks: the watch going up or down, and its failures (already retried with backoff). */
  readonly hooks?: Pick<SourceHooks, 'state' | 'error'>;
  /** Every transition handed on, with what the record cannot carry (the blocked groups the text names, the times' origin). */
  readonly onTransition?: (t: StatusTransition) => void;
  /** Once started: what the source knows about the operator's loop (to be said once). */
  readonly onStarted?: (loop: LoopKnowledge) => void;
}

export interface StatusTransition {
  readonly object: string;
  readonly uid: string;
  readonly condition: ConditionState;
  readonly time: TransitionTime;
  /** First sight of the object, not a change seen happening. */
  readonly initial: boolean;
  readonly loop: LoopKind;
  readonly loopDecidedBy: LoopDecidedBy;
  /** Group names after `blocked operations:` in the message (empty without such a list). */
  readonly blocked: readonly string[];
  readonly record: AttemptRecord;
}

/** Books in condition transitions: `received = transitions + dropped`. */
export interface StatusSourceStats {
  received: number;
  transitions: number;
  initial: number;
  rejected: number;
  dropped: Partial<Record<RejectReason, number>>;
  notes: Record<SourceNote, number>;
  unmappedErrors: number;
  loopDecidedBy: Record<LoopDecidedBy, number>;
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
    received: 0,
    transitions: 0,
    initial: 0,
    rejected: 0,
    dropped: {},
    notes: Object.fromEntries(SOURCE_NOTES.map((n) => [n, 0])) as Record<SourceNote, number>,
    unmappedErrors: 0,
    loopDecidedBy: { config: 0, deployment: 0, input: 0 },
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
    this.builder = new AttemptBuilder(options.model, { nonOperationErrors: HYPERSHIFT_OPERATOR.nonOperationErrors });
    sink.inputSummary?.('status', () => this.inputSummary());
    this.timers = options.timers ?? SYSTEM_TIMERS;
    const kubeConfig = options.kubeConfig ?? kubeConfigFromEnvironment();
    const onError = (e: Error): void => {
      this.stats.watchErrors++;
      options.hooks?.error(e);
    };
    const path =
      options.namespace === undefined
        ? `${HOSTED_CLUSTERS}/hostedclusters`
        : `${HOSTED_CLUSTERS}/namespaces/${encodeURIComponent(options.namespace)}/hostedclusters`;
    this.informer = new ResilientInformer(
      { kubeConfig, path, labelSelector: options.labelSelector, backoff: options.backoff, timers: this.timers },
      {
        add: (o) => this.observe(o),
        update: (o) => this.observe(o),
        delete: (o) => this.tracked.delete(keyOf(o)),
        state: (up) => options.hooks?.state(up),
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
    await this.loopWatch?.startWithin(this.options.loopDetectTimeoutMs ?? STATUS_SOURCE_DEFAULTS.loopDetectTimeoutMs, this.timers);
    this.informer.start();
    this.options.onStarted?.(this.loopKnowledge());
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

  /** auto: the loop the operator Deployment says it runs, undefined while unread or when it does not say. */
  get deploymentLoop(): LoopKind | undefined {
    return this.loopWatch?.loop;
  }

  /** What the source knows about the operator's loop, and from where (said once at start, and in the summary). */
  loopKnowledge(): LoopKnowledge {
    const configured = this.options.loop ?? STATUS_SOURCE_DEFAULTS.loop;
    if (configured !== 'auto') return { configured, current: configured, decidedBy: 'config', statement: `configured: the ${configured} loop` };
    const deployment: OperatorLoop = this.loopWatch?.current ?? {
      loop: undefined,
      statement: 'the operator Deployment is not read (operatorDeployment: false)',
    };
    if (deployment.loop !== undefined) return { configured, current: deployment.loop, decidedBy: 'deployment', statement: deployment.statement };
    const statement = `${deployment.statement}; ${this.evidence ? `a condition message last proved the ${this.evidence} loop` : 'no condition message has proved a loop yet; transitions are dropped as loop_unknown until one does'}`;
    return { configured, current: this.evidence ?? null, decidedBy: this.evidence ? 'input' : 'unknown', statement };
  }

  /** The books (in condition transitions), the reservations and the unmapped sample, for the summary. */
  inputSummary(): SourceInputSummary {
    const s = this.stats;
    return {
      source: 'status',
      unit: 'transitions',
      received: s.received,
      analyzed: s.transitions,
      dropped: { ...s.dropped },
      ignored: {},
      attempts: s.transitions,
      notes: { ...s.notes },
      loop: this.loopKnowledge(),
      unmappedSample: this.unmappedSample(),
      caveats: [
        'The condition changes only when its text does: a cluster failing the same way many times is one transition, so counts are of transitions, not attempts.',
      ],
    };
  }

  unmappedSample(): UnmappedSample {
    return { total: this.stats.unmappedErrors, distinct: [...this.unmapped.values()].map((e) => ({ ...e })), truncated: this.unmappedTruncated };
  }

  private observe(obj: RawKubeObject): void {
    const key = keyOf(obj);
    const uid = obj.metadata?.uid;
    const read = readCondition(obj, RECONCILIATION_SUCCEEDED);
    if ('problem' in read) {
      this.receive();
      this.refuse('invalid_object', `hostedcluster ${key}`, read.problem);
      return;
    }
    const before = this.tracked.get(key);
    const previous = before?.uid === uid ? before : undefined;
    if (!before && this.tracked.size >= (this.options.maxTrackedObjects ?? STATUS_SOURCE_DEFAULTS.maxTrackedObjects)) {
      this.receive();
      this.refuse(
        'pending_limit',
        `hostedcluster ${key}`,
        `more than ${this.tracked.size} HostedClusters tracked; raise maxTrackedObjects or narrow namespace/labelSelector`,
      );
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
    this.receive();
    const where = `hostedcluster ${key}`;
    const interpretation = this.builder.interpret({
      success: condition.status === 'True',
      ...(condition.status === 'False' ? { error: condition.message } : {}),
    });
    const both = this.builder.buildBoth(interpretation);
    const decided = this.decideLoop(both);
    if (!decided) {
      this.refuse('loop_unknown', where, `${this.loopKnowledge().statement}: the transition cannot be read`);
      return;
    }
    const [loop, decidedBy, notes] = decided;
    const built = both[loop];
    if (!built.consistent && both[loop === 'sequential' ? 'phased' : 'sequential'].consistent) notes.push('loop_contradicted');
    notes.push(...readingNotes(built));
    for (const n of new Set(notes)) this.stats.notes[n]++;
    for (const u of built.unmapped) {
      this.stats.unmappedErrors++;
      this.keepUnmapped({ message: u.message, why: u.why, detail: u.detail, where, time: time.time, object: key, count: 1 });
    }
    const generation = condition.observedGeneration ?? obj.metadata?.generation;
    const record: AttemptRecord = {
      time: time.time,
      timeMs: time.timeMs,
      controller: this.options.model.controller,
      object: key,
      ...(generation === undefined ? {} : { generation }),
      loop,
      operations: built.operations,
      origin: { source: 'status', transition: true },
    };
    this.stats.transitions++;
    if (initial) this.stats.initial++;
    this.stats.loopDecidedBy[decidedBy]++;
    this.sink.attempt(record);
    this.options.onTransition?.({
      object: key,
      uid,
      condition,
      time,
      initial,
      loop,
      loopDecidedBy: decidedBy,
      blocked: interpretation.textBlocked ?? [],
      record,
    });
  }

  /**
   * Configured loop; else the operator Deployment's; else a message only one loop can have written, remembered for
   * the messages after it (the operator runs one loop until it restarts); else undefined: not known.
   */
  private decideLoop(both: Readonly<Record<LoopKind, BuiltAttempt>>): [LoopKind, LoopDecidedBy, SourceNote[]] | undefined {
    const configured = this.options.loop ?? STATUS_SOURCE_DEFAULTS.loop;
    if (configured !== 'auto') return [configured, 'config', []];
    const proven = both.sequential.consistent === both.phased.consistent ? undefined : both.sequential.consistent ? 'sequential' : 'phased';
    if (proven !== undefined) this.evidence = proven;
    const fromDeployment = this.loopWatch?.loop;
    if (fromDeployment !== undefined) return [fromDeployment, 'deployment', []];
    if (proven !== undefined) return [proven, 'input', []];
    if (this.evidence !== undefined) return [this.evidence, 'input', ['loop_inherited']];
    return undefined;
  }

  private receive(): void {
    this.stats.received++;
    this.sink.received?.('status', 1);
  }

  private keepUnmapped(entry: UnmappedSampleEntry): void {
    const seen = this.unmapped.get(entry.message);
    if (seen) seen.count++;
    else if (this.unmapped.size < (this.options.unmappedSampleSize ?? STATUS_SOURCE_DEFAULTS.unmappedSampleSize)) this.unmapped.set(entry.message, entry);
    else this.unmappedTruncated = true;
  }

  private refuse(reason: RejectReason, where: string, message: string): void {
    this.stats.rejected++;
    this.stats.dropped[reason] = (this.stats.dropped[reason] ?? 0) + 1;
    this.sink.reject({ source: 'status', reason, where, message });
  }
}

function keyOf(obj: RawKubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}
