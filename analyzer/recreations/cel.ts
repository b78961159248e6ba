/**
 * CEL for adapter rules, with @marcbachmann/cel-js: every expression is compiled once at start (optional types on,
 * structural limits set) and then only evaluated. A rule that could run away is refused at start: the parser limits
 * bound its size and depth, a static estimate bounds the work of its macros over inputs whose lists are capped, and
 * regular expressions must be literals without nested quantifiers. Evaluation converts inputs the way CEL expects
 * (JSON integers become `int`, nulls are absent) and reports failures under a bounded reason, never as false.
 */
import { performance } from 'node:perf_hooks';
import { Environment, ParseError, type ASTNode } from '@marcbachmann/cel-js';
import { registerAdapterFunctions } from './cel-adapter-functions.js';
import type { ExpressionSpec } from './task-config.js';

export interface CelLimits {
  readonly maxAstNodes: number;
  readonly maxDepth: number;
  readonly maxListElements: number;
  readonly maxMapEntries: number;
  readonly maxCallArguments: number;
  /** Input lists longer than this fail the evaluation (`input_too_large`); macros iterate at most this many items. */
  readonly maxInputListElements: number;
  /** Refused at start above this many estimated node visits per evaluation (macros multiply by the list cap). */
  readonly maxCost: number;
  /**
   * An evaluation that took longer is reported as `budget_exceeded` and its result discarded. The static cost bound
   * is what keeps rules fast; this wall-clock net is generous so a GC pause never turns a decision into an error.
   */
  readonly evalBudgetMs: number;
}

export const DEFAULT_CEL_LIMITS: CelLimits = {
  maxAstNodes: 2000,
  maxDepth: 32,
  maxListElements: 256,
  maxMapEntries: 256,
  maxCallArguments: 16,
  maxInputListElements: 256,
  maxCost: 2_000_000,
  evalBudgetMs: 500,
};

/** Bounded reasons an evaluation fails; they label counts, so the list is closed. */
export const EVAL_ERROR_REASONS = [
  'no_such_key',
  'no_such_overload',
  'unknown_variable',
  'unsupported_function',
  'division_by_zero',
  'conversion',
  'not_bool',
  'input_too_large',
  'budget_exceeded',
  'evaluation_failed',
] as const;
export type EvalErrorReason = (typeof EVAL_ERROR_REASONS)[number];

export type EvalResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: EvalErrorReason; readonly message: string };

export class CelCompileError extends Error {}

/**
 * Whether a result counts as matched, as the adapter's EvaluateSafe decides (criteria/cel_evaluator.go): an
 * evaluation error is not matched (the error is kept for the summary), a bool is itself, and any other value is
 * matched unless it is null or empty (an empty string, list or map).
 */
export function celMatched(r: EvalResult): boolean {
  if (!r.ok) return false;
  const v = r.value;
  if (typeof v === 'boolean') return v;
  if (v === null || v === undefined || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array)) return Object.keys(v).length > 0;
  return true;
}

export interface CompiledExpression {
  readonly spec: ExpressionSpec;
  /** The parsed expression: what it reads of its inputs is found by walking it (reads.ts). */
  readonly ast: ASTNode;
  evaluate(context: Readonly<Record<string, unknown>>): EvalResult;
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
/** Rules are mostly predicates: their results are shared rather than made per evaluation. */
const TRUE: EvalResult = Object.freeze({ ok: true, value: true });
const FALSE: EvalResult = Object.freeze({ ok: true, value: false });
const MAX_MESSAGE = 300;

/** Converts JSON-shaped input into CEL values: integers to `int` (bigint), nulls dropped, lists capped. */
export function toCelValue(value: unknown, maxList: number): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) {
    if (value.length > maxList) throw listTooLarge(value.length, maxList);
    return value.map((v) => toCelValue(v, maxList) ?? null);
  }
  if (typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const c = toCelValue(v, maxList);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  return value;
}

export class InputTooLarge extends Error {}

export function listTooLarge(length: number, maxList: number): InputTooLarge {
  return new InputTooLarge(`a list of ${length} items exceeds the input cap of ${maxList}`);
}

export class CelRuntime {
  private readonly env: Environment;
  /** The time `now()` returns; set by the caller to the observation's time before evaluating. */
  nowMs = 0;

  constructor(readonly limits: CelLimits = DEFAULT_CEL_LIMITS) {
    this.env = new Environment({
      unlistedVariablesAreDyn: true,
      enableOptionalTypes: true,
      homogeneousAggregateLiterals: false,
      limits: {
        maxAstNodes: limits.maxAstNodes,
        maxDepth: limits.maxDepth,
        maxListElements: limits.maxListElements,
        maxMapEntries: limits.maxMapEntries,
        maxCallArguments: limits.maxCallArguments,
      },
    });
    registerAdapterFunctions(this.env, () => this.nowMs);
  }

  /** Compiles once; throws CelCompileError naming file:line:column, the owner field and the caret. */
  compile(spec: ExpressionSpec): CompiledExpression {
    let parsed;
    try {
      parsed = this.env.parse(spec.source);
    } catch (e) {
      if (e instanceof ParseError) throw this.compileError(spec, e.message, e.range?.start ?? 0);
      throw e;
    }
    const cost = estimateCost(parsed.ast, this.limits.maxInputListElements);
    if (cost > this.limits.maxCost) {
      throw this.compileError(
        spec,
        `refused: up to ${cost} steps per evaluation (limit ${this.limits.maxCost}); nested macros over input lists multiply by ${this.limits.maxInputListElements} per level`,
        0,
      );
    }
    const regex = unsafeRegex(parsed.ast);
    if (regex) throw this.compileError(spec, `refused: ${regex.message}`, regex.pos);
    // Like the adapter (cel_evaluator.go EvaluateSafe), no type check: variables are dyn, so type errors and unknown
    // functions surface when evaluated.
    const budget = this.limits.evalBudgetMs;
    const evaluate = (context: Readonly<Record<string, unknown>>): EvalResult => {
      const started = performance.now();
      try {
        const value: unknown = parsed(context);
        if (performance.now() - started > budget) return { ok: false, reason: 'budget_exceeded', message: `evaluation took longer than ${budget} ms` };
        return value === true ? TRUE : value === false ? FALSE : { ok: true, value };
      } catch (e) {
        return { ok: false, ...classify(e) };
      }
    };
    return { spec, ast: parsed.ast, evaluate };
  }

  private compileError(spec: ExpressionSpec, message: string, offset: number): CelCompileError {
    const before = spec.source.slice(0, offset);
    const lineInExpr = before.split('\n').length - 1;
    const colInExpr = offset - (before.lastIndexOf('\n') + 1);
    // Block scalars keep their line breaks and indentation, so a caret maps straight onto the file.
    const line = spec.block ? spec.line + lineInExpr : spec.line;
    const column = spec.column + colInExpr;
    const [summary, ...excerpt] = message.split('\n');
    const caret = excerpt.length > 0 ? excerpt.join('\n') : caretExcerpt(spec.source, offset);
    return new CelCompileError(`${spec.file}:${line}:${column} ${spec.owner}: ${summary}\n${caret.replace(/^\n+/, '')}`);
  }
}

function caretExcerpt(source: string, offset: number): string {
  const start = source.lastIndexOf('\n', offset - 1) + 1;
  const end = source.indexOf('\n', offset);
  const line = source.slice(start, end === -1 ? undefined : end);
  return `    ${line}\n    ${' '.repeat(offset - start)}^`;
}

function classify(e: unknown): { reason: EvalErrorReason; message: string } {
  const full = e instanceof Error ? e.message : String(e);
  const message = (full.split('\n')[0] ?? '').slice(0, MAX_MESSAGE);
  if (e instanceof InputTooLarge) return { reason: 'input_too_large', message };
  if (message.startsWith('No such key')) return { reason: 'no_such_key', message };
  if (/no (such|matching) overload/.test(message)) return { reason: 'no_such_overload', message };
  if (message.startsWith('Unknown variable')) return { reason: 'unknown_variable', message };
  if (message.includes('division by zero') || message.includes('modulus by zero')) return { reason: 'division_by_zero', message };
  if (/cannot convert|type error/.test(message)) return { reason: 'conversion', message };
  if (/[Ff]unction not found|found no matching overload for '[a-zA-Z]+' applied to/.test(message) && /not found/.test(message))
    return { reason: 'unsupported_function', message };
  return { reason: 'evaluation_failed', message };
}

/** The operands of a node, in source order. */
export function children(n: ASTNode): ASTNode[] {
  switch (n.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [n.args[0]];
    case 'call':
      return n.args[1];
    case 'rcall':
      return [n.args[1], ...n.args[2]];
    case 'list':
      return n.args;
    case 'map':
      return n.args.flatMap(([k, v]) => [k, v]);
    case '!_':
    case '-_':
      return [n.args];
    default:
      return [...(n.args as readonly ASTNode[])];
  }
}

/**
 * Worst-case node visits of one evaluation: a macro's body runs once per item of its target, which is a literal
 * list's length or, for input, the input list cap; nested macros multiply.
 */
export function estimateCost(n: ASTNode, maxInputList: number): number {
  if (n.op === 'rcall' && MACROS.has(n.args[0]) && n.args[2].length >= 2) {
    const target = n.args[1];
    const items = target.op === 'list' ? target.args.length : maxInputList;
    const body = n.args[2].slice(1).reduce((sum, c) => sum + estimateCost(c, maxInputList), 0);
    return 1 + estimateCost(target, maxInputList) + items * body;
  }
  return children(n).reduce((sum, c) => sum + estimateCost(c, maxInputList), 1);
}

/** `matches()` with a computed pattern or a literal one with nested quantifiers could backtrack for ever. */
function unsafeRegex(n: ASTNode): { message: string; pos: number } | undefined {
  const pattern = n.op === 'rcall' && n.args[0] === 'matches' ? n.args[2][0] : n.op === 'call' && n.args[0] === 'matches' ? n.args[1][1] : null;
  if (pattern !== null) {
    if (!pattern || pattern.op !== 'value' || typeof pattern.args !== 'string') return { message: 'matches() needs a literal pattern', pos: n.pos };
    if (/\([^)]*[+*][^)]*\)\s*[+*{]/.test(pattern.args)) return { message: `pattern ${JSON.stringify(pattern.args)} nests quantifiers`, pos: pattern.pos };
  }
  for (const c of children(n)) {
    const found = unsafeRegex(c);
    if (found) return found;
  }
  return undefined;
}
