/**
 * Request bodies built to cost the receiver as much memory and time as its limits allow, each one within every
 * documented limit (the receiver must take them, not refuse them at the door): the memory bound must hold for
 * them too, not just for what a well-behaved exporter sends.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { otlpTypes } from '../../collector/otlp/internal/proto.js';

export interface HostileBody {
  readonly name: string;
  readonly contentType: 'application/x-protobuf' | 'application/json';
  /** gzip-encoded: small on the wire, `inflated` bytes once read. */
  readonly body: Buffer;
  readonly inflated: number;
  /** A new body for each request, when the same body sent again would only be refused as duplicates. */
  readonly fresh?: () => Buffer;
}

const PROTOBUF = 'application/x-protobuf';

/** As many spans as fit, each with `attributes` tiny non-convention attributes: the most protobuf messages per byte. */
export function denseAttributes(maxBytes: number, spans: number, attributes: number): HostileBody {
  const attrs = Array.from({ length: attributes }, (_, i) => ({ key: `k${i % 10}`, value: { intValue: i } }));
  const one = { traceId: randomBytes(16), spanId: randomBytes(8), name: 's', startTimeUnixNano: 1, endTimeUnixNano: 2, attributes: attrs };
  const perSpan = encode([one]).length;
  const fit = Math.min(spans, Math.floor((maxBytes - 64) / perSpan));
  return protobufBody(
    `protobuf: ${fit} spans x ${attributes} attributes`,
    Array.from({ length: fit }, () => ({ ...one, spanId: randomBytes(8) })),
  );
}

/** Empty span messages (2 bytes each): millions of spans, nearly all past the per-request limit. */
export function emptySpans(maxBytes: number): HostileBody {
  const count = Math.floor((maxBytes - 16) / 2);
  const spans = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) spans[2 * i] = 0x12; // ScopeSpans.spans (2, length-delimited), length 0
  const scope = Buffer.concat([Buffer.from([0x12]), varint(spans.length), spans]); // ResourceSpans.scope_spans
  const raw = Buffer.concat([Buffer.from([0x0a]), varint(scope.length), scope]); // request.resource_spans
  return { name: `protobuf: ${count} empty spans`, contentType: PROTOBUF, body: gzipSync(raw), inflated: raw.length };
}

/** OTLP/JSON of empty span objects: JSON.parse builds one object per 3 bytes. */
export function jsonEmptySpans(maxBytes: number): HostileBody {
  const head = '{"resourceSpans":[{"scopeSpans":[{"spans":[';
  const tail = ']}]}]}';
  const count = Math.floor((maxBytes - head.length - tail.length) / 3);
  const raw = Buffer.from(head + '{},'.repeat(count - 1) + '{}' + tail);
  return { name: `json: ${count} empty spans`, contentType: 'application/json', body: gzipSync(raw), inflated: raw.length };
}

/**
 * Children of roots that never come, every string at the length limit: each waits in the receiver (queue, then
 * pending) as long as the receiver keeps spans, at the largest size a span may have.
 */
export function fatOrphans(maxBytes: number, maxStringLength: number): HostileBody {
  const text = (c: string): string => c.repeat(maxStringLength);
  const span = (): Record<string, unknown> => ({
    traceId: randomBytes(16),
    spanId: randomBytes(8),
    parentSpanId: randomBytes(8),
    name: text('n'),
    startTimeUnixNano: 1,
    endTimeUnixNano: 2,
    attributes: ['object', 'model', 'operation', 'outcome', 'time', 'controller2'].map((k) => ({ key: `reconcile.${k}`, value: { stringValue: text(k[0]!) } })),
    status: { code: 2, message: text('m') },
  });
  const perSpan = encode([span()]).length;
  const count = Math.floor((maxBytes - 64) / perSpan);
  return protobufBody(`protobuf: ${count} orphan spans with ${maxStringLength}-character strings`, Array.from({ length: count }, span));
}

/**
 * Valid attempts (a root without operations), each of an object never seen before whose name is as long as strings
 * may be: every one is analyzed, and the analyzer keeps per-object state.
 */
export function distinctObjects(maxBytes: number, maxStringLength: number, controller: string): HostileBody {
  let next = 0;
  const make = (): Record<string, unknown>[] => {
    const spans: Record<string, unknown>[] = [];
    for (let bytes = 64; bytes + maxStringLength + 200 < maxBytes; bytes += maxStringLength + 200) {
      const object = `ns/${String(next++).padStart(12, '0')}`.padEnd(maxStringLength, 'x');
      const attributes = { 'reconcile.controller': controller, 'reconcile.object': object, 'reconcile.model': 'phased', 'reconcile.operation_count': 0 };
      spans.push({
        traceId: randomBytes(16),
        spanId: randomBytes(8),
        name: 'reconcile',
        startTimeUnixNano: 1,
        endTimeUnixNano: 2,
        attributes: keyValues(attributes),
      });
    }
    return spans;
  };
  const first = make();
  const raw = encode(first);
  return {
    name: `protobuf: ${first.length} attempts per request, each of a new object with a ${maxStringLength}-character name`,
    contentType: PROTOBUF,
    body: gzipSync(raw),
    inflated: raw.length,
    fresh: () => gzipSync(encode(make())),
  };
}

function keyValues(attributes: Record<string, string | number>): Record<string, unknown>[] {
  return Object.entries(attributes).map(([key, v]) => ({ key, value: typeof v === 'string' ? { stringValue: v } : { intValue: v } }));
}

function protobufBody(name: string, spans: Record<string, unknown>[]): HostileBody {
  const raw = encode(spans);
  return { name, contentType: PROTOBUF, body: gzipSync(raw), inflated: raw.length };
}

function encode(spans: Record<string, unknown>[]): Buffer {
  const { request } = otlpTypes();
  return Buffer.from(request.encode(request.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish());
}

function varint(n: number): Buffer {
  const out: number[] = [];
  for (; n > 127; n >>>= 7) out.push((n & 127) | 128);
  out.push(n);
  return Buffer.from(out);
}
