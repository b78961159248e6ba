/**
 * The Maestro source in a running sidecar: up once its first list is read, its failure reasons' series there from the
 * first scrape, down while Maestro refuses the token, and not truncated for a list that fits its pages.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POLL_FAILURES } from '../../../collector/hyperfleet/http.js';
import { parseConfig } from '../../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../../sidecar/sidecar.js';
import { EXAMPLE_TASK_CONFIG } from '../../../simulator/component.js';
import { FakeKubeApiServer, kubeConfigFor } from '../../support/fake-kube-apiserver.js';
import { FakeMaestro } from '../../support/fake-maestro.js';
import { valueOf } from '../../support/prometheus-text.js';
import { scrape, untilScraped } from '../../support/sidecar-metrics.js';

describe('Maestro source in the sidecar', function () {
  // a sidecar polling an in-test Maestro server on a 1 s interval
  this.timeout(30_000);
  let sidecar: Sidecar | undefined;
  let kube: FakeKubeApiServer;
  let maestro: FakeMaestro;
  let dir: string;
  before(async () => {
    kube = new FakeKubeApiServer();
    await kube.start();
    maestro = new FakeMaestro();
    await maestro.start();
    dir = mkdtempSync(join(tmpdir(), 'maestro-sidecar-'));
  });
  after(async () => {
    await sidecar?.stop();
    await maestro.close();
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports up, no truncation and zero failures by reason, then a 401 as unauthorized', async () => {
    maestro.apply('hyperfleet-adapter', 'cluster1', { metadata: { name: 'c1-mw' }, spec: { workload: { manifests: [] } } });
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeConfigFor(kube).exportConfig());
    const m = { url: maestro.url, sourceId: 'hyperfleet-adapter', interval: '1s', timeout: '1s' };
    const text = `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
listen: {metrics: 127.0.0.1:0}
sources: {}
console: {enabled: false}
recreations: {taskConfig: ${JSON.stringify(EXAMPLE_TASK_CONFIG)}, objects: {kubeconfig: ${JSON.stringify(kubeconfig)}}, maestro: ${JSON.stringify(m)}}
`;
    sidecar = await startSidecar(parseConfig(text, 'shadow.yaml'), { env: {}, log: () => undefined });
    let s = await scrape(sidecar);
    assert.deepEqual(
      [valueOf(s, 'reconcile_shadow_source_up', { source: 'maestro' }), valueOf(s, 'reconcile_shadow_source_truncated', { source: 'maestro' })],
      [1, 0],
    );
    assert.deepEqual(
      s.filter((x) => x.name === 'reconcile_shadow_source_failures_total').map((x) => [x.labels.source, x.labels.reason, x.value]),
      POLL_FAILURES.map((reason) => ['maestro', reason, 0]),
    );
    maestro.requireToken = 'needed';
    s = await untilScraped(
      'a 401 counted',
      sidecar,
      (x) => valueOf(x, 'reconcile_shadow_source_failures_total', { source: 'maestro', reason: 'unauthorized' }) >= 1,
    );
    assert.equal(valueOf(s, 'reconcile_shadow_source_up', { source: 'maestro' }), 0);
  });
});
