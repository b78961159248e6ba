/**
 * The adapter's deployment config (`adapter-config.yaml`, hyperfleet-adapter internal/configloader AdapterConfig),
 * as far as the decisions read it: `adapter.name`/`version` (the `adapter` template variable), the config as a map
 * (`config.*`), and `clients.hyperfleet_api.base_url`/`version`, which make an API call's relative URL the path the
 * client sends (executor/utils.go buildHyperfleetAPICallURL). Upstream reads this file through viper, leniently,
 * so keys reconcile-shadow does not use are not refused. Pure: the caller reads the file.
 */
import { ValidationError } from '../../lib/validation-error.js';
import { YamlSource } from '../../lib/yaml-source.js';
import { isRecord } from '../../lib/is-record.js';

export interface CompiledAdapterConfig {
  readonly adapter: { readonly name: string; readonly version: string };
  /** `config.*` in templates and CEL (upstream redacts TLS paths there; this map is the file as written). */
  readonly configMap: Readonly<Record<string, unknown>>;
  /** `config.*` param sources (upstream: the unredacted config). */
  readonly configMapFull: Readonly<Record<string, unknown>>;
  /** The URL an API call's rendered URL becomes. */
  apiUrl(rendered: string): string;
}

function posixClean(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/** executor/utils.go buildHyperfleetAPICallURL. */
export function hyperfleetApiUrl(rendered: string, baseUrl: string | undefined, version: string | undefined): string {
  if (rendered === '') return rendered;
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(rendered);
  if (!baseUrl) return rendered;
  if (absolute) {
    let u: URL;
    let b: URL;
    try {
      u = new URL(rendered);
      b = new URL(baseUrl);
    } catch {
      return rendered;
    }
    if (u.protocol !== b.protocol || u.host !== b.host) return rendered;
    const basePath = b.pathname.replace(/\/$/, '');
    let rel = u.pathname;
    if (basePath !== '' && rel.startsWith(basePath)) rel = rel.slice(basePath.length);
    return rel.startsWith('/') ? rel : `/${rel}`;
  }
  const path = posixClean(rendered.split('?')[0]!);
  if (path.startsWith('api/')) return `/${path}`;
  return `/${posixClean(`api/hyperfleet/${version || 'v1'}/${path}`)}`;
}

export function compileAdapterConfig(raw: Record<string, unknown>): CompiledAdapterConfig {
  const adapter = isRecord(raw.adapter) ? raw.adapter : {};
  const clients = isRecord(raw.clients) ? raw.clients : {};
  const api = isRecord(clients.hyperfleet_api) ? clients.hyperfleet_api : {};
  const baseUrl = typeof api.base_url === 'string' && api.base_url !== '' ? api.base_url : undefined;
  const version = typeof api.version === 'string' ? api.version : undefined;
  return {
    adapter: {
      name: typeof adapter.name === 'string' ? adapter.name : '',
      version: typeof adapter.version === 'string' || typeof adapter.version === 'number' ? String(adapter.version) : '',
    },
    configMap: raw,
    configMapFull: raw,
    apiUrl: (rendered) => hyperfleetApiUrl(rendered, baseUrl, version),
  };
}

/** Reads the file's text; the adapter requires `adapter.name` (configloader validator: required). */
export function parseAdapterConfig(text: string, file: string): CompiledAdapterConfig {
  const src = new YamlSource(text, file);
  if (src.problems.length > 0) throw new ValidationError('adapter config', src.problems);
  if (!isRecord(src.value)) throw new ValidationError('adapter config', [`${file}:1 (document): an adapter config is a YAML mapping`]);
  const adapter = src.value.adapter;
  if (!isRecord(adapter) || typeof adapter.name !== 'string' || adapter.name === '') src.fail(['adapter', 'name'], 'adapter.name is required');
  if (src.problems.length > 0) throw new ValidationError('adapter config', src.problems);
  return compileAdapterConfig(src.value);
}

/** Without an adapter config (the sidecar shadowing from the API): no base URL, an empty adapter name. */
export const NO_ADAPTER_CONFIG: CompiledAdapterConfig = compileAdapterConfig({});
