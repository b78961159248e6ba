/**
 * One health contract for every source the sidecar runs (simulator, journal, otlp, logs, status, and the
 * recreation inputs objects and hyperfleet), whatever the source. Each gets the same hooks at creation
 * (collector/component.ts, SourceHooks: `state`, `error`, `info`), and:
 *
 * - `reconcile_shadow_source_up{source}`: 1 while the source runs and is connected and current. A source says so
 *   by reporting its state as it changes (`state`: the status watch, each Kubernetes watch (a part), the HyperFleet
 *   poller, a journal that could not be read to its end), by an `up` it keeps (`Source.up`: the log source, the OTLP
 *   receiver), read before each scrape, or by neither: then it is up from start to stop. A source with several
 *   parts is up when every part is.
 * - its failures (`error`) counted under `reconcile_shadow_internal_errors_total{kind="source"}`, the first of each
 *   source logged, the last kept for the live summary.
 * - one line per source on /readyz; `info` lines logged once, at start.
 *
 * A source going down does not make the sidecar unready: it shares the pod with the operator, and an unready
 * sidecar would take the operator's pod out of its Services. The alerts watch `source_up` instead.
 */
import type { SourceHooks } from '../collector/component.js';
import type { Source, SourceKind } from '../collector/records.js';

interface Tracked {
  source: Source | undefined;
  running: boolean;
  /** State reported per part (a watch); absent until the source first reports. */
  readonly reported: Map<unknown, boolean>;
  lastError: string | undefined;
}

export class SourceHealth {
  private readonly tracked = new Map<SourceKind, Tracked>();

  /**
   * @param setUp sets `reconcile_shadow_source_up` for a source.
   * @param failed counts a source's failure (under its bounded reason, when it gives one) and logs the first.
   * @param info logs a line a source has for the operator.
   */
  constructor(
    private readonly setUp: (source: SourceKind, up: boolean) => void,
    private readonly failed: (source: SourceKind, error: unknown, reason?: string) => void,
    private readonly info: (source: SourceKind, line: string) => void,
  ) {}

  /** A source the sidecar runs: its `source_up` series exists from now on (0 until it starts); its hooks. */
  register(kind: SourceKind): SourceHooks {
    this.tracked.set(kind, { source: undefined, running: false, reported: new Map(), lastError: undefined });
    this.setUp(kind, false);
    return {
      state: (up, part = kind) => this.tracked.get(kind)?.reported.set(part, up),
      error: (error, reason) => {
        const t = this.tracked.get(kind);
        if (t) t.lastError = error instanceof Error ? error.message : String(error);
        this.failed(kind, error, reason);
      },
      info: (line) => this.info(kind, line),
    };
  }

  /** The source built for a registered kind, whose `up` (when it keeps one) is read before each scrape. */
  attach(source: Source): void {
    const t = this.tracked.get(source.kind);
    if (t) t.source = source;
  }

  started(kind: SourceKind): void {
    const t = this.tracked.get(kind);
    if (t) t.running = true;
  }

  stopped(kind: SourceKind): void {
    const t = this.tracked.get(kind);
    if (t) t.running = false;
  }

  isUp(kind: SourceKind): boolean {
    const t = this.tracked.get(kind);
    if (!t?.running) return false;
    if (t.source?.up === false) return false;
    for (const up of t.reported.values()) if (!up) return false;
    return true;
  }

  lastError(kind: SourceKind): string | undefined {
    return this.tracked.get(kind)?.lastError;
  }

  /** Before each scrape: every source's `source_up`, and `source_truncated` of those that page. */
  refresh(setTruncated?: (source: SourceKind, truncated: boolean) => void): void {
    for (const [kind, t] of this.tracked) {
      this.setUp(kind, this.isUp(kind));
      if (t.source?.truncated !== undefined) setTruncated?.(kind, t.source.truncated);
    }
  }

  /** For /readyz: `source <kind>: up|down`, one line per source. */
  lines(): string[] {
    return [...this.tracked.keys()].map((kind) => `source ${kind}: ${this.isUp(kind) ? 'up' : 'down'}`);
  }
}
