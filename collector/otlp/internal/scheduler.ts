/**
 * Time for the OTLP receiver, injected so tests drive settle and wait timers without sleeping.
 * `defer` runs work after pending I/O (setImmediate), which is how the span queue drains in slices.
 */

export interface Timer {
  cancel(): void;
}

export interface Scheduler {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimer(delayMs: number, run: () => void): Timer;
  defer(run: () => void): void;
}

/** Node's own timers. They are unref'd: a pending attempt never keeps the process alive on its own. */
export const realScheduler: Scheduler = {
  now: () => Date.now(),
  setTimer(delayMs, run) {
    const handle = setTimeout(run, delayMs);
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
  defer(run) {
    setImmediate(run);
  },
};
