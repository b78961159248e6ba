/** Logs the first failure of each kind and counts the rest, so a repeating fault cannot flood the operator's pod logs. */
export class LogOnce {
  private readonly seen = new Set<string>();

  constructor(private readonly write: (line: string) => void) {}

  error(kind: string, error: unknown): void {
    if (this.seen.has(kind)) return;
    this.seen.add(kind);
    const message = error instanceof Error ? error.message : String(error);
    this.write(`reconcile-shadow: ${kind} failure (further ${kind} failures are only counted in reconcile_shadow_internal_errors_total): ${message}`);
  }
}
