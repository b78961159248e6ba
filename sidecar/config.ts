/**
 * The sidecar's one config file (`reconcile-shadow run --config shadow.yaml`), validated whole at start: every
 * problem names file, line and field; unknown keys are errors; a bad config never starts a half-configured sidecar.
 * Its schema is put together from the registry's components (each source's and output's own section), and its type is
 * derived from that schema. Durations are written with their unit (`5s`) under keys that name none. docs/config.md,
 * the reference of every key, is generated from this schema (cli/generate.ts).
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_MAX_TRACKED_OBJECTS } from '../analyzer/analyzer.js';
import { RECREATION_SETTINGS } from '../analyzer/recreations/config.js';
import type { SourceComponent } from '../collector/component.js';
import { validate, type Field, type Infer } from '../lib/schema.js';
import { ValidationError } from '../lib/validation-error.js';
import { YamlSource } from '../lib/yaml-source.js';
import type { ReconcileModel } from '../model/types.js';
import { selectBuild } from '../model/builds.js';
import { resolveModel } from './files.js';
import { OUTPUTS, RECREATION_INPUTS, sectionsOf, SOURCES } from './registry.js';
import { isLoopback } from './server.js';
import { DEFAULT_PORTS } from '../lib/ports.js';

const RECREATIONS = {
  kind: 'object',
  doc: 'shadow the lifecycle rules of a HyperFleet adapter and track its recreations (docs/recreations.md)',
  fields: { ...RECREATION_SETTINGS, ...sectionsOf(RECREATION_INPUTS) },
} as const;

export const CONFIG_SCHEMA = {
  kind: 'object',
  present: true,
  fields: {
    apiVersion: { kind: 'enum', values: ['reconcile-shadow/v1'], required: true },
    kind: { kind: 'enum', values: ['ShadowConfig'], required: true },
    models: { kind: 'list', of: { kind: 'string' }, default: [], doc: 'the controllers to shadow: built-in model names or model files' },
    operatorVersion: {
      kind: 'string',
      doc: "the operator's build (e.g. 4.22, release-5.0): picks each model's build (spec.builds); absent: the newest build's, and the outputs say so",
    },
    listen: {
      kind: 'object',
      present: true,
      fields: {
        metrics: {
          kind: 'address',
          default: `127.0.0.1:${DEFAULT_PORTS.metrics}`,
          doc: '/metrics, /healthz, /readyz; /summary and /partial too when loopback (or with summary.bearerTokenFile) and listen.summary is not set',
        },
        summary: {
          kind: 'address',
          doc: "/summary, /partial and the fleet's /report on a listener of their own; a non-loopback address needs summary.bearerTokenFile",
        },
      },
    },
    sources: { kind: 'object', present: true, doc: 'where attempts come from; any mix', fields: sectionsOf(SOURCES) },
    recreations: RECREATIONS,
    ...sectionsOf(OUTPUTS),
    shutdownTimeout: { kind: 'duration', default: '5s', doc: 'SIGTERM/SIGINT: the longest wait for sources to stop and traces to flush; past it run exits 1' },
    maxTrackedObjects: {
      kind: 'integer',
      default: DEFAULT_MAX_TRACKED_OBJECTS,
      min: 1,
      unit: 'objects',
      doc: 'objects per controller whose state is kept; the least recently seen is forgotten first',
    },
  },
} as const satisfies Field;

type ConfigFile = Infer<typeof CONFIG_SCHEMA>;

/** The config once validated: models loaded, durations in milliseconds, defaults applied. */
export type Config = Omit<ConfigFile, 'models'> & { readonly models: readonly ReconcileModel[] };

export function parseConfig(text: string, file: string): Config {
  const src = new YamlSource(text, file);
  const raw = src.problems.length === 0 ? validate(src, CONFIG_SCHEMA) : undefined;
  if (!raw) throw new ValidationError('config', src.problems);
  const models: ReconcileModel[] = [];
  raw.models.forEach((name, i) => {
    try {
      models.push(selectBuild(resolveModel(name), raw.operatorVersion, 'config operatorVersion'));
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      for (const p of e.problems) src.fail(['models', i], p);
    }
  });
  if (raw.models.length === 0 && !raw.recreations) src.fail(['models'], 'name at least one model (or a recreations section)');
  for (const [key, component] of Object.entries(SOURCES)) checkSource(src, ['sources', key], component, raw.sources[key as keyof typeof SOURCES], models);
  for (const [key, component] of Object.entries(RECREATION_INPUTS))
    checkSource(src, ['recreations', key], component, raw.recreations?.[key as keyof typeof RECREATION_INPUTS], models);
  checkListeners(src, raw);
  if (src.problems.length > 0) throw new ValidationError('config', src.problems);
  return { ...raw, models };
}

/** What a source's schema cannot say (its own `check`), with problems under its section. */
function checkSource(src: YamlSource, at: readonly string[], component: SourceComponent, config: unknown, models: readonly ReconcileModel[]): void {
  if (config !== undefined) component.check?.(config, (path, message) => src.fail([...at, ...path], message), models);
}

/**
 * /summary names objects and client addresses: a listener of its own must be loopback unless a token guards it. The
 * receiver's grace must end before `run` gives up on stopping, or the requests it cuts would not be counted.
 */
function checkListeners(src: YamlSource, raw: ConfigFile): void {
  const { metrics, summary } = raw.listen;
  if (summary && !isLoopback(summary.host) && raw.summary.bearerTokenFile === undefined) {
    src.fail(
      ['listen', 'summary'],
      `${summary.host}:${summary.port} is not a loopback address, and /summary names objects and client addresses: set summary.bearerTokenFile, or bind 127.0.0.1 and read it through kubectl port-forward`,
    );
  }
  if (summary && summary.port !== 0 && summary.port === metrics.port && summary.host === metrics.host) {
    src.fail(['listen', 'summary'], 'is the metrics listener: leave it out to serve /summary there, or give it a port of its own');
  }
  const otlp = raw.sources.otlp;
  if (otlp && otlp.shutdownGrace >= raw.shutdownTimeout) {
    src.fail(
      ['sources', 'otlp', 'shutdownGrace'],
      `must be less than shutdownTimeout (${raw.shutdownTimeout} ms), or requests cut at shutdown would not be counted before run exits`,
    );
  }
}

export function loadConfig(path: string): Config {
  return parseConfig(readFileSync(path, 'utf8'), path);
}

/** What `run` does with no config: the simulated HyperShift fleet, the OTLP receiver, metrics, a live summary. */
export const EMBEDDED_DEFAULT = `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:9464}
sources:
  simulator: {objects: 40, seed: 1, observe: mixed, speed: 60}
  otlp: {listen: 127.0.0.1:4318, grpc: {listen: 127.0.0.1:4317}}
console: {interval: 5s}
`;
