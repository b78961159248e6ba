/**
 * Every overlay rendered with the real `kubectl kustomize` (Debian's kubectl), and the sidecar component applied to
 * a realistic operator Deployment both ways users will apply it (kustomize component, `kubectl patch`).
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments, parseDocument, stringify } from 'yaml';
import { alertOptions } from '../../alerts/options.js';
import { prometheusRule } from '../../alerts/render.js';
import { alertRuleGroups } from '../../alerts/rules.js';
import { overviewDashboard } from '../../dashboards/overview.js';
import { recreationsDashboard } from '../../dashboards/recreations.js';
import { switchReadinessDashboard } from '../../dashboards/switch-readiness.js';
import { OVERLAYS, type Overlay } from '../../deploy/overlays.js';
import { CONFIG_FILE, METRICS_PORT } from '../../deploy/sidecar-config.js';
import { IMAGE_NAME, PUBLISHED_IMAGE, SIDECAR_CONTAINER, SIDECAR_POD_LABEL } from '../../deploy/sidecar-patch.js';
import { packageRoot } from '../../lib/package-root.js';

const root = packageRoot();
const deployDir = join(root, 'deploy');
const VERSION = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}
interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: { httpGet: { path: string; port: string | number } };
  readinessProbe?: { httpGet: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Deployment extends K8sObject {
  spec: {
    template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[]; volumes: { name: string; [source: string]: unknown }[] } };
  };
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
  return result.stdout;
}

const documents = (yaml: string): K8sObject[] => parseAllDocuments(yaml).map((d) => d.toJS() as K8sObject);
const kustomize = (dir: string): K8sObject[] => documents(run('kubectl', ['kustomize', dir]));

function find<T extends K8sObject = K8sObject>(objects: readonly K8sObject[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found as T;
}

/** Every RBAC rule that grants more than reading, or anything on Secrets, as `Kind/name: why`. */
function rbacViolations(objects: readonly K8sObject[]): string[] {
  const readOnly = new Set(['get', 'list', 'watch']);
  return objects
    .filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')
    .flatMap((o) =>
      ((o.rules ?? []) as PolicyRule[]).flatMap((rule) => {
        const where = `${o.kind}/${o.metadata.name}`;
        return [
          ...rule.verbs.filter((v) => !readOnly.has(v)).map((v) => `${where}: verb ${v}`),
          ...(rule.resources ?? []).filter((r) => r === '*' || r === 'secrets' || r.startsWith('secrets/')).map((r) => `${where}: resource ${r}`),
          ...(rule.apiGroups ?? []).filter((g) => g === '*').map(() => `${where}: every API group`),
          ...(rule.nonResourceURLs ?? []).map((u) => `${where}: non-resource URL ${u}`),
        ];
      }),
    )
    .concat(
      objects.filter((o) => o.kind === 'ClusterRole' && o.aggregationRule !== undefined).map((o) => `ClusterRole/${o.metadata.name}: aggregates other roles`),
    );
}

/** A temporary kustomization: the fixture Deployment, the overlay and its sidecar component, as a user would combine them. */
function renderWithOperator(overlay: Overlay, fixture: string, deploy = deployDir): { objects: K8sObject[]; fixture: Deployment } {
  const dir = mkdtempSync(join(tmpdir(), 'rs-kustomize-'));
  try {
    copyFileSync(join(root, 'test', 'deploy', 'fixtures', fixture), join(dir, 'operator.yaml'));
    const overlayDir = join(deploy, 'overlays', overlay.dir);
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      `resources:\n  - operator.yaml\n  - ${relative(dir, overlayDir)}\ncomponents:\n  - ${relative(dir, join(overlayDir, 'sidecar'))}\n`,
    );
    return { objects: kustomize(dir), fixture: parse(readFileSync(join(dir, 'operator.yaml'), 'utf8')) as Deployment };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const FIXTURES: Record<string, string> = { hypershift: 'hypershift-operator.yaml', 'hyperfleet-adapter': 'hyperfleet-adapter.yaml' };

/** The fixture Deployment as `kubectl patch` leaves it with the patch `kubectl kustomize deploy/overlays/<overlay>/patch` prints (docs/deploy.md step 3). */
function patchedByKubectl(deploy: string, overlay: Overlay): Deployment {
  const patch = run('kubectl', ['kustomize', join(deploy, 'overlays', overlay.dir, 'patch')]);
  return parse(
    run('kubectl', [
      'patch',
      '--local',
      '-f',
      join(root, 'test', 'deploy', 'fixtures', FIXTURES[overlay.dir]!),
      '--type',
      'strategic',
      '--patch',
      patch,
      '-o',
      'yaml',
    ]),
  ) as Deployment;
}

interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
}

const imagesOf = (dir: string): ImageEntry[] => (parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { images?: ImageEntry[] }).images ?? [];

/**
 * What `kustomize edit set image NAME=REF` does in `dir` (the README's deploy step; kubectl has no `kustomize edit`):
 * the `images:` entry for NAME gets REF's name and tag, the rest of the file is left as it was.
 */
function kustomizeEditSetImage(dir: string, name: string, ref: string): void {
  const file = join(dir, 'kustomization.yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const colon = ref.lastIndexOf(':');
  const [newName, newTag] = colon > ref.lastIndexOf('/') ? [ref.slice(0, colon), ref.slice(colon + 1)] : [ref, undefined];
  const images = (doc.toJS() as { images?: ImageEntry[] }).images ?? [];
  const rest = images.filter((i) => i.name !== name);
  doc.set('images', [...rest, { name, newName, ...(newTag === undefined ? {} : { newTag }) }]);
  writeFileSync(file, doc.toString());
}

describe('deploy: kustomize overlays (kubectl kustomize)', function () {
  // kubectl kustomize runs as a process per overlay
  this.timeout(30_000);
  for (const overlay of OVERLAYS) {
    describe(`overlay ${overlay.dir}`, () => {
      const ns = overlay.target.namespace;
      let objects: K8sObject[];
      before(() => {
        objects = kustomize(join(deployDir, 'overlays', overlay.dir));
      });

      it('renders the sidecar’s own identity, read-only RBAC, config, Service and ServiceMonitor, all in the operator’s namespace, and no Deployment', () => {
        deepStrictEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
          `ClusterRole/reconcile-shadow-${overlay.dir}`,
          `ClusterRoleBinding/reconcile-shadow-${overlay.dir}`,
          'ConfigMap/reconcile-shadow-config',
          'Role/reconcile-shadow-read-operator',
          'RoleBinding/reconcile-shadow-read-operator',
          'Secret/reconcile-shadow-token',
          'Service/reconcile-shadow',
          'ServiceAccount/reconcile-shadow',
          'ServiceMonitor/reconcile-shadow',
        ]);
        for (const o of objects.filter((x) => !x.kind.startsWith('Cluster'))) strictEqual(o.metadata.namespace, ns, `${o.kind}/${o.metadata.name}`);
      });

      it('binds the roles to the sidecar’s ServiceAccount only, whose token is a kubelet-mounted Secret', () => {
        for (const binding of ['RoleBinding/reconcile-shadow-read-operator', `ClusterRoleBinding/reconcile-shadow-${overlay.dir}`]) {
          const [kind, name] = binding.split('/') as [string, string];
          deepStrictEqual(find(objects, kind, name).subjects, [{ kind: 'ServiceAccount', name: 'reconcile-shadow', namespace: ns }]);
        }
        const token = find(objects, 'Secret', 'reconcile-shadow-token');
        strictEqual(token.type, 'kubernetes.io/service-account-token');
        strictEqual(token.metadata.annotations?.['kubernetes.io/service-account.name'], 'reconcile-shadow');
        strictEqual(find(objects, 'ServiceAccount', 'reconcile-shadow').automountServiceAccountToken, false);
      });

      it('grants no write verb and no access to Secrets', () => {
        deepStrictEqual(rbacViolations(objects), []);
      });

      it('ships the generated sidecar config in the ConfigMap, listening for Prometheus on the probed port', () => {
        const data = find(objects, 'ConfigMap', 'reconcile-shadow-config').data as Record<string, string>;
        deepStrictEqual(Object.keys(data), ['shadow.yaml']);
        const config = parse(data['shadow.yaml']!) as ReturnType<Overlay['config']>;
        deepStrictEqual(config, JSON.parse(JSON.stringify(overlay.config())));
        strictEqual(config.listen.metrics, `0.0.0.0:${METRICS_PORT}`);
      });

      it('scrapes the pods the sidecar patch labels, on the metrics port, keeping the objects’ own namespace label', () => {
        const service = find<K8sObject & { spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] } }>(
          objects,
          'Service',
          'reconcile-shadow',
        );
        deepStrictEqual(service.spec.selector, SIDECAR_POD_LABEL);
        deepStrictEqual(service.spec.ports, [{ name: 'shadow-metrics', port: METRICS_PORT, targetPort: 'shadow-metrics', protocol: 'TCP' }]);
        const monitor = find<K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: Record<string, unknown>[] } }>(
          objects,
          'ServiceMonitor',
          'reconcile-shadow',
        );
        strictEqual(service.metadata.labels?.['app.kubernetes.io/name'], monitor.spec.selector.matchLabels['app.kubernetes.io/name']);
        deepStrictEqual(monitor.spec.endpoints, [{ port: 'shadow-metrics', path: '/metrics', interval: '30s', honorLabels: true }]);
      });

      describe(`with the sidecar component on the ${overlay.target.deployment} Deployment`, () => {
        let rendered: K8sObject[];
        let fixture: Deployment;
        let deployment: Deployment;
        let sidecar: Container;
        before(() => {
          ({ objects: rendered, fixture } = renderWithOperator(overlay, FIXTURES[overlay.dir]!));
          deployment = find<Deployment>(rendered, 'Deployment', overlay.target.deployment);
          const found = deployment.spec.template.spec.containers.find((c) => c.name === SIDECAR_CONTAINER);
          if (!found) throw new Error(`no ${SIDECAR_CONTAINER} container in the rendered Deployment`);
          sidecar = found;
        });

        it('adds the sidecar container and leaves the operator’s containers as they were', () => {
          deepStrictEqual(
            deployment.spec.template.spec.containers.map((c) => c.name).sort(),
            [...fixture.spec.template.spec.containers.map((c) => c.name), SIDECAR_CONTAINER].sort(),
          );
          for (const original of fixture.spec.template.spec.containers) {
            deepStrictEqual(
              deployment.spec.template.spec.containers.find((c) => c.name === original.name),
              original,
            );
          }
          deepStrictEqual(sidecar.args, ['run', '--config', CONFIG_FILE]);
          ok(sidecar.image.length > 0);
        });

        it('probes /healthz (liveness) and /readyz (readiness) on the metrics port', () => {
          deepStrictEqual(sidecar.ports, [{ name: 'shadow-metrics', containerPort: METRICS_PORT, protocol: 'TCP' }]);
          deepStrictEqual(sidecar.livenessProbe?.httpGet, { path: '/healthz', port: 'shadow-metrics' });
          deepStrictEqual(sidecar.readinessProbe?.httpGet, { path: '/readyz', port: 'shadow-metrics' });
        });

        it('sets CPU and memory requests and limits', () => {
          for (const kind of ['requests', 'limits'] as const) {
            ok(sidecar.resources?.[kind]?.cpu, `${kind}.cpu`);
            ok(sidecar.resources?.[kind]?.memory, `${kind}.memory`);
          }
        });

        it('runs non-root, read-only, without privilege escalation or capabilities', () => {
          deepStrictEqual(sidecar.securityContext, {
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          });
        });

        it('mounts its config and its own read-only identity (never the operator’s token), from objects the overlay creates', () => {
          const mounts = Object.fromEntries((sidecar.volumeMounts ?? []).map((m) => [m.mountPath, m.name]));
          strictEqual(mounts['/etc/reconcile-shadow'], 'reconcile-shadow-config');
          strictEqual(mounts['/var/run/secrets/kubernetes.io/serviceaccount'], 'reconcile-shadow-token');
          const volumes = Object.fromEntries(deployment.spec.template.spec.volumes.map((v) => [v.name, v]));
          deepStrictEqual(volumes['reconcile-shadow-config']?.configMap, { name: find(rendered, 'ConfigMap', 'reconcile-shadow-config').metadata.name });
          deepStrictEqual(volumes['reconcile-shadow-token']?.secret, { secretName: find(rendered, 'Secret', 'reconcile-shadow-token').metadata.name });
          for (const m of sidecar.volumeMounts ?? []) ok(volumes[m.name], `volume ${m.name} exists in the pod`);
          for (const m of overlay.target.operatorVolumeMounts) strictEqual(mounts[m.mountPath], m.name);
        });

        it('labels the pods so the Service selects them', () => {
          const labels = deployment.spec.template.metadata.labels;
          for (const [key, value] of Object.entries(SIDECAR_POD_LABEL)) strictEqual(labels[key], value);
          deepStrictEqual(deployment.spec, { ...fixture.spec, template: deployment.spec.template });
        });

        it('gives the same Deployment through `kubectl patch` with what `kubectl kustomize` prints for ../patch', () => {
          deepStrictEqual(patchedByKubectl(deployDir, overlay).spec.template, deployment.spec.template);
        });

        it('runs the published image of this version, named once in the component’s `images:`', () => {
          strictEqual(sidecar.image, `${PUBLISHED_IMAGE}:${VERSION}`);
          deepStrictEqual(imagesOf(join(deployDir, 'overlays', overlay.dir, 'sidecar')), [{ name: IMAGE_NAME, newName: PUBLISHED_IMAGE, newTag: VERSION }]);
        });

        it('is taken out again, leaving the Deployment as it was, by the removal patch', () => {
          const dir = mkdtempSync(join(tmpdir(), 'rs-remove-'));
          try {
            const withSidecar = join(dir, 'with-sidecar.yaml');
            writeFileSync(withSidecar, stringify(deployment));
            const removed = parse(
              run('kubectl', [
                'patch',
                '--local',
                '-f',
                withSidecar,
                '--type',
                'strategic',
                '--patch-file',
                join(deployDir, 'overlays', overlay.dir, 'sidecar', 'remove-patch.yaml'),
                '-o',
                'yaml',
              ]),
            ) as Deployment;
            deepStrictEqual(removed.spec, fixture.spec);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        });

        it('grants no write verb and no access to Secrets in the combined output', () => {
          deepStrictEqual(rbacViolations(rendered), []);
        });
      });
    });
  }

  describe('with an image of your own, set once as the README says (kustomize edit set image in the sidecar component)', () => {
    const IMAGE = 'registry.example.com/platform/reconcile-shadow:1.4.2';
    let copy: string;
    before(() => {
      copy = mkdtempSync(join(tmpdir(), 'rs-deploy-'));
      cpSync(deployDir, join(copy, 'deploy'), { recursive: true });
      for (const overlay of OVERLAYS) kustomizeEditSetImage(join(copy, 'deploy', 'overlays', overlay.dir, 'sidecar'), IMAGE_NAME, IMAGE);
    });
    after(() => rmSync(copy, { recursive: true, force: true }));

    for (const overlay of OVERLAYS) {
      it(`${overlay.dir}: every container the component or kubectl patch adds runs that image; the operator's keep theirs`, () => {
        const { objects, fixture } = renderWithOperator(overlay, FIXTURES[overlay.dir]!, join(copy, 'deploy'));
        const viaComponent = find<Deployment>(objects, 'Deployment', overlay.target.deployment);
        const viaPatch = patchedByKubectl(join(copy, 'deploy'), overlay);
        const operators = Object.fromEntries(fixture.spec.template.spec.containers.map((c) => [c.name, c.image]));
        for (const deployment of [viaComponent, viaPatch]) {
          const images = deployment.spec.template.spec.containers.map((c) => [c.name, c.image]);
          deepStrictEqual(Object.fromEntries(images), { ...operators, [SIDECAR_CONTAINER]: IMAGE });
        }
      });
    }

    it('leaves the overlays’ own objects alone (they run no container)', () => {
      for (const overlay of OVERLAYS) {
        const rendered = kustomize(join(copy, 'deploy', 'overlays', overlay.dir));
        deepStrictEqual(
          rendered.filter((o) => o.kind === 'Deployment'),
          [],
        );
      }
    });
  });

  describe('monitoring (alerts and dashboards, once per Prometheus)', () => {
    let objects: K8sObject[];
    before(() => {
      objects = kustomize(join(deployDir, 'monitoring'));
    });

    it('renders the generated PrometheusRule', () => {
      const options = alertOptions();
      const rule = find(objects, 'PrometheusRule', 'reconcile-shadow');
      deepStrictEqual(rule.spec, (parse(prometheusRule(alertRuleGroups(options), options)) as { spec: unknown }).spec);
    });

    it('renders each dashboard as a ConfigMap labelled grafana_dashboard: "1", small enough for kubectl apply', () => {
      const options = alertOptions();
      const expected: Record<string, [string, unknown]> = {
        'reconcile-shadow-overview-dashboard': ['reconcile-shadow-overview.json', overviewDashboard(options)],
        'reconcile-shadow-recreations-dashboard': ['reconcile-shadow-recreations.json', recreationsDashboard(options)],
        'reconcile-shadow-switch-readiness-dashboard': ['reconcile-shadow-switch-readiness.json', switchReadinessDashboard()],
      };
      deepStrictEqual(
        objects
          .filter((o) => o.kind === 'ConfigMap')
          .map((o) => o.metadata.name)
          .sort(),
        Object.keys(expected).sort(),
      );
      for (const [name, [file, dashboard]] of Object.entries(expected)) {
        const configMap = find(objects, 'ConfigMap', name);
        strictEqual(configMap.metadata.labels?.grafana_dashboard, '1');
        const data = configMap.data as Record<string, string>;
        deepStrictEqual(Object.keys(data), [file]);
        deepStrictEqual(JSON.parse(data[file]!), JSON.parse(JSON.stringify(dashboard)));
        // kubectl apply keeps the whole object in an annotation limited to 256 KiB.
        ok(Buffer.byteLength(data[file]!) < 256 * 1024, `${file} is ${Buffer.byteLength(data[file]!)} bytes`);
      }
    });
  });

  describe('the RBAC check itself', () => {
    it('reports write verbs, Secrets, wildcards, non-resource URLs and aggregation', () => {
      const role = (kind: string, rules: PolicyRule[], extra: Record<string, unknown> = {}): K8sObject => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        metadata: { name: 'bad' },
        rules,
        ...extra,
      });
      deepStrictEqual(
        rbacViolations([
          role('ClusterRole', [
            { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
            { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'patch'] },
            { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
            { nonResourceURLs: ['/metrics'], verbs: ['get'] },
          ]),
          role('Role', [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }]),
          role('ClusterRole', [], { aggregationRule: { clusterRoleSelectors: [] } }),
        ]),
        [
          'ClusterRole/bad: resource secrets',
          'ClusterRole/bad: verb patch',
          'ClusterRole/bad: verb *',
          'ClusterRole/bad: resource *',
          'ClusterRole/bad: every API group',
          'ClusterRole/bad: non-resource URL /metrics',
          'Role/bad: verb create',
          'ClusterRole/bad: aggregates other roles',
        ],
      );
    });
  });
});
