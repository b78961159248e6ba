/** The short live summary `run` prints every few seconds: what arrived, how often the loops diverge, and where. */
import type { RecreationAnalyzer } from '../../analyzer/recreations/recreation-analyzer.js';
import type { Summary } from '../../analyzer/summary/types.js';
import { formatDuration } from '../../lib/duration.js';

const TOP = 3;

export interface SummaryExtras {
  /** One line each from other parts of the sidecar (recreations, sources). */
  readonly lines: readonly string[];
  /** A first line (the demo's first summary says what clock it runs on). */
  readonly header?: string;
}

/** `previous` holds each controller's attempt total at the last summary; it is updated in place. */
export function liveSummary(summary: Summary, previous: Map<string, number>, intervalSeconds: number, extras: SummaryExtras = { lines: [] }): string {
  const out: string[] = extras.header === undefined ? [] : [extras.header];
  for (const c of summary.controllers) {
    const a = c.attempts;
    const rate = (a.total - (previous.get(c.controller) ?? 0)) / intervalSeconds;
    previous.set(c.controller, a.total);
    const pct = (n: number): string => (a.total === 0 ? '-' : `${((n / a.total) * 100).toFixed(1)}%`);
    const divergence = a.structural > 0 ? `${pct(a.diverged)} (structural, one-loop ops: ${pct(a.structural)})` : pct(a.diverged);
    out.push(
      `[${c.controller}] attempts ${a.total} (+${rate.toFixed(1)}/s; sequential ${a.byObservedLoop.sequential}, phased ${a.byObservedLoop.phased}) · diverged ${divergence} · objects ${c.objects}`,
    );
    if (a.estimate !== undefined) out.push(`[${c.controller}] ${a.estimate}`);
    const top = (key: 'unblocked' | 'newlyBlocked'): string =>
      [...c.operations]
        .filter((o) => o[key] > 0 && o.onlyIn === null)
        .sort((x, y) => y[key] - x[key])
        .slice(0, TOP)
        .map((o) => `${o.name} ${o[key]}`)
        .join(', ') || '-';
    out.push(`  top unblocked: ${top('unblocked')}`);
    out.push(`  top newly blocked: ${top('newlyBlocked')}`);
  }
  if (summary.input.rejected > 0)
    out.push(
      `  rejected input: ${summary.input.rejected} (${Object.entries(summary.input.rejectedByReason)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ')})`,
    );
  out.push(...extras.lines);
  return out.join('\n');
}

/** The HyperFleet API as the recreation line reports it: up, or the reason its last poll failed (the state is stale). */
export type ApiState = { readonly up: true } | { readonly up: false; readonly reason: string };

/** One line on the recreation analyzer at `nowMs`. */
export function recreationsLine(analyzer: RecreationAnalyzer, nowMs: number, api?: ApiState): string {
  const s = analyzer.snapshot(nowMs);
  let inFlight = 0;
  for (const phases of s.inFlight.values()) for (const n of phases.values()) inFlight += n;
  const oldest = Math.max(0, ...s.oldestSeconds.values());
  const stats = analyzer.stats;
  const apiText = api ? ` · HyperFleet API ${api.up ? 'up' : `stale (${api.reason})`}` : '';
  return (
    `recreations: ${stats.recreationsFinished} finished, ${inFlight} in flight` +
    (inFlight > 0 ? ` (oldest ${formatDuration(oldest)}, ${s.stuck.length} stuck)` : '') +
    `, ${stats.recreationsEvicted} evicted${apiText}`
  );
}

/** The first live summary's word on time in the demo. */
export function clockLine(speed: number): string {
  return `simulated clock: ${speed}× wall-clock speed (a simulated minute every ${formatSeconds(60 / speed)}); this summary and /summary are in simulated time, /metrics in wall-clock time`;
}

const formatSeconds = (s: number): string => (s >= 1 ? `${Number(s.toFixed(1))} s` : `${Math.round(s * 1000)} ms`);
