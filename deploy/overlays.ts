/**
 * The operators reconcile-shadow ships an overlay for: where each lives and what its sidecar runs. cli/generate.ts
 * writes each overlay's shadow.yaml and sidecar/patch.yaml from this; the kustomization.yaml files beside them
 * are hand-written and a test renders them against these values.
 */
import { HYPERFLEET_API_TOKEN_DIR, hyperfleetAdapterSidecarConfig, hypershiftSidecarConfig, type SidecarConfig } from './sidecar-config.js';
import type { PatchTarget, SidecarVolume } from './sidecar-patch.js';

export interface Overlay {
  /** deploy/overlays/<dir> */
  readonly dir: string;
  readonly target: PatchTarget;
  readonly config: () => SidecarConfig;
  /**
   * A task config (relative to the repository) whose Kubernetes-transport kinds the overlay's generated ClusterRole
   * grants reading (deploy/clusterrole.ts); without one the overlay's clusterrole.yaml is written by hand.
   */
  readonly rbacFromTaskConfig?: string;
}

/**
 * The HyperFleet API token as the adapter's chart projects it (charts/templates/deployment.yaml, volume
 * `hyperfleet-api-token`; charts/values.yaml adapterConfig.hyperfleetApi.auth): the pod's service-account token for
 * the audience `hyperfleet-api`, valid an hour and rotated by the kubelet, at /var/run/secrets/hyperfleet/token.
 * A volume of the sidecar's own name, so the patch neither needs nor clashes with the chart's (present only when
 * the chart's auth is enabled); the sidecar reads the file again as it rotates (hyperfleet.tokenFile).
 */
const HYPERFLEET_API_TOKEN: SidecarVolume = {
  volume: {
    name: 'reconcile-shadow-hyperfleet-api-token',
    projected: { sources: [{ serviceAccountToken: { audience: 'hyperfleet-api', expirationSeconds: 3600, path: 'token' } }] },
  },
  mount: { name: 'reconcile-shadow-hyperfleet-api-token', mountPath: HYPERFLEET_API_TOKEN_DIR, readOnly: true },
};

/** The HyperShift operator as `hypershift install` creates it. */
const HYPERSHIFT_OPERATOR: PatchTarget = { deployment: 'operator', namespace: 'hypershift', operatorVolumeMounts: [] };

export const OVERLAYS: readonly Overlay[] = [
  {
    dir: 'hypershift',
    target: HYPERSHIFT_OPERATOR,
    config: () => hypershiftSidecarConfig({ namespace: HYPERSHIFT_OPERATOR.namespace, name: HYPERSHIFT_OPERATOR.deployment }),
  },
  {
    dir: 'hyperfleet-adapter',
    // The adapter chart's Deployment; its `adapter-config` volume holds the task config the sidecar reads.
    target: {
      deployment: 'hyperfleet-adapter',
      namespace: 'hyperfleet',
      operatorVolumeMounts: [{ name: 'adapter-config', mountPath: '/etc/adapter', readOnly: true }],
      sidecarVolumes: [HYPERFLEET_API_TOKEN],
    },
    config: hyperfleetAdapterSidecarConfig,
    rbacFromTaskConfig: 'examples/hyperfleet-adapter/task-config.yaml',
  },
];
