/** Small PromQL builders for the alert rules, so every selector carries the configured matchers the same way. */
import type { MetricName } from '../outputs/metrics/catalog.js';

/** `metric{<selector>,<matchers...>}`; the metric name is typed against the catalog (or Prometheus's own `up`). */
export function series(metric: MetricName | 'up', selector: string, ...matchers: string[]): string {
  const all = [selector, ...matchers].filter((m) => m.length > 0);
  return `${metric}{${all.join(',')}}`;
}

/** A PromQL string literal. */
function quote(value: string): string {
  return JSON.stringify(value);
}

/** `label=~"a|b|c"` matching exactly these values. */
export function oneOf(label: string, values: readonly string[]): string {
  const escaped = values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `${label}=~${quote(escaped.join('|'))}`;
}

/** `label!~"a|b"`, or nothing when there is nothing to exclude. */
export function noneOf(label: string, values: readonly string[]): string[] {
  return values.length === 0 ? [] : [oneOf(label, values).replace('=~', '!~')];
}

/**
 * Counter increments over `window`, grouped `by`. The sidecar exports every bounded counter at 0 from its first
 * scrape, so a counter's first increment is an increase like any other (no "series appeared" special case).
 */
export function increased(counter: string, by: string, window: string): string {
  return `sum by (${by}) (increase(${counter}[${window}])) > 0`;
}
