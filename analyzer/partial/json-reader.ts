/**
 * Reading untrusted JSON field by field: every problem names the document and the field (`a.json: controllers[0].
 * summary.objects: expected a count, got -1`), and the first one stops the reading (a partial with any problem is
 * refused whole, so nothing is merged half-read).
 */
import { isRecord } from '../../lib/is-record.js';

export class PartialError extends Error {
  override name = 'PartialError';
}

export type Path = string;

export const at = (path: Path, key: string | number): Path => (typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`);

const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

export class JsonReader {
  constructor(readonly where: string) {}

  fail(path: Path, message: string): never {
    throw new PartialError(`${this.where}: ${path || '(document)'}: ${message}`);
  }

  /** A mapping with exactly `required` keys and some of `optional`. */
  record(v: unknown, path: Path, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
    if (!isRecord(v)) this.fail(path, `expected a mapping, got ${shown(v)}`);
    for (const k of required) if (!(k in v)) this.fail(at(path, k), 'required');
    for (const k of Object.keys(v))
      if (!required.includes(k) && !optional.includes(k)) this.fail(at(path, k), `unknown field (allowed: ${[...required, ...optional].join(', ')})`);
    return v;
  }

  /** A mapping of any keys. */
  mapping(v: unknown, path: Path): Record<string, unknown> {
    if (!isRecord(v)) this.fail(path, `expected a mapping, got ${shown(v)}`);
    return v;
  }

  array(v: unknown, path: Path): unknown[] {
    if (!Array.isArray(v)) this.fail(path, `expected a list, got ${shown(v)}`);
    return v;
  }

  string(v: unknown, path: Path): string {
    if (typeof v !== 'string') this.fail(path, `expected a string, got ${shown(v)}`);
    return v;
  }

  /** A non-negative integer that a double holds exactly. */
  count(v: unknown, path: Path): number {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) this.fail(path, `expected a count (a non-negative integer), got ${shown(v)}`);
    return v;
  }

  /** A finite number. */
  number(v: unknown, path: Path): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(path, `expected a finite number, got ${shown(v)}`);
    return v;
  }

  oneOf<T extends string>(v: unknown, path: Path, allowed: readonly T[]): T {
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) this.fail(path, `expected one of ${allowed.join(', ')}, got ${shown(v)}`);
    return v as T;
  }

  /** A mapping of counts whose keys are among `keys`. */
  counts<K extends string>(v: unknown, path: Path, keys: readonly K[]): Partial<Record<K, number>> {
    const m = this.mapping(v, path);
    const out: Partial<Record<K, number>> = {};
    for (const [k, n] of Object.entries(m)) out[this.oneOf(k, at(path, k), keys)] = this.count(n, at(path, k));
    return out;
  }
}
