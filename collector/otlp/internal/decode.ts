/**
 * Body -> spans, for either OTLP/HTTP encoding. This is the pure entry point the receiver and the benchmark share:
 * no HTTP, no clock. Media types follow the OTLP/HTTP spec; parameters such as `charset` are ignored.
 */
import { decodeJsonRequest } from './decode-json.js';
import { decodeProtobufRequest } from './decode-protobuf.js';
import type { DecodedBatch } from './span-batch.js';
import type { DecodeLimits, DecodedRequest } from './span.js';

export type OtlpEncoding = 'protobuf' | 'json';

/** The encoding a `content-type` header names, or undefined for any other media type (HTTP 415). */
export function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const mediaType = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType === 'application/x-protobuf') return 'protobuf';
  if (mediaType === 'application/json') return 'json';
  return undefined;
}

export const MEDIA_TYPES: Readonly<Record<OtlpEncoding, string>> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/**
 * The spans as columns (span-batch.ts), as the receiver queues them. Throws UndecodableBody when the body as a whole
 * cannot be read; single bad spans come back as problems.
 */
export function decodeTraceBatch(body: Uint8Array, encoding: OtlpEncoding, limits: DecodeLimits): DecodedBatch {
  return encoding === 'protobuf' ? decodeProtobufRequest(body, limits) : decodeJsonRequest(body, limits);
}

/** The same, each span as an object. */
export function decodeTraceRequest(body: Uint8Array, encoding: OtlpEncoding, limits: DecodeLimits): DecodedRequest {
  const { batch, problems } = decodeTraceBatch(body, encoding, limits);
  return { spans: batch.spans(), problems };
}
