/**
 * prom-client objects made from the catalog, on the sidecar's own Registry (never the global one, so tests and
 * several sidecars in one process never share state).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRICS, type MetricName, type MetricSpec } from './catalog.js';

type Catalog = (typeof METRICS)[number];
type MetricOf<S extends Catalog> = S['type'] extends 'counter' ? Counter<S['labels'][number]> : S['type'] extends 'gauge' ? Gauge<S['labels'][number]> : Histogram<S['labels'][number]>;

export type Metrics = { readonly [S in Catalog as S['name']]: MetricOf<S> };

export interface MetricSet {
  readonly registry: Registry;
  readonly metrics: Metrics;
}

function create(spec: MetricSpec, registry: Registry): Counter | Gauge | Histogram {
  const common = { name: spec.name, help: spec.help, labelNames: [...spec.labels], registers: [registry] };
  switch (spec.type) {
    case 'counter':
      return new Counter(common);
    case 'gauge':
      return new Gauge(common);
    case 'histogram':
      return new Histogram({ ...common, buckets: [...(spec.buckets ?? [])] });
  }
}

export function createMetrics(registry = new Registry()): MetricSet {
  const metrics: Partial<Record<MetricName, Counter | Gauge | Histogram>> = {};
  for (const spec of METRICS) metrics[spec.name] = create(spec, registry);
  return { registry, metrics: metrics as unknown as Metrics };
}
