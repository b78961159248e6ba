/**
 * One health contract for every source the sidecar runs (simulator, journal, otlp, logs, status, and the
 * recreation inputs objects and hyperfleet), whatever the source:
 *
 * - `reconcile_shadow_source_up{source}`: 1 while the source runs and is connected and current. A source says so
 *   either by reporting its state as it changes (`state`: the status watch, each Kubernetes watch, the HyperFleet
 *   poller; a source with several watches is up when every watch is) or by an `up` it keeps (`Source.up`: the log
 *   source, the journal), read before each scrape; a source that does neither is up from start to stop.
 * - its failures counted under `reconcile_shadow_internal_errors_total{kind="source"}` and the first of each source
 *   logged (`failed`); failures a source only counts itself (the log source's input errors) are read before each
 *   scrape.
 * - one line per source on /readyz.
 *
 * A source going down does not make the sidecar unready: it shares the pod with the operator, and an unready
 * sidecar would take the operator's pod out of its Services. The alerts watch `source_up` instead.
 */
import type { Source, SourceKind } from '../collector/records.js';

/** Failures a source counted itself rather than reporting each one. */
interface CountedErrors {
  readonly errors: number;
  readonly lastError: string | undefined;
}

interface Tracked {
  readonly source: Source;
  running: boolean;
  /** State reported per part (a watch); absent until the source first reports. */
  readonly reported: Map<unknown, boolean>;
  readonly counted: CountedErrors | undefined;
  countedSeen: number;
}

export class SourceHealth {
  private readonly tracked = new Map<SourceKind, Tracked>();

  /**
   * @param setUp sets `reconcile_shadow_source_up` for a source.
   * @param failed counts a source's failures (`count` of them) and logs the first.
   */
  constructor(
    private readonly setUp: (source: SourceKind, up: boolean) => void,
    private readonly failed: (source: SourceKind, error: unknown, count: number) => void,
  ) {}

  /** A source the sidecar runs; its `source_up` series exists from now on (0 until it starts). */
  track(source: Source): void {
    const stats = (source as { readonly inputStats?: CountedErrors }).inputStats;
    this.tracked.set(source.kind, { source, running: false, reported: new Map(), counted: stats, countedSeen: 0 });
    this.setUp(source.kind, false);
  }

  started(kind: SourceKind): void {
    const t = this.tracked.get(kind);
    if (t) t.running = true;
  }

  stopped(kind: SourceKind): void {
    const t = this.tracked.get(kind);
    if (t) t.running = false;
  }

  /** A source reports that it (or one of its parts, e.g. one watch) connected or lost its connection. */
  state(kind: SourceKind, up: boolean, part: unknown = kind): void {
    this.tracked.get(kind)?.reported.set(part, up);
  }

  /** A source failed; it retries on its own. */
  error(kind: SourceKind, error: unknown): void {
    this.failed(kind, error, 1);
  }

  isUp(kind: SourceKind): boolean {
    const t = this.tracked.get(kind);
    if (!t?.running) return false;
    if (t.source.up === false) return false;
    for (const up of t.reported.values()) if (!up) return false;
    return true;
  }

  /** Before each scrape: every source's `source_up`, and the failures sources counted themselves since the last. */
  refresh(): void {
    for (const [kind, t] of this.tracked) {
      this.setUp(kind, this.isUp(kind));
      const errors = t.counted?.errors ?? 0;
      if (errors > t.countedSeen) {
        this.failed(kind, new Error(t.counted?.lastError ?? 'input error'), errors - t.countedSeen);
        t.countedSeen = errors;
      }
    }
  }

  /** For /readyz: `source <kind>: up|down`, one line per source. */
  lines(): string[] {
    return [...this.tracked.keys()].map((kind) => `source ${kind}: ${this.isUp(kind) ? 'up' : 'down'}`);
  }
}
