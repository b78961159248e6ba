/**
 * How tests wait for a condition, failing `timed out after N ms waiting for <what>` (with what was last seen, when
 * `describe` says). `until` is for state no event announces: it polls a check until it gives a truthy value, waiting
 * `intervalMs` on a timer between checks so the code under test runs (longer for checks that cost a request).
 * `Waiters` is for state whose owner announces each change. The deadline is generous: it only bounds a failing test.
 */

export interface WaitOptions {
  /** How long to wait before failing; 10 s unless given. */
  readonly timeoutMs?: number;
  /** The last state, appended to the failure to show what was seen instead. */
  readonly describe?: () => string;
}

export interface UntilOptions extends WaitOptions {
  /** The pause between checks; 5 ms unless given. */
  readonly intervalMs?: number;
}

/** Resolves with the first truthy value `check` returns; rejects `timed out after N ms waiting for <what>`. */
export async function until<T>(what: string, check: () => T | Promise<T>, options: UntilOptions = {}): Promise<Exclude<T, undefined | null | false | 0 | ''>> {
  const { timeoutMs = 10_000, intervalMs = 5, describe } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, undefined | null | false | 0 | ''>;
    if (Date.now() > deadline) throw timedOut(what, timeoutMs, describe);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * For state whose owner announces each change (a recording sink, a fake server): conditions are re-checked on
 * `changed()`, so a wait ends in the same turn as the change that satisfies it, with no polling.
 */
export class Waiters {
  private readonly pending = new Set<{ readonly check: () => boolean; readonly resolve: () => void; readonly reject: (e: Error) => void }>();

  until(what: string, check: () => boolean, options: WaitOptions = {}): Promise<void> {
    if (check()) return Promise.resolve();
    const { timeoutMs = 10_000, describe } = options;
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.pending.delete(waiter);
        reject(timedOut(what, timeoutMs, describe));
      }, timeoutMs);
      this.pending.add(waiter);
    });
  }

  /** Re-checks every waiting condition: call after each change. */
  changed(): void {
    for (const w of this.pending) {
      if (w.check()) {
        this.pending.delete(w);
        w.resolve();
      }
    }
  }

  /** Fails every waiting condition with `error` (the owner closed). */
  rejectAll(error: Error): void {
    for (const w of this.pending) w.reject(error);
    this.pending.clear();
  }
}

function timedOut(what: string, timeoutMs: number, describe: (() => string) | undefined): Error {
  return new Error(`timed out after ${timeoutMs} ms waiting for ${what}${describe ? `; last seen ${describe()}` : ''}`);
}
