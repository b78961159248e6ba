/** Builds the configured sources, each writing to the analyzer; the only place config meets source options. */
import { readFileSync } from 'node:fs';
import { JournalSource } from '../collector/journal-source.js';
import type { LogInput, OperatorLogSource } from '../collector/logs/source.js';
import { OtlpReceiver } from '../collector/otlp/receiver.js';
import type { RecordSink, Source, SourceKind } from '../collector/records.js';
import type { HostedClusterStatusSource } from '../collector/status/source.js';
import type { ReconcileModel } from '../model/types.js';
import type { LogsConfig, ShadowConfig, StatusConfig } from './config.js';

export class SourceStartError extends Error {
  constructor(
    readonly source: string,
    cause: unknown,
  ) {
    super(`source ${source} failed to start: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'SourceStartError';
  }
}

/** What sources tell the sidecar besides records: whether they are connected, failures already retried, and once at start what they know. */
export interface SourceHooks {
  up(source: SourceKind, up: boolean): void;
  error(source: SourceKind, error: unknown): void;
  /** One line at start, e.g. which loop the operator runs and how the source knows (or that it cannot). */
  info?(source: SourceKind, line: string): void;
}

/**
 * The Kubernetes-backed sources are loaded only when configured: @kubernetes/client-node alone costs tens of MiB of
 * resident memory, which a sidecar fed by OTLP or a journal never needs.
 */
export async function configuredSources(config: ShadowConfig, sink: RecordSink, hooks: SourceHooks, env: NodeJS.ProcessEnv): Promise<Source[]> {
  const out: Source[] = [];
  // A source that cannot even be built (a missing token file, no pod name) fails start naming the source.
  const build = async (kind: SourceKind, make: () => Source | Promise<Source>): Promise<void> => {
    try {
      out.push(await make());
    } catch (e) {
      throw new SourceStartError(kind, e);
    }
  };
  const { journal, otlp, logs, status } = config.sources;
  if (journal) await build('journal', () => new JournalSource(journal, sink));
  if (otlp) await build('otlp', () => otlpReceiver(otlp, config, sink));
  if (logs) await build('logs', () => logSource(logs, config, sink, hooks, env));
  if (status) await build('status', () => statusSource(status, config, sink, hooks));
  return out;
}

const modelFor = (config: ShadowConfig, name: string | undefined): ReconcileModel => config.models.find((m) => m.name === name) ?? config.models[0]!;

async function statusSource(st: StatusConfig, config: ShadowConfig, sink: RecordSink, hooks: SourceHooks): Promise<HostedClusterStatusSource> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const { HostedClusterStatusSource } = await import('../collector/status/source.js');
  let kubeConfig: InstanceType<typeof KubeConfig> | undefined;
  if (st.kubeconfig) {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(st.kubeconfig);
  }
  return new HostedClusterStatusSource(
    {
      model: modelFor(config, st.model),
      ...(kubeConfig ? { kubeConfig } : {}),
      ...(st.namespace ? { namespace: st.namespace } : {}),
      ...(st.labelSelector ? { labelSelector: st.labelSelector } : {}),
      loop: st.loop,
      operatorDeployment: st.readOperatorDeployment ? st.operatorDeployment : false,
      loopDetectTimeoutMs: st.loopDetectTimeoutMs,
      // said once when the configuration leaves the loop to be found out
      onStarted: (loop) => (loop.configured === 'auto' ? hooks.info?.('status', `loop: ${loop.statement}`) : undefined),
      emitInitial: st.emitInitial,
      maxTrackedObjects: st.maxTrackedObjects,
      unmappedSampleSize: st.unmappedSampleSize,
      backoff: st.backoff,
      onState: (up) => hooks.up('status', up),
      onError: (e) => hooks.error('status', e),
    },
    sink,
  );
}

function otlpReceiver(o: NonNullable<ShadowConfig['sources']['otlp']>, config: ShadowConfig, sink: RecordSink): OtlpReceiver {
  const pem = (path: string): Buffer => readFileSync(path);
  return new OtlpReceiver(
    {
      host: o.listen.host,
      port: o.listen.port,
      ...(o.bearerTokenFile ? { bearerToken: readFileSync(o.bearerTokenFile, 'utf8').trim() } : {}),
      ...(o.tls ? { tls: { cert: pem(o.tls.certFile), key: pem(o.tls.keyFile), ...(o.tls.clientCaFile ? { ca: pem(o.tls.clientCaFile), requestCert: true } : {}) } } : {}),
      limits: {
        maxBodyBytes: o.maxBodyBytes,
        maxDecompressedBytes: o.maxDecompressedBytes,
        maxSpansPerRequest: o.maxSpansPerRequest,
        maxAttributesPerSpan: o.maxAttributesPerSpan,
        maxStringLength: o.maxStringLength,
        maxQueuedSpans: o.maxQueuedSpans,
        maxQueuedBytes: o.maxQueuedBytes,
        maxBufferedBodyBytes: o.maxBufferedBodyBytes,
        maxConnectionsPerPeer: o.maxConnectionsPerPeer,
        maxConnections: o.maxConnections,
      },
      assembly: {
        settleMs: o.settleMs,
        maxWaitMs: o.maxWaitMs,
        maxPendingAttempts: o.maxPendingAttempts,
        maxPendingSpans: o.maxPendingSpans,
        maxPendingBytes: o.maxPendingBytes,
        recentSpanMemory: o.recentSpanMemory,
        knownOperations: new Set(config.models.flatMap((m) => m.operations.map((op) => op.name))),
      },
      retryAfterSeconds: o.retryAfterSeconds,
      headersTimeoutMs: o.headersTimeoutMs,
      bodyIdleTimeoutMs: o.bodyIdleTimeoutMs,
      bodyTimeoutMs: o.bodyTimeoutMs,
      shutdownGraceMs: o.shutdownGraceMs,
    },
    sink,
  );
}

/** The pod whose log to follow; left out, it is the sidecar's own pod (POD_NAMESPACE/POD_NAME from the downward API). */
function podOf(pod: NonNullable<LogsConfig['input']['pod']>, env: NodeJS.ProcessEnv): { namespace: string; name: string; container: string } {
  const namespace = pod.namespace ?? env.POD_NAMESPACE;
  const name = pod.name ?? env.POD_NAME;
  if (!namespace || !name) throw new Error('sources.logs.input.pod: namespace and name are needed, or POD_NAMESPACE and POD_NAME in the environment');
  return { namespace, name, container: pod.container };
}

async function logSource(l: LogsConfig, config: ShadowConfig, sink: RecordSink, hooks: SourceHooks, env: NodeJS.ProcessEnv): Promise<OperatorLogSource> {
  const { OperatorLogSource } = await import('../collector/logs/source.js');
  // The config check guarantees the model exists and exactly one input is named.
  const model = modelFor(config, l.model);
  const input: LogInput = l.input.file ? { file: l.input.file } : l.input.pod ? { pod: podOf(l.input.pod, env) } : { stdin: true };
  return new OperatorLogSource(
    {
      input,
      model,
      loop: l.loop,
      ...(l.operatorDeployment ? { operatorDeployment: l.operatorDeployment } : {}),
      loopDetectTimeoutMs: l.loopDetectTimeoutMs,
      onStarted: (loop) => (loop.configured === 'auto' ? hooks.info?.('logs', `loop: ${loop.statement}`) : undefined),
      maxUndecided: l.maxUndecided,
      maxLineBytes: l.maxLineBytes,
      samplingThreshold: l.samplingThreshold,
      maxPending: l.maxPending,
      unmappedSampleSize: l.unmappedSampleSize,
      quietFlushMs: l.quietFlushMs,
      pollIntervalMs: l.pollIntervalMs,
      file: { startAt: l.file.startAt, watch: l.file.watch },
      pod: { backoffInitialMs: l.pod.backoffInitialMs, backoffMaxMs: l.pod.backoffMaxMs },
      ...(l.patterns ? { patterns: l.patterns } : {}),
    },
    sink,
  );
}
