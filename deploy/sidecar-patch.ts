/**
 * The sidecar container, as a strategic-merge patch on the operator's Deployment, written by cli/generate.ts to
 * deploy/overlays/<overlay>/sidecar/patch.yaml (with the target deploy/overlays/<overlay>/patch/deployment.yaml). One definition for every overlay, so the container's security
 * settings, probes and limits cannot drift apart between operators.
 */
import { CONFIG_DIR, CONFIG_FILE, METRICS_PORT, STATE_DIR } from './sidecar-config.js';

export const SIDECAR_CONTAINER = 'reconcile-shadow';
/** The label the patch adds to the operator's pods and the Service selects. */
export const SIDECAR_POD_LABEL = { 'reconcile-shadow/sidecar': 'enabled' } as const;
/**
 * The image as the patch names it: a name, not a reference. The one `images:` entry of each overlay's
 * sidecar/kustomization.yaml turns it into the image to run (the published one by default; `kustomize edit set image`
 * there sets yours), and both ways of applying the patch (the component, and `kubectl patch` with the output of
 * `kubectl kustomize deploy/overlays/<overlay>/patch`) go through that entry.
 */
export const IMAGE_NAME = 'reconcile-shadow';
/** Where the project publishes the image; its tag is the package version. */
export const PUBLISHED_IMAGE = 'ghcr.io/reconcile-shadow/reconcile-shadow';

/** Requests fit the measured idle footprint; the memory limit sits above the 256 MiB RSS target of the load test. */
export const RESOURCES = {
  requests: { cpu: '50m', memory: '128Mi' },
  limits: { cpu: '500m', memory: '320Mi' },
} as const;
/** V8's heap cap, below the container limit, so the sidecar collects garbage instead of being OOM-killed. */
const NODE_OPTIONS = '--max-old-space-size=192';

const SERVICE_ACCOUNT_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface VolumeMount {
  readonly name: string;
  readonly mountPath: string;
  readonly readOnly: true;
}

/** A volume the patch adds to the pod for the sidecar alone, and where the sidecar mounts it. */
export interface SidecarVolume {
  readonly volume: { readonly name: string } & Readonly<Record<string, unknown>>;
  readonly mount: VolumeMount;
}

export interface PatchTarget {
  readonly deployment: string;
  readonly namespace: string;
  /** Volumes of the operator's pod the sidecar also reads (e.g. the adapter's task config). */
  readonly operatorVolumeMounts: readonly VolumeMount[];
  /** Volumes of its own the sidecar needs for this operator (e.g. the HyperFleet API's projected token). */
  readonly sidecarVolumes?: readonly SidecarVolume[];
}

export function sidecarPatch(target: PatchTarget): object {
  const fieldEnv = (name: string, fieldPath: string): object => ({ name, valueFrom: { fieldRef: { fieldPath } } });
  const httpProbe = (path: string, periodSeconds: number): object => ({
    httpGet: { path, port: 'shadow-metrics' },
    periodSeconds,
    timeoutSeconds: 2,
    failureThreshold: 3,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: target.deployment, namespace: target.namespace },
    spec: {
      template: {
        metadata: { labels: { ...SIDECAR_POD_LABEL } },
        spec: {
          containers: [
            {
              name: SIDECAR_CONTAINER,
              image: IMAGE_NAME,
              imagePullPolicy: 'IfNotPresent',
              args: ['run', '--config', CONFIG_FILE],
              env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace'), { name: 'NODE_OPTIONS', value: NODE_OPTIONS }],
              ports: [{ name: 'shadow-metrics', containerPort: METRICS_PORT, protocol: 'TCP' }],
              livenessProbe: httpProbe('/healthz', 10),
              readinessProbe: httpProbe('/readyz', 5),
              resources: RESOURCES,
              securityContext: {
                runAsNonRoot: true,
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              volumeMounts: [
                { name: 'reconcile-shadow-config', mountPath: CONFIG_DIR, readOnly: true },
                // Its own read-only identity in place of the operator's token (see deploy/base/serviceaccount.yaml).
                { name: 'reconcile-shadow-token', mountPath: SERVICE_ACCOUNT_TOKEN_PATH, readOnly: true },
                { name: 'reconcile-shadow-tmp', mountPath: '/tmp' },
                { name: 'reconcile-shadow-state', mountPath: STATE_DIR },
                ...target.operatorVolumeMounts,
                ...(target.sidecarVolumes ?? []).map((v) => v.mount),
              ],
            },
          ],
          volumes: [
            { name: 'reconcile-shadow-config', configMap: { name: 'reconcile-shadow-config' } },
            { name: 'reconcile-shadow-token', secret: { secretName: 'reconcile-shadow-token' } },
            { name: 'reconcile-shadow-tmp', emptyDir: { sizeLimit: '16Mi' } },
            // The partial summary is a few hundred KiB whatever the fleet's size (docs/scaling.md).
            { name: 'reconcile-shadow-state', emptyDir: { sizeLimit: '16Mi' } },
            ...(target.sidecarVolumes ?? []).map((v) => v.volume),
          ],
        },
      },
    },
  };
}

/**
 * The operator's Deployment as nothing but its name: the resource deploy/overlays/<overlay>/patch/ puts the sidecar
 * component on, so that `kubectl kustomize` there prints the patch with the image its `images:` entry sets.
 */
export function patchTarget(target: PatchTarget): object {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: target.deployment, namespace: target.namespace } };
}

/** The strategic-merge patch that takes out exactly what sidecarPatch() put in: container, volumes and pod label. */
export function sidecarRemovalPatch(target: PatchTarget): object {
  const added = sidecarPatch(target) as { spec: { template: { spec: { volumes: { name: string }[] } } } };
  const remove = (name: string): object => ({ name, $patch: 'delete' });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: target.deployment, namespace: target.namespace },
    spec: {
      template: {
        metadata: { labels: Object.fromEntries(Object.keys(SIDECAR_POD_LABEL).map((key) => [key, null])) },
        spec: { containers: [remove(SIDECAR_CONTAINER)], volumes: added.spec.template.spec.volumes.map((v) => remove(v.name)) },
      },
    },
  };
}
