/**
 * `sources.peers`: the partial summaries of other sidecars (their `GET /partial`), for a fleet component that merges
 * them and decides switch readiness across the fleet (analyzer/fleet/, docs/deploy.md "A fleet verdict"). Peers are
 * static URLs, the running pods of a label selector in one or more namespaces, or both. The source and the
 * Kubernetes client are loaded only when the section is configured.
 */
import { readFileSync } from 'node:fs';
import type { SourceComponent } from '../component.js';
import { DEFAULT_PORTS } from '../../lib/ports.js';

const schema = {
  kind: 'object',
  doc: "read other sidecars' partial summaries (GET /partial) and decide across the fleet (docs/deploy.md)",
  fields: {
    urls: { kind: 'list', of: { kind: 'string' }, default: [], doc: 'peers by URL: a base URL (its /partial is read) or the /partial URL itself' },
    kubernetes: {
      kind: 'object',
      doc: 'peers found as the running pods of a label selector',
      fields: {
        namespaces: { kind: 'list', of: { kind: 'string' }, required: true, doc: 'the namespaces listed' },
        labelSelector: { kind: 'string', required: true, doc: 'e.g. app.kubernetes.io/name=hypershift-operator' },
        port: { kind: 'integer', default: DEFAULT_PORTS.metrics, min: 1, max: 65535, doc: "the port of the pods' /partial (the sidecar's metrics listener)" },
        kubeconfig: { kind: 'string', doc: 'a kubeconfig file; default: in-cluster service account, or KUBECONFIG' },
      },
    },
    interval: { kind: 'duration', default: '30s', min: '1s', doc: 'how often every peer is read' },
    timeout: { kind: 'duration', default: '5s', min: '100ms', doc: 'one read; past it the peer is failing this round' },
    keepFor: { kind: 'duration', default: '10m', min: '1s', doc: "how long a peer's last partial counts while it cannot be read; then it is missing" },
    tokenFile: { kind: 'string', doc: "a bearer token sent to every peer (their summary.bearerTokenFile's)" },
    maxBodyBytes: { kind: 'integer', default: 64 * 1024 * 1024, min: 1024, unit: 'bytes', doc: 'a larger partial is refused (body_too_large)' },
  },
} as const;

export const peers: SourceComponent<typeof schema> = {
  kind: 'peers',
  title: "other sidecars' partial summaries, merged into a fleet verdict",
  schema,
  reasons: [],
  check(config, fail) {
    if (config.urls.length === 0 && !config.kubernetes) fail([], 'names no peer: give urls, kubernetes, or both');
  },
  async create(config, sinks, hooks, context) {
    if (!sinks.partials) throw new Error('the peers source feeds the fleet, and none runs');
    const { PeersSource } = await import('./source.js');
    const token = config.tokenFile === undefined ? undefined : readFileSync(config.tokenFile, 'utf8').trim();
    let discovery;
    if (config.kubernetes) {
      let kubeConfig = context.kubeConfig;
      if (!kubeConfig) {
        const { KubeConfig } = await import('@kubernetes/client-node');
        const { kubeConfigFromEnvironment } = await import('../kube/credentials.js');
        if (config.kubernetes.kubeconfig) {
          kubeConfig = new KubeConfig();
          kubeConfig.loadFromFile(config.kubernetes.kubeconfig);
        } else kubeConfig = kubeConfigFromEnvironment();
      }
      discovery = { kubeConfig, namespaces: config.kubernetes.namespaces, labelSelector: config.kubernetes.labelSelector, port: config.kubernetes.port };
    }
    return new PeersSource(
      {
        urls: config.urls,
        ...(discovery ? { discovery } : {}),
        intervalMs: config.interval,
        timeoutMs: config.timeout,
        maxBodyBytes: config.maxBodyBytes,
        ...(token ? { token } : {}),
        ...(context.timers ? { timers: context.timers } : {}),
        hooks,
      },
      sinks.partials,
    );
  },
};
