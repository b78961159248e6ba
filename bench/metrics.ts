/**
 * /metrics render time with about 10k series (a 2,000-operation model, every series touched), vs a bare
 * @prometheus-io/client Registry holding the same series.
 */
import { Counter, Gauge, Registry } from '@prometheus-io/client';
import { Analyzer } from '../analyzer/analyzer.js';
import { createMetrics } from '../outputs/metrics/registry.js';
import { MetricsPublisher } from '../outputs/metrics/publisher.js';
import type { OperationRecord } from '../collector/records.js';
import type { ReconcileModel } from '../model/types.js';
import { atMost, sideBySide, type BenchResult } from './harness.js';

const OPS = 2000;

function wideModel(): ReconcileModel {
  const operations = Array.from({ length: OPS }, (_, i) => ({ name: `Op${String(i).padStart(4, '0')}`, errors: [] }));
  const half = OPS / 2;
  return {
    name: 'wide',
    controller: 'wide',
    operations,
    phased: [
      {
        kind: 'group',
        group: 'Second',
        category: 'critical',
        blockable: false,
        mode: 'collect',
        ops: operations.slice(half).map((o) => o.name),
        skipWhenBlocked: false,
      },
      {
        kind: 'group',
        group: 'First',
        category: 'nonCritical',
        blockable: true,
        mode: 'collect',
        ops: operations.slice(0, half).map((o) => o.name),
        skipWhenBlocked: false,
      },
    ],
  };
}

export async function benchMetrics(): Promise<BenchResult> {
  const model = wideModel();
  const { registry, metrics } = createMetrics();
  const analyzer = new Analyzer([model]);
  const publisher = new MetricsPublisher(metrics, analyzer.controllers, () => Date.parse('2026-11-01T01:00:00Z'), { version: 'bench' });
  analyzer.listen(publisher);
  const outcomes = ['ok', 'error', 'stop', 'skip'] as const;
  // Four attempts, each with every op observed under another outcome, so every (op, outcome) series exists.
  outcomes.forEach((_, k) => {
    const operations: OperationRecord[] = model.operations.map((o, i) => ({ name: o.name, outcome: outcomes[(i + k) % 4]! }));
    analyzer.attempt({
      time: 't',
      timeMs: Date.parse('2026-11-01T00:00:00Z') + k,
      controller: 'wide',
      object: `ns/o${k}`,
      loop: 'sequential',
      operations,
      origin: { source: 'journal' },
    });
  });
  publisher.refresh();
  const json = await registry.getMetricsAsJSON();
  const series = json.reduce((n, m) => n + (m.values as unknown[]).length, 0);

  // The same series in a bare registry: one counter or gauge per metric, same labels and values.
  const bare = new Registry();
  for (const m of json) {
    const labelNames = [...new Set(m.values.flatMap((v) => Object.keys(v.labels)))];
    const metric =
      String(m.type) === 'counter'
        ? new Counter({ name: m.name, help: m.help, labelNames, registers: [bare] })
        : new Gauge({ name: m.name, help: m.help, labelNames, registers: [bare] });
    for (const v of m.values) (metric as Gauge<string>).inc(v.labels as Record<string, string>, v.value);
  }

  const [figure, baseline] = await sideBySide(
    async () => {
      publisher.refresh();
      await registry.metrics();
    },
    () => bare.metrics(),
    21,
  );
  return atMost('/metrics render', 'ms', figure * 1000, baseline * 1000, 1.0, `${series} series (refresh of the starvation gauges included)`);
}
