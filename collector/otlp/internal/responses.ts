/**
 * OTLP/HTTP response bodies, in the encoding of the request (JSON when the request's own type was not understood):
 * 200 carries an ExportTraceServiceResponse, with `partial_success` only when spans were rejected;
 * errors carry a google.rpc.Status whose code is the gRPC code matching the HTTP status. OTLP/gRPC answers the same
 * codes (grpcCode), and back-pressure carries a google.rpc.RetryInfo in the status details (retryStatusDetails).
 */
import { MEDIA_TYPES, type OtlpEncoding } from './decode.js';
import { otlpTypes } from './proto.js';

export interface OtlpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

const GRPC_CODE: Readonly<Record<number, number>> = {
  400: 3, // INVALID_ARGUMENT
  401: 16, // UNAUTHENTICATED
  404: 5, // NOT_FOUND
  405: 12, // UNIMPLEMENTED
  413: 3, // INVALID_ARGUMENT
  415: 3, // INVALID_ARGUMENT
  429: 8, // RESOURCE_EXHAUSTED
  500: 13, // INTERNAL
  503: 14, // UNAVAILABLE
};

/** The gRPC status code OTLP pairs with an HTTP status (UNKNOWN for one it does not name). */
export function grpcCode(status: number): number {
  return GRPC_CODE[status] ?? 2;
}

const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * The `grpc-status-details-bin` of a refusal the client should retry after `seconds`: a google.rpc.Status whose
 * details hold a google.rpc.RetryInfo, which is what the OTLP spec asks of RESOURCE_EXHAUSTED for it to be retried.
 */
export function retryStatusDetails(code: number, message: string, seconds: number): Uint8Array {
  const t = otlpTypes();
  const retryInfo = t.retryInfo.encode({ retryDelay: { seconds, nanos: 0 } }).finish();
  return t.rpcStatus.encode({ code, message, details: [{ typeUrl: RETRY_INFO_TYPE, value: retryInfo }] }).finish();
}

export function exportResponse(encoding: OtlpEncoding, rejectedSpans: number, errorMessage: string): OtlpResponse {
  const partial = rejectedSpans > 0 ? { partialSuccess: { rejectedSpans, errorMessage } } : {};
  const body =
    encoding === 'protobuf'
      ? otlpTypes().response.encode(partial).finish()
      : // proto3 JSON writes int64 as a decimal string
        json(rejectedSpans > 0 ? { partialSuccess: { rejectedSpans: String(rejectedSpans), errorMessage } } : {});
  return { status: 200, headers: { 'content-type': MEDIA_TYPES[encoding] }, body };
}

export function errorResponse(encoding: OtlpEncoding, status: number, message: string, headers: Readonly<Record<string, string>> = {}): OtlpResponse {
  const rpcStatus = { code: grpcCode(status), message };
  const body = encoding === 'protobuf' ? otlpTypes().rpcStatus.encode(rpcStatus).finish() : json(rpcStatus);
  return { status, headers: { 'content-type': MEDIA_TYPES[encoding], ...headers }, body };
}

function json(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
