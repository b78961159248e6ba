/** The sidecar fed by the two sources that need no operator change: a log file and HostedCluster status. */
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { FakeKubeApiServer, RESOURCES } from '../support/fake-kube-apiserver.js';
import { REPO } from '../support/paths.js';
import { valueOf } from '../support/prometheus-text.js';
import { untilScraped } from '../support/sidecar-metrics.js';

function config(sources: string): string {
  return `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:0}
sources:
${sources}
console: {enabled: false}
`;
}

describe('reconcile-shadow run with the no-change sources', function () {
  // sidecars against a log file and an in-test API server
  this.timeout(30_000);
  let sidecar: Sidecar | undefined;
  let server: FakeKubeApiServer | undefined;
  afterEach(async () => {
    await sidecar?.stop();
    await server?.close();
    sidecar = undefined;
    server = undefined;
  });

  it('logs: reads a controller-runtime log file and analyzes each attempt it ends', async () => {
    const log = join(REPO, 'test/fixtures/logs/legacy.log');
    sidecar = await startSidecar(
      parseConfig(config(`  logs: {input: {file: ${JSON.stringify(log)}}, loop: sequential, quietFlush: 100ms, pollInterval: 50ms}`), 'shadow.yaml'),
      { env: {} },
    );
    // legacy.log ends four hostedcluster attempts (two successes, an SSH key and a kubeconfig status error); a nodepool line is ignored.
    const samples = await untilScraped('four attempts from the log', sidecar, (s) => valueOf(s, 'reconcile_shadow_attempts_total') >= 4);
    assert.equal(valueOf(samples, 'reconcile_shadow_attempts_total', { observed_loop: 'sequential' }), 4);
    assert.equal(valueOf(samples, 'reconcile_shadow_operation_observed_total', { operation: 'SSHKeySync', outcome: 'error' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_operation_observed_total', { operation: 'KubeconfigStatus', outcome: 'error' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_records_dropped_total', { source: 'logs' }), 0);
  });

  it('status: watches HostedClusters through a Kubernetes API and analyzes each condition transition', async () => {
    server = new FakeKubeApiServer();
    await server.start();
    const dir = mkdtempSync(join(tmpdir(), 'shadow-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: fake, cluster: {server: "${server.url}", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: fake-token}}]\ncontexts: [{name: c, context: {cluster: fake, user: u}}]\ncurrent-context: c\n`,
    );
    const message = 'failed to get hostedcluster SSHKey secret clusters/alpha-ssh: secrets "alpha-ssh" not found';
    server.create(RESOURCES.hostedClusters, {
      metadata: { name: 'alpha', namespace: 'clusters' },
      spec: {},
      status: {
        conditions: [{ type: 'ReconciliationSucceeded', status: 'False', reason: 'ReconciliationError', message, lastTransitionTime: '2026-11-29T10:00:00Z' }],
      },
    });
    sidecar = await startSidecar(
      parseConfig(
        config(`  status: {kubeconfig: ${JSON.stringify(kubeconfig)}, loop: sequential, readOperatorDeployment: false, namespace: clusters}`),
        'shadow.yaml',
      ),
      { env: {} },
    );
    const samples = await untilScraped('the transition', sidecar, (s) => valueOf(s, 'reconcile_shadow_attempts_total') >= 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_attempts_total', { observed_loop: 'sequential', diverged: 'true' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_operation_observed_total', { operation: 'SSHKeySync', outcome: 'error' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_operation_unblocked_total', { operation: 'HostedControlPlane' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_attempts_incomplete_total', { source: 'status' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_source_up', { source: 'status' }), 1);
    assert.ok(server.requests.every((r) => r.method === 'GET' && !r.path.includes('/secrets')));
  });
});
