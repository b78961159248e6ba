/**
 * A CPU limit for a child process, enforced the way Kubernetes enforces `resources.limits.cpu` (CFS bandwidth
 * control): in each 100 ms period the process's threads together may run `cores` × 100 ms; once they have, the
 * process is held until the period ends. Without cgroup rights it is done from outside: the CPU time of all its
 * threads is read from /proc/<pid>/task/<tid>/schedstat (nanoseconds) every 2 ms, and the process is
 * held with SIGSTOP and released with SIGCONT.
 */
import { readdirSync, readFileSync } from 'node:fs';

const PERIOD_MS = 100;
const POLL_MS = 2;

/** CPU time of all of a process's threads so far, in nanoseconds; undefined once it is gone. */
export function cpuNs(pid: number): number | undefined {
  try {
    let total = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
      } catch {
        // the thread ended between listing and reading
      }
    }
    return total;
  } catch {
    return undefined;
  }
}

export class CpuQuota {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Periods in which the process was held, and how long in all: evidence the limit was reached. */
  throttledPeriods = 0;
  throttledMs = 0;

  constructor(
    private readonly pid: number,
    private readonly cores: number,
  ) {}

  start(): void {
    const quotaNs = this.cores * PERIOD_MS * 1e6;
    const origin = performance.now();
    let period = -1;
    let periodCpu = 0;
    let heldAt: number | undefined;
    const poll = (): void => {
      if (this.stopped) return;
      const now = performance.now();
      const current = Math.floor((now - origin) / PERIOD_MS);
      const cpu = cpuNs(this.pid);
      if (cpu === undefined) return; // the process is gone
      if (current !== period) {
        period = current;
        periodCpu = cpu;
        if (heldAt !== undefined) {
          this.throttledMs += now - heldAt;
          heldAt = undefined;
          this.signal('SIGCONT');
        }
      } else if (heldAt === undefined && cpu - periodCpu >= quotaNs) {
        heldAt = now;
        this.throttledPeriods++;
        this.signal('SIGSTOP');
      }
      // while held, sleep to the period's end; otherwise watch closely
      const wait = heldAt === undefined ? POLL_MS : origin + (period + 1) * PERIOD_MS - now;
      this.timer = setTimeout(poll, Math.max(0, wait));
    };
    poll();
  }

  /** Lets the process run freely again. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.signal('SIGCONT');
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      process.kill(this.pid, signal);
    } catch {
      // the process is gone
    }
  }
}
