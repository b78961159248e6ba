/**
 * The protobufjs types of our own `otlp_trace.proto`, loaded once by reflection (no generated code).
 * The .proto is read from the package root at run time, like the built-in models: tsc does not copy it to
 * dist/, and keeping it a real .proto file lets it be diffed against upstream opentelemetry-proto.
 */
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { packageRoot } from '../../../lib/package-root.js';

const PROTO_FILE = join(packageRoot(), 'collector', 'otlp', 'otlp_trace.proto');

export interface OtlpTypes {
  readonly request: protobuf.Type;
  readonly response: protobuf.Type;
  readonly rpcStatus: protobuf.Type;
  readonly retryInfo: protobuf.Type;
}

let types: OtlpTypes | undefined;

export function otlpTypes(): OtlpTypes {
  if (!types) {
    const root = protobuf.loadSync(PROTO_FILE);
    types = {
      request: root.lookupType('reconcile_shadow.otlp.ExportTraceServiceRequest'),
      response: root.lookupType('reconcile_shadow.otlp.ExportTraceServiceResponse'),
      rpcStatus: root.lookupType('reconcile_shadow.otlp.RpcStatus'),
      retryInfo: root.lookupType('reconcile_shadow.otlp.RetryInfo'),
    };
  }
  return types;
}

/** An int64/fixed64 as protobufjs returns it: a Long (long.js is installed) or, without it, a number. */
export type ProtoLong = number | { readonly low: number; readonly high: number };

/** Exact conversion; `signed` for int64, unsigned for fixed64. */
export function longToBigInt(v: ProtoLong, signed: boolean): bigint {
  if (typeof v === 'number') return BigInt(v);
  const bits = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return signed ? BigInt.asIntN(64, bits) : bits;
}
