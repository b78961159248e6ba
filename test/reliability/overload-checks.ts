/**
 * What the overload scenario must show, as named checks over its figures: the fast test asserts each one, `make soak`
 * prints them as a PASS/FAIL table. One list, so both judge the same things.
 */
import type { OverloadFigures } from './overload.js';
import type { ProbeFigures } from './probe.js';

/** What every load scenario is held to. */
export interface Bounds {
  readonly rssBoundBytes: number;
  /** /healthz and /metrics must answer faster than this. */
  readonly responsiveMs: number;
}

export interface Expectations extends Bounds {
  /** Offered over calibrated capacity, at least. */
  readonly minRatio: number;
  /** The Retry-After the sidecar sends, in ms; retries must wait it (less timer slack). */
  readonly retryAfterMs: number;
}

export interface Check<F, E> {
  readonly name: string;
  evaluate(figures: F, expect: E): { readonly pass: boolean; readonly detail: string };
}

/** Node's timers run off a per-loop-turn clock, so a timer can fire a few ms before its delay, measured from outside. */
export const TIMER_SLACK_MS = 50;
const MiB = 1024 * 1024;

export const OVERLOAD_CHECKS: readonly Check<OverloadFigures, Expectations>[] = [
  {
    name: 'the calibration saturated the sidecar (it refused requests meanwhile)',
    evaluate: (f) => ({ pass: f.calibrationRefusals > 0, detail: `${f.calibrationRefusals} requests refused; capacity ${Math.round(f.capacity)} spans/s` }),
  },
  {
    name: 'the clients offered the target multiple of that capacity',
    evaluate: (f, e) => ({
      pass: f.offered >= e.minRatio * f.capacity,
      detail: `offered ${Math.round(f.offered)} spans/s = ${(f.offered / f.capacity).toFixed(2)}x capacity (at least ${e.minRatio}x)`,
    }),
  },
  {
    name: 'RSS stayed under the bound',
    evaluate: (f, e) => ({
      pass: f.peakRssBytes <= e.rssBoundBytes,
      detail: `peak ${mib(f.peakRssBytes)} (idle ${mib(f.idleRssBytes)}, bound ${mib(e.rssBoundBytes)})`,
    }),
  },
  {
    name: 'the receiver answered 429 with Retry-After instead of queueing',
    evaluate: (f) => {
      const refused = f.clients.answers['429'] ?? 0;
      return {
        pass: refused > 0 && f.clients.refusedWithoutRetryAfter === 0,
        detail: `${refused} answers 429, ${f.clients.refusedWithoutRetryAfter} of them without Retry-After`,
      };
    },
  },
  {
    name: "the exporters' retries waited the Retry-After",
    evaluate: (f, e) => {
      const min = f.clients.retryPauseMinMs;
      return {
        pass: f.clients.retriesAfterRefusal > 0 && min !== null && min >= e.retryAfterMs - TIMER_SLACK_MS,
        detail: `${f.clients.retries} retried requests; ${f.clients.retriesAfterRefusal} after a refusal, paused ${fmt(min)}-${fmt(f.clients.retryPauseMaxMs)} ms (Retry-After ${e.retryAfterMs} ms)`,
      };
    },
  },
  {
    name: 'every request got an answer within the exporter deadline',
    evaluate: (f) => ({
      pass: (f.clients.answers.error ?? 0) === 0,
      detail: `${f.clients.requests} requests, ${f.clients.answers.error ?? 0} unanswered; slowest answer ${Math.round(f.clients.slowestAnswerMs)} ms`,
    }),
  },
  {
    name: 'received = analyzed + dropped, exactly',
    evaluate: (f) => {
      const l = f.ledger;
      const reasons = Object.entries(l.droppedByReason)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ');
      return { pass: l.received === l.analyzed + l.dropped, detail: `${l.received} = ${l.analyzed} analyzed + ${l.dropped} dropped (${reasons})` };
    },
  },
  {
    name: "received matches the clients' own books (spans exported + requests refused)",
    evaluate: (f) => ({
      pass: f.ledger.received === f.expectedReceived && f.ledger.droppedByReason.queue_full === (f.clients.answers['429'] ?? 0),
      detail: `sidecar ${f.ledger.received}, clients ${f.expectedReceived} (${f.clients.exported} spans exported; ${f.clients.answers['429'] ?? 0} refused, ${f.ledger.droppedByReason.queue_full ?? 0} counted queue_full)`,
    }),
  },
  {
    name: '/healthz and /metrics answered within the bound throughout',
    evaluate: (f, e) => responsive(f.probe, e),
  },
];

/** The probe's slowest answers against the bound. */
export function responsive(probe: ProbeFigures, bounds: Bounds): { pass: boolean; detail: string } {
  const worst = Math.max(...Object.values(probe.maxMs));
  const each = Object.entries(probe.maxMs)
    .map(([path, ms]) => `${path} ${Math.round(ms)} ms`)
    .join(', ');
  const failures = probe.failures.length === 0 ? 'none' : probe.failures.slice(0, 3).join('; ');
  return { pass: worst < bounds.responsiveMs && probe.failures.length === 0, detail: `${probe.samples} samples; max ${each}; failures: ${failures}` };
}

export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

function fmt(ms: number | null): string {
  return ms === null ? '-' : ms.toFixed(1);
}
