/**
 * `application/json` bodies (OTLP/JSON). Not canonical proto3 JSON: ids are hex (either case), int64 values
 * arrive as decimal strings or as JSON numbers (the JS exporter sends `intValue` as a number), enums as integers.
 * A body whose structure is wrong is undecodable (400); a span with a wrong field is rejected on its own.
 */
import {
  CONVENTION_PREFIX,
  SpanFieldProblem,
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

type JsonObject = Record<string, unknown>;

/** The Collector's JSON unmarshaler also accepts the enum names, so senders may use them. */
const STATUS_CODE_NAMES: Readonly<Record<string, number>> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

export function decodeJsonRequest(body: Uint8Array, limits: DecodeLimits): DecodedRequest {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch (e) {
    throw new UndecodableBody(`not JSON: ${(e as Error).message}`);
  }
  if (!isObject(value)) throw new UndecodableBody('the body is not an ExportTraceServiceRequest object');
  const spanLists: { at: string; spans: unknown[] }[] = [];
  listAt(value, 'resourceSpans', 'resourceSpans').forEach((rs, r) => {
    const rsAt = `resourceSpans[${r}]`;
    if (!isObject(rs)) throw new UndecodableBody(`${rsAt}: not an object`);
    listAt(rs, 'scopeSpans', `${rsAt}.scopeSpans`).forEach((ss, s) => {
      const ssAt = `${rsAt}.scopeSpans[${s}]`;
      if (!isObject(ss)) throw new UndecodableBody(`${ssAt}: not an object`);
      spanLists.push({ at: `${ssAt}.spans`, spans: listAt(ss, 'spans', `${ssAt}.spans`) });
    });
  });
  const total = spanLists.reduce((n, l) => n + l.spans.length, 0);
  const spans: OtlpSpan[] = [];
  const problems: SpanProblem[] = [];
  let index = 0;
  for (const list of spanLists) {
    list.spans.forEach((span, k) => {
      if (index >= limits.maxSpansPerRequest) problems.push(tooManySpans(index, total, limits));
      else {
        try {
          spans.push(toSpan(span, limits));
        } catch (e) {
          problems.push(spanProblem(`${list.at}[${k}]`, e));
        }
      }
      index++;
    });
  }
  return { spans, problems };
}

/** A repeated field: absent or null is empty (proto3 JSON), anything but a list is undecodable. */
function listAt(o: JsonObject, key: string, at: string): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new UndecodableBody(`${at}: not a list`);
  return v;
}

function toSpan(span: unknown, limits: DecodeLimits): OtlpSpan {
  if (!isObject(span)) throw new SpanFieldProblem('invalid_record', 'not an object');
  const traceId = idField(span, 'traceId');
  const spanId = idField(span, 'spanId');
  const parentSpanId = idField(span, 'parentSpanId');
  checkIds(traceId, spanId, parentSpanId);
  const startNs = uint64Field(span, 'startTimeUnixNano');
  const endNs = uint64Field(span, 'endTimeUnixNano');
  checkTimes(startNs, endNs);
  const name = stringField(span, 'name', 'name');
  checkLength('name', name, limits);
  const { statusCode, statusMessage } = status(span.status);
  checkLength('status.message', statusMessage, limits);
  const list = span.attributes ?? [];
  if (!Array.isArray(list)) throw new SpanFieldProblem('invalid_record', 'attributes: not a list');
  checkAttributeCount(list.length, limits);
  const attributes = new Map<string, AttributeValue>();
  list.forEach((kv, i) => {
    if (!isObject(kv) || typeof kv.key !== 'string') throw new SpanFieldProblem('invalid_record', `attributes[${i}]: not a {key, value} object`);
    if (!kv.key.startsWith(CONVENTION_PREFIX)) return;
    const value = scalar(kv.value, `attributes[${kv.key}]`);
    if (value === undefined) return;
    if (typeof value === 'string') checkLength(`attributes[${kv.key}]`, value, limits);
    attributes.set(kv.key, value);
  });
  return { traceId, spanId, parentSpanId, name, startNs, endNs, statusCode, statusMessage, attributes };
}

function status(v: unknown): { statusCode: number; statusMessage: string } {
  if (v === undefined || v === null) return { statusCode: 0, statusMessage: '' };
  if (!isObject(v)) throw new SpanFieldProblem('invalid_record', 'status: not an object');
  const code = v.code ?? 0;
  let statusCode: number | undefined;
  if (typeof code === 'number' && Number.isInteger(code)) statusCode = code;
  else if (typeof code === 'string') statusCode = STATUS_CODE_NAMES[code];
  if (statusCode === undefined) throw new SpanFieldProblem('invalid_record', `status.code: not a status code: ${JSON.stringify(code)}`);
  return { statusCode, statusMessage: stringField(v, 'message', 'status.message') };
}

/** Only the scalar kinds are kept; the convention uses no arrays, maps or bytes. */
function scalar(v: unknown, at: string): AttributeValue | undefined {
  if (!isObject(v)) return undefined;
  if ('stringValue' in v) {
    if (typeof v.stringValue !== 'string') throw new SpanFieldProblem('invalid_record', `${at}.stringValue: not a string`);
    return v.stringValue;
  }
  if ('boolValue' in v) {
    if (typeof v.boolValue !== 'boolean') throw new SpanFieldProblem('invalid_record', `${at}.boolValue: not a boolean`);
    return v.boolValue;
  }
  if ('intValue' in v) return int64(v.intValue, `${at}.intValue`);
  if ('doubleValue' in v) {
    if (typeof v.doubleValue !== 'number') throw new SpanFieldProblem('invalid_record', `${at}.doubleValue: not a number`);
    return v.doubleValue;
  }
  return undefined;
}

function int64(v: unknown, at: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^-?\d{1,20}$/.test(v)) n = BigInt(v);
  if (n !== undefined && n === BigInt.asIntN(64, n)) return n;
  throw new SpanFieldProblem('invalid_record', `${at}: not an int64: ${JSON.stringify(v)}`);
}

function uint64Field(o: JsonObject, key: string): bigint {
  const v = o[key] ?? '0';
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return BigInt(v);
  throw new SpanFieldProblem('invalid_record', `${key}: not a uint64 count of nanoseconds: ${JSON.stringify(v)}`);
}

function idField(o: JsonObject, key: string): string {
  return stringField(o, key, key).toLowerCase();
}

function stringField(o: JsonObject, key: string, at: string): string {
  const v = o[key] ?? '';
  if (typeof v !== 'string') throw new SpanFieldProblem('invalid_record', `${at}: not a string`);
  return v;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
