/**
 * Maps error messages back to the operations that return them, through each operation's Go format strings.
 * Verbs (%w %v %s %q %d and friends) become wildcards, and a format must match the whole message from its start.
 *
 * Several formats can match one message. A wrapped chain `a: b: c` matches the format of `a` (its `%w` holds `b: c`),
 * but a format whose value verb (`%s`, `%v`, `%q`, …) swallows the layer boundary `a: ` can match the same text from
 * its start too: that reading is not the outermost format, and it is dropped whenever a reading without such a
 * swallow exists. Every other matching format is a candidate: a format the code shares (`failed to update status:
 * %w`), or a text two operations' formats both describe (`pull secret unavailable: %w` and `pull secret unavailable:
 * expected %s key in secret %q`), is never credited to one operation here; the caller settles it from the rest of
 * the evidence, or states only what all candidates agree on. Per operation, its most specific matching format is
 * kept (the longest literal lead, then the most literal text), since its effect may depend on which it was.
 */
import type { ErrorFormat, ReconcileModel } from '../../model/types.js';

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
  /** Anchored; every verb is a capture group, in order. */
  readonly regex: RegExp;
  /**
   * Per capture group: true for a value verb (not `%w`) with literal text after it. If its text holds a layer boundary,
   * the verb was stretched over an outer layer to reach that literal: not the outermost reading.
   */
  readonly valueGroups: readonly boolean[];
  /** Literal characters in the format. */
  readonly specificity: number;
  /** The literal text before the first verb (`%%` read as `%`): every matching message starts with it. */
  readonly lead: string;
  /** The literal text before the first wildcard, as written (to recognise where an aggregate element starts). */
  readonly prefix: string;
}

const VERB = /%(?:%|[-+# 0]*\d*(?:\.\d+)?[wvsqdxXtTfegp])/g;
/** How Go error chains join their layers (`fmt.Errorf("…: %w", err)`). */
const LAYER_BOUNDARY = ': ';

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
  const valueGroups: boolean[] = [];
  const pendingValues: number[] = [];
  for (const m of text.matchAll(VERB)) {
    const between = text.slice(last, m.index);
    if (between !== '') for (const k of pendingValues.splice(0)) valueGroups[k] = true;
    source += escapeRegex(between);
    literal += between.length;
    if (prefix === undefined) lead += between;
    if (m[0] === '%%') {
      source += '%';
      literal++;
      if (prefix === undefined) lead += '%';
    } else {
      prefix ??= text.slice(0, m.index);
      source += '([\\s\\S]*?)';
      // a value verb with literal text after it (set once the literal is seen)
      valueGroups.push(false);
      if (!m[0].endsWith('w')) pendingValues.push(valueGroups.length - 1);
    }
    last = m.index + m[0].length;
  }
  const tail = text.slice(last);
  if (tail !== '') for (const k of pendingValues.splice(0)) valueGroups[k] = true;
  source += escapeRegex(tail) + '$';
  literal += tail.length;
  if (prefix === undefined) lead += tail;
  return { index, operation, format, regex: new RegExp(source), valueGroups, specificity: literal, lead, prefix: prefix ?? text };
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

  /** The formats whose lead `message` starts with. */
  candidates(message: string): CompiledFormat[] {
    const out: CompiledFormat[] = [];
    this.collect(message, 0, out);
    return out;
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
    const pairs = model.operations.flatMap((op) => op.errors.map((f) => [op.name, f] as const));
    this.formats = pairs.map(([operation, format], index) => compileFormat(index, operation, format));
    for (const f of this.formats) this.byLead.add(f);
  }

  /**
   * The outermost readings of the whole message through the selected formats (by default all), one per operation (in
   * model order); empty when none matches.
   */
  map(message: string, accepts: FormatSelection = ANY_FORMAT): readonly FormatMatch[] {
    return outermost(this.matching(message), accepts);
  }

  /**
   * map() within each selection of the formats (e.g. each loop's): the same as one mapper per selection, with every
   * regex tried once.
   */
  mapEach(message: string, selections: readonly FormatSelection[]): (readonly FormatMatch[])[] {
    const matching = this.matching(message);
    return selections.map((accepts) => outermost(matching, accepts));
  }

  /** The formats that match the whole message (shorter leads first), each with whether a value verb swallows a layer. */
  private matching(message: string): Matching[] {
    const out: Matching[] = [];
    for (const f of this.byLead.candidates(message)) {
      const m = f.regex.exec(message);
      if (!m) continue;
      out.push({ f, swallows: f.valueGroups.some((value, k) => value && m[k + 1]!.includes(LAYER_BOUNDARY)) });
    }
    return out;
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

/** Which formats a mapping may read a message through. */
export type FormatSelection = (format: ErrorFormat) => boolean;

const ANY_FORMAT: FormatSelection = () => true;

interface Matching {
  readonly f: CompiledFormat;
  readonly swallows: boolean;
}

/**
 * The outermost readings among the selected matching formats: those whose value verbs swallow no layer when there are
 * any, and per operation its most specific format; in model order.
 */
function outermost(matching: readonly Matching[], accepts: FormatSelection): FormatMatch[] {
  const plausible: CompiledFormat[] = [];
  const swallowing: CompiledFormat[] = [];
  for (const { f, swallows } of matching) if (accepts(f.format)) (swallows ? swallowing : plausible).push(f);
  const readings = plausible.length > 0 ? plausible : swallowing;
  const best = new Map<string, CompiledFormat>();
  for (const f of readings) {
    const kept = best.get(f.operation);
    if (!kept || f.lead.length > kept.lead.length || (f.lead.length === kept.lead.length && f.specificity > kept.specificity)) best.set(f.operation, f);
  }
  return [...best.values()].sort((a, b) => a.index - b.index).map((f) => ({ operation: f.operation, format: f.format }));
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

/**
 * The phased loop's `aggregate()` text, taken apart (upstream `(*reconcileReport).aggregate()` in reconcile_report.go;
 * docs/log-source.md, "Taking the error apart").
 */
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
