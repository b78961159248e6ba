/**
 * The recreation shadow as a running part of the sidecar: the live sources (Kubernetes informers for the objects
 * the task config discovers, the HyperFleet API poller when configured, or the adapter-world simulator in the
 * embedded default) feed one RecreationShadow, whose events move the catalog metrics; `refresh()` sets the gauges
 * (call it before each scrape). The shadow itself stays pure; this module does the wiring and the I/O.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Timers } from '../../collector/kube/informer.js';
import { kubeConfigFromEnvironment } from '../../collector/kube/credentials.js';
import { HyperFleetPoller, type PollerHealth } from '../../collector/hyperfleet/poller.js';
import { KubeObjectSource } from '../../collector/objects/kube-source.js';
import type { ObservationSink } from '../../collector/objects/observation.js';
import { DEFAULT_ADAPTER_WORLD, SimulatedAdapterSource, type AdapterWorldOptions } from '../../collector/objects/simulator.js';
import type { Rejection, Source } from '../../collector/records.js';
import { packageRoot } from '../../lib/package-root.js';
import type { Metrics } from '../metrics/registry.js';
import { CelRuntime } from './cel.js';
import { DEFAULT_MAX_STUCK_SERIES, recreationsConfig, type RecreationsSection } from './config.js';
import { loadTaskConfigFile } from './load.js';
import { RecreationMetrics } from './publish.js';
import { formatDuration } from '../../lib/duration.js';
import { CompiledTaskConfig } from './rules.js';
import { RecreationShadow } from './shadow.js';
import type { TrackerOptions } from './tracker.js';

export type RecreationInput = 'kubernetes' | 'hyperfleet';

export interface RecreationServiceHooks {
  /** A record that could not become an observation (counted by the caller). */
  readonly rejected?: (r: Rejection) => void;
  /**
   * An input connected or lost its connection (the poller: its last poll failed, state kept and stale); `part` is
   * the watch that changed, for an input of several watches.
   */
  readonly inputState?: (input: RecreationInput, up: boolean, part?: unknown) => void;
  /** An input failed; it retries on its own. */
  readonly inputError?: (input: RecreationInput, err: Error) => void;
}

export interface LiveOptions extends RecreationServiceHooks {
  readonly metrics: Metrics;
  /** Overrides the kubeconfig the section names (tests point it at an in-test API server). */
  readonly kubeConfig?: KubeConfig;
  readonly timers?: Timers;
}

/** The embedded default's task config: the validation Job the simulator's adapter manages. */
export const EXAMPLE_TASK_CONFIG = join(packageRoot(), 'examples', 'adapter-task-config.yaml');

export class RecreationService {
  readonly shadow: RecreationShadow;
  private readonly publisher: RecreationMetrics;
  private readonly inputs: Source[] = [];
  private pollerHealth: PollerHealth | undefined;

  private constructor(
    compiled: CompiledTaskConfig,
    tracker: TrackerOptions,
    metrics: Metrics,
    maxStuckSeries: number,
    /** The time the shadow runs at: wall clock, or the simulator's virtual clock. */
    readonly now: () => number,
    hooks: RecreationServiceHooks,
    /** How the metrics see it: the clock's speed (metrics are wall-clock) and the HyperFleet resource types polled. */
    published: { readonly speed: number; readonly resourceTypes: readonly string[] },
  ) {
    this.publisher = new RecreationMetrics(metrics, { maxStuckSeries, kinds: [...new Set(compiled.resources.map((r) => r.kind))], stuckThresholdMs: tracker.stuckThresholdMs, ...published });
    const publisher = this.publisher;
    this.shadow = new RecreationShadow(compiled, tracker, {
      decision: (d) => publisher.decision(d),
      finished: (r) => publisher.finished(r),
      evicted: (r) => publisher.evicted(r),
      unreconciled: (p) => publisher.unreconciled(p),
      ...(hooks.rejected ? { rejected: hooks.rejected } : {}),
    });
  }

  /** From the `recreations:` config section; throws TaskConfigError when the task config is invalid. */
  static live(section: RecreationsSection, options: LiveOptions): RecreationService {
    const config = recreationsConfig(section);
    const compiled = CompiledTaskConfig.compile(loadTaskConfigFile(config.taskConfig), new CelRuntime(), { env: config.env ?? {} });
    const timers = options.timers;
    const api = config.hyperfleetApi;
    // A collection's resources are measured under their kind, lowercased: `clusters` → `cluster`.
    const resourceTypes = (api?.kinds ?? []).map((collection) => collection.replace(/s$/, ''));
    const service = new RecreationService(compiled, config.tracker, options.metrics, config.maxStuckSeries, timers ? () => timers.now() : Date.now, options, { speed: 1, resourceTypes });
    const sink: ObservationSink = service.shadow;
    // The API first: its first poll is awaited, so objects listed next are read against the clusters' real state.
    if (api) {
      const token = api.tokenFile ? readFileSync(api.tokenFile, 'utf8').trim() : undefined;
      service.inputs.push(
        new HyperFleetPoller(
          {
            baseUrl: api.url,
            collections: api.kinds,
            intervalMs: api.intervalSeconds * 1000,
            timeoutMs: api.timeoutSeconds * 1000,
            ...(token ? { token } : {}),
            ...(timers ? { timers } : {}),
          },
          {
            observe: (o) => sink.observe(o),
            reject: (r) => sink.reject(r),
            health: (h) => {
              const wasUp = service.pollerHealth?.up;
              service.pollerHealth = h;
              if (wasUp !== h.up) options.inputState?.('hyperfleet', h.up);
              if (h.lastFailure && !h.up) options.inputError?.('hyperfleet', new Error(`${h.lastFailure.reason}: ${h.lastFailure.message}`));
            },
          },
        ),
      );
    }
    const kubeConfig = options.kubeConfig ?? kubeConfigFrom(config.kubernetes);
    service.inputs.push(
      new KubeObjectSource(
        {
          kubeConfig,
          watches: compiled.watchTargets(),
          ...(config.kubernetes?.plurals ? { plurals: config.kubernetes.plurals } : {}),
          ...(timers ? { timers } : {}),
          onState: (w, up) => options.inputState?.('kubernetes', up, w),
          onError: (_w, err) => options.inputError?.('kubernetes', err),
        },
        sink,
      ),
    );
    return service;
  }

  /** The embedded default: the example task config shadowing a simulated adapter world in sped-up time. */
  static simulated(options: { metrics: Metrics; world?: Partial<AdapterWorldOptions>; speed: number; tickMs: number; wallClock?: () => number; stuckThresholdMs?: number }): RecreationService {
    const compiled = CompiledTaskConfig.compile(loadTaskConfigFile(EXAMPLE_TASK_CONFIG), new CelRuntime());
    const thresholds = options.stuckThresholdMs === undefined ? {} : { stuckThresholds: { default: options.stuckThresholdMs } };
    const config = recreationsConfig({ taskConfig: EXAMPLE_TASK_CONFIG, sentinelIntervalSeconds: 10, maxInFlight: 10_000, maxStuckSeries: DEFAULT_MAX_STUCK_SERIES, ...thresholds });
    // The source hands on to the service's shadow, and the service runs on the source's virtual clock.
    const sink: ObservationSink = { observe: (o) => service.shadow.observe(o), reject: (r) => service.shadow.reject(r) };
    const source = new SimulatedAdapterSource({ world: { ...DEFAULT_ADAPTER_WORLD, ...options.world }, speed: options.speed, tickMs: options.tickMs }, sink, options.wallClock);
    // The simulated world reports its clusters' Reconciled condition as the HyperFleet API would.
    const service = new RecreationService(compiled, config.tracker, options.metrics, config.maxStuckSeries, source.now, {}, { speed: options.speed, resourceTypes: ['cluster'] });
    service.inputs.push(source);
    return service;
  }

  /** The inputs, to start after the metrics are served and stop first (the sidecar's source order). */
  get sources(): readonly Source[] {
    return this.inputs;
  }

  async start(): Promise<void> {
    for (const s of this.inputs) await s.start();
  }

  async stop(): Promise<void> {
    for (const s of [...this.inputs].reverse()) await s.stop();
  }

  /** Sets the gauges (in flight, oldest, stuck, stuck_seconds) from the tracker at `now()`. */
  refresh(): void {
    this.publisher.update(this.shadow.snapshot(this.now()));
  }

  /** One line for the sidecar's live summary. */
  summaryLine(): string {
    const s = this.shadow.snapshot(this.now());
    let inFlight = 0;
    for (const phases of s.inFlight.values()) for (const n of phases.values()) inFlight += n;
    const oldest = Math.max(0, ...s.oldestSeconds.values());
    const stats = this.shadow.stats;
    const api = this.pollerHealth ? ` · HyperFleet API ${this.pollerHealth.up ? 'up' : `stale (${this.pollerHealth.lastFailure?.reason ?? 'down'})`}` : '';
    return (
      `recreations: ${stats.recreationsFinished} finished, ${inFlight} in flight` +
      (inFlight > 0 ? ` (oldest ${formatDuration(oldest)}, ${s.stuck.length} stuck)` : '') +
      `, ${stats.recreationsEvicted} evicted${api}`
    );
  }
}

function kubeConfigFrom(k: RecreationsSection['kubernetes']): KubeConfig {
  let kc: KubeConfig;
  if (k?.kubeconfig) {
    kc = new KubeConfig();
    kc.loadFromFile(k.kubeconfig);
  } else kc = kubeConfigFromEnvironment();
  if (k?.context) kc.setCurrentContext(k.context);
  return kc;
}
