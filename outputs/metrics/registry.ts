/**
 * @prometheus-io/client objects made from the catalog, on the sidecar's own Registry (never the global one, so tests and
 * several sidecars in one process never share state). Counters and gauges can also hold tables of rows the
 * analysis writes directly and the registry reads when scraped (series-table.ts).
 */
import { Histogram, Registry } from '@prometheus-io/client';
import { METRICS, type MetricName, type MetricSpec } from './catalog.js';
import { TableCounter, TableGauge } from './series-table.js';

type Catalog = (typeof METRICS)[number];
type MetricOf<S extends Catalog> = S['type'] extends 'counter'
  ? TableCounter<S['labels'][number]>
  : S['type'] extends 'gauge'
    ? TableGauge<S['labels'][number]>
    : Histogram<S['labels'][number]>;

export type Metrics = { readonly [S in Catalog as S['name']]: MetricOf<S> };

export interface MetricSet {
  readonly registry: Registry;
  readonly metrics: Metrics;
}

function create(spec: MetricSpec, registry: Registry): TableCounter<string> | TableGauge<string> | Histogram {
  const common = { name: spec.name, help: spec.help, labelNames: [...spec.labels], registers: [registry] };
  switch (spec.type) {
    case 'counter':
      return new TableCounter(common);
    case 'gauge':
      return new TableGauge(common);
    case 'histogram':
      return new Histogram({ ...common, buckets: [...(spec.buckets ?? [])] });
  }
}

export function createMetrics(registry = new Registry()): MetricSet {
  const metrics: Partial<Record<MetricName, TableCounter<string> | TableGauge<string> | Histogram>> = {};
  for (const spec of METRICS) metrics[spec.name] = create(spec, registry);
  return { registry, metrics: metrics as unknown as Metrics };
}
