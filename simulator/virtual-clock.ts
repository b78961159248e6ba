import type { Clock } from '../collector/component.js';

/** Time that runs `speed` times faster than the wall clock from a virtual start: the clock of the demo's simulated worlds. */
export class VirtualClock implements Clock {
  private readonly startWall: number;
  readonly simulated = true;

  constructor(
    private readonly startVirtual: number,
    readonly speed: number,
    private readonly wallClock: () => number = Date.now,
  ) {
    this.startWall = wallClock();
  }

  readonly now = (): number => this.startVirtual + (this.wallClock() - this.startWall) * this.speed;
}
