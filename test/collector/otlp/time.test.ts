import { deepStrictEqual, strictEqual } from 'node:assert';
import { formatRfc3339Nanos, parseRfc3339Nanos } from '../../../collector/otlp/internal/time.js';

describe('otlp/time: RFC 3339 <-> nanoseconds', () => {
  it('parses to the exact nanosecond, with any fraction length and offset', () => {
    strictEqual(parseRfc3339Nanos('2026-11-01T00:00:05.339362Z'), 1793491205339362000n);
    strictEqual(parseRfc3339Nanos('2026-11-01T00:00:05.339362127Z'), 1793491205339362127n);
    strictEqual(parseRfc3339Nanos('2026-11-01T00:00:05Z'), 1793491205000000000n);
    strictEqual(parseRfc3339Nanos('2026-11-01T01:30:05.5+01:30'), 1793491205500000000n);
    strictEqual(parseRfc3339Nanos('2026-10-31T23:00:05.5-01:00'), 1793491205500000000n);
    strictEqual(parseRfc3339Nanos('2026-11-01t00:00:05z'), 1793491205000000000n);
  });

  it('refuses text that is not an RFC 3339 time, including impossible dates', () => {
    deepStrictEqual(
      [
        '2026-02-30T00:00:00Z',
        '2026-11-01T24:00:00Z',
        '2026-11-01T00:00:60Z',
        '2026-11-01 00:00:00Z',
        '2026-11-01T00:00:00',
        '2026-11-01T00:00:00.1234567891Z',
        '',
      ].map(parseRfc3339Nanos),
      [undefined, undefined, undefined, undefined, undefined, undefined, undefined],
    );
  });

  it('formats UTC with the fraction trimmed to whole milli-, micro- or nanoseconds', () => {
    deepStrictEqual(
      [1793491205000000000n, 1793491205339000000n, 1793491205339362000n, 1793491205339362127n, 1793491205000000001n, 0n].map(formatRfc3339Nanos),
      [
        '2026-11-01T00:00:05Z',
        '2026-11-01T00:00:05.339Z',
        '2026-11-01T00:00:05.339362Z',
        '2026-11-01T00:00:05.339362127Z',
        '2026-11-01T00:00:05.000000001Z',
        '1970-01-01T00:00:00Z',
      ],
    );
  });

  it('round-trips what it formats', () => {
    for (const ns of [1793491205339362127n, 1793491205100000000n, (1n << 64n) - 1n]) strictEqual(parseRfc3339Nanos(formatRfc3339Nanos(ns)), ns);
  });
});
