/**
 * Field paths as the adapter reads them: criteria/field_evaluator.go ExtractField (JSONPath through
 * k8s.io/client-go/util/jsonpath, simple dot paths auto-wrapped; a missing field is an error result, and an empty
 * rendering is nil) and pkg/utils/map.go GetNestedValue (dot paths through maps only).
 * The JSONPath subset: `.a.b`, `['a.b']`, `[n]`, `[*]` and `[?(@.x=='y')]` filters (==, !=, with string, number
 * and bool literals).
 */
function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

export type FieldResult = { readonly value: unknown; readonly missing?: string };

type Step = { k: 'key'; key: string } | { k: 'index'; i: number } | { k: 'all' } | { k: 'filter'; path: string[]; op: '==' | '!='; lit: unknown };

export class FieldPathError extends Error {}

function parse(field: string): Step[] {
  let p = field.trim();
  if (p === '') throw new FieldPathError('empty field path');
  if (p.startsWith('{')) {
    if (!p.endsWith('}')) throw new FieldPathError(`invalid field path '${field}': unclosed action`);
    p = p.slice(1, -1).trim();
  }
  if (p.startsWith('$')) p = p.slice(1);
  if (!p.startsWith('.') && !p.startsWith('[')) p = `.${p}`;
  const steps: Step[] = [];
  let i = 0;
  while (i < p.length) {
    if (p[i] === '.') {
      const m = /^\.([A-Za-z0-9_\-/]+)/.exec(p.slice(i));
      if (!m) throw new FieldPathError(`invalid field path '${field}'`);
      steps.push({ k: 'key', key: m[1]! });
      i += m[0].length;
    } else if (p[i] === '[') {
      const close = p.indexOf(']', i);
      if (close === -1) throw new FieldPathError(`invalid field path '${field}': unterminated [`);
      const inner = p.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ k: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ k: 'index', i: Number(inner) });
      else if (/^'[^']*'$|^"[^"]*"$/.test(inner)) steps.push({ k: 'key', key: inner.slice(1, -1) });
      else {
        const f = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(.+)\)$/.exec(inner);
        if (!f) throw new FieldPathError(`invalid field path '${field}': unsupported [${inner}]`);
        const raw = f[3]!.trim();
        const lit: unknown = /^'.*'$|^".*"$/.test(raw) ? raw.slice(1, -1) : raw === 'true' ? true : raw === 'false' ? false : Number(raw);
        steps.push({ k: 'filter', path: f[1]!.slice(1).split('.'), op: f[2] as '==' | '!=', lit });
      }
    } else throw new FieldPathError(`invalid field path '${field}'`);
  }
  return steps;
}

const same = (a: unknown, b: unknown): boolean => (typeof a === 'bigint' || typeof b === 'bigint' ? Number(a) === Number(b) : a === b);

/** ExtractField: the value (one match) or the list of matches; `missing` when the path is not there. */
export function extractField(data: unknown, field: string): FieldResult {
  const steps = parse(field);
  let current: unknown[] = [data];
  let many = false;
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (s.k === 'key') {
        if (!isMap(v) || !(s.key in v)) {
          if (!many) return { value: undefined, missing: `${s.key} is not found` };
          continue;
        }
        next.push(v[s.key]);
      } else if (s.k === 'index') {
        if (!Array.isArray(v)) return { value: undefined, missing: `array index on non-array` };
        const idx = s.i < 0 ? v.length + s.i : s.i;
        if (idx < 0 || idx >= v.length) return { value: undefined, missing: `array index out of bounds: index ${s.i}, length ${v.length}` };
        next.push(v[idx]);
      } else if (s.k === 'all') {
        many = true;
        if (Array.isArray(v)) next.push(...(v as unknown[]));
        else if (isMap(v)) next.push(...Object.values(v));
      } else {
        many = true;
        if (!Array.isArray(v)) continue;
        for (const item of v) {
          let x: unknown = item;
          for (const key of s.path) x = isMap(x) ? x[key] : undefined;
          if (x === undefined) continue;
          if (s.op === '==' ? same(x, s.lit) : !same(x, s.lit)) next.push(item);
        }
      }
    }
    current = next;
  }
  // ExtractField prints the result first and takes an empty print as nil: a lone "" reads as absent.
  const values = current.filter((v) => v !== undefined);
  if (values.length === 1 && values[0] === '') return { value: undefined };
  if (values.length === 0) return { value: undefined };
  return { value: values.length === 1 ? values[0] : values };
}

/** GetNestedValue: dot paths through maps; a missing key or a non-map parent is an error. */
export function nestedValue(data: unknown, path: string): { value: unknown } | { error: string } {
  let cur = data;
  const parts = path === '' ? [] : path.split('.');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (!isMap(cur)) return { error: `cannot access field '${part}': parent is not a map` };
    if (!(part in cur)) return { error: `field '${part}' not found at path '${parts.slice(0, i + 1).join('.')}'` };
    cur = cur[part];
  }
  return { value: cur };
}
