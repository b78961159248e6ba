/** Small PromQL builders for the alert rules, so every selector carries the configured matchers the same way. */
import type { MetricName } from '../analyzer/metrics/catalog.js';

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
function oneOf(label: string, values: readonly string[]): string {
  const escaped = values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `${label}=~${quote(escaped.join('|'))}`;
}

/** `label!~"a|b"`, or nothing when there is nothing to exclude. */
export function noneOf(label: string, values: readonly string[]): string[] {
  return values.length === 0 ? [] : [oneOf(label, values).replace('=~', '!~')];
}

/**
 * Counter increments over `window`, grouped `by`, including a series' first appearance. prom-client creates a
 * labelled series at its first increment, so a counter that goes from absent to 1 shows no increase() at all;
 * the second branch catches those: series above zero now that did not exist `window` ago.
 */
export function increasedOrNew(counter: string, by: string, window: string): string {
  return `sum by (${by}) (increase(${counter}[${window}])) > 0 or sum by (${by}) ((${counter} > 0) unless ${counter} offset ${window})`;
}
