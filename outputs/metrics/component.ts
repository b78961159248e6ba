/**
 * The metrics output: the catalog (catalog.ts) moved by both pipelines, analyzed attempts (publisher.ts) and
 * recreation events (recreations.ts), and set before each scrape. Always on: /metrics is why the sidecar runs.
 * The sidecar serves the registry on /metrics (sidecar/server.ts).
 */
import type { Output, OutputComponent } from '../component.js';
import { MetricsPublisher } from './publisher.js';
import { RecreationMetrics } from './recreations.js';

export const metrics: OutputComponent<undefined> = {
  title: 'Prometheus metrics on /metrics (every series in outputs/metrics/catalog.ts)',
  schema: undefined,
  enabled: () => true,
  create(_config, ctx) {
    const publisher = new MetricsPublisher(ctx.metrics.metrics, ctx.analyzer.controllers, ctx.clock.now, {
      version: ctx.version,
      sources: ctx.sources,
      speed: ctx.clock.speed,
    });
    const pipeline = ctx.recreations;
    const recreations = pipeline
      ? new RecreationMetrics(ctx.metrics.metrics, {
          maxStuckSeries: pipeline.maxStuckSeries,
          kinds: pipeline.kinds,
          stuckThresholdMs: pipeline.stuckThresholdMs,
          resourceTypes: pipeline.resourceTypes,
          speed: ctx.clock.speed,
        })
      : undefined;
    const output: Output = {
      attempts: publisher,
      ...(recreations ? { recreations } : {}),
      refresh() {
        publisher.refresh();
        if (pipeline && recreations) recreations.update(pipeline.analyzer.snapshot(ctx.clock.now()));
      },
    };
    return Promise.resolve(output);
  },
};
