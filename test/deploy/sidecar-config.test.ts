/** The configs the overlays ship are accepted by the sidecar's own config validation (`reconcile-shadow run`). */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../lib/package-root.js';
import { parseConfig, type Config } from '../../sidecar/config.js';

const overlayConfig = (dir: string): Config => {
  const file = join(packageRoot(), 'deploy', 'overlays', dir, 'shadow.yaml');
  return parseConfig(readFileSync(file, 'utf8'), file);
};

describe('deploy: the shipped sidecar configs', () => {
  it('hypershift: the HostedCluster model fed by its own pod’s log, the status source and OTLP on loopback, metrics beyond loopback, the report on loopback', () => {
    const config = overlayConfig('hypershift');
    deepStrictEqual(
      config.models.map((m) => m.name),
      ['hypershift-hostedcluster'],
    );
    deepStrictEqual(config.listen, { metrics: { host: '0.0.0.0', port: 9464 }, summary: { host: '127.0.0.1', port: 9465 } });
    deepStrictEqual(config.summary, {});
    deepStrictEqual(Object.keys(config.sources).sort(), ['logs', 'otlp', 'status']);
    // The pod is left out: the sidecar reads POD_NAMESPACE/POD_NAME, which the patch sets from the downward API.
    deepStrictEqual(config.sources.logs?.input, { pod: { container: 'operator' } });
    deepStrictEqual(config.sources.otlp?.listen, { host: '127.0.0.1', port: 4318 });
    const status = config.sources.status;
    // Cluster-wide with the in-cluster identity; the loop read from the operator Deployment the sidecar runs in.
    deepStrictEqual([status?.kubeconfig, status?.namespace, status?.loop, status?.readOperatorDeployment], [undefined, undefined, 'auto', true]);
    deepStrictEqual(status?.operatorDeployment, { namespace: 'hypershift', name: 'operator' });
    strictEqual(config.recreations, undefined);
    strictEqual(config.console.enabled, false);
  });

  it('hyperfleet-adapter: no reconcile model, the recreations section with its defaults applied', () => {
    const config = overlayConfig('hyperfleet-adapter');
    deepStrictEqual(config.models, []);
    deepStrictEqual(config.sources, {});
    deepStrictEqual(config.recreations, {
      taskConfig: '/etc/adapter/task-config.yaml',
      // The projected token the patch mounts as the adapter's chart does, read again as the kubelet rotates it.
      hyperfleet: {
        url: 'http://hyperfleet-api.hyperfleet.svc:8000',
        interval: 15_000,
        timeout: 5_000,
        kinds: ['clusters'],
        pageSize: 100,
        maxPagesPerPoll: 10,
        tokenFile: '/var/run/secrets/hyperfleet/token',
      },
      sentinelInterval: 10_000,
      stuckThresholds: { default: 600_000 },
      maxInFlight: 10_000,
      maxStuckSeries: 50,
    });
    deepStrictEqual(config.listen, { metrics: { host: '0.0.0.0', port: 9464 }, summary: { host: '127.0.0.1', port: 9465 } });
    strictEqual(config.console.enabled, false);
  });
});
