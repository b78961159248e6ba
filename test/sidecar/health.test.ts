/**
 * One health contract for every source: `reconcile_shadow_source_up{source}` from the first scrape, failures under
 * `reconcile_shadow_internal_errors_total{kind="source"}` (the first of each source logged), one line per source on
 * /readyz. Sources run against real inputs: files, an OTLP port, an in-test Kubernetes API server that stops
 * accepting connections.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INTERNAL_ERROR_KINDS } from '../../outputs/component.js';
import { EXAMPLE_TASK_CONFIG } from '../../simulator/component.js';
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { FakeHyperFleetApi } from '../support/fake-hyperfleet-api.js';
import { FakeKubeApiServer, kubeConfigFor } from '../support/fake-kube-apiserver.js';
import { REPO } from '../support/paths.js';
import { valueOf, type Sample } from '../support/prometheus-text.js';
import { scrape, untilScraped } from '../support/sidecar-metrics.js';

async function get(sidecar: Sidecar, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${sidecar.metricsAddress.port}${path}`);
  return { status: res.status, body: await res.text() };
}

/** `sources`: the section's lines, or none; `extra`: more top-level sections. */
function config(sources: string, extra = ''): string {
  return `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:0}
sources:${sources === '' ? ' {}' : `\n${sources}`}
console: {enabled: false}
${extra}`;
}

const up = (s: Sample[], source: string): number => valueOf(s, 'reconcile_shadow_source_up', { source });

describe('source health: one contract for every source', function () {
  // sidecars against in-test API servers that go down and come back
  this.timeout(30_000);
  let sidecar: Sidecar | undefined;
  let kube: FakeKubeApiServer | undefined;
  afterEach(async () => {
    await sidecar?.stop();
    await kube?.close();
    sidecar = undefined;
    kube = undefined;
  });

  it('journal, otlp, logs and status report source_up from the first scrape; a lost watch is down and counted, and comes back', async () => {
    kube = new FakeKubeApiServer();
    await kube.start();
    const dir = mkdtempSync(join(tmpdir(), 'shadow-health-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeConfigFor(kube).exportConfig());
    const journal = join(dir, 'empty.jsonl');
    writeFileSync(journal, '');
    const log = join(REPO, 'test/fixtures/logs/legacy.log');
    const logs: string[] = [];
    sidecar = await startSidecar(
      parseConfig(
        config(
          [
            `  journal: {path: ${JSON.stringify(journal)}}`,
            '  otlp: {listen: 127.0.0.1:0}',
            `  logs: {input: {file: ${JSON.stringify(log)}}, loop: sequential}`,
            `  status: {kubeconfig: ${JSON.stringify(kubeconfig)}, loop: sequential, readOperatorDeployment: false, namespace: clusters}`,
          ].join('\n'),
        ),
        'shadow.yaml',
      ),
      { env: {}, log: (line) => logs.push(line) },
    );
    let s = await scrape(sidecar);
    assert.deepEqual(
      s.filter((x) => x.name === 'reconcile_shadow_source_up').map((x) => [x.labels.source, x.value]),
      [
        ['journal', 1],
        ['otlp', 1],
        ['logs', 1],
        ['status', 1],
      ],
    );
    assert.deepEqual(
      s.filter((x) => x.name === 'reconcile_shadow_internal_errors_total').map((x) => [x.labels.kind, x.value]),
      INTERNAL_ERROR_KINDS.map((kind) => [kind, 0]),
    );
    assert.deepEqual(await get(sidecar, '/readyz'), { status: 200, body: 'ready\nsource journal: up\nsource otlp: up\nsource logs: up\nsource status: up\n' });

    await kube.refuseConnections();
    s = await untilScraped('the status source down', sidecar, (x) => up(x, 'status') === 0);
    assert.equal(up(s, 'journal') + up(s, 'otlp') + up(s, 'logs'), 3);
    assert.ok(valueOf(s, 'reconcile_shadow_internal_errors_total', { kind: 'source' }) >= 1);
    assert.match((await get(sidecar, '/readyz')).body, /^ready\n(.*\n)*source status: down\n$/);
    assert.equal(logs.filter((l) => l.startsWith('reconcile-shadow: source status failure')).length, 1, logs.join('\n'));

    await kube.acceptConnections();
    await untilScraped('the status source up again', sidecar, (x) => up(x, 'status') === 1);
  });

  it('a journal that cannot be read to its end is down, counted once and logged once', async () => {
    // A directory opens, then fails on the first read (EISDIR): a failure after a successful start.
    const dir = mkdtempSync(join(tmpdir(), 'shadow-health-'));
    const logs: string[] = [];
    sidecar = await startSidecar(parseConfig(config(`  journal: {path: ${JSON.stringify(dir)}}`), 'shadow.yaml'), { env: {}, log: (line) => logs.push(line) });
    const s = await untilScraped('the journal source down', sidecar, (x) => up(x, 'journal') === 0);
    assert.equal(valueOf(s, 'reconcile_shadow_internal_errors_total', { kind: 'source' }), 1);
    assert.deepEqual(logs, [
      'reconcile-shadow: source journal failure (further source journal failures are only counted in reconcile_shadow_internal_errors_total): EISDIR: illegal operation on a directory, read',
    ]);
    assert.deepEqual(await get(sidecar, '/readyz'), { status: 200, body: 'ready\nsource journal: down\n' });
  });

  it('a log file that is not there is down; the failure to watch its directory is counted and logged once', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'shadow-health-')), 'no-such-dir', 'operator.log');
    const logs: string[] = [];
    sidecar = await startSidecar(parseConfig(config(`  logs: {input: {file: ${JSON.stringify(missing)}}, loop: sequential}`), 'shadow.yaml'), {
      env: {},
      log: (line) => logs.push(line),
    });
    const s = await scrape(sidecar);
    assert.equal(up(s, 'logs'), 0);
    assert.equal(valueOf(s, 'reconcile_shadow_internal_errors_total', { kind: 'source' }), 1);
    assert.equal(logs.length, 1);
    assert.match(logs[0]!, /^reconcile-shadow: source logs failure \(.*\): ENOENT: no such file or directory, watch '.*no-such-dir'$/);
  });

  it('the recreation inputs report too: objects (every watch) and hyperfleet, down while the API fails', async () => {
    kube = new FakeKubeApiServer();
    await kube.start();
    const api = new FakeHyperFleetApi();
    await api.start();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'shadow-health-'));
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, kubeConfigFor(kube).exportConfig());
      const recreations = `recreations: {taskConfig: ${JSON.stringify(EXAMPLE_TASK_CONFIG)}, objects: {kubeconfig: ${JSON.stringify(kubeconfig)}}, hyperfleet: {url: ${JSON.stringify(api.url)}, interval: 1s, timeout: 1s}}\n`;
      sidecar = await startSidecar(parseConfig(config('', recreations), 'shadow.yaml'), { env: {}, log: () => undefined });
      let s = await untilScraped('objects and hyperfleet up', sidecar, (x) => up(x, 'objects') === 1 && up(x, 'hyperfleet') === 1);
      assert.deepEqual(
        s.filter((x) => x.name === 'reconcile_shadow_source_up').map((x) => x.labels.source),
        ['hyperfleet', 'objects'],
      );
      api.failNext(3, { status: 503 });
      s = await untilScraped('hyperfleet down', sidecar, (x) => up(x, 'hyperfleet') === 0);
      assert.equal(up(s, 'objects'), 1);
      assert.ok(valueOf(s, 'reconcile_shadow_internal_errors_total', { kind: 'source' }) >= 1);
      await untilScraped('hyperfleet up again', sidecar, (x) => up(x, 'hyperfleet') === 1);
    } finally {
      await sidecar?.stop();
      sidecar = undefined;
      await api.close();
    }
  });
});
