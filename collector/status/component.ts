/**
 * `sources.status`: HostedCluster `ReconciliationSucceeded` transitions through a Kubernetes watch
 * (docs/status-source.md) as a registry component. The source and @kubernetes/client-node are loaded only when the
 * section is configured.
 */
import { durationText } from '../../lib/schema.js';
import { checkModelName, modelNamed, type SourceComponent } from '../component.js';
import { DEFAULT_BACKOFF } from '../kube/backoff.js';
import { LOOP_SETTINGS } from '../../model/types.js';
import { REFUSED_BY_ANALYZER } from '../records.js';
import { STATUS_SOURCE_DEFAULTS as D } from './defaults.js';

const schema = {
  kind: 'object',
  doc: 'read HostedCluster status transitions through a Kubernetes watch (docs/status-source.md)',
  fields: {
    model: { kind: 'string', doc: 'the model of the HostedCluster controller (metadata.name); default: the only model' },
    kubeconfig: { kind: 'string', doc: 'a kubeconfig file; default: in-cluster service account, or KUBECONFIG' },
    namespace: { kind: 'string', doc: 'watch one namespace; default all' },
    labelSelector: { kind: 'string', doc: 'only HostedClusters matching this selector' },
    loop: {
      kind: 'enum',
      values: LOOP_SETTINGS,
      default: D.loop,
      doc: 'which loop the operator runs; auto: from its Deployment, else from messages only one loop writes',
    },
    readOperatorDeployment: {
      kind: 'boolean',
      default: true,
      doc: 'loop: auto: read HYPERSHIFT_RECONCILE_LEGACY and the build version from the operator Deployment',
    },
    operatorDeployment: {
      kind: 'object',
      present: true,
      fields: { namespace: { kind: 'string', default: D.operatorDeployment.namespace }, name: { kind: 'string', default: D.operatorDeployment.name } },
    },
    loopDetectTimeout: {
      kind: 'duration',
      default: durationText(D.loopDetectTimeoutMs),
      doc: 'loop: auto: the longest wait for the operator Deployment at start',
    },
    emitInitial: { kind: 'boolean', default: D.emitInitial, doc: 'report the condition found when an object is first seen (e.g. at sidecar start)' },
    maxTrackedObjects: { kind: 'integer', default: D.maxTrackedObjects, min: 1, unit: 'objects', doc: 'more HostedClusters are refused (pending_limit)' },
    unmappedSampleSize: { kind: 'integer', default: D.unmappedSampleSize, min: 0, unit: 'messages', doc: 'distinct unmapped messages kept for the summary' },
    backoff: {
      kind: 'object',
      present: true,
      doc: 'watch reconnect backoff',
      fields: {
        initial: { kind: 'duration', default: durationText(DEFAULT_BACKOFF.initialMs) },
        max: { kind: 'duration', default: durationText(DEFAULT_BACKOFF.maxMs) },
        resetAfter: {
          kind: 'duration',
          default: durationText(DEFAULT_BACKOFF.resetAfterMs),
          doc: 'a failure after being up this long starts again from initial',
        },
      },
    },
  },
} as const;

export const status: SourceComponent<typeof schema> = {
  kind: 'status',
  title: 'HostedCluster status transitions through a Kubernetes watch',
  schema,
  reasons: ['invalid_object', 'pending_limit', 'loop_unknown', ...REFUSED_BY_ANALYZER],
  check(config, fail, models) {
    checkModelName(config.model, models, fail);
  },
  async create(st, sinks, hooks, context) {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const { HostedClusterStatusSource } = await import('./source.js');
    let kubeConfig = context.kubeConfig;
    if (!kubeConfig && st.kubeconfig) {
      kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(st.kubeconfig);
    }
    return new HostedClusterStatusSource(
      {
        model: modelNamed(st.model, context.models),
        ...(kubeConfig ? { kubeConfig } : {}),
        ...(st.namespace ? { namespace: st.namespace } : {}),
        ...(st.labelSelector ? { labelSelector: st.labelSelector } : {}),
        loop: st.loop,
        operatorDeployment: st.readOperatorDeployment ? st.operatorDeployment : false,
        loopDetectTimeoutMs: st.loopDetectTimeout,
        // said once when the configuration leaves the loop to be found out
        onStarted: (loop) => (loop.configured === 'auto' ? hooks.info(`loop: ${loop.statement}`) : undefined),
        emitInitial: st.emitInitial,
        maxTrackedObjects: st.maxTrackedObjects,
        unmappedSampleSize: st.unmappedSampleSize,
        backoff: { initialMs: st.backoff.initial, maxMs: st.backoff.max, resetAfterMs: st.backoff.resetAfter },
        ...(context.timers ? { timers: context.timers } : {}),
        hooks,
      },
      sinks.attempts,
    );
  },
};
