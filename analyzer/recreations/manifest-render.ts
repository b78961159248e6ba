/**
 * A resource's manifest rendered as the adapter renders it (hyperfleet-adapter internal/manifest/render.go
 * ToYAMLString + RenderStringManifest): upstream writes a mapping back to YAML (keys sorted, quoted where a plain
 * scalar cannot be used), renders the text as one Go template and parses the result. In a mapping every template
 * sits inside one scalar, so its keys and values are rendered one by one, in that sorted order, to the same result;
 * a ref file's raw text is rendered whole and parsed, so structural templates (`{{ if }}`, `{{ range }}`) work there.
 */
import { parseDocument, stringify } from 'yaml';
import { GoTemplate, TemplateError } from './go-template.js';
import type { ResourceSpec } from './task-config.js';

export type RenderedManifest = { readonly object: Record<string, unknown> } | { readonly error: string };

const parsed = new WeakMap<object, GoTemplate | TemplateError>();

function templateOf(key: object, text: string): GoTemplate | TemplateError {
  let t = parsed.get(key);
  if (!t) {
    try {
      t = GoTemplate.parse(text);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      t = e;
    }
    parsed.set(key, t);
  }
  return t;
}

const texts = new WeakMap<object, string>();

/** The manifest's text as the adapter renders it; a mapping is written back to YAML once. */
export function manifestText(r: ResourceSpec): string | undefined {
  const m = r.manifest;
  if (!m) return undefined;
  if (m.kind === 'text') return m.text;
  let text = texts.get(m);
  if (text === undefined) texts.set(m, (text = stringify(m.value, { sortMapEntries: true, singleQuote: true, lineWidth: 0 })));
  return text;
}

export function renderManifest(r: ResourceSpec, params: Readonly<Record<string, unknown>>, now: () => Date): RenderedManifest {
  const m = r.manifest;
  if (!m) return { error: `no manifest specified for resource ${r.name}` };
  // A mapping's templates are each inside one scalar (a key or a value), so rendering them one by one gives what
  // rendering the YAML text whole and parsing it again gives, without a YAML parse per event.
  if (m.kind === 'map') return renderMap(m.value, params, now);
  const text = m.text;
  if (text.trim() === '') return { error: 'empty manifest: string manifest cannot be empty' };
  const t = templateOf(m, text);
  if (t instanceof TemplateError) return { error: `failed to render manifest template: failed to parse template: ${t.message}` };
  const out = t.renderResult(params, now);
  if (!out.ok) return { error: `failed to render manifest template: ${out.message}` };
  const last = lastParsed.get(m);
  if (last?.text === out.text) return last.result;
  const result = parseRendered(out.text);
  lastParsed.set(m, { text: out.text, result });
  return result;
}

/** Per text manifest, its last rendering parsed: the same text at the next event is not parsed again. */
const lastParsed = new WeakMap<object, { text: string; result: RenderedManifest }>();

function parseRendered(text: string): RenderedManifest {
  if (text.trim() === '') return { error: 'empty manifest: template rendered to an empty document' };
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return { error: `failed to parse rendered manifest as YAML: ${doc.errors[0]!.message.split('\n')[0]}` };
  const value: unknown = doc.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0)
    return { error: 'empty manifest: rendered YAML did not contain an object' };
  return { object: value as Record<string, unknown> };
}

const scalarTemplates = new Map<string, GoTemplate | TemplateError>();

function renderScalar(text: string, params: Readonly<Record<string, unknown>>, now: () => Date): { text: string } | { error: string } {
  if (!text.includes('{{')) return { text };
  let t = scalarTemplates.get(text);
  if (!t) {
    try {
      t = GoTemplate.parse(text);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      t = e;
    }
    if (scalarTemplates.size < 10_000) scalarTemplates.set(text, t);
  }
  if (t instanceof TemplateError) return { error: `failed to render manifest template: failed to parse template: ${t.message}` };
  const out = t.renderResult(params, now);
  return out.ok ? { text: out.text } : { error: `failed to render manifest template: ${out.message}` };
}

function renderMap(value: Record<string, unknown>, params: Readonly<Record<string, unknown>>, now: () => Date): RenderedManifest {
  let error: string | undefined;
  const walk = (v: unknown): unknown => {
    if (error !== undefined) return undefined;
    if (typeof v === 'string') {
      const r = renderScalar(v, params, now);
      if ('error' in r) error = r.error;
      return 'text' in r ? r.text : undefined;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null && !(v instanceof Date)) {
      const out: Record<string, unknown> = {};
      // In the order yaml.v3 writes them (sorted), so the first failure is the one upstream's render reports.
      for (const [k, x] of Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const key = renderScalar(k, params, now);
        if ('error' in key) {
          error = key.error;
          return undefined;
        }
        out[key.text] = walk(x);
      }
      return out;
    }
    return v;
  };
  const object = walk(value) as Record<string, unknown>;
  return error !== undefined ? { error } : { object };
}
