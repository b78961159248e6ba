/**
 * The loop of a polling source (the HyperFleet API and Maestro pollers): one poll at start, awaited, then one every
 * interval, or after a failure the backoff doubling from `initialMs` to `maxMs`; `stop` waits for the poll in flight.
 * The poll itself never throws for a failure it reports: it records it, and `failures()` says how many in a row.
 */
import type { Timers } from '../kube/informer.js';

export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const DEFAULT_POLL_BACKOFF: Backoff = { initialMs: 1000, maxMs: 60_000 };

export class PollLoop {
  private running = false;
  private timer: unknown;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly poll: () => Promise<void>,
    private readonly failures: () => number,
    private readonly intervalMs: number,
    private readonly timers: Timers,
    private readonly backoff: Backoff = DEFAULT_POLL_BACKOFF,
  ) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.cycle();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  async pollOnce(): Promise<void> {
    const run = this.poll();
    this.inFlight = run;
    await run;
  }

  private async cycle(): Promise<void> {
    await this.pollOnce();
    if (!this.running) return;
    const n = this.failures();
    const delay = n === 0 ? this.intervalMs : Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** (n - 1));
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.running) void this.cycle();
    }, delay);
  }
}
