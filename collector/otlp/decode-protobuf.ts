/**
 * `application/x-protobuf` bodies: protobufjs decodes the ExportTraceServiceRequest, this walks it into OtlpSpans.
 * protobufjs reflection puts proto3 defaults on the prototype (unset strings read '', unset messages null),
 * and a oneof is read through its virtual field (`value.value` names the member that is set).
 */
import { otlpTypes, longToBigInt, type ProtoLong } from './proto.js';
import {
  CONVENTION_PREFIX,
  UndecodableBody,
  checkAttributeCount,
  checkIds,
  checkLength,
  checkTimes,
  spanProblem,
  tooManySpans,
  type AttributeValue,
  type DecodeLimits,
  type DecodedRequest,
  type OtlpSpan,
  type SpanProblem,
} from './span.js';

interface ProtoAnyValue {
  readonly value?: string;
  readonly stringValue: string;
  readonly boolValue: boolean;
  readonly intValue: ProtoLong;
  readonly doubleValue: number;
}

interface ProtoKeyValue {
  readonly key: string;
  readonly value: ProtoAnyValue | null;
}

interface ProtoSpan {
  readonly traceId: Uint8Array | readonly number[];
  readonly spanId: Uint8Array | readonly number[];
  readonly parentSpanId: Uint8Array | readonly number[];
  readonly name: string;
  readonly startTimeUnixNano: ProtoLong;
  readonly endTimeUnixNano: ProtoLong;
  readonly attributes: readonly ProtoKeyValue[];
  readonly status: { readonly code: number; readonly message: string } | null;
}

interface ProtoRequest {
  readonly resourceSpans: readonly { readonly scopeSpans: readonly { readonly spans: readonly ProtoSpan[] }[] }[];
}

export function decodeProtobufRequest(body: Uint8Array, limits: DecodeLimits): DecodedRequest {
  let request: ProtoRequest;
  try {
    request = otlpTypes().request.decode(body) as unknown as ProtoRequest;
  } catch (e) {
    throw new UndecodableBody(`not a protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
  }
  const total = countSpans(request);
  const spans: OtlpSpan[] = [];
  const problems: SpanProblem[] = [];
  let index = 0;
  request.resourceSpans.forEach((rs, r) => {
    rs.scopeSpans.forEach((ss, s) => {
      ss.spans.forEach((span, k) => {
        if (index >= limits.maxSpansPerRequest) problems.push(tooManySpans(index, total, limits));
        else {
          try {
            spans.push(toSpan(span, limits));
          } catch (e) {
            problems.push(spanProblem(`resource_spans[${r}].scope_spans[${s}].spans[${k}]`, e));
          }
        }
        index++;
      });
    });
  });
  return { spans, problems };
}

function countSpans(request: ProtoRequest): number {
  let n = 0;
  for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans) n += ss.spans.length;
  return n;
}

function toSpan(span: ProtoSpan, limits: DecodeLimits): OtlpSpan {
  const traceId = hex(span.traceId);
  const spanId = hex(span.spanId);
  const parentSpanId = hex(span.parentSpanId);
  checkIds(traceId, spanId, parentSpanId);
  const startNs = longToBigInt(span.startTimeUnixNano, false);
  const endNs = longToBigInt(span.endTimeUnixNano, false);
  checkTimes(startNs, endNs);
  checkLength('name', span.name, limits);
  const statusMessage = span.status?.message ?? '';
  checkLength('status.message', statusMessage, limits);
  checkAttributeCount(span.attributes.length, limits);
  const attributes = new Map<string, AttributeValue>();
  for (const kv of span.attributes) {
    if (!kv.key.startsWith(CONVENTION_PREFIX) || !kv.value) continue;
    const value = scalar(kv.value);
    if (value === undefined) continue;
    if (typeof value === 'string') checkLength(`attributes[${kv.key}]`, value, limits);
    attributes.set(kv.key, value);
  }
  return { traceId, spanId, parentSpanId, name: span.name, startNs, endNs, statusCode: span.status?.code ?? 0, statusMessage, attributes };
}

function scalar(v: ProtoAnyValue): AttributeValue | undefined {
  switch (v.value) {
    case 'stringValue':
      return v.stringValue;
    case 'boolValue':
      return v.boolValue;
    case 'intValue':
      return longToBigInt(v.intValue, true);
    case 'doubleValue':
      return v.doubleValue;
    default:
      return undefined;
  }
}

/** A present bytes field is a Buffer; an absent one is the prototype's default, a plain empty array. */
function hex(bytes: Uint8Array | readonly number[]): string {
  return bytes instanceof Uint8Array ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') : Buffer.from(bytes).toString('hex');
}
