/** Number wording shared by every explanation the decisions give, so the report reads the same everywhere. */

export function percent(rate: number | null): string {
  if (rate === null) return '-';
  const p = rate * 100;
  if (p === 0) return '0%';
  if (Math.abs(p) < 0.1) return `${p.toPrecision(2)}%`;
  return `${Math.abs(p) < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}

/** A signed percentage-point difference: `+25 pp`, `-3.5 pp`. */
export function points(diff: number | null): string {
  if (diff === null) return '-';
  const p = diff * 100;
  const text = Math.abs(p) < 10 && p !== 0 ? p.toFixed(1) : p.toFixed(0);
  return `${p > 0 ? '+' : ''}${text} pp`;
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

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function hours(ms: number): string {
  const h = ms / 3_600_000;
  return h >= 48 && Number.isInteger(h / 24) ? `${h / 24}d` : `${Number.isInteger(h) ? h : h.toFixed(1)}h`;
}
