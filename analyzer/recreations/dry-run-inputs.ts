/**
 * The files the adapter's own dry run takes (hyperfleet-adapter internal/dryrun): the CloudEvent
 * (event_loader.go; its `data` is `event.*`), the mock API (dryrun_responses.go: endpoints matched in order by
 * method, `*` for any, and an unanchored Go regexp on the URL; each call takes the endpoint's next response and the
 * last repeats; an unmatched request answers 200 `{}`, as dryrun_api_client.go Do does) and the discovery overrides
 * (discovery_overrides.go: rendered object names to whole objects, each with apiVersion and kind).
 * Pure: parsed from text; every problem is reported at once, as `file:line field: message` (lib/json-reader.ts).
 */
import { isRecord } from '../../lib/is-record.js';
import { JsonReader } from '../../lib/json-reader.js';
import type { ApiAnswer, KubeObject, ObjectWorld } from './adapter-event.js';
import { matchesLabels, objectName, objectNamespace } from './adapter-event.js';

const reader = (text: string, file: string): JsonReader => new JsonReader(text, file, 'adapter dry-run input');

/** The event's `data`. */
export function parseDryRunEvent(text: string, file: string): Record<string, unknown> {
  const r = reader(text, file);
  const v = r.json();
  if (!isRecord(v)) return r.refuse([], 'a CloudEvent is a JSON object');
  const data = v.data ?? v.data_base64;
  if (!isRecord(data)) return r.refuse(['data'], 'the event has no JSON object data');
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
  const r = reader(text, file);
  const v = r.json();
  const raw = isRecord(v) && Array.isArray(v.responses) ? v.responses : (r.fail(['responses'], 'a list of endpoints is required'), []);
  const endpoints: Omit<Endpoint, 'calls'>[] = [];
  raw.forEach((ep, i) => {
    const match = isRecord(ep) && isRecord(ep.match) ? ep.match : {};
    const responses = isRecord(ep) && Array.isArray(ep.responses) ? ep.responses : [];
    if (responses.length === 0) r.fail(['responses', i, 'responses'], `endpoint ${i} has no responses defined`);
    let pattern: RegExp | undefined;
    if (typeof match.urlPattern !== 'string' || match.urlPattern === '') r.fail(['responses', i, 'match', 'urlPattern'], `endpoint ${i} has empty urlPattern`);
    else
      try {
        pattern = new RegExp(match.urlPattern);
      } catch (e) {
        r.fail(['responses', i, 'match', 'urlPattern'], `endpoint ${i}: invalid urlPattern ${JSON.stringify(match.urlPattern)}: ${(e as Error).message}`);
      }
    if (!pattern || responses.length === 0) return;
    endpoints.push({
      method: typeof match.method === 'string' ? match.method : '',
      pattern,
      responses: responses.map((r) => ({
        statusCode: isRecord(r) && typeof r.statusCode === 'number' && r.statusCode !== 0 ? r.statusCode : 200,
        body: isRecord(r) && r.body !== undefined && r.body !== null ? r.body : {},
      })),
    });
  });
  r.done();
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
  const r = reader(text, file);
  const v = r.json();
  if (!isRecord(v)) return r.refuse([], 'discovery overrides are a JSON object of name to object');
  const out: KubeObject[] = [];
  for (const [name, obj] of Object.entries(v)) {
    if (!isRecord(obj)) {
      r.fail([name], `discovery override ${JSON.stringify(name)} is not an object`);
      continue;
    }
    const missing = ['apiVersion', 'kind'].filter((k) => !(k in obj));
    if (missing.length === 0) out.push(obj);
    else
      r.failEach(
        [name],
        missing.map((k) => `discovery override ${JSON.stringify(name)} is missing required field "${k}"`),
      );
  }
  r.done();
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
