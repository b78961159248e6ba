/**
 * The part of an input the rules read, and that part alone as CEL sees it. A `ReadSet` is a tree of field names
 * (reads.ts builds it from the task config); `projectToCel` keeps, of a JSON value, the fields of the tree: whole
 * where a rule uses the value (compares, iterates, converts, returns it), only the listed fields where rules only
 * select fields from it, and an empty map where they only test that it is there (`has()`, `.?x.hasValue()`).
 * Every rule evaluates on the projection exactly as on the whole input, since a rule never reaches a field it does
 * not name; what it does not name, the recreation analyzer need not keep.
 */
import { InputTooLarge, listTooLarge, toCelValue, type EvalResult } from './cel.js';

export class ReadSet {
  /** The value is used as a whole: kept as it is. */
  private entire = false;
  private readonly children = new Map<string, ReadSet>();

  /** A read of the value at `path`: of all of it (`whole`), or of whether it is there. */
  add(path: readonly string[], whole: boolean): void {
    if (this.entire) return;
    const [key, ...rest] = path;
    if (key === undefined) {
      if (whole) {
        this.entire = true;
        this.children.clear();
      }
      return;
    }
    let child = this.children.get(key);
    if (!child) this.children.set(key, (child = new ReadSet()));
    child.add(rest, whole);
  }

  get whole(): boolean {
    return this.entire;
  }

  field(key: string): ReadSet | undefined {
    return this.children.get(key);
  }
}

/** Projections that keep nothing are all this one map, and one result (nothing mutates a CEL input). */
const EMPTY_MAP: Readonly<Record<string, unknown>> = Object.freeze({});
const EMPTY_INPUT: EvalResult = Object.freeze({ ok: true, value: EMPTY_MAP });

/**
 * `toCelValue` of the part of `value` that `reads` covers. Lists anywhere in `value`, kept or not, are held to the
 * input cap in the order `toCelValue` meets them, so an input too large is refused with the same message as before.
 */
export function projectToCel(value: unknown, reads: ReadSet, maxList: number): unknown {
  if (reads.whole || !isMap(value)) return toCelValue(value, maxList);
  let out: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(value)) {
    const child = reads.field(key);
    if (!child) {
      checkLists(v, maxList);
      continue;
    }
    const projected = projectToCel(v, child, maxList);
    if (projected !== undefined) (out ??= {})[key] = projected;
  }
  return out ?? EMPTY_MAP;
}

/** An input as the rules see it, or why it cannot be evaluated (a list over the cap). */
export function projectInput(value: unknown, reads: ReadSet, maxList: number): EvalResult {
  try {
    const projected = projectToCel(value, reads, maxList);
    return projected === EMPTY_MAP ? EMPTY_INPUT : { ok: true, value: projected };
  } catch (e) {
    if (e instanceof InputTooLarge) return { ok: false, reason: 'input_too_large', message: e.message };
    throw e;
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Throws as `toCelValue` would over this value, without converting it. */
function checkLists(value: unknown, maxList: number): void {
  if (Array.isArray(value)) {
    if (value.length > maxList) throw listTooLarge(value.length, maxList);
    for (const v of value) checkLists(v, maxList);
  } else if (isMap(value)) {
    for (const v of Object.values(value)) checkLists(v, maxList);
  }
}
