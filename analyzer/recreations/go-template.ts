/**
 * Go `text/template` as the HyperFleet adapter renders it (hyperfleet-adapter pkg/utils/template.go, RenderTemplate):
 * `missingkey=error`, the adapter's function set (now, date, dateFormat, lower, upper, title, trim, trimPrefix,
 * trimSuffix, replace, contains, hasPrefix, hasSuffix, quote, default, int, int64, float, float64, string) and the
 * builtins (and, or, not, eq, ne, lt, le, gt, ge, len, index, print, printf, println), with `if`/`else if`/`else`,
 * `range` (with `$i, $v :=`), `with`, variables, parenthesised pipelines, comments and `{{-`/`-}}` trimming.
 * A string without `{{` is returned as it is, as upstream does.
 *
 * Templates also match backwards: a template of text and `{{ .name }}` actions (optionally piped to lower or upper)
 * turns an object's name into the params it was made from, so the sidecar can tell which cluster an object belongs
 * to without listing every cluster's objects. Other templates render but do not match.
 */
import { formatGoTime } from './go-time.js';

export class TemplateError extends Error {}

type Node =
  | { readonly t: 'text'; readonly text: string }
  | { readonly t: 'action'; readonly pipe: Pipeline }
  | { readonly t: 'if' | 'with'; readonly pipe: Pipeline; readonly then: Node[]; readonly else: Node[] }
  | { readonly t: 'range'; readonly pipe: Pipeline; readonly body: Node[]; readonly else: Node[] };

interface Pipeline {
  readonly decl: readonly string[];
  /** `=` assigns an existing variable, `:=` declares one. */
  readonly assign: boolean;
  readonly cmds: readonly Operand[][];
}

type Operand =
  | { readonly o: 'field'; readonly base: 'dot' | { readonly v: string } | { readonly p: Pipeline }; readonly path: readonly string[] }
  | { readonly o: 'lit'; readonly value: unknown }
  | { readonly o: 'fn'; readonly name: string };

/** The adapter's own functions (pkg/utils/template.go TemplateFuncs) and text/template's builtins. */
const FUNCTIONS = new Set([
  'now',
  'date',
  'dateFormat',
  'lower',
  'upper',
  'title',
  'trim',
  'trimPrefix',
  'trimSuffix',
  'replace',
  'contains',
  'hasPrefix',
  'hasSuffix',
  'quote',
  'default',
  'int',
  'int64',
  'float',
  'float64',
  'string',
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'len',
  'index',
  'print',
  'printf',
  'println',
]);

// ---------------------------------------------------------------------------------------------------------------
// Lexing: text and actions, with trim markers and comments.

type Piece = { readonly text: string } | { readonly action: string };

function split(src: string): Piece[] {
  const out: Piece[] = [];
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = src.slice(i, open === -1 ? undefined : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open === -1) {
      if (text) out.push({ text });
      break;
    }
    let start = open + 2;
    if (src[start] === '-' && /\s/.test(src[start + 1] ?? '')) {
      text = text.replace(/\s+$/, '');
      start += 1;
    }
    if (text) out.push({ text });
    const close = findClose(src, start);
    if (close === -1) throw new TemplateError(`unclosed action in ${JSON.stringify(src)}`);
    let end = close;
    if (src[close - 1] === '-' && /\s/.test(src[close - 2] ?? '')) {
      trimNext = true;
      end = close - 1;
    }
    const body = src.slice(start, end).trim();
    if (!(body.startsWith('/*') && body.endsWith('*/'))) out.push({ action: body });
    i = close + 2;
  }
  return out;
}

/** The `}}` closing an action, skipping quoted strings. */
function findClose(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === '`' || c === "'") {
      for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\' && c !== '`') i++;
      continue;
    }
    if (c === '}' && src[i + 1] === '}') return i;
  }
  return -1;
}

const TOKEN =
  /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|('(?:[^'\\]|\\.)')|(:=|=|\||\(|\)|,)|(\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?)|([-+]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?))|([A-Za-z_][A-Za-z0-9_]*)|(\.[A-Za-z_][A-Za-z0-9_.]*))/y;

function tokens(action: string, where: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < action.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(action);
    if (!m || m[0].trim() === '') {
      if (action.slice(at).trim() === '') break;
      throw new TemplateError(`unexpected ${JSON.stringify(action.slice(at).trim().slice(0, 10))} in {{ ${action} }} in ${where}`);
    }
    out.push(m[0].trim());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing.

class Parser {
  private i = 0;
  constructor(
    private readonly toks: string[],
    private readonly where: string,
  ) {}

  fail(msg: string): never {
    throw new TemplateError(`${msg} in ${this.where}`);
  }

  pipeline(): Pipeline {
    let decl: string[] = [];
    let assign = false;
    // `$x :=`, `$i, $v :=`, `$x =`
    const save = this.i;
    const vars: string[] = [];
    while (this.toks[this.i]?.startsWith('$') && !this.toks[this.i]!.includes('.')) {
      vars.push(this.toks[this.i++]!);
      if (this.toks[this.i] === ',') this.i++;
      else break;
    }
    if (vars.length > 0 && (this.toks[this.i] === ':=' || this.toks[this.i] === '=')) {
      assign = this.toks[this.i] === '=';
      this.i++;
      decl = vars;
    } else this.i = save;
    const cmds: Operand[][] = [];
    for (;;) {
      const cmd: Operand[] = [];
      while (this.i < this.toks.length && this.toks[this.i] !== '|' && this.toks[this.i] !== ')') cmd.push(this.operand());
      if (cmd.length === 0) this.fail('missing command');
      cmds.push(cmd);
      if (this.toks[this.i] !== '|') break;
      this.i++;
    }
    return { decl, assign, cmds };
  }

  operand(): Operand {
    const tok = this.toks[this.i++]!;
    if (tok === '(') {
      const p = this.pipeline();
      if (this.toks[this.i++] !== ')') this.fail('unclosed left paren');
      // `(pipeline).Field`
      const next = this.toks[this.i];
      if (next?.startsWith('.') && next.length > 1) {
        this.i++;
        return { o: 'field', base: { p }, path: next.slice(1).split('.') };
      }
      return { o: 'field', base: { p }, path: [] };
    }
    if (tok === '.') return { o: 'field', base: 'dot', path: [] };
    if (tok.startsWith('.')) return { o: 'field', base: 'dot', path: tok.slice(1).split('.') };
    if (tok.startsWith('$')) {
      const [v, ...path] = tok.split('.');
      return { o: 'field', base: { v: v! }, path };
    }
    if (tok.startsWith('"')) return { o: 'lit', value: JSON.parse(tok) as string };
    if (tok.startsWith('`')) return { o: 'lit', value: tok.slice(1, -1) };
    if (tok.startsWith("'")) return { o: 'lit', value: BigInt((JSON.parse(`"${tok.slice(1, -1)}"`) as string).codePointAt(0)!) };
    if (/^[-+]?\d/.test(tok)) return { o: 'lit', value: /[.eE]/.test(tok) && !tok.startsWith('0x') ? Number(tok) : BigInt(tok) };
    if (tok === 'true' || tok === 'false') return { o: 'lit', value: tok === 'true' };
    if (tok === 'nil') return { o: 'lit', value: null };
    if (/^[A-Za-z_]/.test(tok)) {
      if (!FUNCTIONS.has(tok)) this.fail(`function "${tok}" not defined`);
      return { o: 'fn', name: tok };
    }
    return this.fail(`unexpected "${tok}"`);
  }

  get done(): boolean {
    return this.i >= this.toks.length;
  }
}

function parseNodes(src: string): Node[] {
  const pieces = split(src);
  let i = 0;
  const where = JSON.stringify(src.length > 80 ? `${src.slice(0, 77)}...` : src);
  const pipeOf = (rest: string): Pipeline => {
    const p = new Parser(tokens(rest, where), where);
    const pipe = p.pipeline();
    if (!p.done) p.fail(`unexpected tokens after {{ ${rest} }}`);
    return pipe;
  };
  /** Parses nodes until `end` or `else`, returning what stopped it. */
  const list = (top: boolean): { nodes: Node[]; stop: string | undefined } => {
    const nodes: Node[] = [];
    while (i < pieces.length) {
      const piece = pieces[i++]!;
      if ('text' in piece) {
        nodes.push({ t: 'text', text: piece.text });
        continue;
      }
      const a = piece.action;
      const word = /^[a-z]+/.exec(a)?.[0];
      if (word === 'end' || word === 'else') {
        if (top) throw new TemplateError(`unexpected {{${word}}} in ${where}`);
        return { nodes, stop: a };
      }
      if (word === 'if' || word === 'with' || word === 'range') nodes.push(block(word, a.slice(word.length)));
      else if (word === 'define' || word === 'template' || word === 'block' || word === 'break' || word === 'continue')
        throw new TemplateError(`{{${word}}} is not supported in ${where}`);
      else nodes.push({ t: 'action', pipe: pipeOf(a) });
    }
    if (!top) throw new TemplateError(`unexpected EOF in ${where}`);
    return { nodes, stop: undefined };
  };
  const block = (kind: 'if' | 'with' | 'range', rest: string): Node => {
    const pipe = pipeOf(rest);
    const body = list(false);
    let elseNodes: Node[] = [];
    if (body.stop !== 'end') {
      const after = body.stop!.replace(/^else\s*/, '');
      if (after.startsWith('if ') || after.startsWith('with ')) {
        const w = after.startsWith('if') ? 'if' : 'with';
        // `else if x` is `else` + `if x ... end`, sharing the outer `end`.
        elseNodes = [block(w, after.slice(w.length))];
      } else {
        const e = list(false);
        if (e.stop !== 'end') throw new TemplateError(`expected {{end}} in ${where}`);
        elseNodes = e.nodes;
      }
    }
    return kind === 'range' ? { t: 'range', pipe, body: body.nodes, else: elseNodes } : { t: kind, pipe, then: body.nodes, else: elseNodes };
  };
  return list(true).nodes;
}

// ---------------------------------------------------------------------------------------------------------------
// Values and execution.

const NO_VALUE = '<no value>';

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** text/template's truth: false, 0, nil, and empty strings, lists and maps are false. */
export function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === 0n || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** A value as Go's `%v` prints it. */
export function goText(v: unknown): string {
  if (v === undefined || v === null) return NO_VALUE;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return goFloat(v);
  if (v instanceof Date) return formatGoTime('2006-01-02 15:04:05.999999999 -0700 MST', v);
  if (Array.isArray(v)) return `[${v.map((x) => (x === null || x === undefined ? '<nil>' : goText(x))).join(' ')}]`;
  if (isMap(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${v[k] === null || v[k] === undefined ? '<nil>' : goText(v[k])}`)
      .join(' ')}]`;
  return typeof v === 'symbol' || typeof v === 'function' ? typeof v : Object.prototype.toString.call(v);
}

function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function num(v: unknown): number | bigint | undefined {
  return typeof v === 'number' || typeof v === 'bigint' ? v : undefined;
}

function toInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
  if (typeof v === 'string') return /^[-+]?\d+$/.test(v.trim()) && v.trim() === v ? BigInt(v) : 0n;
  return 0n;
}

function toFloat(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') {
    const f = Number(v);
    return v.trim() !== '' && Number.isFinite(f) ? f : 0;
  }
  return 0;
}

function str(v: unknown, fn: string): string {
  if (typeof v !== 'string') throw new TemplateError(`error calling ${fn}: wrong type for value; expected string; got ${goType(v)}`);
  return v;
}

function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'bigint') return 'int64';
  if (typeof v === 'number') return 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof Date) return 'time.Time';
  if (isMap(v)) return 'map[string]interface {}';
  return typeof v;
}

function equal(a: unknown, b: unknown): boolean {
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined) {
    if (typeof na !== typeof nb) throw new TemplateError('incompatible types for comparison');
    return na === nb;
  }
  if (typeof a !== typeof b && a !== null && b !== null) throw new TemplateError('incompatible types for comparison');
  return a === b;
}

function less(a: unknown, b: unknown): boolean {
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined && typeof na === typeof nb) return na < nb;
  if (typeof a === 'string' && typeof b === 'string') return a < b;
  throw new TemplateError('incompatible types for comparison');
}

/** Go's `%q` of a string: double-quoted with Go escapes (JSON's are the same for printable text). */
function goQuote(s: string): string {
  return JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function sprintf(format: string, args: readonly unknown[]): string {
  let k = 0;
  return format.replace(/%([-+# 0]*\d*(?:\.\d+)?)([vsdqtfgx%])/g, (whole, _flags: string, verb: string) => {
    if (verb === '%') return '%';
    if (k >= args.length) return `%!${verb}(MISSING)`;
    const a = args[k++];
    switch (verb) {
      case 'd':
        return num(a) === undefined ? `%!d(${goType(a)}=${goText(a)})` : String(toInt(a));
      case 'q':
        return typeof a === 'string' ? goQuote(a) : goText(a);
      case 'f':
        return toFloat(a).toFixed(/\.(\d+)/.exec(whole)?.[1] ? Number(/\.(\d+)/.exec(whole)![1]) : 6);
      case 'x':
        return typeof a === 'string' ? Buffer.from(a).toString('hex') : toInt(a).toString(16);
      default:
        return goText(a);
    }
  });
}

type Fn = (args: unknown[], now: () => Date) => unknown;

const titleCase = (s: string): string => s.toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());

const CALLS: Readonly<Record<string, Fn>> = {
  now: (_a, now) => now(),
  date: ([layout, t]) => formatGoTime(str(layout, 'date'), asTime(t, 'date')),
  dateFormat: ([layout, t]) => formatGoTime(str(layout, 'dateFormat'), asTime(t, 'dateFormat')),
  lower: ([s]) => str(s, 'lower').toLowerCase(),
  upper: ([s]) => str(s, 'upper').toUpperCase(),
  title: ([s]) => titleCase(str(s, 'title')),
  trim: ([s]) => str(s, 'trim').trim(),
  trimPrefix: ([s, p]) => (str(s, 'trimPrefix').startsWith(str(p, 'trimPrefix')) ? (s as string).slice((p as string).length) : s),
  trimSuffix: ([s, p]) => (str(s, 'trimSuffix').endsWith(str(p, 'trimSuffix')) && (p as string).length > 0 ? (s as string).slice(0, -(p as string).length) : s),
  replace: ([s, o, n]) => str(s, 'replace').split(str(o, 'replace')).join(str(n, 'replace')),
  contains: ([s, sub]) => str(s, 'contains').includes(str(sub, 'contains')),
  hasPrefix: ([s, p]) => str(s, 'hasPrefix').startsWith(str(p, 'hasPrefix')),
  hasSuffix: ([s, p]) => str(s, 'hasSuffix').endsWith(str(p, 'hasSuffix')),
  quote: ([s]) => goQuote(str(s, 'quote')),
  default: ([d, v]) => (v === undefined || v === null || v === '' ? d : v),
  int: ([v]) => toInt(v),
  int64: ([v]) => toInt(v),
  float: ([v]) => toFloat(v),
  float64: ([v]) => toFloat(v),
  string: ([v]) => (v === undefined || v === null ? '<nil>' : goText(v)),
  not: ([v]) => !truthy(v),
  eq: ([a, ...bs]) => bs.some((b) => equal(a, b)),
  ne: ([a, b]) => !equal(a, b),
  lt: ([a, b]) => less(a, b),
  le: ([a, b]) => less(a, b) || equal(a, b),
  gt: ([a, b]) => less(b, a),
  ge: ([a, b]) => less(b, a) || equal(a, b),
  len: ([v]) => {
    if (typeof v === 'string') return BigInt(Buffer.byteLength(v));
    if (Array.isArray(v)) return BigInt(v.length);
    if (isMap(v)) return BigInt(Object.keys(v).length);
    throw new TemplateError(`error calling len: len of type ${goType(v)}`);
  },
  index: ([v, ...keys]) => {
    let cur = v;
    for (const k of keys) {
      if (Array.isArray(cur)) {
        const n = Number(toInt(k));
        if (n < 0 || n >= cur.length) throw new TemplateError(`error calling index: index out of range: ${n}`);
        cur = cur[n];
      } else if (isMap(cur)) cur = cur[goText(k)];
      else throw new TemplateError(`error calling index: can't index item of type ${goType(cur)}`);
    }
    return cur;
  },
  print: (args) => args.map((a, i) => (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string' ? ' ' : '') + goText(a)).join(''),
  printf: ([f, ...args]) => sprintf(str(f, 'printf'), args),
  println: (args) => `${args.map(goText).join(' ')}\n`,
};

function asTime(v: unknown, fn: string): Date {
  if (!(v instanceof Date)) throw new TemplateError(`error calling ${fn}: wrong type for value; expected time.Time; got ${goType(v)}`);
  return v;
}

interface Scope {
  readonly dot: unknown;
  readonly vars: Map<string, unknown>;
  readonly now: () => Date;
}

function field(base: unknown, path: readonly string[]): unknown {
  let cur = base;
  for (const key of path) {
    if (isMap(cur)) {
      if (!(key in cur)) throw new TemplateError(`map has no entry for key "${key}"`);
      cur = cur[key];
    } else if (cur === undefined || cur === null) {
      throw new TemplateError(`nil pointer evaluating interface {}.${key}`);
    } else throw new TemplateError(`can't evaluate field ${key} in type ${goType(cur)}`);
  }
  return cur;
}

function evalOperand(op: Operand, s: Scope): unknown {
  switch (op.o) {
    case 'lit':
      return op.value;
    case 'fn':
      return call(op.name, [], s);
    case 'field': {
      let base: unknown;
      if (op.base === 'dot') base = s.dot;
      else if ('v' in op.base) {
        if (!s.vars.has(op.base.v)) throw new TemplateError(`undefined variable: ${op.base.v}`);
        base = s.vars.get(op.base.v);
      } else base = runPipeline(op.base.p, s);
      return field(base, op.path);
    }
  }
}

function call(name: string, args: unknown[], s: Scope): unknown {
  // `and` and `or` return the first falsy / truthy argument (or the last), as text/template does.
  if (name === 'and') return args.find((a) => !truthy(a)) ?? args[args.length - 1];
  if (name === 'or') return args.find((a) => truthy(a)) ?? args[args.length - 1];
  return CALLS[name]!(args, s.now);
}

function runPipeline(p: Pipeline, s: Scope): unknown {
  let value: unknown;
  let first = true;
  for (const cmd of p.cmds) {
    const [head, ...rest] = cmd;
    if (head!.o === 'fn') {
      const args = rest.map((a) => evalOperand(a, s));
      if (!first) args.push(value);
      value = call(head!.name, args, s);
    } else {
      if (rest.length > 0 || !first) throw new TemplateError(`can't give argument to non-function ${describeOperand(head!)}`);
      value = evalOperand(head!, s);
    }
    first = false;
  }
  if (p.decl.length === 1) s.vars.set(p.decl[0]!, value);
  return value;
}

function describeOperand(op: Operand): string {
  return op.o === 'field' ? `.${op.path.join('.')}` : op.o === 'lit' ? goText(op.value) : op.name;
}

function exec(nodes: readonly Node[], s: Scope, out: string[]): void {
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        out.push(n.text);
        break;
      case 'action': {
        const v = runPipeline(n.pipe, s);
        if (n.pipe.decl.length === 0) out.push(goText(v));
        break;
      }
      case 'if': {
        const v = runPipeline(n.pipe, { ...s, vars: new Map(s.vars) });
        exec(truthy(v) ? n.then : n.else, { ...s, vars: new Map(s.vars) }, out);
        break;
      }
      case 'with': {
        const inner = { ...s, vars: new Map(s.vars) };
        const v = runPipeline(n.pipe, inner);
        if (truthy(v)) exec(n.then, { ...inner, dot: v }, out);
        else exec(n.else, inner, out);
        break;
      }
      case 'range': {
        const vars = new Map(s.vars);
        const pipe = { ...n.pipe, decl: [] };
        const v = runPipeline(pipe, { ...s, vars });
        const entries: [unknown, unknown][] = Array.isArray(v)
          ? v.map((x, i) => [BigInt(i), x])
          : isMap(v)
            ? Object.keys(v)
                .sort()
                .map((k) => [k, v[k]])
            : typeof v === 'bigint'
              ? Array.from({ length: Number(v) }, (_x, i) => [BigInt(i), BigInt(i)])
              : v === undefined || v === null
                ? []
                : (() => {
                    throw new TemplateError(`range can't iterate over ${goText(v)}`);
                  })();
        if (entries.length === 0) exec(n.else, { ...s, vars }, out);
        for (const [k, x] of entries) {
          const iter = new Map(vars);
          if (n.pipe.decl.length === 1) iter.set(n.pipe.decl[0]!, x);
          if (n.pipe.decl.length === 2) {
            iter.set(n.pipe.decl[0]!, k);
            iter.set(n.pipe.decl[1]!, x);
          }
          exec(n.body, { ...s, dot: x, vars: iter }, out);
        }
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The template.

type MatchPart = { readonly literal: string } | { readonly name: string; readonly filter?: 'lower' | 'upper' };

export type RenderResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

export class GoTemplate {
  private constructor(
    readonly text: string,
    private readonly nodes: readonly Node[] | undefined,
    /** Set when the template is text and `{{ .name }}` actions only: it can be matched backwards. */
    private readonly matchParts: readonly MatchPart[] | undefined,
    private readonly readPaths: readonly (readonly string[])[],
  ) {}

  /** Parses once; throws TemplateError for what Go's parser refuses. */
  static parse(text: string): GoTemplate {
    if (!text.includes('{{')) return new GoTemplate(text, undefined, [{ literal: text }], []);
    const nodes = parseNodes(text);
    const paths: string[][] = [];
    collectPaths(nodes, paths);
    return new GoTemplate(text, nodes, matchPartsOf(nodes), paths);
  }

  get isStatic(): boolean {
    return this.nodes === undefined;
  }

  /** Whether an object's name can be matched back onto the params it was made from. */
  get matchable(): boolean {
    return this.matchParts !== undefined;
  }

  /** The template reads its data whole (`{{ . }}`, `{{ $ }}`). */
  get readsWhole(): boolean {
    return this.readPaths.some((p) => p.length === 0);
  }

  /** Top-level names the template reads from its data, in order of first use. */
  get params(): string[] {
    const out: string[] = [];
    for (const p of this.readPaths) if (p[0] !== undefined && !out.includes(p[0])) out.push(p[0]);
    return out;
  }

  /** The value paths the template reads from its data (`{{ .a.b }}` reads `a.b`); inside `with`/`range`, the block's own. */
  get paths(): (readonly string[])[] {
    return this.readPaths.filter((p) => p.length > 0);
  }

  /** Renders with `missingkey=error`; `now` is the clock `{{ now }}` reads. */
  renderResult(data: Readonly<Record<string, unknown>>, now: () => Date = () => new Date(0)): RenderResult {
    if (!this.nodes) return { ok: true, text: this.text };
    const out: string[] = [];
    try {
      exec(this.nodes, { dot: data, vars: new Map([['$', data]]), now }, out);
    } catch (e) {
      if (e instanceof TemplateError) return { ok: false, message: `failed to execute template: ${e.message}` };
      throw e;
    }
    return { ok: true, text: out.join('') };
  }

  /** The rendered text, or undefined when the template fails (a missing key, a wrong type). */
  render(data: Readonly<Record<string, unknown>>, now?: () => Date): string | undefined {
    const r = this.renderResult(data, now);
    return r.ok ? r.text : undefined;
  }

  /**
   * The values of single-name actions that make the template produce `text`, or undefined when it cannot (or the
   * template is not matchable). A name used twice must capture the same value both times.
   */
  match(text: string): Record<string, string> | undefined {
    if (!this.matchParts) return undefined;
    const m = this.regex().exec(text);
    if (!m) return undefined;
    const out: Record<string, string> = {};
    let group = 1;
    for (const p of this.matchParts) {
      if ('literal' in p) continue;
      const value = m[group++]!;
      const seen = out[p.name];
      if (seen !== undefined && seen !== value && seen.toLowerCase() !== value.toLowerCase()) return undefined;
      if (seen === undefined || p.filter === undefined) out[p.name] = value;
    }
    return out;
  }

  private compiled?: RegExp;
  private regex(): RegExp {
    if (this.compiled) return this.compiled;
    let src = '^';
    for (const p of this.matchParts ?? []) {
      if ('literal' in p) src += p.literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      else src += p.filter === 'lower' ? '([^A-Z]+?)' : p.filter === 'upper' ? '([^a-z]+?)' : '(.+?)';
    }
    this.compiled = new RegExp(src + '$');
    return this.compiled;
  }
}

function matchPartsOf(nodes: readonly Node[]): MatchPart[] | undefined {
  const out: MatchPart[] = [];
  for (const n of nodes) {
    if (n.t === 'text') {
      out.push({ literal: n.text });
      continue;
    }
    if (n.t !== 'action' || n.pipe.decl.length > 0) return undefined;
    const [first, second, ...more] = n.pipe.cmds;
    if (more.length > 0 || !first || first.length !== 1) return undefined;
    const op = first[0]!;
    if (op.o !== 'field' || op.base !== 'dot' || op.path.length !== 1) return undefined;
    if (!second) {
      out.push({ name: op.path[0]! });
      continue;
    }
    const f = second.length === 1 && second[0]!.o === 'fn' ? second[0]!.name : undefined;
    if (f !== 'lower' && f !== 'upper') return undefined;
    out.push({ name: op.path[0]!, filter: f });
  }
  return out;
}

/** Every `.a.b` read from the top-level data (inside `with` and `range` the dot moves, so those are not the data's). */
function collectPaths(nodes: readonly Node[], out: string[][], topDot = true): void {
  const fromPipe = (p: Pipeline, dotIsTop: boolean): void => {
    for (const cmd of p.cmds) {
      for (const op of cmd) {
        if (op.o !== 'field') continue;
        if (op.base === 'dot' && dotIsTop) out.push([...op.path]);
        else if (typeof op.base === 'object' && 'v' in op.base && op.base.v === '$') out.push([...op.path]);
        else if (typeof op.base === 'object' && 'p' in op.base) fromPipe(op.base.p, dotIsTop);
      }
    }
  };
  for (const n of nodes) {
    if (n.t === 'text') continue;
    fromPipe(n.pipe, topDot);
    if (n.t === 'action') continue;
    if (n.t === 'if') {
      collectPaths(n.then, out, topDot);
      collectPaths(n.else, out, topDot);
    } else if (n.t === 'with') {
      collectPaths(n.then, out, false);
      collectPaths(n.else, out, topDot);
    } else if (n.t === 'range') {
      collectPaths(n.body, out, false);
      collectPaths(n.else, out, topDot);
    }
  }
}
