/**
 * `recreations.objects`: the objects an adapter manages, watched through the Kubernetes API (one resilient
 * informer per kind the task config discovers), as a registry component of the recreation pipeline. Runs whenever a
 * `recreations` section is configured; the section only says where the cluster is. @kubernetes/client-node is
 * loaded only then.
 */
import type { SourceComponent } from '../component.js';

const schema = {
  kind: 'object',
  doc: 'where the managed objects are watched (default: in-cluster, or $KUBECONFIG)',
  fields: {
    kubeconfig: { kind: 'string', doc: 'a kubeconfig file' },
    context: { kind: 'string', doc: 'its context to use; default: its current context' },
    plurals: { kind: 'map', of: { kind: 'string' }, doc: 'resource plurals for kinds whose plural is not kind+s' },
  },
} as const;

export const objects: SourceComponent<typeof schema> = {
  kind: 'objects',
  title: "an adapter's managed objects, through Kubernetes watches",
  schema,
  reasons: ['invalid_object'],
  async create(k, sinks, hooks, context) {
    if (!sinks.observations) throw new Error('the objects source feeds the recreation analyzer, and none runs');
    const { KubeConfig } = await import('@kubernetes/client-node');
    const { kubeConfigFromEnvironment } = await import('../kube/credentials.js');
    const { KubeObjectSource } = await import('./kube-source.js');
    let kubeConfig = context.kubeConfig;
    if (!kubeConfig) {
      if (k.kubeconfig) {
        kubeConfig = new KubeConfig();
        kubeConfig.loadFromFile(k.kubeconfig);
      } else kubeConfig = kubeConfigFromEnvironment();
      if (k.context) kubeConfig.setCurrentContext(k.context);
    }
    return new KubeObjectSource(
      {
        kubeConfig,
        watches: context.watches,
        ...(k.plurals ? { plurals: k.plurals } : {}),
        ...(context.timers ? { timers: context.timers } : {}),
        hooks,
      },
      sinks.observations,
    );
  },
};
