/**
 * The files the adapter's own dry run takes (hyperfleet-adapter internal/dryrun): the CloudEvent
 * (event_loader.go; its `data` is `event.*`), the mock API (dryrun_responses.go: endpoints matched in order by
 * method, `*` for any, and an unanchored Go regexp on the URL; each call takes the endpoint's next response and the
 * last repeats; an unmatched request answers 200 `{}`, as dryrun_api_client.go Do does) and the discovery overrides
 * (discovery_overrides.go: rendered object names to whole objects, each with apiVersion and kind).
 * Pure: parsed from text; errors name the file and the entry.
 */
import { ValidationError } from '../../lib/validation-error.js';
import { isRecord } from '../../lib/is-record.js';
import type { ApiAnswer, KubeObject, ObjectWorld } from './adapter-event.js';
import { matchesLabels, objectName, objectNamespace } from './adapter-event.js';

function json(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ValidationError('adapter dry-run input', [`${file}: not JSON: ${(e as Error).message}`]);
  }
}

/** The event's `data`. */
export function parseDryRunEvent(text: string, file: string): Record<string, unknown> {
  const v = json(text, file);
  if (!isRecord(v)) throw new ValidationError('adapter dry-run input', [`${file}: a CloudEvent is a JSON object`]);
  const data = v.data ?? v.data_base64;
  if (!isRecord(data)) throw new ValidationError('adapter dry-run input', [`${file}: field data: the event has no JSON object data`]);
  return data;
}

interface Endpoint {
  readonly method: string;
  readonly pattern: RegExp;
  readonly responses: readonly { readonly statusCode: number; readonly body: unknown }[];
  calls: number;
}

/** The mock API; answers are stateful (each call takes the next response), so make one per event. */
export function parseDryRunApiResponses(text: string, file: string): () => (method: string, url: string) => ApiAnswer {
  const v = json(text, file);
  const problems: string[] = [];
  const raw = isRecord(v) && Array.isArray(v.responses) ? v.responses : (problems.push(`${file}: field responses: a list of endpoints is required`), []);
  const endpoints: Omit<Endpoint, 'calls'>[] = [];
  raw.forEach((ep, i) => {
    const match = isRecord(ep) && isRecord(ep.match) ? ep.match : {};
    const responses = isRecord(ep) && Array.isArray(ep.responses) ? ep.responses : [];
    if (responses.length === 0) return problems.push(`${file}: endpoint ${i} has no responses defined`);
    if (typeof match.urlPattern !== 'string' || match.urlPattern === '') return problems.push(`${file}: endpoint ${i} has empty urlPattern`);
    let pattern: RegExp;
    try {
      pattern = new RegExp(match.urlPattern);
    } catch (e) {
      return problems.push(`${file}: endpoint ${i}: invalid urlPattern ${JSON.stringify(match.urlPattern)}: ${(e as Error).message}`);
    }
    endpoints.push({
      method: typeof match.method === 'string' ? match.method : '',
      pattern,
      responses: responses.map((r) => ({
        statusCode: isRecord(r) && typeof r.statusCode === 'number' && r.statusCode !== 0 ? r.statusCode : 200,
        body: isRecord(r) && r.body !== undefined && r.body !== null ? r.body : {},
      })),
    });
  });
  if (problems.length > 0) throw new ValidationError('adapter dry-run input', problems);
  return () => {
    const state: Endpoint[] = endpoints.map((e) => ({ ...e, calls: 0 }));
    return (method, url) => {
      const ep = state.find((e) => (e.method === '*' || e.method === method) && e.pattern.test(url));
      if (!ep) return { status: 200, body: {} };
      const r = ep.responses[Math.min(ep.calls++, ep.responses.length - 1)]!;
      return { status: r.statusCode, body: r.body };
    };
  };
}

/** The discovery overrides as the objects present before the event (recording_transport_client.go NewDryrunTransportClientWithOverrides). */
export function parseDryRunDiscovery(text: string, file: string): KubeObject[] {
  const v = json(text, file);
  if (!isRecord(v)) throw new ValidationError('adapter dry-run input', [`${file}: discovery overrides are a JSON object of name to object`]);
  const problems: string[] = [];
  const out: KubeObject[] = [];
  for (const [name, obj] of Object.entries(v)) {
    if (!isRecord(obj)) problems.push(`${file}: discovery override ${JSON.stringify(name)} is not an object`);
    else if (!('apiVersion' in obj)) problems.push(`${file}: discovery override ${JSON.stringify(name)} is missing required field "apiVersion"`);
    else if (!('kind' in obj)) problems.push(`${file}: discovery override ${JSON.stringify(name)} is missing required field "kind"`);
    else out.push(obj);
  }
  if (problems.length > 0) throw new ValidationError('adapter dry-run input', problems);
  return out;
}

function splitApiVersion(v: unknown): string {
  const s = typeof v === 'string' ? v : '';
  return s.includes('/') ? s : `/${s}`;
}

/**
 * The objects as the dry run's in-memory client holds them: keyed by group, version, kind, namespace and name, with
 * no Maestro consumer distinction (the dry run has one store for both transports).
 */
export function objectWorld(objects: readonly KubeObject[]): ObjectWorld {
  const same = (o: KubeObject, apiVersion: string, kind: string): boolean => o.kind === kind && splitApiVersion(o.apiVersion) === splitApiVersion(apiVersion);
  return {
    get: (q) => objects.find((o) => same(o, q.apiVersion, q.kind) && objectNamespace(o) === q.namespace && objectName(o) === q.name),
    list: (q) =>
      objects.filter((o) => same(o, q.apiVersion, q.kind) && (q.namespace === '' || objectNamespace(o) === q.namespace) && matchesLabels(o, q.labels)),
  };
}
