/** The log source in the running sidecar: what it says at start, and its books in `/summary` and the metrics. */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { Summary } from '../../../analyzer/summary/types.js';
import { parseConfig } from '../../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../../sidecar/sidecar.js';
import { REPO } from '../../support/paths.js';
import { parsePrometheusText, valueOf } from '../../support/prometheus-text.js';
import { until } from '../../support/until.js';

const summarySchema = new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(join(REPO, 'docs/summary.schema.json'), 'utf8')) as object);

async function get(sidecar: Sidecar, path: string): Promise<string> {
  return (await fetch(`http://127.0.0.1:${sidecar.metricsAddress.port}${path}`)).text();
}

describe('the log source in the sidecar', () => {
  let sidecar: Sidecar | undefined;
  afterEach(async () => {
    await sidecar?.stop();
    sidecar = undefined;
  });

  it('says at start what it knows about the loop, and /summary carries its books, loop and lower-bound statement', async () => {
    const log = join(REPO, 'test/fixtures/logs/legacy.log');
    const lines: string[] = [];
    const config = `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:0}
sources:
  logs: {input: {file: ${JSON.stringify(log)}}, quietFlush: 100ms, pollInterval: 50ms}
console: {enabled: false}
`;
    sidecar = await startSidecar(parseConfig(config, 'shadow.yaml'), { env: {}, log: (l) => lines.push(l) });
    assert.deepEqual(lines, [
      'source logs: loop: the operator Deployment is not read; no line has proved a loop yet; attempts wait for a line of their operator run that only one loop writes, and are dropped as loop_unknown if none comes',
    ]);
    const report = await until(
      'the four attempts of legacy.log',
      async () => {
        const r = JSON.parse(await get(sidecar!, '/summary')) as Summary;
        return (r.input.sources?.[0]?.attempts ?? 0) >= 4 ? r : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 20 },
    );
    assert.ok(summarySchema(report), JSON.stringify(summarySchema.errors));
    const logs = report.input.sources![0]!;
    assert.deepEqual([logs.source, logs.unit, logs.received, logs.analyzed, logs.attempts], ['logs', 'lines', 5, 5, 4]);
    // the build's version line (before the merge) proves the sequential loop
    assert.deepEqual([logs.loop.current, logs.loop.decidedBy], ['sequential', 'input']);
    assert.ok(logs.caveats.some((c) => c.includes('lower bounds')));
    const metrics = parsePrometheusText(await get(sidecar, '/metrics'));
    assert.equal(valueOf(metrics, 'reconcile_shadow_records_received_total', { source: 'logs' }), 5);
  });
});
