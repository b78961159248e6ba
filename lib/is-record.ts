/** A plain mapping (what YAML and JSON objects parse to), not null and not a list. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
