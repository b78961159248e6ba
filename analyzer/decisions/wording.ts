/** Number wording shared by every explanation the decisions give, so the report reads the same everywhere. */
import { formatDuration } from '../../lib/duration.js';

/**
 * One formatter for every count: `toLocaleString` builds an ICU number format per call, a visible share of a large
 * report's time (the decisions word thousands of counts); `Intl.NumberFormat#format` gives the same text.
 */
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** A count with thousands separators: `27,201`. */
export function count(n: number): string {
  return COUNT_FORMAT.format(n);
}

export function percent(rate: number | null): string {
  if (rate === null) return '-';
  const p = rate * 100;
  if (p === 0) return '0%';
  if (Math.abs(p) < 0.1) return `${p.toPrecision(2)}%`;
  return `${Math.abs(p) < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}

/** A signed percentage-point difference: `+25 pp`, `-3.5 pp`; a difference that rounds to zero is `0 pp`, never `-0.0 pp`. */
export function points(diff: number | null): string {
  if (diff === null) return '-';
  const p = diff * 100;
  const digits = Math.abs(p) < 10 ? 1 : 0;
  const rounded = Number(p.toFixed(digits));
  if (rounded === 0) return '0 pp';
  return `${rounded > 0 ? '+' : ''}${rounded.toFixed(Math.abs(rounded) < 10 ? 1 : 0)} pp`;
}

export function pValue(p: number | null): string {
  if (p === null) return '-';
  if (p < 1e-4) return '< 0.0001';
  return p >= 0.1 ? p.toFixed(2) : p.toPrecision(2);
}

/** `q = 0.031` or `q < 0.0001`. */
export function equalsP(name: string, p: number): string {
  const text = pValue(p);
  return text.startsWith('<') ? `${name} ${text}` : `${name} = ${text}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** `once`, `twice`, `3 times`. */
export function times(n: number): string {
  return n === 1 ? 'once' : n === 2 ? 'twice' : `${count(n)} times`;
}

/** A threshold's time span as people write it: `3d`, `24h`, else minutes and seconds (`1m00s`). */
export function span(ms: number): string {
  if (ms <= 0) return '0s';
  const h = ms / 3_600_000;
  if (h >= 24 && Number.isInteger(h / 24)) return `${h / 24}d`;
  if (h >= 1 && Number.isInteger(h)) return `${h}h`;
  return formatDuration(ms / 1000);
}

/** An e-value: `e = 0.42`, `e = 37`, `e = 2.1e+14`. */
export function eValue(e: number | null): string {
  if (e === null) return '-';
  if (!Number.isFinite(e)) return e > 0 ? '> 1e+300' : '0';
  if (e >= 1e5) return e.toExponential(1);
  return e >= 10 ? e.toFixed(0) : e.toPrecision(2);
}
