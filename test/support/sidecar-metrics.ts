/** The sidecar's own metrics as tests read them: one scrape, and polling scrapes until a condition on them holds. */
import type { Sidecar } from '../../sidecar/sidecar.js';
import { parsePrometheusText, type Sample } from './prometheus-text.js';
import { until, type UntilOptions } from './until.js';

export async function scrape(sidecar: Sidecar): Promise<Sample[]> {
  const res = await fetch(`http://127.0.0.1:${sidecar.metricsAddress.port}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return parsePrometheusText(await res.text());
}

/** Scrapes every 50 ms (unless `intervalMs` says otherwise) until `done` holds, and returns that scrape. */
export function untilScraped(what: string, sidecar: Sidecar, done: (samples: Sample[]) => boolean, options: UntilOptions = {}): Promise<Sample[]> {
  return until(
    what,
    async () => {
      const samples = await scrape(sidecar);
      return done(samples) ? samples : undefined;
    },
    { timeoutMs: 15_000, intervalMs: 50, ...options },
  );
}
