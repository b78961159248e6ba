/**
 * The sidecar's own account of OTLP input, read from its /metrics: spans received, spans dropped by reason, and
 * spans analyzed. The catalog has no analyzed-spans counter, so for a sidecar whose only source is OTLP it is derived:
 * each analyzed attempt is its root span plus one span per operation, and every operation of an attempt is counted
 * once in reconcile_shadow_operation_observed_total (the simulated fleet never runs an operation twice in one attempt).
 */
import { parsePrometheusText, valueOf, type Sample } from '../support/prometheus-text.js';

export interface OtlpLedger {
  readonly received: number;
  readonly droppedByReason: Readonly<Record<string, number>>;
  readonly dropped: number;
  readonly attempts: number;
  readonly operations: number;
  /** attempts + operations: the spans that ended in an analyzed attempt. */
  readonly analyzed: number;
  readonly incompleteAttempts: number;
}

export function otlpLedger(samples: readonly Sample[]): OtlpLedger {
  const droppedByReason: Record<string, number> = {};
  for (const s of samples) {
    if (s.name === 'reconcile_shadow_records_dropped_total' && s.labels.source === 'otlp' && s.value > 0) droppedByReason[s.labels.reason!] = s.value;
  }
  const attempts = valueOf(samples, 'reconcile_shadow_attempts_total');
  const operations = valueOf(samples, 'reconcile_shadow_operation_observed_total');
  return {
    received: valueOf(samples, 'reconcile_shadow_records_received_total', { source: 'otlp' }),
    droppedByReason,
    dropped: Object.values(droppedByReason).reduce((a, b) => a + b, 0),
    attempts,
    operations,
    analyzed: attempts + operations,
    incompleteAttempts: valueOf(samples, 'reconcile_shadow_attempts_incomplete_total', { source: 'otlp' }),
  };
}

export async function scrapeLedger(metricsUrl: string): Promise<OtlpLedger> {
  const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`GET ${metricsUrl}: ${res.status}`);
  return otlpLedger(parsePrometheusText(await res.text()));
}

/** received − (analyzed + dropped): 0 when every span is accounted for. */
export function unaccounted(l: OtlpLedger): number {
  return l.received - l.analyzed - l.dropped;
}
