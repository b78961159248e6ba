/**
 * The simulated worlds played in (sped-up) real time, as one source of kind `simulator`: the fleet of reconciled
 * objects (scenarios.ts, demoScenario, its faults tuned so the demo shows every headline within seconds) and, when
 * asked, the adapter world beside it (adapter-world.ts). On each tick it hands on everything that happened up to
 * the clock's now; the analysis runs on the same clock, and the metrics convert it back to wall-clock time.
 */
import type { Clock, Sinks } from '../collector/component.js';
import type { AttemptRecord, Source } from '../collector/records.js';
import type { ReconcileModel } from '../model/types.js';
import { AdapterWorld, type AdapterWorldOptions } from './adapter-world.js';
import { demoScenario, scenarioAttempts } from './scenarios.js';
import type { ObserveMode } from './world.js';

export interface SimulatorOptions {
  readonly objects: number;
  readonly seed: number;
  readonly observe: ObserveMode;
  readonly tickMs: number;
  /** The adapter world to play too (its observations go to the recreation analyzer). */
  readonly adapterWorld?: AdapterWorldOptions;
}

const THIRTY_DAYS_MS = 30 * 86_400_000;

export class SimulatorSource implements Source {
  readonly kind = 'simulator' as const;
  private readonly fleets: Iterator<AttemptRecord>[];
  private readonly pending: (AttemptRecord | undefined)[];
  private readonly adapterWorld: AdapterWorld | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    models: readonly ReconcileModel[],
    private readonly options: SimulatorOptions,
    private readonly clock: Clock,
    private readonly sinks: Sinks,
  ) {
    // The fleet starts at the clock's now, so its times read as recent ones.
    const startMs = clock.now();
    this.fleets = models.map((model, i) =>
      scenarioAttempts(model, demoScenario(model), {
        objects: options.objects,
        durationMs: THIRTY_DAYS_MS,
        seed: options.seed + i,
        observe: options.observe,
        startMs,
      }),
    );
    this.pending = this.fleets.map((w) => w.next().value as AttemptRecord | undefined);
    if (options.adapterWorld && !sinks.observations) throw new Error('the adapter world feeds the recreation analyzer, and none runs');
    this.adapterWorld = options.adapterWorld ? new AdapterWorld(options.adapterWorld) : undefined;
  }

  start(): Promise<void> {
    this.timer = setInterval(() => this.tick(), this.options.tickMs);
    this.timer.unref();
    return Promise.resolve();
  }

  /** Hands on every simulated attempt and observation up to the clock's now. */
  tick(): void {
    const now = this.clock.now();
    this.fleets.forEach((fleet, i) => {
      for (let next = this.pending[i]; next && next.timeMs <= now; next = this.pending[i]) {
        this.sinks.attempts.received?.('simulator', 1);
        this.sinks.attempts.attempt(next);
        this.pending[i] = fleet.next().value as AttemptRecord | undefined;
      }
    });
    if (this.adapterWorld) for (const o of this.adapterWorld.advance(now)) this.sinks.observations?.observe(o);
  }

  stop(): Promise<void> {
    clearInterval(this.timer);
    return Promise.resolve();
  }
}
