/**
 * OpenTelemetry's consistent-probability sampling, as spans carry it: the `th` sub-key of the `ot` entry of the W3C
 * tracestate (`ot=th:c;rv:…`), the rejection threshold as 1 to 14 hex digits with trailing zeros left out. A span
 * sampled at threshold T (56 bits) was kept with probability (2^56 - T) / 2^56, so it stands for 2^56 / (2^56 - T)
 * spans: its adjusted count (`th:0` is 1, every span kept; `th:8` 2; `th:c` 4). The decoders keep a span's threshold
 * as the pseudo-attribute SAMPLING_THRESHOLD, the assembler puts the root's adjusted count on the attempt's origin,
 * and the analysis weights what it counts by it (docs/otlp.md, "Sampled traces").
 */

/** Where the decoders keep a span's `th` (not an attribute of the span: read from its trace_state). */
export const SAMPLING_THRESHOLD = 'ot.th';

const TH = /^[0-9a-f]{1,14}$/;
const TWO_TO_56 = 1n << 56n;

/** The `th` value of a tracestate's `ot` entry, or undefined when it has none or it is not 1-14 lowercase hex digits. */
export function samplingThreshold(tracestate: string): string | undefined {
  if (!tracestate.includes('ot=')) return undefined;
  for (const member of tracestate.split(',')) {
    const m = member.trim();
    if (!m.startsWith('ot=')) continue;
    for (const field of m.slice(3).split(';')) {
      if (field.startsWith('th:')) {
        const th = field.slice(3);
        return TH.test(th) ? th : undefined;
      }
    }
    return undefined;
  }
  return undefined;
}

/** 2^56 / (2^56 - T) for a threshold T as `th` writes it. */
export function adjustedCount(th: string): number {
  const threshold = BigInt(`0x${th.padEnd(14, '0')}`);
  return Number(TWO_TO_56) / Number(TWO_TO_56 - threshold);
}
