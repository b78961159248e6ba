/**
 * The sidecar config (`reconcile-shadow/v1 ShadowConfig`) each overlay ships, in one place. cli/generate.ts
 * writes them to deploy/overlays/<overlay>/shadow.yaml, which kustomize turns into the `reconcile-shadow-config`
 * ConfigMap mounted at /etc/reconcile-shadow. Change the shape here, regenerate, and both overlays follow.
 */
import { DEFAULT_PORTS } from '../lib/ports.js';

/** The metrics port the container exposes, the Service targets and the probes call. */
export const METRICS_PORT = DEFAULT_PORTS.metrics;
/** OTLP/HTTP stays on loopback: only the operator in the same pod sends spans. */
export const OTLP_PORT = DEFAULT_PORTS.otlpHttp;
export const CONFIG_DIR = '/etc/reconcile-shadow';
export const CONFIG_FILE = `${CONFIG_DIR}/shadow.yaml`;

/**
 * Where /partial is kept across restarts (an emptyDir: it survives a container restart, not the pod's deletion;
 * docs/deploy.md says what a restart costs).
 */
export const STATE_DIR = '/var/lib/reconcile-shadow';

/** /summary and /partial, on loopback only: read them with `kubectl port-forward` (docs/deploy.md). */
export const SUMMARY_PORT = 9465;

/**
 * Prometheus scrapes and the kubelet probes through the pod IP, so the metrics listener must leave loopback;
 * this is the one listener the deployment binds beyond 127.0.0.1, on purpose. /summary names objects and the
 * addresses of clients whose input was refused, so it gets a loopback listener of its own.
 */
const LISTEN = { metrics: `0.0.0.0:${METRICS_PORT}`, summary: `127.0.0.1:${SUMMARY_PORT}` };

/** Where the overlay mounts the HyperFleet API's projected token (the adapter chart's tokenPath directory). */
export const HYPERFLEET_API_TOKEN_DIR = '/var/run/secrets/hyperfleet';

/** A pod has no terminal: the live summary would only fill the container log. */
const CONSOLE = { enabled: false };

/** The sections of `reconcile-shadow/v1 ShadowConfig` (sidecar/config.ts) the deployment sets. */
export interface SidecarConfig {
  readonly apiVersion: 'reconcile-shadow/v1';
  readonly kind: 'ShadowConfig';
  readonly models: readonly string[];
  readonly listen: typeof LISTEN;
  readonly sources: Readonly<Record<string, unknown>>;
  readonly recreations?: Readonly<Record<string, unknown>>;
  /** /partial's evidence kept across restarts, where an operator's attempts are analysed. */
  readonly partial?: { readonly path: string };
  /** Empty: traces go wherever the standard OTEL_EXPORTER_OTLP_* environment variables say, off when unset. */
  readonly traces: Readonly<Record<string, never>>;
  readonly console: typeof CONSOLE;
}

/** The Deployment the sidecar runs in, as `namespace/name`. */
export interface OperatorDeployment {
  readonly namespace: string;
  readonly name: string;
}

/**
 * Next to the HyperShift operator: the HostedCluster reconcile model, fed by the operator's own log (the pod's
 * `operator` container, found through POD_NAMESPACE/POD_NAME from the downward API), the HostedCluster status source
 * (cluster-wide; the operator's own Deployment tells which loop it runs) and OTLP spans, which the operator in the
 * same pod sends to OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 if it is instrumented.
 */
export function hypershiftSidecarConfig(operator: OperatorDeployment): SidecarConfig {
  return {
    apiVersion: 'reconcile-shadow/v1',
    kind: 'ShadowConfig',
    models: ['hypershift-hostedcluster'],
    listen: LISTEN,
    sources: {
      otlp: { listen: `127.0.0.1:${OTLP_PORT}` },
      logs: { input: { pod: { container: 'operator' } } },
      status: { operatorDeployment: { namespace: operator.namespace, name: operator.name } },
    },
    partial: { path: `${STATE_DIR}/partial.json` },
    traces: {},
    console: CONSOLE,
  };
}

/** Next to a HyperFleet adapter: its lifecycle rules in shadow mode and every recreation it performs. */
export function hyperfleetAdapterSidecarConfig(): SidecarConfig {
  return {
    apiVersion: 'reconcile-shadow/v1',
    kind: 'ShadowConfig',
    models: [],
    listen: LISTEN,
    sources: {},
    recreations: {
      // The adapter's own task config, from its `adapter-config` volume mounted read-only into the sidecar.
      taskConfig: '/etc/adapter/task-config.yaml',
      // Cluster generations and Reconciled conditions; without it the newest hyperfleet.io/generation annotation is used.
      // The token is the pod's projected service-account token, as the adapter's chart mounts it.
      hyperfleet: { url: 'http://hyperfleet-api.hyperfleet.svc:8000', interval: '15s', tokenFile: `${HYPERFLEET_API_TOKEN_DIR}/token` },
      stuckThresholds: { default: '10m' },
    },
    traces: {},
    console: CONSOLE,
  };
}
