/**
 * RFC 3339 text <-> nanoseconds since the epoch, exact to the nanosecond (Date keeps only milliseconds).
 * Spans carry nanoseconds; records carry the time as text, so the receiver formats one from the other.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;

/** The instant an RFC 3339 time denotes, or undefined when the text is not one (including impossible dates). */
export function parseRfc3339Nanos(text: string): bigint | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const utcMs = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(utcMs);
  // Date.UTC rolls 2026-02-30 over to March and 24:00 to the next day; a real RFC 3339 time round-trips.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return undefined;
  if (back.getUTCHours() !== hour || back.getUTCMinutes() !== minute || back.getUTCSeconds() !== second) return undefined;
  const sign = m[8] === '-' ? -1 : 1;
  const offsetMinutes = m[8] === undefined ? 0 : sign * (Number(m[9]) * 60 + Number(m[10]));
  const fraction = BigInt((m[7] ?? '').padEnd(9, '0'));
  return BigInt(utcMs - offsetMinutes * 60_000) * NANOS_PER_MILLI + fraction;
}

/**
 * UTC with a `Z`, and the fraction trimmed to the shortest of none, milliseconds, microseconds or nanoseconds
 * that is still exact: `…:05Z`, `…:05.339Z`, `…:05.339362Z`, `…:05.339362127Z`.
 */
export function formatRfc3339Nanos(nanos: bigint): string {
  const seconds = nanos / NANOS_PER_SECOND;
  const fraction = nanos % NANOS_PER_SECOND;
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${whole}${fractionText(fraction)}Z`;
}

function fractionText(fraction: bigint): string {
  if (fraction === 0n) return '';
  const digits = fraction.toString().padStart(9, '0');
  if (digits.endsWith('000000')) return `.${digits.slice(0, 3)}`;
  if (digits.endsWith('000')) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}
