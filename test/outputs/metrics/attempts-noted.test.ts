/**
 * The notes a source keeps about its attempts (loop inherited or contradicted, shared error formats, ...) reach
 * Prometheus as reconcile_shadow_attempts_noted_total, with the counts /summary shows: here the real logger's phased
 * log (test/fixtures/logs/real) read by the log source into the analyzer, with the metrics publisher listening.
 */
import { deepStrictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { OperatorLogSource } from '../../../collector/logs/source.js';
import { SOURCE_NOTES } from '../../../collector/records.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { MetricsPublisher } from '../../../outputs/metrics/publisher.js';
import { resolveModel } from '../../../sidecar/files.js';
import { SOURCES } from '../../../sidecar/registry.js';
import { parsePrometheusText } from '../../support/prometheus-text.js';
import { REPO } from '../../support/paths.js';

const NAME = 'reconcile_shadow_attempts_noted_total';

async function notedSeries(registry: ReturnType<typeof createMetrics>['registry']): Promise<Record<string, number>> {
  const samples = parsePrometheusText(await registry.metrics()).filter((s) => s.name === NAME);
  return Object.fromEntries(samples.map((s) => [`${s.labels['source']}/${s.labels['note']}`, s.value]));
}

describe('reconcile_shadow_attempts_noted_total', function () {
  // reads and analyses the 4,300-line real log
  this.timeout(30_000);

  it("follows the log source's notes on the real logger's phased log: zero from the start, its counts at every scrape", async () => {
    const model = resolveModel('hypershift-hostedcluster');
    const { registry, metrics } = createMetrics();
    const analyzer = new Analyzer([model]);
    const publisher = new MetricsPublisher(metrics, analyzer.controllers, Date.now, { version: 'test', sources: [SOURCES.logs] });
    analyzer.listen(publisher);

    const text = gunzipSync(readFileSync(join(REPO, 'test/fixtures/logs/real/phased.operator.log.gz'))).toString('utf8');
    const source = new OperatorLogSource(
      { input: { stream: Readable.from([text]), name: 'phased.operator.log' }, model, loop: 'auto', scheduler: () => () => undefined },
      analyzer,
    );

    publisher.refresh();
    const zero = Object.fromEntries(SOURCE_NOTES.map((note) => [`logs/${note}`, 0]));
    deepStrictEqual(await notedSeries(registry), zero, 'every note of the describing source at 0, no other source');

    await source.start();
    await source.ended;
    publisher.refresh();
    // The figures of test/collector/logs/real-logger.test.ts, which checks them against the journal the log replays.
    deepStrictEqual(await notedSeries(registry), {
      ...zero,
      'logs/loop_inherited': 2171,
      'logs/loop_contradicted': 7,
      'logs/inconsistent_lines': 11,
      'logs/ambiguous_error': 325,
      'logs/unmapped_error': 63,
      'logs/status_update_error': 33,
    });
    await source.stop();
  });
});
