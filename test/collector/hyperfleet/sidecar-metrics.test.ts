/**
 * The HyperFleet source in a running sidecar: `reconcile_shadow_source_truncated{source="hyperfleet"}` while a
 * fleet is read over several polls, and failed polls under `reconcile_shadow_source_failures_total` by reason,
 * every reason's series there from the first scrape, a 401 under its own.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POLL_FAILURES } from '../../../collector/hyperfleet/http.js';
import { parseConfig } from '../../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../../sidecar/sidecar.js';
import { EXAMPLE_TASK_CONFIG } from '../../../simulator/component.js';
import { FakeHyperFleetApi } from '../../support/fake-hyperfleet-api.js';
import { FakeKubeApiServer, kubeConfigFor } from '../../support/fake-kube-apiserver.js';
import { valueOf } from '../../support/prometheus-text.js';
import { scrape, untilScraped } from '../../support/sidecar-metrics.js';

describe('HyperFleet source metrics in the sidecar', function () {
  // a sidecar polling an in-test HyperFleet API on a 1 s interval
  this.timeout(30_000);
  let kube: FakeKubeApiServer;
  let api: FakeHyperFleetApi;
  let dir: string;
  let sidecar: Sidecar | undefined;
  beforeEach(async () => {
    kube = new FakeKubeApiServer();
    await kube.start();
    api = new FakeHyperFleetApi();
    await api.start();
    dir = mkdtempSync(join(tmpdir(), 'hf-metrics-'));
  });
  afterEach(async () => {
    await sidecar?.stop();
    sidecar = undefined;
    await api.close();
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows truncated while 120 clusters take polls of 2 pages of 50, and counts a 401 as unauthorized', async () => {
    for (let i = 0; i < 120; i++) api.createCluster(`c${String(i).padStart(3, '0')}`);
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeConfigFor(kube).exportConfig());
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'first');
    api.requireToken = 'first';
    const hyperfleet = { url: api.url, interval: '1s', timeout: '1s', pageSize: 50, maxPagesPerPoll: 2, tokenFile };
    const text = `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:0}
sources: {}
console: {enabled: false}
recreations: {taskConfig: ${JSON.stringify(EXAMPLE_TASK_CONFIG)}, objects: {kubeconfig: ${JSON.stringify(kubeconfig)}}, hyperfleet: ${JSON.stringify(hyperfleet)}}
`;
    const logs: string[] = [];
    sidecar = await startSidecar(parseConfig(text, 'shadow.yaml'), { env: {}, log: (l) => logs.push(l) });
    // The first poll is awaited at start: two pages of three read.
    let s = await scrape(sidecar);
    assert.equal(valueOf(s, 'reconcile_shadow_source_truncated', { source: 'hyperfleet' }), 1);
    assert.deepEqual(
      s.filter((x) => x.name === 'reconcile_shadow_source_failures_total').map((x) => [x.labels.source, x.labels.reason, x.value]),
      POLL_FAILURES.map((reason) => ['hyperfleet', reason, 0]),
    );
    assert.ok(
      logs.includes(
        'source hyperfleet: clusters: 120 resources, more than one poll reads (2 pages of 50): the list is read over several polls, each resource once per pass (truncated)',
      ),
      logs.join('\n'),
    );

    // The API stops taking the token (it expired; the file was not rotated): every poll is a 401.
    api.requireToken = 'second';
    s = await untilScraped(
      'a 401 counted',
      sidecar,
      (x) => valueOf(x, 'reconcile_shadow_source_failures_total', { source: 'hyperfleet', reason: 'unauthorized' }) >= 1,
    );
    assert.equal(valueOf(s, 'reconcile_shadow_source_failures_total', { source: 'hyperfleet', reason: 'http_4xx' }), 0);
    // Rotated: the next poll reads the file again and succeeds.
    writeFileSync(tokenFile, 'second');
    await untilScraped('hyperfleet up with the rotated token', sidecar, (x) => valueOf(x, 'reconcile_shadow_source_up', { source: 'hyperfleet' }) === 1);
    assert.ok(api.requests.some((r) => r.authorization === 'Bearer second' && r.status === 200));
  });
});
