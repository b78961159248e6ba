/**
 * The schema of a file people write (the sidecar config, a model, a thresholds file), as data: each field says its
 * kind, default, unit and what it is for. `validate` walks the parsed YAML and reports every problem as
 * `file:line field: message` (unknown keys are errors) and returns the value with its defaults. `Infer<typeof schema>`
 * is the value's type, so no type is written beside a schema, and `describe` lists every key for the generated config
 * reference.
 *
 * Schemas are written as literals (`{...} as const satisfies Field`), so their types keep every key and enum value.
 * Durations are written with their unit (`500ms`, `10s`, `5m`, `1h30m`) under keys that name none, and are
 * milliseconds once validated.
 */
import { parseDuration } from './duration.js';
import { isRecord } from './is-record.js';
import type { FieldPath, YamlSource } from './yaml-source.js';

interface Common {
  readonly doc?: string;
  readonly required?: boolean;
}

export interface StringField extends Common {
  readonly kind: 'string';
  readonly default?: string;
}
export interface BooleanField extends Common {
  readonly kind: 'boolean';
  readonly default?: boolean;
}
export interface NumberField extends Common {
  readonly kind: 'number' | 'integer';
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
  /** What the number counts, for the reference (`bytes`, `spans`, `objects`). */
  readonly unit?: string;
}
/** `500ms`, `10s`, `5m`, `1h30m`: milliseconds once validated. */
export interface DurationField extends Common {
  readonly kind: 'duration';
  readonly default?: string;
  readonly min?: string;
}
/** `host:port`. */
export interface AddressField extends Common {
  readonly kind: 'address';
  readonly default?: string;
}
export interface EnumField extends Common {
  readonly kind: 'enum';
  readonly values: readonly string[];
  readonly default?: string;
}
export interface ListField extends Common {
  readonly kind: 'list';
  readonly of: Field;
  readonly default?: readonly unknown[];
  readonly nonEmpty?: boolean;
}
export interface MapField extends Common {
  readonly kind: 'map';
  readonly of: Field;
}
export interface ObjectField extends Common {
  readonly kind: 'object';
  readonly fields: Readonly<Record<string, Field>>;
  /** An absent object is undefined (a section left out is off) unless it is `present` with its defaults. */
  readonly present?: boolean;
  /** What the mapping is, for messages: `required ${expected}`, `must be a ${expected}`. Default `mapping`. */
  readonly expected?: string;
}
/** Any value, taken as it comes. */
export interface AnyField extends Common {
  readonly kind: 'any';
}
/**
 * A string or one of several mappings, e.g. a model's error format (`"text"` or `{format, only, ...}`) or a phased
 * step (`{op}` or `{group, ...}`). A mapping is read as the variant whose `tag` key it has.
 */
export interface OneOfField extends Common {
  readonly kind: 'oneOf';
  readonly variants: readonly (StringField | (ObjectField & { readonly tag: string }))[];
  /** What the value is, for messages: `must be ${expected}`. */
  readonly expected: string;
}

export type Field =
  StringField | BooleanField | NumberField | DurationField | AddressField | EnumField | ListField | MapField | ObjectField | AnyField | OneOfField;

export interface Address {
  readonly host: string;
  readonly port: number;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** A field whose value is always there once validated: required, defaulted, or an object that is `present`. */
type AlwaysThere<F> = F extends { readonly required: true }
  ? true
  : F extends { readonly default: unknown }
    ? true
    : F extends { readonly present: true }
      ? true
      : false;
type InferFields<Fs> = Simplify<
  { readonly [K in keyof Fs as AlwaysThere<Fs[K]> extends true ? K : never]: Infer<Fs[K]> } & {
    readonly [K in keyof Fs as AlwaysThere<Fs[K]> extends true ? never : K]?: Infer<Fs[K]>;
  }
>;

/** The type of a field's value once validated. */
export type Infer<F> = F extends { readonly kind: 'string' }
  ? string
  : F extends { readonly kind: 'boolean' }
    ? boolean
    : F extends { readonly kind: 'number' | 'integer' | 'duration' }
      ? number
      : F extends { readonly kind: 'address' }
        ? Address
        : F extends { readonly kind: 'enum'; readonly values: readonly (infer V)[] }
          ? V
          : F extends { readonly kind: 'list'; readonly of: infer O }
            ? readonly Infer<O>[]
            : F extends { readonly kind: 'map'; readonly of: infer O }
              ? Readonly<Record<string, Infer<O>>>
              : F extends { readonly kind: 'object'; readonly fields: infer Fs }
                ? InferFields<Fs>
                : F extends { readonly kind: 'oneOf'; readonly variants: readonly (infer V)[] }
                  ? Infer<V>
                  : unknown;

/**
 * The validated value of a component's schema `F`; `unknown` for a component of any schema, as a registry's lists hold
 * them (each value is checked against the component's own schema before it reaches the component).
 */
export type ConfigOf<F> = [Field] extends [F] ? unknown : [F] extends [Field] ? Infer<F> : undefined;

export function parseAddress(text: string): Address | undefined {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  const port = Number(m?.[2]);
  if (!m || port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

/** Milliseconds as the shortest exact duration text: `90s`, `5m`, `1500ms`. */
export function durationText(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms > 0 && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/**
 * Validates `value` (the whole document by default) against `field`; every problem and notice goes to `src`.
 * Returns the value with defaults, or undefined when a problem was found or the value is absent and optional.
 */
export function validate<F extends Field>(src: YamlSource, field: F, value?: unknown, path?: FieldPath): Infer<F> | undefined;
// The walk builds exactly the shape Infer<F> describes: the signature above says so, once, for every schema.
export function validate(src: YamlSource, field: Field, value: unknown = src.value, path: FieldPath = []): unknown {
  const before = src.problems.length;
  const out = check(src, path, value, field);
  return src.problems.length > before ? undefined : out;
}

/**
 * One value against one field, for a reader that walks a document itself because its rules tie parts together (a
 * model's placement of operations): it still checks each value, and reports each problem, exactly as `validate` does.
 */
export function checkValue<F extends Field>(src: YamlSource, path: FieldPath, value: unknown, field: F): Infer<F> | undefined;
export function checkValue(src: YamlSource, path: FieldPath, value: unknown, field: Field): unknown {
  return check(src, path, value, field);
}

/** Keys of a mapping that are not in `allowed` are problems. */
export function checkKeys(src: YamlSource, path: FieldPath, value: Readonly<Record<string, unknown>>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) src.fail([...path, key], unknownField(allowed));
}

const unknownField = (allowed: readonly string[]): string => `unknown field (allowed: ${allowed.join(', ')})`;

function check(src: YamlSource, path: FieldPath, value: unknown, field: Field): unknown {
  if (value === undefined || value === null) {
    if (field.required) src.fail(path, field.kind === 'object' && field.expected ? `required ${field.expected}` : 'required');
    if (field.kind === 'object') return field.present ? check(src, path, {}, field) : undefined;
    if (!('default' in field) || field.default === undefined) return undefined;
    value = field.default;
  }
  switch (field.kind) {
    case 'string':
      if (typeof value === 'string' && value.trim() !== '') return value;
      return src.fail(path, `must be a non-empty string, got ${JSON.stringify(value)}`);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return src.fail(path, `must be true or false, got ${JSON.stringify(value)}`);
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value) || (field.kind === 'integer' && !Number.isInteger(value))) {
        return src.fail(path, `must be ${field.kind === 'integer' ? 'an integer' : 'a number'}, got ${JSON.stringify(value)}`);
      }
      if (field.min !== undefined && value < field.min) return src.fail(path, `must be at least ${field.min}, got ${value}`);
      if (field.max !== undefined && value > field.max) return src.fail(path, `must be at most ${field.max}, got ${value}`);
      return value;
    }
    case 'duration': {
      const ms = typeof value === 'string' ? parseDuration(value) : undefined;
      if (ms === undefined) return src.fail(path, `must be a duration with its unit, like 500ms, 10s, 5m or 1h, got ${JSON.stringify(value)}`);
      const min = field.min === undefined ? undefined : parseDuration(field.min);
      if (min !== undefined && ms < min) return src.fail(path, `must be at least ${field.min}, got ${JSON.stringify(value)}`);
      return ms;
    }
    case 'address': {
      const address = typeof value === 'string' ? parseAddress(value) : undefined;
      if (address) return address;
      return src.fail(path, `must be host:port, got ${JSON.stringify(value)}`);
    }
    case 'enum':
      if (typeof value === 'string' && field.values.includes(value)) return value;
      return src.fail(path, `must be one of ${field.values.join(' | ')}, got ${JSON.stringify(value)}`);
    case 'list':
      if (!Array.isArray(value) || (field.nonEmpty && value.length === 0))
        return src.fail(path, field.nonEmpty ? 'must be a non-empty list' : 'must be a list');
      return value.map((item, i) => check(src, [...path, i], item, field.of));
    case 'map':
      if (!isRecord(value)) return src.fail(path, 'must be a mapping');
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, check(src, [...path, k], v, field.of)]));
    case 'object':
      if (!isRecord(value)) return src.fail(path, `must be a ${field.expected ?? 'mapping'}`);
      return checkObject(src, path, value, field);
    case 'any':
      return value;
    case 'oneOf':
      return checkOneOf(src, path, value, field);
  }
}

function checkObject(src: YamlSource, path: FieldPath, value: Record<string, unknown>, field: ObjectField): Record<string, unknown> {
  checkKeys(src, path, value, Object.keys(field.fields));
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(field.fields)) {
    const v = check(src, [...path, key], value[key], sub);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function checkOneOf(src: YamlSource, path: FieldPath, value: unknown, field: OneOfField): unknown {
  if (typeof value === 'string') {
    const variant = field.variants.find((v) => v.kind === 'string');
    if (variant) return check(src, path, value, variant);
  }
  if (isRecord(value)) {
    const tagged = field.variants.filter((v): v is ObjectField & { readonly tag: string } => v.kind === 'object' && v.tag in value);
    if (tagged.length === 1) return check(src, path, value, tagged[0]!);
    if (tagged.length > 1) return src.fail(path, `has ${tagged.map((v) => `"${v.tag}"`).join(' and ')}: give one of them`);
  }
  return src.fail(path, `must be ${field.expected}`);
}

/** One key of a schema, for the config reference. */
export interface KeyDescription {
  /** Dotted path, `[]` for list items, `.*` for map values: `sources.otlp.listen`, `models[]`. */
  readonly key: string;
  readonly type: string;
  /** As written in a file, or empty when there is none. */
  readonly default: string;
  readonly required: boolean;
  readonly doc: string;
}

/** Every key of a schema, depth first in declaration order. */
export function describe(field: Field, key = ''): KeyDescription[] {
  const rows: KeyDescription[] = [];
  if (key !== '') rows.push({ key, type: typeName(field), default: defaultText(field), required: field.required === true, doc: field.doc ?? '' });
  const child = (name: string): string => (key === '' ? name : `${key}.${name}`);
  if (field.kind === 'object') for (const [name, sub] of Object.entries(field.fields)) rows.push(...describe(sub, child(name)));
  if (field.kind === 'list' && (field.of.kind === 'object' || field.of.kind === 'oneOf')) rows.push(...describe(field.of, `${key}[]`).slice(1));
  if (field.kind === 'oneOf') for (const v of field.variants) if (v.kind === 'object') rows.push(...describe(v, key).slice(1));
  return rows;
}

function typeName(field: Field): string {
  switch (field.kind) {
    case 'number':
    case 'integer':
      return field.unit ? `${field.kind} (${field.unit})` : field.kind;
    case 'address':
      return 'host:port';
    case 'enum':
      return field.values.join(' \\| ');
    case 'list':
      return `list of ${typeName(field.of)}`;
    case 'map':
      return `map of ${typeName(field.of)}`;
    case 'object':
      return 'mapping';
    case 'oneOf':
      return field.expected;
    default:
      return field.kind;
  }
}

function defaultText(field: Field): string {
  if (field.kind === 'object') return field.present ? '(always present)' : '';
  if (!('default' in field) || field.default === undefined) return '';
  const d: unknown = field.default;
  if (typeof d === 'number' && field.kind === 'integer' && field.unit === 'bytes' && d >= 1024 && d % 1024 === 0) {
    return d % (1024 * 1024) === 0 ? `${d} (${d / 1024 / 1024} MiB)` : `${d} (${d / 1024} KiB)`;
  }
  return typeof d === 'string' ? d : JSON.stringify(d);
}
