/** The hostile bodies at the receiver's default limits, and what the memory-bound scenario must show with them. */
import { DEFAULT_LIMITS } from '../../collector/otlp/internal/receiver.js';
import { denseAttributes, emptySpans, fatOrphans, jsonEmptySpans, type HostileBody } from './hostile-bodies.js';
import type { HostileFigures } from './hostile.js';
import { mib, responsive, type Bounds, type Check } from './overload-checks.js';

/** Senders at once: three times as many bodies at the decompressed limit as the receiver's body budget holds. */
export const HOSTILE_CONCURRENCY = 3 * Math.ceil(DEFAULT_LIMITS.maxBufferedBodyBytes / DEFAULT_LIMITS.maxDecompressedBytes);

export function hostileBodies(): HostileBody[] {
  const l = DEFAULT_LIMITS;
  return [
    denseAttributes(l.maxDecompressedBytes, l.maxSpansPerRequest, l.maxAttributesPerSpan),
    emptySpans(l.maxDecompressedBytes),
    jsonEmptySpans(l.maxDecompressedBytes),
    fatOrphans(l.maxDecompressedBytes, l.maxStringLength),
  ];
}

/** Answers a hostile body may get: taken (200), refused as undecodable (400) or too large (413), or busy (429). */
const DOCUMENTED = new Set(['200', '400', '413', '429']);

export const HOSTILE_CHECKS: readonly Check<HostileFigures, Bounds>[] = [
  {
    name: 'the sidecar stayed up',
    evaluate: (f) => ({ pass: f.exit === undefined, detail: f.exit ?? 'running' }),
  },
  {
    name: 'every request got a documented answer',
    evaluate: (f) => {
      const odd = f.phases.flatMap((p) =>
        Object.keys(p.answers)
          .filter((s) => !DOCUMENTED.has(s))
          .map((s) => `${p.body}: ${s} x${p.answers[s]}`),
      );
      const all = f.phases.map((p) => `${p.body}: ${JSON.stringify(p.answers)}`).join('; ');
      return { pass: odd.length === 0 && f.phases.length > 0, detail: odd.length === 0 ? all : odd.join('; ') };
    },
  },
  {
    name: 'RSS stayed under the bound',
    evaluate: (f, b) => ({
      pass: f.peakRssBytes <= b.rssBoundBytes,
      detail: `peak ${mib(f.peakRssBytes)} (idle ${mib(f.idleRssBytes)}, bound ${mib(b.rssBoundBytes)}); by body: ${f.phases.map((p) => `${p.body} ${mib(p.peakRssBytes)}`).join(', ')}`,
    }),
  },
  {
    name: '/healthz and /metrics answered within the bound throughout',
    evaluate: (f, b) => {
      const each = f.phases.map((p) => ({ body: p.body, ...responsive(p.probe, b) }));
      return { pass: each.every((e) => e.pass), detail: each.map((e) => `${e.body}: ${e.detail}`).join(' | ') };
    },
  },
  {
    name: 'received = analyzed + dropped, exactly',
    evaluate: (f) => {
      const l = f.ledger;
      const reasons = Object.entries(l.droppedByReason)
        .map(([r, n]) => `${r} ${n}`)
        .join(', ');
      return {
        pass: l.received > 0 && l.received === l.analyzed + l.dropped,
        detail: `${l.received} = ${l.analyzed} analyzed + ${l.dropped} dropped (${reasons})`,
      };
    },
  },
];
