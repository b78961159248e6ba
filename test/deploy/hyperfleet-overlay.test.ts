/**
 * The HyperFleet overlay's parts that follow the adapter: its ClusterRole is generated from the kinds the task config
 * names (read-only, nothing else), and the sidecar patch mounts the HyperFleet API token the way the adapter's chart
 * projects it (charts/templates/deployment.yaml, volume hyperfleet-api-token), where the generated config reads it.
 */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { apiGroupOf, readOnlyRules } from '../../deploy/clusterrole.js';
import { OVERLAYS } from '../../deploy/overlays.js';
import { packageRoot } from '../../lib/package-root.js';

const root = packageRoot();
const overlay = OVERLAYS.find((o) => o.dir === 'hyperfleet-adapter')!;

describe('deploy: the HyperFleet adapter overlay', () => {
  it('grants reading exactly the kinds the task config names, Namespaces included, one rule per API group', () => {
    const [role] = parseAllDocuments(readFileSync(join(root, 'deploy/overlays/hyperfleet-adapter/clusterrole.yaml'), 'utf8')).map(
      (d) => d.toJS() as { kind: string; rules: unknown },
    );
    strictEqual(role!.kind, 'ClusterRole');
    // examples/hyperfleet-adapter/task-config.yaml: a Namespace (v1) and a Job (batch/v1), as the chart's Kubernetes example.
    deepStrictEqual(role!.rules, [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch'] },
    ]);
    strictEqual(overlay.rbacFromTaskConfig, 'examples/hyperfleet-adapter/task-config.yaml');
  });

  it('groups kinds by API group, each plural once, sorted', () => {
    deepStrictEqual(
      [apiGroupOf('v1'), apiGroupOf('batch/v1'), apiGroupOf('work.open-cluster-management.io/v1')],
      ['', 'batch', 'work.open-cluster-management.io'],
    );
    deepStrictEqual(
      readOnlyRules([
        { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
        { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', plural: 'statefulsets' },
        { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' },
        { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
      ]),
      [
        { apiGroups: [''], resources: ['configmaps', 'namespaces'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['apps'], resources: ['deployments', 'statefulsets'], verbs: ['get', 'list', 'watch'] },
      ],
    );
  });

  it("mounts the API token projected as the adapter's chart does, where the sidecar config reads it", () => {
    type Patch = {
      spec: {
        template: {
          spec: {
            containers: { name: string; volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[] }[];
            volumes: { name: string; projected?: unknown }[];
          };
        };
      };
    };
    const patch = parse(readFileSync(join(root, 'deploy/overlays/hyperfleet-adapter/sidecar/patch.yaml'), 'utf8')) as Patch;
    const volume = patch.spec.template.spec.volumes.find((v) => v.name === 'reconcile-shadow-hyperfleet-api-token');
    deepStrictEqual(volume, {
      name: 'reconcile-shadow-hyperfleet-api-token',
      projected: { sources: [{ serviceAccountToken: { audience: 'hyperfleet-api', expirationSeconds: 3600, path: 'token' } }] },
    });
    const mount = patch.spec.template.spec.containers[0]!.volumeMounts.find((m) => m.name === volume.name);
    const config = parse(readFileSync(join(root, 'deploy/overlays/hyperfleet-adapter/shadow.yaml'), 'utf8')) as {
      recreations: { hyperfleet: { tokenFile: string } };
    };
    deepStrictEqual(mount, { name: 'reconcile-shadow-hyperfleet-api-token', mountPath: dirname(config.recreations.hyperfleet.tokenFile), readOnly: true });
    strictEqual(config.recreations.hyperfleet.tokenFile, '/var/run/secrets/hyperfleet/token');
  });
});
