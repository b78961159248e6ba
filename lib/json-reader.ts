/**
 * Reading an untrusted JSON file field by field (a partial summary, the adapter's dry-run inputs), every problem
 * collected: a problem is noted against its field and the reading goes on with a stand-in value; `done` then refuses
 * the file whole (nothing is used half-read) with a ValidationError carrying every problem as `file:line field:
 * message`, in file order, as every other reader of a file reports. A field found wrong hides any problem at or
 * beneath it (a list that is not a list has no wrong items, a count that is not a count is not also too small).
 * JSON.parse gives no positions: the lines come from the text read again as YAML (JSON is YAML) by yaml-source.ts,
 * only when there is a problem to place. The reading stops at MAX_PROBLEMS.
 */
import { isRecord } from './is-record.js';
import { ValidationError, type FileKind } from './validation-error.js';
import { fieldName, YamlSource, type FieldPath } from './yaml-source.js';

export type Path = FieldPath;

export const at = (path: Path, ...keys: (string | number)[]): Path => [...path, ...keys];

const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/**
 * Problems listed before the reading stops: a file from the network (a peer's partial) can hold a wrong value in
 * every one of a million cells, and each note is checked against those before it.
 */
const MAX_PROBLEMS = 100;

/** `a` is `b` or one of its parents. */
const within = (a: Path, b: Path): boolean => a.length <= b.length && a.every((k, i) => k === b[i]);

export class JsonReader {
  private readonly found: { readonly path: Path; readonly message: string }[] = [];

  constructor(
    private readonly text: string,
    readonly where: string,
    private readonly kind: FileKind,
  ) {}

  /**
   * The parsed text; text that is not JSON is refused at once, at the line JSON.parse names or, for the messages that
   * name none (an unexpected token), the line where reading it as YAML failed.
   */
  json(): unknown {
    try {
      return JSON.parse(this.text) as unknown;
    } catch (e) {
      const message = (e as Error).message;
      const yamlProblem = (): string | undefined => new YamlSource(this.text, this.where).problems[0]?.slice(this.where.length + 1).split(' ')[0];
      const line = /\(line (\d+) column \d+\)/.exec(message)?.[1] ?? yamlProblem() ?? '1';
      throw new ValidationError(this.kind, [`${this.where}:${line} (document): not JSON: ${message}`]);
    }
  }

  fail(path: Path, message: string): void {
    this.failEach(path, [message]);
  }

  /** Several problems of one field (a model's, found by its own reader). */
  failEach(path: Path, messages: readonly string[]): void {
    if (this.found.some((f) => within(f.path, path))) return;
    for (const message of messages) this.found.push({ path, message });
    if (this.found.length >= MAX_PROBLEMS) throw this.refusal(`${this.where}:1 (document): the reading stopped at ${MAX_PROBLEMS} problems`);
  }

  /** No problem found at, above or beneath `path`: checks that build on its value can be made. */
  ok(path: Path): boolean {
    return !this.found.some((f) => within(f.path, path) || within(path, f.path));
  }

  /** Refuses the document with this problem and those found before it. */
  refuse(path: Path, message: string): never {
    this.fail(path, message);
    throw this.refusal();
  }

  /** Throws the ValidationError of every problem found, if any. */
  done(): void {
    if (this.found.length > 0) throw this.refusal();
  }

  private refusal(...after: string[]): ValidationError {
    const src = new YamlSource(this.text, this.where);
    const placed = this.found.map((f) => ({ offset: src.offsetOf(f.path), problem: `${this.where}:${src.lineOf(f.path)} ${fieldName(f.path)}: ${f.message}` }));
    return new ValidationError(this.kind, [...placed.sort((a, b) => a.offset - b.offset).map((p) => p.problem), ...after]);
  }

  /** A mapping with exactly `required` keys and some of `optional`. */
  record(v: unknown, path: Path, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
    if (!isRecord(v)) {
      this.fail(path, `expected a mapping, got ${shown(v)}`);
      return {};
    }
    for (const k of required) if (!(k in v)) this.fail(at(path, k), 'required');
    for (const k of Object.keys(v))
      if (!required.includes(k) && !optional.includes(k)) this.fail(at(path, k), `unknown field (allowed: ${[...required, ...optional].join(', ')})`);
    return v;
  }

  /** A mapping of any keys. */
  mapping(v: unknown, path: Path): Record<string, unknown> {
    if (isRecord(v)) return v;
    this.fail(path, `expected a mapping, got ${shown(v)}`);
    return {};
  }

  array(v: unknown, path: Path): unknown[] {
    if (Array.isArray(v)) return v;
    this.fail(path, `expected a list, got ${shown(v)}`);
    return [];
  }

  string(v: unknown, path: Path): string {
    if (typeof v === 'string') return v;
    this.fail(path, `expected a string, got ${shown(v)}`);
    return '';
  }

  /** A non-negative integer that a double holds exactly. */
  count(v: unknown, path: Path): number {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
    this.fail(path, `expected a count (a non-negative integer), got ${shown(v)}`);
    return 0;
  }

  /** A finite number. */
  number(v: unknown, path: Path): number {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    this.fail(path, `expected a finite number, got ${shown(v)}`);
    return 0;
  }

  oneOf<T extends string>(v: unknown, path: Path, allowed: readonly T[]): T {
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    this.fail(path, `expected one of ${allowed.join(', ')}, got ${shown(v)}`);
    return allowed[0]!;
  }

  /** A mapping of counts whose keys are among `keys`. */
  counts<K extends string>(v: unknown, path: Path, keys: readonly K[]): Partial<Record<K, number>> {
    const m = this.mapping(v, path);
    const out: Partial<Record<K, number>> = {};
    for (const [k, n] of Object.entries(m)) out[this.oneOf(k, at(path, k), keys)] = this.count(n, at(path, k));
    return out;
  }
}
