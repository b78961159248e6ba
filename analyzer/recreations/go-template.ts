/**
 * The small part of Go templates adapter task configs use in names, namespaces and labels:
 * `{{ .param }}`, `{{ .a.b }}` and the `lower`/`upper` pipes. A template renders forwards (params → name) and
 * matches backwards (an object's name → the params it was made from), so the sidecar can tell which cluster
 * an object belongs to without listing every cluster's objects. Anything else is refused when the config loads.
 */
export type TemplateFilter = 'lower' | 'upper';

type Part = { readonly literal: string } | { readonly path: readonly string[]; readonly filter?: TemplateFilter };

export class TemplateError extends Error {}

const ACTION = /\{\{-?\s*(.*?)\s*-?\}\}/g;
const PATH = /^\.[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export class GoTemplate {
  private constructor(
    readonly text: string,
    private readonly parts: readonly Part[],
  ) {}

  static parse(text: string): GoTemplate {
    const parts: Part[] = [];
    let last = 0;
    for (const m of text.matchAll(ACTION)) {
      if (m.index > last) parts.push({ literal: text.slice(last, m.index) });
      parts.push(parseAction(m[1] ?? '', text));
      last = m.index + m[0].length;
    }
    if (last < text.length) parts.push({ literal: text.slice(last) });
    if (text.slice(last).includes('{{')) throw new TemplateError(`unterminated template action in ${JSON.stringify(text)}`);
    return new GoTemplate(text, parts);
  }

  get isStatic(): boolean {
    return this.parts.every((p) => 'literal' in p);
  }

  /** Top-level names the template reads, in order of first use. */
  get params(): string[] {
    const out: string[] = [];
    for (const p of this.parts) if ('path' in p && !out.includes(p.path[0]!)) out.push(p.path[0]!);
    return out;
  }

  /** The value paths the template reads: `{{ .a.b }}` reads `a.b`. */
  get paths(): (readonly string[])[] {
    return this.parts.flatMap((p) => ('path' in p ? [p.path] : []));
  }

  /** The rendered text, or undefined when a value the template needs is absent. */
  render(values: Readonly<Record<string, unknown>>): string | undefined {
    let out = '';
    for (const p of this.parts) {
      if ('literal' in p) {
        out += p.literal;
        continue;
      }
      let v: unknown = values;
      for (const key of p.path) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
      if (v === undefined || v === null) return undefined;
      const s = valueText(v);
      out += p.filter === 'lower' ? s.toLowerCase() : p.filter === 'upper' ? s.toUpperCase() : s;
    }
    return out;
  }

  /**
   * The values of single-name actions that make the template produce `text`, or undefined when it cannot.
   * A name used twice must capture the same value both times.
   */
  match(text: string): Record<string, string> | undefined {
    const m = this.regex().exec(text);
    if (!m) return undefined;
    const out: Record<string, string> = {};
    let group = 1;
    for (const p of this.parts) {
      if ('literal' in p) continue;
      const value = m[group++]!;
      if (p.path.length !== 1) continue;
      const name = p.path[0]!;
      const seen = out[name];
      if (seen !== undefined && seen !== value && seen.toLowerCase() !== value.toLowerCase()) return undefined;
      if (seen === undefined || p.filter === undefined) out[name] = value;
    }
    return out;
  }

  private compiled?: RegExp;
  private regex(): RegExp {
    if (this.compiled) return this.compiled;
    let src = '^';
    for (const p of this.parts) {
      if ('literal' in p) src += p.literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      else src += p.filter === 'lower' ? '([^A-Z]+?)' : p.filter === 'upper' ? '([^a-z]+?)' : '(.+?)';
    }
    this.compiled = new RegExp(src + '$');
    return this.compiled;
  }
}

/**
 * A value as a template writes it, and as a `type: string` param converts it: a map or list as JSON, with the CEL ints
 * in it as numbers. Here rather than in cel.ts: the sidecar reads task configs without loading the CEL runtime.
 */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

function parseAction(action: string, text: string): Part {
  const [head, ...pipes] = action.split('|').map((s) => s.trim());
  if (head === undefined || !PATH.test(head)) throw new TemplateError(`unsupported template action {{ ${action} }} in ${JSON.stringify(text)} (only {{ .name }} with lower/upper)`);
  if (pipes.length > 1) throw new TemplateError(`unsupported template pipeline {{ ${action} }} in ${JSON.stringify(text)}`);
  const path = head.slice(1).split('.');
  const filter = pipes[0];
  if (filter === undefined) return { path };
  if (filter !== 'lower' && filter !== 'upper') throw new TemplateError(`unsupported template function "${filter}" in ${JSON.stringify(text)} (only lower, upper)`);
  return { path, filter };
}
