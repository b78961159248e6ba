/**
 * The CEL environment of the HyperFleet adapter on top of @marcbachmann/cel-js (hyperfleet-adapter
 * internal/criteria/cel_evaluator.go buildCELOptions, customCELFunctions): cel-go's `ext.Lists()` (distinct, sort,
 * sortBy, slice, flatten, first, last, reverse, lists.range) and the parts of `ext.Strings()` cel-js lacks (charAt,
 * replace, reverse, strings.quote), and the adapter's own functions: toJson, dig, now (an RFC 3339 string),
 * conditionStatus, conditionAge, stableFor, statusFeedbackValue, triState. Each follows the Go function it mirrors;
 * times are the runtime's injected clock, never the wall clock.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { rfc3339 } from './go-time.js';

type Ev = { run(ast: unknown, ctx: unknown): unknown };
type Ctx = { forkWithVariable(name: string, type: unknown): Ctx; reuse(ctx: unknown): { setIterValue(v: unknown, ev: Ev): unknown } };
type Checker = { check(ast: unknown, ctx: unknown): unknown };

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof Uint8Array);
}

/** JSON as Go's json.Marshal writes it: map keys sorted, CEL ints as numbers. */
export function goJson(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (v instanceof Map) return goJson(Object.fromEntries(v as Map<string, unknown>));
  if (isMap(v)) {
    if ('hasValue' in v && typeof (v as { hasValue: unknown }).hasValue === 'function') return 'null';
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(typeof v === 'symbol' || typeof v === 'function' ? typeof v : Object.prototype.toString.call(v));
}

/** criteria/cel_evaluator.go digValue: dot-separated map keys and list indexes; absent → not found. */
export function digValue(root: unknown, path: string): { found: boolean; value?: unknown } {
  let cur = root;
  for (const raw of path.trim().split('.')) {
    const part = raw.trim();
    if (part === '') continue;
    if (isMap(cur)) {
      if (!(part in cur)) return { found: false };
      cur = cur[part];
    } else if (Array.isArray(cur)) {
      const idx = /^\d+$/.test(part) ? Number(part) : -1;
      if (idx < 0 || idx >= cur.length) return { found: false };
      cur = cur[idx];
    } else return { found: false };
  }
  return { found: true, value: cur };
}

/** criteria/cel_evaluator.go findCondition: the status of the first condition of the type, or "Unknown". */
function findCondition(conditions: unknown, type: string): { status: string; cond?: Record<string, unknown> } {
  if (!Array.isArray(conditions)) return { status: 'Unknown' };
  for (const c of conditions) {
    if (!isMap(c) || c.type !== type) continue;
    return { status: typeof c.status === 'string' ? c.status : 'Unknown', cond: c };
  }
  return { status: 'Unknown' };
}

/** Seconds since an RFC 3339 time, as Go's int64(time.Since(t).Seconds()); undefined when it is not one. */
function secondsSince(value: unknown, nowMs: number): bigint | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : BigInt(Math.trunc((nowMs - t) / 1000));
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  throw new Error(`no such overload: sort of ${typeof a} and ${typeof b}`);
}

function sameValue(a: unknown, b: unknown): boolean {
  return goJson(a) === goJson(b) && typeof a === typeof b;
}

function flatten(list: readonly unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw new Error('level must be non-negative');
  const out: unknown[] = [];
  for (const x of list) {
    if (Array.isArray(x) && depth > 0n) out.push(...flatten(x, depth - 1n));
    else out.push(x);
  }
  return out;
}

class ListsNamespace {}
class StringsNamespace {}

/** Registers the adapter's environment; `nowMs` is read on each call. */
export function registerAdapterFunctions(env: Environment, nowMs: () => number): Environment {
  return (
    env
      // ext.Lists()
      .registerFunction('list.distinct(): list', (l: unknown[]) => l.filter((x, i) => l.findIndex((y) => sameValue(x, y)) === i))
      .registerFunction('list.sort(): list', (l: unknown[]) => [...l].sort(compare))
      .registerFunction('list.slice(int, int): list', (l: unknown[], a: bigint, b: bigint) => {
        if (a < 0n || b < a || b > BigInt(l.length)) throw new Error(`cannot slice(${a}, ${b}), list of ${l.length}`);
        return l.slice(Number(a), Number(b));
      })
      .registerFunction('list.flatten(): list', (l: unknown[]) => flatten(l, 1n))
      .registerFunction('list.flatten(int): list', (l: unknown[], d: bigint) => flatten(l, d))
      .registerFunction('list.reverse(): list', (l: unknown[]) => [...l].reverse())
      .registerType('ListsNamespace', ListsNamespace)
      .registerConstant('lists', 'ListsNamespace', new ListsNamespace())
      .registerFunction('ListsNamespace.range(int): list<int>', (_n: unknown, n: bigint) =>
        Array.from({ length: Number(n > 0n ? n : 0n) }, (_x, i) => BigInt(i)),
      )
      .registerFunction(
        'list.sortBy(ast, ast): list',
        ({ args, receiver, ast }: { args: { op: string; args: unknown }[]; receiver: unknown; ast: unknown }) => {
          const iterVar = args[0]!;
          if (iterVar.op !== 'id') throw new Error('sortBy(var, key) invalid iteration variable');
          return {
            ast,
            receiver,
            var: iterVar.args as string,
            key: args[1],
            keyCtx: undefined as Ctx | undefined,
            typeCheck(checker: Checker, m: { receiver: unknown; var: string; key: unknown; keyCtx: Ctx | undefined }, ctx: Ctx) {
              checker.check(m.receiver, ctx);
              m.keyCtx = ctx.forkWithVariable(m.var, checker.check(m.receiver, ctx));
              checker.check(m.key, m.keyCtx);
              return checker.check(m.receiver, ctx);
            },
            evaluate(ev: Ev, m: { receiver: unknown; key: unknown; keyCtx: Ctx | undefined; var: string }, ctx: unknown) {
              const list: unknown = ev.run(m.receiver, ctx);
              if (!Array.isArray(list)) throw new Error('sortBy() needs a list');
              const keyed = (list as unknown[]).map((item) => ({ item, key: ev.run(m.key, m.keyCtx!.reuse(ctx).setIterValue(item, ev)) }));
              return keyed.sort((x, y) => compare(x.key, y.key)).map((k) => k.item);
            },
          };
        },
      )
      // ext.Strings() beyond cel-js's own
      .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
        const chars = [...s];
        if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
        return chars[Number(i)] ?? '';
      })
      .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b))
      .registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
        if (n < 0n) return s.split(a).join(b);
        const parts = s.split(a);
        return parts.slice(0, Number(n) + 1).join(b) + (parts.length > Number(n) + 1 ? a + parts.slice(Number(n) + 1).join(a) : '');
      })
      .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
      .registerType('StringsNamespace', StringsNamespace)
      .registerConstant('strings', 'StringsNamespace', new StringsNamespace())
      .registerFunction('StringsNamespace.quote(string): string', (_n: unknown, s: string) => JSON.stringify(s))
      // The adapter's own (cel_evaluator.go customCELFunctions)
      .registerFunction('toJson(dyn): string', (v: unknown) => goJson(v))
      .registerFunction('dig(dyn, string): dyn', (v: unknown, path: string) => {
        const r = digValue(v, path);
        return r.found ? (r.value ?? null) : null;
      })
      .registerFunction('now(): string', () => rfc3339(new Date(nowMs())))
      .registerFunction('conditionStatus(list, string): string', (l: unknown[], type: string) => findCondition(l, type).status)
      .registerFunction('conditionAge(list, string): int', (l: unknown[], type: string) => {
        const { cond } = findCondition(l, type);
        return (cond && secondsSince(cond.last_transition_time, nowMs())) ?? -1n;
      })
      .registerFunction('stableFor(list, string, int): bool', (l: unknown[], type: string, threshold: bigint) => {
        const { status, cond } = findCondition(l, type);
        if (status !== 'True' || !cond) return false;
        const age = secondsSince(cond.last_transition_time, nowMs());
        return age !== undefined && age >= threshold;
      })
      .registerFunction('statusFeedbackValue(dyn, string): string', (feedback: unknown, name: string) => {
        if (!isMap(feedback) || !Array.isArray(feedback.values)) return '';
        for (const entry of feedback.values) {
          if (!isMap(entry) || entry.name !== name) continue;
          if (isMap(entry.fieldValue) && typeof entry.fieldValue.string === 'string') return entry.fieldValue.string;
        }
        return '';
      })
      .registerFunction('triState(bool, bool): string', (t: boolean, f: boolean) => (t ? 'True' : f ? 'False' : 'Unknown'))
  );
}
