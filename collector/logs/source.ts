/**
 * The operator log source: reads a controller-runtime operator's JSON log (a followed file, stdin, or the operator
 * pod's container through the Kubernetes log API), recognises the lines that end a reconcile attempt, and hands on
 * one AttemptRecord per attempt (origin.source = 'logs'), stating only what the lines prove. Needs no change to the
 * operator. See docs/log-source.md for the patterns, the configuration, sampling and redaction.
 */
import type { Readable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigFromEnvironment } from '../kube/credentials.js';
import type { LoopSetting, ReconcileModel } from '../../model/types.js';
import type { SourceHooks } from '../component.js';
import { LineSplitter } from '../input/lines.js';
import type { DeploymentRef } from '../hypershift/operator-deployment.js';
import { OperatorLoopWatch } from '../hypershift/operator-loop.js';
import type { LoopKnowledge, RecordSink, Source, SourceInputSummary, SourceKind } from '../records.js';
import { LOG_SOURCE_DEFAULTS } from './defaults.js';
import { LogLineAssembler } from './internal/assembler.js';
import { unwrapLineFrames } from './internal/line-frames.js';
import { decompressed } from './inputs.js';
import { mergeByTime } from './internal/merge.js';
import type { LogSourceStats, NamedStream, UnmappedSample } from './types.js';
import { FileFollower, type FilePosition, type LineConsumer, type RotationKind } from './internal/file-follower.js';
import { PodLogFollower, SYSTEM_TIMERS, type PodLogStats, type PodRef, type Timers } from './internal/pod-log-follower.js';
import type { SampledPeriod } from './internal/sampling.js';
import { resolvePatterns, type LogPatternsInput } from './internal/zap-line.js';

/**
 * A file followed across rotation, stdin, a stream read once (`name` names its lines), several streams read once and
 * merged by time (an operator's replicas and container restarts: merge.ts), or the operator pod's log.
 */
export type LogInput =
  | { readonly file: string }
  | { readonly stdin: true }
  | { readonly stream: Readable; readonly name: string }
  | { readonly streams: readonly NamedStream[] }
  | { readonly pod: PodRef };

/** Runs `tick` every `ms` until the returned function is called (injectable so tests tick by hand). */
export type Scheduler = (ms: number, tick: () => void) => () => void;

export const SYSTEM_SCHEDULER: Scheduler = (ms, tick) => {
  const handle = setInterval(tick, ms).unref();
  return () => clearInterval(handle);
};

export interface OperatorLogSourceOptions {
  readonly input: LogInput;
  readonly model: ReconcileModel;
  /** Which loop wrote the log: `sequential`, `phased`, or `auto` (proven by the lines, per operator run). Default `auto`. */
  readonly loop?: LoopSetting;
  /** auto: the operator Deployment to read the loop from (its switch and build version); used until the lines prove one. */
  readonly operatorDeployment?: DeploymentRef;
  /** auto: how long start() waits for the Deployment to be read. Default 10000 ms. */
  readonly loopDetectTimeoutMs?: number;
  /** Once started: what the source knows about the operator's loop (to be said once). */
  readonly onStarted?: (loop: LoopKnowledge) => void;
  /** The sidecar's health hooks: read failures and refused connections (each also counted in inputStats). */
  readonly hooks?: Pick<SourceHooks, 'error'>;
  /** auto: attempts held while their run's loop is unproven; past this the oldest run's are dropped (`loop_unknown`). Default 10000. */
  readonly maxUndecided?: number;
  /** The operator's messages and field names. Default HyperShift's (HYPERSHIFT_LOG_PATTERNS). */
  readonly patterns?: LogPatternsInput;
  /** Longer lines are refused (`line_too_long`). Default 1 MiB. */
  readonly maxLineBytes?: number;
  /** Lines of one message in two adjacent seconds from which the logger may have sampled. Default 100. */
  readonly samplingThreshold?: number;
  /** Attempts held for correlation and sampling judgement before the oldest is handed on early. Default 10000. */
  readonly maxPending?: number;
  /** Distinct unmapped error messages kept for the summary. Default 50. */
  readonly unmappedSampleSize?: number;
  /** Held attempts are handed on once no line came for this long. Default 3000 ms. */
  readonly quietFlushMs?: number;
  /** File: how often the file is checked (besides inotify events); all inputs: how often quietness is checked. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  readonly file?: {
    /** Where to start in the file present at start. Default `beginning`. */
    readonly startAt?: 'beginning' | 'end';
    /** A position() saved before a restart. */
    readonly resumeFrom?: FilePosition;
    /** Follow directory events (inotify) besides the timer. Default true. */
    readonly watch?: boolean;
  };
  readonly pod?: {
    /** Default: loaded from the environment (in-cluster service account, or KUBECONFIG). */
    readonly kubeConfig?: KubeConfig;
    /** First connection: lines since this RFC 3339 time. Default: the container's whole log. */
    readonly sinceTime?: string;
    /** Reconnect backoff, doubling from initial to max. Default 1000 and 30000 ms. */
    readonly backoffInitialMs?: number;
    readonly backoffMaxMs?: number;
  };
  /** The stream read for `{stdin: true}`. Default process.stdin. */
  readonly stdin?: Readable;
  /** Stream and stdin inputs: awaited after each chunk, so a writer downstream can drain (backpressure). */
  readonly afterChunk?: () => Promise<void> | void;
  readonly clock?: () => number;
  readonly scheduler?: Scheduler;
  readonly timers?: Timers;
}

export interface InputStats {
  /** Read failures and refused connections (each also reported through the last error). */
  errors: number;
  lastError: string | undefined;
  rotations: Record<RotationKind, number>;
  pod: PodLogStats | undefined;
}

export class OperatorLogSource implements Source {
  readonly kind: SourceKind = 'logs';
  /** Resolves once the input is over (stdin reached its end, or stop()) and every attempt was handed on. */
  readonly ended: Promise<void>;
  readonly inputStats: InputStats = { errors: 0, lastError: undefined, rotations: { renamed: 0, truncated: 0 }, pod: undefined };
  private readonly assembler: LogLineAssembler;
  private readonly loopWatch: OperatorLoopWatch | undefined;
  private readonly consumer: LineConsumer;
  private readonly clock: () => number;
  private readonly maxLineBytes: number;
  private file: FileFollower | undefined;
  private pod: PodLogFollower | undefined;
  private cancelTimer: (() => void) | undefined;
  private lastLineAt: number;
  private stopped = false;
  private finished = false;
  private markEnded!: () => void;

  constructor(
    private readonly options: OperatorLogSourceOptions,
    sink: RecordSink,
  ) {
    const d = LOG_SOURCE_DEFAULTS;
    this.clock = options.clock ?? Date.now;
    this.lastLineAt = this.clock();
    this.maxLineBytes = options.maxLineBytes ?? d.maxLineBytes;
    const loop = options.loop ?? d.loop;
    if (loop === 'auto' && options.operatorDeployment) {
      this.loopWatch = new OperatorLoopWatch({ kubeConfig: options.pod?.kubeConfig ?? kubeConfigFromEnvironment(), deployment: options.operatorDeployment });
    }
    const watch = this.loopWatch;
    this.assembler = new LogLineAssembler(
      {
        model: options.model,
        patterns: resolvePatterns(options.patterns),
        loop,
        ...(watch ? { operatorLoop: () => watch.current } : {}),
        maxUndecided: options.maxUndecided ?? d.maxUndecided,
        samplingThreshold: options.samplingThreshold ?? d.samplingThreshold,
        maxPending: options.maxPending ?? d.maxPending,
        unmappedSampleSize: options.unmappedSampleSize ?? d.unmappedSampleSize,
      },
      sink,
    );
    this.consumer = {
      line: (text, where) => {
        this.lastLineAt = this.clock();
        this.assembler.line(text, where);
      },
      tooLong: (where, bytes) => this.assembler.tooLong(where, bytes, this.maxLineBytes),
    };
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
    sink.inputSummary?.('logs', () => this.inputSummary());
  }

  async start(): Promise<void> {
    const o = this.options;
    const d = LOG_SOURCE_DEFAULTS;
    await this.loopWatch?.startWithin(o.loopDetectTimeoutMs ?? d.loopDetectTimeoutMs, o.timers ?? SYSTEM_TIMERS);
    o.onStarted?.(this.loopKnowledge());
    const onError = (e: Error): void => {
      this.inputStats.errors++;
      this.inputStats.lastError = e.message;
      o.hooks?.error(e);
    };
    if ('file' in o.input) {
      this.file = new FileFollower(
        {
          path: o.input.file,
          startAt: o.file?.startAt ?? d.fileStartAt,
          ...(o.file?.resumeFrom ? { resumeFrom: o.file.resumeFrom } : {}),
          maxLineBytes: this.maxLineBytes,
          watch: o.file?.watch ?? d.fileWatch,
          onError,
        },
        unwrapLineFrames(this.consumer, this.maxLineBytes),
      );
      this.inputStats.rotations = this.file.rotations;
      await this.file.start();
    } else if ('pod' in o.input) {
      const kubeConfig = o.pod?.kubeConfig ?? kubeConfigFromEnvironment();
      this.pod = new PodLogFollower(
        {
          kubeConfig,
          pod: o.input.pod,
          ...(o.pod?.sinceTime ? { sinceTime: o.pod.sinceTime } : {}),
          maxLineBytes: this.maxLineBytes,
          backoffInitialMs: o.pod?.backoffInitialMs ?? d.podBackoffInitialMs,
          backoffMaxMs: o.pod?.backoffMaxMs ?? d.podBackoffMaxMs,
          timers: o.timers ?? SYSTEM_TIMERS,
          onError,
        },
        this.consumer,
      );
      this.inputStats.pod = this.pod.stats;
      await this.pod.start();
    } else if ('streams' in o.input && o.input.streams.length !== 1) {
      void this.readMerged(o.input.streams)
        .catch(onError)
        .finally(() => this.finish());
    } else {
      // stdin may be a gzipped capture piped in (known by its bytes); a stream's reader opened it as it needs
      const [stream, name] =
        'streams' in o.input
          ? [o.input.streams[0]!.stream, o.input.streams[0]!.name]
          : 'stream' in o.input
            ? [o.input.stream, o.input.name]
            : [decompressed(o.stdin ?? process.stdin), '-'];
      void this.readStream(stream, name)
        .catch(onError)
        .finally(() => this.finish());
    }
    // Started last, so an input that failed to start leaves no timer behind.
    this.cancelTimer = (o.scheduler ?? SYSTEM_SCHEDULER)(o.pollIntervalMs ?? d.pollIntervalMs, () => void this.poll());
  }

  /**
   * Reads what the file has now (file input), then hands on held attempts if no line came for `quietFlushMs`.
   * Run by the scheduler; tests call it directly.
   */
  async poll(): Promise<void> {
    await this.file?.poll();
    if (this.clock() - this.lastLineAt >= (this.options.quietFlushMs ?? LOG_SOURCE_DEFAULTS.quietFlushMs)) this.assembler.flushQuiet();
  }

  /** Stops reading and hands on every attempt still held (those of a run whose loop is unproven are dropped). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelTimer?.();
    await this.file?.close();
    this.pod?.close();
    await this.loopWatch?.stop();
    this.finish();
  }

  get stats(): Readonly<LogSourceStats> {
    return this.assembler.stats;
  }

  /** True while the input is readable: the file is open, the pod's log stream is connected, stdin has not ended. */
  get up(): boolean {
    if (this.finished) return false;
    if (this.pod) return this.pod.up;
    if (this.file) return this.file.position() !== undefined;
    return true;
  }

  /** Stretches where the operator's logger may have dropped lines: counts from logs there are lower bounds. */
  sampledPeriods(): SampledPeriod[] {
    return this.assembler.sampledPeriods();
  }

  /** Error messages no reading placed on one operation, for the summary. */
  unmappedSample(): UnmappedSample {
    return this.assembler.unmappedSample();
  }

  /** What the source knows about the operator's loop, and from where (said once at start, and in the summary). */
  loopKnowledge(): LoopKnowledge {
    return this.assembler.loopKnowledge();
  }

  /** The books (in lines), the reservations, the sampled periods and the unmapped sample, for the summary. */
  inputSummary(): SourceInputSummary {
    return this.assembler.inputSummary();
  }

  /** File input: where a restarted source can resume (`file.resumeFrom`). */
  position(): FilePosition | undefined {
    return this.file?.position();
  }

  private async readStream(stream: Readable, name: string): Promise<void> {
    const consumer = unwrapLineFrames(this.consumer, this.maxLineBytes);
    const splitter = new LineSplitter(
      {
        line: (text, lineNo) => consumer.line(text, `${name}:${lineNo}`),
        tooLong: (lineNo, bytes) => consumer.tooLong(`${name}:${lineNo}`, bytes),
      },
      this.maxLineBytes,
    );
    for await (const chunk of stream) {
      if (this.stopped) return;
      splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      await this.options.afterChunk?.();
    }
    splitter.end();
  }

  private async readMerged(streams: readonly NamedStream[]): Promise<void> {
    const patterns = resolvePatterns(this.options.patterns);
    await mergeByTime(
      streams,
      {
        line: (text, where, input) => {
          this.lastLineAt = this.clock();
          this.assembler.line(text, where, input);
        },
        tooLong: (where, bytes) => this.assembler.tooLong(where, bytes, this.maxLineBytes),
        inputEnded: (input) => this.assembler.endInput(input),
      },
      {
        timeField: patterns.fields.time,
        maxLineBytes: this.maxLineBytes,
        ...(this.options.afterChunk ? { afterChunk: this.options.afterChunk } : {}),
        stopped: () => this.stopped,
      },
    );
  }

  /** The input is over (stdin ended, or stop()): every held attempt is handed on, once. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.cancelTimer?.();
    this.assembler.end();
    this.markEnded();
  }
}
