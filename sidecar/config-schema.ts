/**
 * A small typed schema for config files: each field says its kind and default; validation walks the YAML, reports
 * every problem as `file:line field: message`, treats unknown keys as errors, and returns the value with defaults.
 */
import type { FieldPath, YamlSource } from '../model/yaml-source.js';
import { parseDuration } from '../lib/duration.js';
import { isRecord } from '../lib/is-record.js';

export type Field =
  | { readonly kind: 'string' | 'boolean' | 'number'; readonly required?: boolean; readonly default?: unknown; readonly min?: number; readonly doc?: string }
  | { readonly kind: 'integer'; readonly required?: boolean; readonly default?: number; readonly min?: number; readonly max?: number; readonly doc?: string }
  /** `10s`, `5m`: parsed to milliseconds. */
  | { readonly kind: 'duration'; readonly required?: boolean; readonly default?: string; readonly doc?: string }
  /** `host:port`. */
  | { readonly kind: 'address'; readonly required?: boolean; readonly default?: string; readonly doc?: string }
  | { readonly kind: 'enum'; readonly values: readonly string[]; readonly required?: boolean; readonly default?: string; readonly doc?: string }
  | { readonly kind: 'list'; readonly of: Field; readonly required?: boolean; readonly default?: readonly unknown[]; readonly doc?: string }
  | { readonly kind: 'map'; readonly of: Field; readonly required?: boolean; readonly default?: undefined; readonly doc?: string }
  /** An absent object is undefined (a source left out is off) unless `present` says it always exists with its defaults. */
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, Field>>; readonly required?: boolean; readonly present?: boolean; readonly doc?: string };

export interface Address {
  readonly host: string;
  readonly port: number;
}

export function parseAddress(text: string): Address | undefined {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  const port = Number(m?.[2]);
  if (!m || port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}


/** Validates `value` at `path`; returns the normalised value, or undefined when absent and optional. */
export function check(src: YamlSource, path: FieldPath, value: unknown, field: Field): unknown {
  if (value === undefined || value === null) {
    if (field.required) src.fail(path, 'required');
    if (field.kind === 'object') return field.present ? check(src, path, {}, field) : undefined;
    if (field.default === undefined) return undefined;
    value = field.default;
  }
  switch (field.kind) {
    case 'string':
      if (typeof value === 'string' && value !== '') return value;
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
      if (field.kind === 'integer' && field.max !== undefined && value > field.max) return src.fail(path, `must be at most ${field.max}, got ${value}`);
      return value;
    }
    case 'duration': {
      const ms = typeof value === 'string' ? parseDuration(value) : undefined;
      if (ms !== undefined) return ms;
      return src.fail(path, `must be a duration like 10s, 5m or 1h, got ${JSON.stringify(value)}`);
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
      if (!Array.isArray(value)) return src.fail(path, 'must be a list');
      return value.map((item, i) => check(src, [...path, i], item, field.of));
    case 'map': {
      if (!isRecord(value)) return src.fail(path, 'must be a mapping');
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, check(src, [...path, k], v, field.of)]));
    }
    case 'object': {
      if (!isRecord(value)) return src.fail(path, 'must be a mapping');
      for (const key of Object.keys(value)) {
        if (!(key in field.fields)) src.fail([...path, key], `unknown field (allowed: ${Object.keys(field.fields).join(', ')})`);
      }
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(field.fields)) {
        const v = check(src, [...path, key], value[key], sub);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
  }
}
