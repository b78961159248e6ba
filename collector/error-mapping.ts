/**
 * Maps error messages back to the operations that return them, through each operation's Go format strings.
 * Verbs (%w %v %s %q %d and friends) become wildcards, and a format must match the whole message from its start.
 *
 * Several formats can match one message: a wrapped chain `a: b: c` matches the format of `a`, and a format whose
 * verb swallows `a: ` can match the same text from its start too. The outermost known format wins, ranked by:
 * 1. the longest literal lead (the text before the format's first verb): it describes the outer layer itself, where
 *    no verb can have swallowed anything;
 * 2. then the earliest wrapped cause (`%w`): the outer layer ends where its cause begins, and a format that reaches its
 *    `%w` later has swallowed an outer layer into a verb;
 * 3. then the most literal characters.
 * Formats tied on all three are equally good readings. When they belong to several operations (a format the code
 * shares, e.g. `failed to update status: %w`), every one is returned as a candidate: the caller settles it from the
 * rest of the evidence, or states only what all candidates agree on. A message that matches no format has none.
 */
import type { ErrorFormat, ModelOperation, ReconcileModel } from '../model/types.js';

/** One reading of a message: the operation that returns it, through which of its formats. */
export interface FormatMatch {
  readonly operation: string;
  readonly format: ErrorFormat;
}

interface CompiledFormat {
  /** Position in the model's formats: candidates are returned in this order. */
  readonly index: number;
  readonly operation: string;
  readonly format: ErrorFormat;
  /** Anchored; the first `%w` is the capture group `wrapped`, whose start the `d` flag gives. */
  readonly regex: RegExp;
  /** Literal characters in the format. */
  readonly specificity: number;
  /** The literal text before the first verb (`%%` read as `%`): every matching message starts with it. */
  readonly lead: string;
  /** The literal text before the first wildcard, as written (to recognise where an aggregate element starts). */
  readonly prefix: string;
}

const VERB = /%(?:%|[-+# 0]*\d*(?:\.\d+)?[wvsqdxXtTfegp])/g;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileFormat(index: number, operation: string, format: ErrorFormat): CompiledFormat {
  const text = format.format;
  let source = '^';
  let literal = 0;
  let last = 0;
  let prefix: string | undefined;
  let lead = '';
  let wrapped = false;
  for (const m of text.matchAll(VERB)) {
    const between = text.slice(last, m.index);
    source += escapeRegex(between);
    literal += between.length;
    if (prefix === undefined) lead += between;
    if (m[0] === '%%') {
      source += '%';
      literal++;
      if (prefix === undefined) lead += '%';
    } else {
      prefix ??= text.slice(0, m.index);
      if (m[0].endsWith('w') && !wrapped) {
        source += '(?<wrapped>[\\s\\S]*?)';
        wrapped = true;
      } else source += '[\\s\\S]*?';
    }
    last = m.index + m[0].length;
  }
  const tail = text.slice(last);
  source += escapeRegex(tail) + '$';
  literal += tail.length;
  if (prefix === undefined) lead += tail;
  return { index, operation, format, regex: new RegExp(source, 'd'), specificity: literal, lead, prefix: prefix ?? text };
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

  /** The formats whose lead `message` starts with, longest lead first. */
  candidates(message: string): CompiledFormat[] {
    const out: CompiledFormat[] = [];
    this.collect(message, 0, out);
    return out.reverse();
  }

  /** Adds this node's formats, then walks on along the edge `message` continues with from `at`, if any. */
  private collect(message: string, at: number, out: CompiledFormat[]): void {
    for (const f of this.here) out.push(f);
    const edge = at < message.length ? this.edges.get(message.charCodeAt(at)) : undefined;
    if (edge && message.startsWith(edge.label, at)) edge.node.collect(message, at + edge.label.length, out);
  }
}

/** The formats an error of `op` can start with; by default all of them (both loops). */
export type FormatsOf = (op: ModelOperation) => readonly ErrorFormat[];

export class ErrorMapper {
  private readonly formats: readonly CompiledFormat[];
  private readonly byLead = new LeadTree();

  constructor(model: ReconcileModel, formatsOf: FormatsOf = (op) => op.errors) {
    const pairs = model.operations.flatMap((op) => formatsOf(op).map((f) => [op.name, f] as const));
    this.formats = pairs.map(([operation, format], index) => compileFormat(index, operation, format));
    for (const f of this.formats) this.byLead.add(f);
  }

  /** The outermost readings of the whole message, one per operation (in model order); empty when none matches. */
  map(message: string): readonly FormatMatch[] {
    let best: CompiledFormat[] = [];
    let bestRank: readonly number[] = [];
    for (const f of this.byLead.candidates(message)) {
      // candidates come longest lead first: a shorter lead can no longer beat a match found
      if (best.length > 0 && f.lead.length < best[0]!.lead.length) break;
      const m = f.regex.exec(message);
      if (!m) continue;
      const rank = [f.lead.length, -(m.indices?.groups?.wrapped?.[0] ?? message.length), f.specificity];
      const order = best.length === 0 ? 1 : compareRanks(rank, bestRank);
      if (order > 0) {
        best = [f];
        bestRank = rank;
      } else if (order === 0) best.push(f);
    }
    const seen = new Set<string>();
    return best
      .sort((a, b) => a.index - b.index)
      .filter((f) => !seen.has(f.operation) && seen.add(f.operation))
      .map((f) => ({ operation: f.operation, format: f.format }));
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

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! > b[i]! ? 1 : -1;
  return 0;
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

/**
 * Errors that are no operation's, recognised by shape (Go formats, e.g. the Reconcile() wrapper's status-update
 * conflict `Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io %q: %s`): they never become
 * outcomes.
 */
export class NonOperationErrors {
  private readonly regexes: readonly RegExp[];

  constructor(formats: readonly string[]) {
    this.regexes = formats.map((format, i) => compileFormat(i, '', { format }).regex);
  }

  matches(message: string): boolean {
    return this.regexes.some((r) => r.test(message));
  }
}

/** The phased loop's `aggregate()` text, taken apart (see the HyperShift reference, section 2.1). */
export interface ReconcileErrorText {
  /** True for `critical error: …`: a critical group failed and non-critical errors were dropped from the text. */
  readonly critical: boolean;
  /** The error messages it carries, aggregate elements split. */
  readonly errors: readonly string[];
  /** Operation or group names listed after `blocked operations:`; undefined when the text has no such list. */
  readonly blocked?: readonly string[];
}

const CRITICAL_PREFIX = 'critical error: ';
const BLOCKED_MARK = '; blocked operations: [';

export function parseReconcileError(message: string, mapper: ErrorMapper): ReconcileErrorText {
  if (!message.startsWith(CRITICAL_PREFIX)) return { critical: false, errors: mapper.splitAggregate(message) };
  let body = message.slice(CRITICAL_PREFIX.length);
  const mark = body.lastIndexOf(BLOCKED_MARK);
  if (mark >= 0 && body.endsWith(']')) {
    const blocked = body
      .slice(mark + BLOCKED_MARK.length, -1)
      .split(', ')
      .filter((s) => s !== '');
    body = body.slice(0, mark);
    return { critical: true, errors: mapper.splitAggregate(body), blocked };
  }
  return { critical: true, errors: mapper.splitAggregate(body) };
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
