/**
 * The one way tests wait for state that no event announces: poll a check until it gives a truthy value, or fail
 * naming what was awaited. Between checks it waits `intervalMs` on a timer, so the code under test runs (longer for
 * checks that cost a request); the deadline is generous, as it only bounds a failing test.
 */

export interface UntilOptions {
  /** How long to keep checking before failing; 10 s unless given. */
  readonly timeoutMs?: number;
  /** The pause between checks; 5 ms unless given. */
  readonly intervalMs?: number;
  /** The last state, appended to the failure to show what was seen instead. */
  readonly describe?: () => string;
}

/** Resolves with the first truthy value `check` returns; rejects `timed out after N ms waiting for <what>`. */
export async function until<T>(what: string, check: () => T | Promise<T>, options: UntilOptions = {}): Promise<Exclude<T, undefined | null | false | 0 | ''>> {
  const { timeoutMs = 10_000, intervalMs = 5, describe } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, undefined | null | false | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${describe ? `; last seen ${describe()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
