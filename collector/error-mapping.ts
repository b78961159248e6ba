/**
 * Maps error messages back to the operations that return them, through each operation's Go format strings.
 * Verbs (%w %v %s %q %d and friends) become wildcards; a format must match from the start of the message, so a
 * wrapped chain `a: b: c` maps to its outermost known format. A message that matches no format, or matches two
 * operations equally well, is unmapped: it is counted and sampled, never guessed.
 */
import type { ReconcileModel } from '../model/types.js';

export type ErrorMatch = { readonly kind: 'mapped'; readonly operation: string; readonly format: string } | { readonly kind: 'unmapped'; readonly why: 'no_format' | 'ambiguous'; readonly candidates: readonly string[] };

interface CompiledFormat {
  /** Position in the model's formats: candidates are tried in this order, which decides ties. */
  readonly index: number;
  readonly operation: string;
  readonly format: string;
  readonly regex: RegExp;
  /** Literal characters in the format: the more, the more specific the match. */
  readonly specificity: number;
  /** The literal text before the first verb, to recognise where an aggregate element starts. */
  readonly prefix: string;
  /** The text a matching message starts with: the literal before the first wildcard verb, `%%` read as `%`. */
  readonly lead: string;
}

const VERB = /%(?:%|[-+# 0]*\d*(?:\.\d+)?[wvsqdxXtTfegp])/g;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileFormat(index: number, operation: string, format: string): CompiledFormat {
  let source = '^';
  let literal = 0;
  let last = 0;
  let prefix: string | undefined;
  let lead = '';
  for (const m of format.matchAll(VERB)) {
    const text = format.slice(last, m.index);
    source += escapeRegex(text);
    literal += text.length;
    if (prefix === undefined) lead += text;
    if (m[0] === '%%') {
      source += '%';
      literal++;
      if (prefix === undefined) lead += '%';
    } else {
      prefix ??= format.slice(0, m.index);
      source += '[\\s\\S]*?';
    }
    last = m.index + m[0].length;
  }
  const tail = format.slice(last);
  source += escapeRegex(tail) + '$';
  literal += tail.length;
  if (prefix === undefined) lead += tail;
  return { index, operation, format, regex: new RegExp(source), specificity: literal, prefix: prefix ?? format, lead };
}

/**
 * The formats by their leads, as a radix tree: walking a message down it yields exactly the formats whose lead the
 * message starts with, the only ones whose anchored regex can match. A model has ~100 formats, most of them
 * `failed to …`; testing every regex against every message was the log source's largest cost.
 */
class LeadTree {
  private readonly here: CompiledFormat[] = [];
  /** By the first char code of the edge's label; labels of one node's edges never share a first char. */
  private readonly edges = new Map<number, { label: string; node: LeadTree }>();

  add(f: CompiledFormat, from = 0): void {
    if (from === f.lead.length) {
      this.here.push(f);
      return;
    }
    const code = f.lead.charCodeAt(from);
    const edge = this.edges.get(code);
    if (!edge) {
      const leaf = new LeadTree();
      leaf.here.push(f);
      this.edges.set(code, { label: f.lead.slice(from), node: leaf });
      return;
    }
    let common = 1;
    while (common < edge.label.length && edge.label[common] === f.lead[from + common]) common++;
    if (common < edge.label.length) {
      // split the edge where the new lead leaves it
      const middle = new LeadTree();
      middle.edges.set(edge.label.charCodeAt(common), { label: edge.label.slice(common), node: edge.node });
      this.edges.set(code, { label: edge.label.slice(0, common), node: middle });
      middle.add(f, from + common);
    } else edge.node.add(f, from + common);
  }

  /** The formats whose lead `message` starts with, in model order. */
  candidates(message: string): CompiledFormat[] {
    const out: CompiledFormat[] = [];
    this.collect(message, 0, out);
    return out.length > 1 ? out.sort((a, b) => a.index - b.index) : out;
  }

  /** Adds this node's formats, then walks on along the edge `message` continues with from `at`, if any. */
  private collect(message: string, at: number, out: CompiledFormat[]): void {
    for (const f of this.here) out.push(f);
    const edge = at < message.length ? this.edges.get(message.charCodeAt(at)) : undefined;
    if (edge && message.startsWith(edge.label, at)) edge.node.collect(message, at + edge.label.length, out);
  }
}

export class ErrorMapper {
  private readonly formats: readonly CompiledFormat[];
  private readonly byLead = new LeadTree();

  constructor(model: ReconcileModel) {
    const pairs = model.operations.flatMap((op) => op.errors.map((f) => [op.name, f.format] as const));
    this.formats = pairs.map(([operation, format], index) => compileFormat(index, operation, format));
    for (const f of this.formats) this.byLead.add(f);
  }

  /** The operation whose error format matches the whole message most specifically. */
  map(message: string): ErrorMatch {
    let best: CompiledFormat[] = [];
    for (const f of this.byLead.candidates(message)) {
      if (!f.regex.test(message)) continue;
      if (best.length === 0 || f.specificity > best[0]!.specificity) best = [f];
      else if (f.specificity === best[0]!.specificity) best.push(f);
    }
    const ops = [...new Set(best.map((f) => f.operation))];
    if (ops.length === 1) return { kind: 'mapped', operation: ops[0]!, format: best[0]!.format };
    return { kind: 'unmapped', why: ops.length === 0 ? 'no_format' : 'ambiguous', candidates: ops };
  }

  /**
   * Splits an apimachinery aggregate `[e1, e2]` into its messages. Elements may contain ", " themselves, so a
   * piece starts a new element only where a known format's literal prefix begins.
   */
  splitAggregate(message: string): string[] {
    if (!(message.startsWith('[') && message.endsWith(']'))) return [message];
    const pieces = splitTopLevel(message.slice(1, -1));
    const out: string[] = [];
    for (const piece of pieces) {
      if (out.length === 0 || this.startsKnown(piece)) out.push(piece);
      else out[out.length - 1] += `, ${piece}`;
    }
    return out;
  }

  private startsKnown(piece: string): boolean {
    return this.formats.some((f) => f.prefix !== '' && piece.startsWith(f.prefix));
  }
}

/** Splits on ", " outside nested brackets. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0 && text[i + 1] === ' ') {
      out.push(text.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** The phased loop's `aggregate()` text, taken apart (see the HyperShift reference, section 2.1). */
export interface ReconcileErrorText {
  /** True for `critical error: …`: a critical group failed and non-critical errors were dropped from the text. */
  readonly critical: boolean;
  /** The error messages it carries, aggregate elements split. */
  readonly errors: readonly string[];
  /** Operation or group names listed after `blocked operations:`. */
  readonly blocked: readonly string[];
}

const CRITICAL_PREFIX = 'critical error: ';
const BLOCKED_MARK = '; blocked operations: [';

export function parseReconcileError(message: string, mapper: ErrorMapper): ReconcileErrorText {
  if (!message.startsWith(CRITICAL_PREFIX)) return { critical: false, errors: mapper.splitAggregate(message), blocked: [] };
  let body = message.slice(CRITICAL_PREFIX.length);
  let blocked: string[] = [];
  const mark = body.lastIndexOf(BLOCKED_MARK);
  if (mark >= 0 && body.endsWith(']')) {
    blocked = body
      .slice(mark + BLOCKED_MARK.length, -1)
      .split(', ')
      .filter((s) => s !== '');
    body = body.slice(0, mark);
  }
  return { critical: true, errors: mapper.splitAggregate(body), blocked };
}

/** The log line's `summary` (`logSummary()`): `critical failures: [A, B]; blocked operations: [X, Y]`. */
export function parseLogSummary(summary: string): { critical: string[]; blocked: string[] } {
  const list = (label: RegExp): string[] => {
    const m = label.exec(summary);
    return m?.[1] ? m[1].split(', ').filter((s) => s !== '') : [];
  };
  return { critical: list(CRITICAL_FAILURES), blocked: list(BLOCKED_OPERATIONS) };
}

const CRITICAL_FAILURES = /critical failures: \[([^\]]*)\]/;
const BLOCKED_OPERATIONS = /blocked operations: \[([^\]]*)\]/;
