/**
 * A resource's manifest rendered as the adapter renders it (hyperfleet-adapter internal/manifest/render.go
 * ToYAMLString + RenderStringManifest): a mapping is written back to YAML (keys sorted, single quotes where a plain
 * scalar cannot be used, as yaml.v3 does), the whole text is rendered as one Go template, and the result is parsed
 * as YAML into an object. A ref file's text is rendered the same way, so structural templates (`{{ if }}`,
 * `{{ range }}`) work in either.
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
  const text = manifestText(r)!;
  if (text.trim() === '') return { error: 'empty manifest: string manifest cannot be empty' };
  const t = templateOf(m, text);
  if (t instanceof TemplateError) return { error: `failed to render manifest template: failed to parse template: ${t.message}` };
  const out = t.renderResult(params, now);
  if (!out.ok) return { error: `failed to render manifest template: ${out.message}` };
  if (out.text.trim() === '') return { error: 'empty manifest: template rendered to an empty document' };
  const doc = parseDocument(out.text);
  if (doc.errors.length > 0) return { error: `failed to parse rendered manifest as YAML: ${doc.errors[0]!.message.split('\n')[0]}` };
  const value: unknown = doc.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0) return { error: 'empty manifest: rendered YAML did not contain an object' };
  return { object: value as Record<string, unknown> };
}
