/**
 * The reconnect backoff of a Kubernetes watch or stream, apart from informer.ts so the config schemas can name its
 * defaults without loading the Kubernetes client.
 */
export interface BackoffOptions {
  /** Delay before the first restart after a failure. */
  readonly initialMs: number;
  /** Cap of the doubling delay. */
  readonly maxMs: number;
  /** A failure after being up this long starts the doubling again from initialMs. */
  readonly resetAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };
