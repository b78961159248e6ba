/**
 * The operators reconcile-shadow ships an overlay for: where each lives and what its sidecar runs. cli/generate.ts
 * writes each overlay's shadow.yaml and sidecar/patch.yaml from this; the kustomization.yaml files beside them
 * are hand-written and a test renders them against these values.
 */
import { hyperfleetAdapterSidecarConfig, hypershiftSidecarConfig, type SidecarConfig } from './sidecar-config.js';
import type { PatchTarget } from './sidecar-patch.js';

export interface Overlay {
  /** deploy/overlays/<dir> */
  readonly dir: string;
  readonly target: PatchTarget;
  readonly config: () => SidecarConfig;
}

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
    },
    config: hyperfleetAdapterSidecarConfig,
  },
];
