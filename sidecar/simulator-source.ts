/**
 * The embedded default's data: a simulated fleet reconciled in (sped-up) real time, its faults tuned so the demo
 * shows every headline within seconds (simulator/scenarios.ts, demoScenario). Virtual time runs `speed` times
 * faster than the wall clock, so a newcomer sees hours of fleet behaviour within minutes; the analysis follows the
 * same virtual time, and the metrics convert it back to wall-clock time.
 */
import type { AttemptRecord, RecordSink, Source } from '../collector/records.js';
import type { ReconcileModel } from '../model/types.js';
import { VirtualClock } from '../collector/virtual-clock.js';
import { demoScenario, scenarioAttempts } from '../simulator/scenarios.js';
import type { ObserveMode } from '../simulator/world.js';

export interface SimulatorSourceOptions {
  readonly objects: number;
  readonly seed: number;
  readonly observe: ObserveMode;
  /** Virtual seconds per wall-clock second. */
  readonly speed: number;
  readonly tickMs: number;
}

export const DEFAULT_SIMULATOR_OPTIONS: SimulatorSourceOptions = { objects: 40, seed: 1, observe: 'mixed', speed: 60, tickMs: 200 };
const THIRTY_DAYS_MS = 30 * 86_400_000;

export class SimulatorSource implements Source {
  readonly kind = 'simulator' as const;
  private readonly worlds: Iterator<AttemptRecord>[];
  private readonly pending: (AttemptRecord | undefined)[];
  private timer: NodeJS.Timeout | undefined;
  private readonly clock: VirtualClock;

  constructor(
    models: readonly ReconcileModel[],
    private readonly options: SimulatorSourceOptions,
    private readonly sink: RecordSink,
    wallClock: () => number = Date.now,
  ) {
    // The fleet starts now, so its virtual times read as recent ones.
    this.clock = new VirtualClock(wallClock(), options.speed, wallClock);
    const startMs = this.clock.now();
    this.worlds = models.map((model, i) => scenarioAttempts(model, demoScenario(model), { objects: options.objects, durationMs: THIRTY_DAYS_MS, seed: options.seed + i, observe: options.observe, startMs }));
    this.pending = this.worlds.map((w) => w.next().value as AttemptRecord | undefined);
  }

  /** The virtual time the fleet is at. */
  get now(): () => number {
    return this.clock.now;
  }

  start(): Promise<void> {
    this.timer = setInterval(() => this.tick(), this.options.tickMs);
    this.timer.unref();
    return Promise.resolve();
  }

  /** Hands on every simulated attempt up to the current virtual time. */
  tick(): void {
    const now = this.now();
    this.worlds.forEach((world, i) => {
      for (let next = this.pending[i]; next && next.timeMs <= now; next = this.pending[i]) {
        this.sink.received?.('simulator', 1);
        this.sink.attempt(next);
        this.pending[i] = world.next().value as AttemptRecord | undefined;
      }
    });
  }

  stop(): Promise<void> {
    clearInterval(this.timer);
    return Promise.resolve();
  }
}
