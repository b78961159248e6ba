/**
 * `sources.logs`: the operator's controller-runtime log (docs/log-source.md) as a registry component. The source and
 * @kubernetes/client-node are loaded only when the section is configured.
 */
import { durationText } from '../../lib/schema.js';
import { checkModelName, modelNamed, type SourceComponent } from '../component.js';
import { DEFAULT_OPERATOR_DEPLOYMENT } from '../hypershift/operator-deployment.js';
import { LOOP_SETTINGS } from '../../model/types.js';
import { REFUSED_BY_ANALYZER } from '../records.js';
import { LOG_SOURCE_DEFAULTS as D } from './defaults.js';

const operatorDeployment = {
  kind: 'object',
  doc: 'loop: auto: read HYPERSHIFT_RECONCILE_LEGACY and the build version from this Deployment',
  fields: {
    namespace: { kind: 'string', default: DEFAULT_OPERATOR_DEPLOYMENT.namespace },
    name: { kind: 'string', default: DEFAULT_OPERATOR_DEPLOYMENT.name },
  },
} as const;

const schema = {
  kind: 'object',
  doc: "read reconcile attempts from the operator's log (docs/log-source.md)",
  fields: {
    model: { kind: 'string', doc: 'the model whose controller wrote the log (metadata.name); default: the only model' },
    input: {
      kind: 'object',
      required: true,
      doc: 'exactly one of file, stdin, pod',
      fields: {
        file: { kind: 'string', doc: 'a log file, followed across rotation' },
        stdin: { kind: 'boolean', doc: 'the sidecar’s standard input' },
        pod: {
          kind: 'object',
          doc: "a container's log through the Kubernetes API",
          fields: {
            namespace: { kind: 'string', doc: 'default: POD_NAMESPACE from the environment (the sidecar’s own pod)' },
            name: { kind: 'string', doc: 'default: POD_NAME from the environment (the sidecar’s own pod)' },
            container: { kind: 'string', default: D.podContainer },
          },
        },
      },
    },
    loop: {
      kind: 'enum',
      values: LOOP_SETTINGS,
      default: D.loop,
      doc: 'which loop wrote the log; auto: proven by the lines, per operator run',
    },
    operatorDeployment,
    loopDetectTimeout: {
      kind: 'duration',
      default: durationText(D.loopDetectTimeoutMs),
      doc: 'loop: auto: the longest wait for the operator Deployment at start',
    },
    maxUndecided: { kind: 'integer', default: D.maxUndecided, min: 1, unit: 'attempts', doc: 'loop: auto: attempts held while their run’s loop is unproven' },
    maxLineBytes: { kind: 'integer', default: D.maxLineBytes, min: 1, unit: 'bytes', doc: 'longer lines are refused (line_too_long)' },
    samplingThreshold: {
      kind: 'integer',
      default: D.samplingThreshold,
      min: 1,
      unit: 'lines',
      doc: 'lines of one message in two adjacent seconds from which the logger may have sampled',
    },
    maxPending: { kind: 'integer', default: D.maxPending, min: 1, unit: 'attempts', doc: 'attempts held for correlation and sampling judgement' },
    unmappedSampleSize: {
      kind: 'integer',
      default: D.unmappedSampleSize,
      min: 0,
      unit: 'messages',
      doc: 'distinct unmapped error messages kept for the summary',
    },
    quietFlush: { kind: 'duration', default: durationText(D.quietFlushMs), doc: 'held attempts are handed on once no line came for this long' },
    pollInterval: { kind: 'duration', default: durationText(D.pollIntervalMs), doc: 'how often the file is checked (besides inotify) and quietness is judged' },
    file: {
      kind: 'object',
      present: true,
      fields: {
        startAt: { kind: 'enum', values: ['beginning', 'end'], default: D.fileStartAt, doc: 'where to start in the file present at start' },
        watch: { kind: 'boolean', default: D.fileWatch, doc: 'follow directory events (inotify) besides the timer' },
      },
    },
    pod: {
      kind: 'object',
      present: true,
      fields: {
        sinceTime: { kind: 'string', doc: "first connection: lines since this RFC 3339 time; default: the container's whole log" },
        backoffInitial: { kind: 'duration', default: durationText(D.podBackoffInitialMs), doc: 'reconnect backoff, doubling from this' },
        backoffMax: { kind: 'duration', default: durationText(D.podBackoffMaxMs), doc: '…up to this' },
      },
    },
    patterns: {
      kind: 'object',
      doc: "another operator's messages and field names, merged onto HyperShift's (docs/log-source.md)",
      fields: {
        successMessage: { kind: 'string' },
        completedWithErrorsMessage: { kind: 'string' },
        reconcilerErrorMessage: { kind: 'string' },
        fields: { kind: 'map', of: { kind: 'string' } },
      },
    },
  },
} as const;

export const logs: SourceComponent<typeof schema> = {
  kind: 'logs',
  title: "the operator's controller-runtime log: a file, stdin or the pod's log",
  schema,
  reasons: ['invalid_json', 'invalid_record', 'line_too_long', 'loop_unknown', 'late_line', ...REFUSED_BY_ANALYZER],
  check(config, fail, models) {
    checkModelName(config.model, models, fail);
    const { file, stdin, pod } = config.input;
    const inputs = [file !== undefined && 'file', stdin === true && 'stdin', pod !== undefined && 'pod'].filter((x) => x !== false);
    if (inputs.length !== 1) fail(['input'], `name exactly one of file, stdin or pod (got ${inputs.length === 0 ? 'none' : inputs.join(', ')})`);
  },
  async create(l, sinks, hooks, context) {
    const { OperatorLogSource } = await import('./source.js');
    const input = l.input.file !== undefined ? { file: l.input.file } : l.input.pod ? { pod: podOf(l.input.pod, context.env) } : { stdin: true as const };
    return new OperatorLogSource(
      {
        input,
        model: modelNamed(l.model, context.models),
        loop: l.loop,
        ...(l.operatorDeployment ? { operatorDeployment: l.operatorDeployment } : {}),
        loopDetectTimeoutMs: l.loopDetectTimeout,
        onStarted: (loop) => (loop.configured === 'auto' ? hooks.info(`loop: ${loop.statement}`) : undefined),
        hooks,
        maxUndecided: l.maxUndecided,
        maxLineBytes: l.maxLineBytes,
        samplingThreshold: l.samplingThreshold,
        maxPending: l.maxPending,
        unmappedSampleSize: l.unmappedSampleSize,
        quietFlushMs: l.quietFlush,
        pollIntervalMs: l.pollInterval,
        file: { startAt: l.file.startAt, watch: l.file.watch },
        pod: {
          ...(context.kubeConfig ? { kubeConfig: context.kubeConfig } : {}),
          ...(l.pod.sinceTime === undefined ? {} : { sinceTime: l.pod.sinceTime }),
          backoffInitialMs: l.pod.backoffInitial,
          backoffMaxMs: l.pod.backoffMax,
        },
        ...(l.patterns ? { patterns: l.patterns } : {}),
      },
      sinks.attempts,
    );
  },
};

/** The pod whose log to follow; left out, it is the sidecar's own pod (POD_NAMESPACE/POD_NAME from the downward API). */
function podOf(
  pod: { readonly namespace?: string; readonly name?: string; readonly container: string },
  env: NodeJS.ProcessEnv,
): { namespace: string; name: string; container: string } {
  const namespace = pod.namespace ?? env.POD_NAMESPACE;
  const name = pod.name ?? env.POD_NAME;
  if (!namespace || !name) throw new Error('sources.logs.input.pod: namespace and name are needed, or POD_NAMESPACE and POD_NAME in the environment');
  return { namespace, name, container: pod.container };
}
