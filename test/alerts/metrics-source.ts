/**
 * What the end-to-end alert test scrapes: a running sidecar (`startSidecar`, the code behind `reconcile-shadow
 * run`) that can hold a recreation stuck and let it finish. Until the recreation tracker is wired into `run`, the
 * recreation is written into the sidecar's own metric set exactly as analyzer/recreations/publish.ts writes it.
 * Once it is wired, holdRecreation() becomes: create the object in the in-test Kubernetes API server with a
 * finalizer, trigger its recreation and wait until it is older than its kind's (short) `stuckThresholds`;
 * completeRecreation(): remove the finalizer and let the new object become available. The test does not change.
 */
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar } from '../../sidecar/sidecar.js';

export interface RecreatedObject {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export interface StuckRecreationSource {
  /** `127.0.0.1:<port>`, serving /metrics. */
  readonly target: string;
  /** Returns once /metrics shows the object's recreation as stuck, `ageSeconds` after its trigger. */
  holdRecreation(object: RecreatedObject, ageSeconds: number): Promise<void>;
  /** Returns once /metrics no longer shows it as stuck. */
  completeRecreation(object: RecreatedObject): Promise<void>;
  stop(): Promise<void>;
}

const CONFIG = `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:0}
sources: {}
summary: {enabled: false}
`;

export async function startSidecarSource(): Promise<StuckRecreationSource> {
  const sidecar = await startSidecar(parseConfig(CONFIG, 'e2e-shadow.yaml'), { env: {}, log: () => undefined });
  const { metrics } = sidecar.metrics;
  return {
    target: `127.0.0.1:${sidecar.metricsAddress.port}`,
    holdRecreation({ kind, namespace, name }, ageSeconds) {
      metrics.reconcile_shadow_recreations_in_flight.set({ kind, phase: 'deletion' }, 1);
      metrics.reconcile_shadow_recreation_oldest_seconds.set({ kind }, ageSeconds);
      metrics.reconcile_shadow_recreation_stuck.set({ kind }, 1);
      metrics.reconcile_shadow_recreation_stuck_seconds.set({ kind, namespace, name }, ageSeconds);
      return Promise.resolve();
    },
    completeRecreation({ kind, namespace, name }) {
      metrics.reconcile_shadow_recreation_stuck_seconds.remove({ kind, namespace, name });
      metrics.reconcile_shadow_recreation_stuck.set({ kind }, 0);
      metrics.reconcile_shadow_recreations_in_flight.set({ kind, phase: 'deletion' }, 0);
      metrics.reconcile_shadow_recreation_oldest_seconds.set({ kind }, 0);
      return Promise.resolve();
    },
    stop: () => sidecar.stop(),
  };
}
