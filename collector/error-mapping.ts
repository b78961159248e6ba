/**
 * Maps error messages back to the operations that return them, through each operation's Go format strings.
 * Verbs (%w %v %s %q %d and friends) become wildcards; a format must match from the start of the message, so a
 * wrapped chain `a: b: c` maps to its outermost known format. A message that matches no format, or matches two
 * operations equally well, is unmapped: it is counted and sampled, never guessed.
 */
import type { ReconcileModel } from '../model/types.js';

export type ErrorMatch = { readonly kind: 'mapped'; readonly operation: string; readonly format: string } | { readonly kind: 'unmapped'; readonly why: 'no_format' | 'ambiguous'; readonly candidates: readonly string[] };

interface CompiledFormat {
  readonly operation: string;
  readonly format: string;
  readonly regex: RegExp;
  /** Literal characters in the format: the more, the more specific the match. */
  readonly specificity: number;
  /** The literal text before the first verb, to recognise where an aggregate element starts. */
  readonly prefix: string;
}

const VERB = /%(?:%|[-+# 0]*\d*(?:\.\d+)?[wvsqdxXtTfegp])/g;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileFormat(operation: string, format: string): CompiledFormat {
  let source = '^';
  let literal = 0;
  let last = 0;
  let prefix: string | undefined;
  for (const m of format.matchAll(VERB)) {
    const text = format.slice(last, m.index);
    source += escapeRegex(text);
    literal += text.length;
    if (m[0] === '%%') {
      source += '%';
      literal++;
    } else {
      prefix ??= format.slice(0, m.index);
      source += '[\\s\\S]*?';
    }
    last = m.index + m[0].length;
  }
  const tail = format.slice(last);
  source += escapeRegex(tail) + '$';
  literal += tail.length;
  return { operation, format, regex: new RegExp(source), specificity: literal, prefix: prefix ?? format };
}

export class ErrorMapper {
  private readonly formats: readonly CompiledFormat[];

  constructor(model: ReconcileModel) {
    this.formats = model.operations.flatMap((op) => op.errors.map((f) => compileFormat(op.name, f)));
  }

  /** The operation whose error format matches the whole message most specifically. */
  map(message: string): ErrorMatch {
    let best: CompiledFormat[] = [];
    for (const f of this.formats) {
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
  const list = (label: string): string[] => {
    const m = new RegExp(`${label}: \\[([^\\]]*)\\]`).exec(summary);
    return m?.[1] ? m[1].split(', ').filter((s) => s !== '') : [];
  };
  return { critical: list('critical failures'), blocked: list('blocked operations') };
}
