/**
 * The sidecar's one config file (`reconcile-shadow run --config shadow.yaml`), validated whole at start: every
 * problem names file, line and field; unknown keys are errors; a bad config never starts a half-configured sidecar.
 */
import { readFileSync } from 'node:fs';
import { ModelError, resolveModel } from '../model/load.js';
import type { ReconcileModel } from '../model/types.js';
import { YamlSource } from '../model/yaml-source.js';
import { RECREATIONS_SECTION, type RecreationsSection } from '../analyzer/recreations/config.js';
import { DEFAULT_MAX_TRACKED_OBJECTS } from '../analyzer/analyzer.js';
import { DEFAULT_ASSEMBLER_OPTIONS } from '../collector/otlp/assembler.js';
import { DEFAULT_LIMITS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_TIMEOUTS } from '../collector/otlp/receiver.js';
import { check, type Address, type Field } from './config-schema.js';
import { isLoopback } from './server.js';

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

export interface ShadowConfig {
  readonly models: readonly ReconcileModel[];
  /** `report`: /report on a listener of its own (server.ts says where it is served otherwise). */
  readonly listen: { readonly metrics: Address; readonly report?: Address };
  readonly report: { readonly bearerTokenFile?: string };
  readonly sources: {
    readonly journal?: { readonly path: string };
    readonly simulator?: { readonly objects: number; readonly seed: number; readonly observe: 'sequential' | 'phased' | 'mixed'; readonly speed: number; readonly recreations: boolean };
    readonly otlp?: {
      readonly listen: Address;
      readonly maxBodyBytes: number;
      readonly maxDecompressedBytes: number;
      readonly maxSpansPerRequest: number;
      readonly maxPendingAttempts: number;
      readonly maxAttributesPerSpan: number;
      readonly maxStringLength: number;
      readonly maxQueuedSpans: number;
      readonly maxQueuedBytes: number;
      readonly maxPendingSpans: number;
      readonly maxPendingBytes: number;
      readonly recentSpanMemory: number;
      readonly maxBufferedBodyBytes: number;
      readonly maxConnectionsPerPeer: number;
      readonly maxConnections: number;
      readonly headersTimeoutMs: number;
      readonly bodyIdleTimeoutMs: number;
      readonly bodyTimeoutMs: number;
      readonly shutdownGraceMs: number;
      readonly retryAfterSeconds: number;
      readonly settleMs: number;
      readonly maxWaitMs: number;
      readonly bearerTokenFile?: string;
      readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly clientCaFile?: string };
    };
    readonly logs?: LogsConfig;
    readonly status?: StatusConfig;
  };
  /** Shadow a HyperFleet adapter's lifecycle rules and track its recreations (docs/recreations.md). */
  readonly recreations?: RecreationsSection;
  readonly traces: { readonly enabled?: boolean };
  readonly summary: { readonly enabled: boolean; readonly intervalMs: number };
  readonly shutdownTimeoutMs: number;
  /** Objects per controller whose outcome history and starvation timers are kept; the least recently seen go first. */
  readonly maxTrackedObjects: number;
}

const str = (doc: string, required = false): Field => ({ kind: 'string', required, doc });

export interface LogsConfig {
  /** The model (by metadata.name) whose controller wrote the log; default: the only model. */
  readonly model?: string;
  readonly input: { readonly file?: string; readonly stdin?: boolean; readonly pod?: { readonly namespace?: string; readonly name?: string; readonly container: string } };
  readonly loop: 'sequential' | 'phased' | 'auto';
  /** auto: the operator Deployment whose switch and build version say the loop; absent: not read. */
  readonly operatorDeployment?: { readonly namespace: string; readonly name: string };
  readonly loopDetectTimeoutMs: number;
  readonly maxUndecided: number;
  readonly maxLineBytes: number;
  readonly samplingThreshold: number;
  readonly maxPending: number;
  readonly unmappedSampleSize: number;
  readonly quietFlushMs: number;
  readonly pollIntervalMs: number;
  readonly file: { readonly startAt: 'beginning' | 'end'; readonly watch: boolean };
  readonly pod: { readonly backoffInitialMs: number; readonly backoffMaxMs: number };
  readonly patterns?: { readonly successMessage?: string; readonly completedWithErrorsMessage?: string; readonly reconcilerErrorMessage?: string; readonly fields?: Record<string, string> };
}

const LOGS_SCHEMA: Field = {
  kind: 'object',
  fields: {
    model: str('the model whose controller wrote the log (metadata.name); default: the only model'),
    input: {
      kind: 'object',
      required: true,
      fields: {
        file: str('a log file, followed across rotation'),
        stdin: { kind: 'boolean' },
        pod: {
          kind: 'object',
          fields: {
            namespace: str('default: POD_NAMESPACE from the environment (the sidecar’s own pod)'),
            name: str('default: POD_NAME from the environment (the sidecar’s own pod)'),
            container: { kind: 'string', default: 'operator' },
          },
        },
      },
    },
    loop: { kind: 'enum', values: ['sequential', 'phased', 'auto'], default: 'auto' },
    operatorDeployment: {
      kind: 'object',
      doc: 'auto: read HYPERSHIFT_RECONCILE_LEGACY and the build version from this Deployment',
      fields: { namespace: { kind: 'string', default: 'hypershift' }, name: { kind: 'string', default: 'operator' } },
    },
    loopDetectTimeoutMs: { kind: 'duration', default: '10s' },
    maxUndecided: { kind: 'integer', default: 10_000, min: 1 },
    maxLineBytes: { kind: 'integer', default: 1024 * 1024, min: 1 },
    samplingThreshold: { kind: 'integer', default: 100, min: 1 },
    maxPending: { kind: 'integer', default: 10_000, min: 1 },
    unmappedSampleSize: { kind: 'integer', default: 50, min: 0 },
    quietFlushMs: { kind: 'duration', default: '3s' },
    pollIntervalMs: { kind: 'duration', default: '1s' },
    file: { kind: 'object', present: true, fields: { startAt: { kind: 'enum', values: ['beginning', 'end'], default: 'beginning' }, watch: { kind: 'boolean', default: true } } },
    pod: { kind: 'object', present: true, fields: { backoffInitialMs: { kind: 'duration', default: '1s' }, backoffMaxMs: { kind: 'duration', default: '30s' } } },
    patterns: {
      kind: 'object',
      fields: {
        successMessage: str(''),
        completedWithErrorsMessage: str(''),
        reconcilerErrorMessage: str(''),
        fields: { kind: 'map', of: str('') },
      },
    },
  },
};

export interface StatusConfig {
  readonly model?: string;
  readonly kubeconfig?: string;
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly loop: 'sequential' | 'phased' | 'auto';
  readonly readOperatorDeployment: boolean;
  readonly operatorDeployment: { readonly namespace: string; readonly name: string };
  readonly loopDetectTimeoutMs: number;
  readonly emitInitial: boolean;
  readonly maxTrackedObjects: number;
  readonly unmappedSampleSize: number;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number; readonly resetAfterMs: number };
}

const STATUS_SCHEMA: Field = {
  kind: 'object',
  fields: {
    model: str('the model of the HostedCluster controller (metadata.name); default: the only model'),
    kubeconfig: str('a kubeconfig file; default: in-cluster service account, or KUBECONFIG'),
    namespace: str('watch one namespace; default all'),
    labelSelector: str('only HostedClusters matching this selector'),
    loop: { kind: 'enum', values: ['sequential', 'phased', 'auto'], default: 'auto' },
    readOperatorDeployment: { kind: 'boolean', default: true, doc: 'auto: read HYPERSHIFT_RECONCILE_LEGACY and the build version from the operator Deployment' },
    operatorDeployment: { kind: 'object', present: true, fields: { namespace: { kind: 'string', default: 'hypershift' }, name: { kind: 'string', default: 'operator' } } },
    loopDetectTimeoutMs: { kind: 'duration', default: '10s' },
    emitInitial: { kind: 'boolean', default: true },
    maxTrackedObjects: { kind: 'integer', default: 10_000, min: 1 },
    unmappedSampleSize: { kind: 'integer', default: 50, min: 0 },
    backoff: { kind: 'object', present: true, fields: { initialMs: { kind: 'duration', default: '1s' }, maxMs: { kind: 'duration', default: '30s' }, resetAfterMs: { kind: 'duration', default: '60s' } } },
  },
};

export const CONFIG_SCHEMA: Field = {
  kind: 'object',
  present: true,
  fields: {
    apiVersion: { kind: 'enum', values: ['reconcile-shadow/v1'], required: true },
    kind: { kind: 'enum', values: ['ShadowConfig'], required: true },
    models: { kind: 'list', of: str('a built-in model name or a model file'), default: [], doc: 'the controllers to shadow' },
    listen: {
      kind: 'object',
      present: true,
      fields: {
        metrics: { kind: 'address', default: '127.0.0.1:9464', doc: '/metrics, /healthz, /readyz; /report too when loopback (or with report.bearerTokenFile) and listen.report is not set' },
        report: { kind: 'address', doc: '/report on a listener of its own; a non-loopback address needs report.bearerTokenFile' },
      },
    },
    report: { kind: 'object', present: true, fields: { bearerTokenFile: str('require `Authorization: Bearer <token>` for /report, with the token in this file') } },
    sources: {
      kind: 'object',
      present: true,
      fields: {
        journal: { kind: 'object', fields: { path: str('a journal file to replay once', true) } },
        simulator: {
          kind: 'object',
          fields: {
            objects: { kind: 'integer', default: 40, min: 1 },
            seed: { kind: 'integer', default: 1 },
            observe: { kind: 'enum', values: ['sequential', 'phased', 'mixed'], default: 'mixed' },
            speed: { kind: 'number', default: 60, min: 0.001, doc: 'virtual seconds per second' },
            recreations: { kind: 'boolean', default: true, doc: 'also simulate an adapter recreating Jobs, some held by a finalizer' },
          },
        },
        otlp: {
          kind: 'object',
          fields: {
            listen: { kind: 'address', default: '127.0.0.1:4318' },
            // Defaults are the receiver's own, so the config and the code cannot disagree.
            maxBodyBytes: { kind: 'integer', default: DEFAULT_LIMITS.maxBodyBytes, min: 1 },
            maxDecompressedBytes: { kind: 'integer', default: DEFAULT_LIMITS.maxDecompressedBytes, min: 1 },
            maxSpansPerRequest: { kind: 'integer', default: DEFAULT_LIMITS.maxSpansPerRequest, min: 1 },
            maxPendingAttempts: { kind: 'integer', default: DEFAULT_ASSEMBLER_OPTIONS.maxPendingAttempts, min: 1 },
            maxAttributesPerSpan: { kind: 'integer', default: DEFAULT_LIMITS.maxAttributesPerSpan, min: 1 },
            maxStringLength: { kind: 'integer', default: DEFAULT_LIMITS.maxStringLength, min: 1 },
            maxQueuedSpans: { kind: 'integer', default: DEFAULT_LIMITS.maxQueuedSpans, min: 1 },
            maxQueuedBytes: { kind: 'integer', default: DEFAULT_LIMITS.maxQueuedBytes, min: 1 },
            maxPendingSpans: { kind: 'integer', default: DEFAULT_ASSEMBLER_OPTIONS.maxPendingSpans, min: 1 },
            maxPendingBytes: { kind: 'integer', default: DEFAULT_ASSEMBLER_OPTIONS.maxPendingBytes, min: 1 },
            recentSpanMemory: { kind: 'integer', default: DEFAULT_ASSEMBLER_OPTIONS.recentSpanMemory, min: 1 },
            maxBufferedBodyBytes: { kind: 'integer', default: DEFAULT_LIMITS.maxBufferedBodyBytes, min: 1 },
            maxConnectionsPerPeer: { kind: 'integer', default: DEFAULT_LIMITS.maxConnectionsPerPeer, min: 1 },
            maxConnections: { kind: 'integer', default: DEFAULT_LIMITS.maxConnections, min: 1 },
            headersTimeoutMs: { kind: 'duration', default: `${DEFAULT_TIMEOUTS.headersTimeoutMs}ms` },
            bodyIdleTimeoutMs: { kind: 'duration', default: `${DEFAULT_TIMEOUTS.bodyIdleTimeoutMs}ms` },
            bodyTimeoutMs: { kind: 'duration', default: `${DEFAULT_TIMEOUTS.bodyTimeoutMs}ms` },
            shutdownGraceMs: { kind: 'duration', default: `${DEFAULT_TIMEOUTS.shutdownGraceMs}ms`, doc: 'less than shutdownTimeoutMs' },
            retryAfterSeconds: { kind: 'integer', default: DEFAULT_RETRY_AFTER_SECONDS, min: 1 },
            settleMs: { kind: 'duration', default: `${DEFAULT_ASSEMBLER_OPTIONS.settleMs}ms` },
            maxWaitMs: { kind: 'duration', default: `${DEFAULT_ASSEMBLER_OPTIONS.maxWaitMs}ms` },
            bearerTokenFile: str('require `Authorization: Bearer <token>` with the token in this file'),
            tls: { kind: 'object', fields: { certFile: str('server certificate (PEM)', true), keyFile: str('server key (PEM)', true), clientCaFile: str('require client certificates signed by this CA (mTLS)') } },
          },
        },
        logs: LOGS_SCHEMA,
        status: STATUS_SCHEMA,
      },
    },
    recreations: RECREATIONS_SECTION,
    traces: { kind: 'object', present: true, fields: { enabled: { kind: 'boolean', doc: 'default: on when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set' } } },
    summary: { kind: 'object', present: true, fields: { enabled: { kind: 'boolean', default: true }, intervalMs: { kind: 'duration', default: '5s' } } },
    shutdownTimeoutMs: { kind: 'duration', default: '5s' },
    maxTrackedObjects: { kind: 'integer', default: DEFAULT_MAX_TRACKED_OBJECTS, min: 1, doc: 'objects per controller whose state is kept; the least recently seen is forgotten first' },
  },
};

interface RawConfig {
  models: string[];
  listen: ShadowConfig['listen'];
  report: ShadowConfig['report'];
  sources: ShadowConfig['sources'];
  traces: ShadowConfig['traces'];
  recreations?: RecreationsSection;
  summary: ShadowConfig['summary'];
  shutdownTimeoutMs: number;
  maxTrackedObjects: number;
}

export function parseConfig(text: string, file: string): ShadowConfig {
  const src = new YamlSource(text, file);
  if (src.problems.length > 0) throw new ConfigError(src.problems);
  const raw = check(src, [], src.value, CONFIG_SCHEMA) as RawConfig | undefined;
  if (src.problems.length > 0 || !raw) throw new ConfigError(src.problems);
  const models: ReconcileModel[] = [];
  raw.models.forEach((name, i) => {
    try {
      models.push(resolveModel(name));
    } catch (e) {
      if (!(e instanceof ModelError)) throw e;
      for (const p of e.problems) src.fail(['models', i], p);
    }
  });
  if (raw.models.length === 0 && !raw.recreations) src.fail(['models'], 'name at least one model (or a recreations section)');
  checkModelReferences(src, raw, models);
  checkListeners(src, raw);
  if (src.problems.length > 0) throw new ConfigError(src.problems);
  return { ...raw, models };
}

/** Sources that read one controller's output must name a configured model, and exactly one input. */
function checkModelReferences(src: YamlSource, raw: RawConfig, models: readonly ReconcileModel[]): void {
  for (const source of ['logs', 'status'] as const) {
    const section = raw.sources[source];
    if (!section) continue;
    if (section.model !== undefined && !models.some((m) => m.name === section.model)) src.fail(['sources', source, 'model'], `"${section.model}" is not one of the configured models (${models.map((m) => m.name).join(', ')})`);
    if (section.model === undefined && models.length > 1) src.fail(['sources', source, 'model'], 'required when more than one model is configured');
  }
  const logs = raw.sources.logs;
  if (!logs) return;
  const inputs = ['file', 'stdin', 'pod'].filter((k) => logs.input[k as keyof LogsConfig['input']] !== undefined && logs.input[k as keyof LogsConfig['input']] !== false);
  if (inputs.length !== 1) src.fail(['sources', 'logs', 'input'], `name exactly one of file, stdin or pod (got ${inputs.length === 0 ? 'none' : inputs.join(', ')})`);
}

/**
 * /report names objects and client addresses: a listener of its own must be loopback unless a token guards it. The
 * receiver's grace must end before `run` gives up on stopping, or the requests it cuts would not be counted.
 */
function checkListeners(src: YamlSource, raw: RawConfig): void {
  const { metrics, report } = raw.listen;
  if (report && !isLoopback(report.host) && raw.report.bearerTokenFile === undefined) {
    src.fail(['listen', 'report'], `${report.host}:${report.port} is not a loopback address, and /report names objects and client addresses: set report.bearerTokenFile, or bind 127.0.0.1 and read it through kubectl port-forward`);
  }
  if (report && report.port !== 0 && report.port === metrics.port && report.host === metrics.host) {
    src.fail(['listen', 'report'], 'is the metrics listener: leave it out to serve /report there, or give it a port of its own');
  }
  const otlp = raw.sources.otlp;
  if (otlp && otlp.shutdownGraceMs >= raw.shutdownTimeoutMs) {
    src.fail(['sources', 'otlp', 'shutdownGraceMs'], `must be less than shutdownTimeoutMs (${raw.shutdownTimeoutMs} ms), or requests cut at shutdown would not be counted before run exits`);
  }
}

export function loadConfig(path: string): ShadowConfig {
  return parseConfig(readFileSync(path, 'utf8'), path);
}

/** What `run` does with no config: the simulated HyperShift fleet, the OTLP receiver, metrics, a live summary. */
export const EMBEDDED_DEFAULT = `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:9464}
sources:
  simulator: {objects: 40, seed: 1, observe: mixed, speed: 60}
  otlp: {listen: 127.0.0.1:4318}
summary: {intervalMs: 5s}
`;
