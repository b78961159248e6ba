/**
 * `sources.otlp`: the OTLP trace receiver (docs/otlp.md), OTLP/HTTP and, with `grpc`, OTLP/gRPC, as a registry
 * component. Its defaults are the
 * receiver's own (limits.ts, the assembler's), so the config and the code cannot disagree; the receiver, protobufjs
 * and the .proto are loaded only when the section is configured.
 */
import { readFileSync } from 'node:fs';
import { durationText } from '../../lib/schema.js';
import { LOOP_KINDS } from '../../model/types.js';
import type { SourceComponent } from '../component.js';
import { REFUSED_BY_ANALYZER } from '../records.js';
import { DEFAULT_SPAN_ASSEMBLER_OPTIONS } from './internal/assembler.js';
import { DEFAULT_LIMITS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_TIMEOUTS } from './internal/limits.js';
import { DEFAULT_OPERATION, MAPPING_SHAPES } from './internal/span-mappings.js';
import { DEFAULT_PORTS } from '../../lib/ports.js';

const L = DEFAULT_LIMITS;
const A = DEFAULT_SPAN_ASSEMBLER_OPTIONS;
const T = DEFAULT_TIMEOUTS;

const schema = {
  kind: 'object',
  doc: 'receive reconcile spans over OTLP/HTTP and OTLP/gRPC (docs/otlp.md); every limit answers as the README table says',
  fields: {
    listen: { kind: 'address', default: `127.0.0.1:${DEFAULT_PORTS.otlpHttp}`, doc: 'where POST /v1/traces is served' },
    grpc: {
      kind: 'object',
      doc: 'also serve OTLP/gRPC, with the same bearer token, TLS, limits and books (left out: HTTP only)',
      fields: {
        listen: {
          kind: 'address',
          default: `127.0.0.1:${DEFAULT_PORTS.otlpGrpc}`,
          doc: 'where opentelemetry.proto.collector.trace.v1.TraceService/Export is served',
        },
      },
    },
    spanMappings: {
      kind: 'list',
      default: [],
      doc: "other operators' reconcile spans read as attempts, besides the reconcile.* convention (docs/otlp.md, Other operators' spans)",
      of: {
        kind: 'object',
        fields: {
          shape: {
            kind: 'enum',
            values: MAPPING_SHAPES,
            required: true,
            doc: 'kube-rs (`reconciling object`), tekton (`<Kind>:ReconcileKind`), span (a name of your choice), reconcile (the convention: always on)',
          },
          controller: { kind: 'string', doc: "the model's controller; kube-rs and tekton default to the object's kind, lowercased; required for span" },
          loop: { kind: 'enum', values: LOOP_KINDS, default: 'sequential', doc: 'the loop the operator runs (its spans do not say)' },
          operation: { kind: 'string', default: DEFAULT_OPERATION, doc: 'the one operation of an attempt whose root span has no child span' },
          namespaced: { kind: 'boolean', default: true, doc: 'kube-rs: object.ref ends in .namespace (false: a cluster-scoped kind)' },
          span: { kind: 'string', doc: 'span: the root span name' },
          nameAttribute: { kind: 'string', doc: "span: the attribute holding the object's name" },
          namespaceAttribute: { kind: 'string', doc: "span: the attribute holding the object's namespace (none: cluster-scoped)" },
        },
      },
    },
    maxBodyBytes: { kind: 'integer', default: L.maxBodyBytes, min: 1, unit: 'bytes', doc: 'request body on the wire, plain or gzip' },
    maxDecompressedBytes: { kind: 'integer', default: L.maxDecompressedBytes, min: 1, unit: 'bytes', doc: 'gzip body once inflated' },
    maxBufferedBodyBytes: {
      kind: 'integer',
      default: L.maxBufferedBodyBytes,
      min: 1,
      unit: 'bytes',
      doc: 'bytes held by bodies being read, all requests together',
    },
    maxConnectionsPerPeer: { kind: 'integer', default: L.maxConnectionsPerPeer, min: 1, unit: 'connections', doc: 'open connections from one client address' },
    maxConnections: { kind: 'integer', default: L.maxConnections, min: 1, unit: 'connections', doc: 'open connections in all' },
    maxSpansPerRequest: { kind: 'integer', default: L.maxSpansPerRequest, min: 1, unit: 'spans' },
    maxAttributesPerSpan: { kind: 'integer', default: L.maxAttributesPerSpan, min: 1, unit: 'attributes' },
    maxStringLength: { kind: 'integer', default: L.maxStringLength, min: 1, unit: 'characters', doc: 'span name, status message, reconcile.* values' },
    maxQueuedSpans: { kind: 'integer', default: L.maxQueuedSpans, min: 1, unit: 'spans', doc: 'decoded spans waiting for assembly; past it requests get 429' },
    maxQueuedBytes: { kind: 'integer', default: L.maxQueuedBytes, min: 1, unit: 'bytes', doc: 'the same, in estimated heap bytes' },
    maxPendingAttempts: { kind: 'integer', default: A.maxPendingAttempts, min: 1, unit: 'attempts', doc: 'attempts waiting for their spans' },
    maxPendingSpans: { kind: 'integer', default: A.maxPendingSpans, min: 1, unit: 'spans', doc: 'spans waiting in attempts' },
    maxPendingBytes: { kind: 'integer', default: A.maxPendingBytes, min: 1, unit: 'bytes', doc: 'the same, in estimated heap bytes' },
    recentSpanMemory: {
      kind: 'integer',
      default: A.recentSpanMemory,
      min: 1,
      unit: 'span ids',
      doc: 'span ids remembered to spot resent spans (duplicate_span)',
    },
    headersTimeout: { kind: 'duration', default: durationText(T.headersTimeoutMs), doc: "a request's headers, from the connection's opening" },
    bodyIdleTimeout: { kind: 'duration', default: durationText(T.bodyIdleTimeoutMs), doc: "the gap between two pieces of a request's body" },
    bodyTimeout: { kind: 'duration', default: durationText(T.bodyTimeoutMs), doc: "a request's whole body, from the end of its headers" },
    shutdownGrace: {
      kind: 'duration',
      default: durationText(T.shutdownGraceMs),
      doc: 'requests still being read at shutdown get this long; less than shutdownTimeout',
    },
    retryAfter: {
      kind: 'duration',
      default: durationText(DEFAULT_RETRY_AFTER_SECONDS * 1000),
      min: '1s',
      doc: 'the Retry-After of 429 and 503 answers (whole seconds, rounded up)',
    },
    settle: {
      kind: 'duration',
      default: durationText(A.settleMs),
      doc: 'an attempt without reconcile.operation_count is analyzed this long after its last span',
    },
    maxWait: { kind: 'duration', default: durationText(A.maxWaitMs), doc: "wait for an attempt's remaining spans; then it is analyzed as incomplete" },
    bearerTokenFile: { kind: 'string', doc: 'require `Authorization: Bearer <token>`, with the token in this file' },
    tls: {
      kind: 'object',
      doc: 'serve HTTPS',
      fields: {
        certFile: { kind: 'string', required: true, doc: 'server certificate (PEM)' },
        keyFile: { kind: 'string', required: true, doc: 'server key (PEM)' },
        clientCaFile: { kind: 'string', doc: 'require client certificates signed by this CA (mTLS)' },
      },
    },
  },
} as const;

export const otlp: SourceComponent<typeof schema> = {
  kind: 'otlp',
  title: 'OTLP/HTTP and OTLP/gRPC spans from an instrumented operator',
  schema,
  reasons: [
    'body_too_large',
    'decompressed_too_large',
    'undecodable_body',
    'unsupported_media_type',
    'unauthorized',
    'bad_request',
    'request_timeout',
    'idle_connection',
    'connection_limit',
    'too_many_spans',
    'too_many_attributes',
    'invalid_record',
    'orphan_span',
    'duplicate_span',
    'queue_full',
    'pending_limit',
    'too_many_operations',
    'shutdown',
    'internal_error',
    ...REFUSED_BY_ANALYZER,
  ],
  check(o, fail) {
    o.spanMappings.forEach((m, i) => {
      const own = m.shape === 'span' ? [] : (['span', 'nameAttribute', 'namespaceAttribute'] as const).filter((k) => m[k] !== undefined);
      for (const k of own) fail(['spanMappings', i, k], 'only for shape: span');
      const missing = m.shape === 'span' ? (['span', 'nameAttribute', 'controller'] as const).filter((k) => m[k] === undefined) : [];
      if (missing.length > 0) fail(['spanMappings', i], `shape span needs span, nameAttribute and controller; missing: ${missing.join(', ')}`);
    });
  },
  async create(o, sinks, _hooks, context) {
    const { OtlpReceiver } = await import('./internal/receiver.js');
    const pem = (path: string): Buffer => readFileSync(path);
    const token = o.bearerTokenFile === undefined ? undefined : readFileSync(o.bearerTokenFile, 'utf8').trim();
    return new OtlpReceiver(
      {
        host: o.listen.host,
        port: o.listen.port,
        spanMappings: o.spanMappings,
        ...(o.grpc ? { grpc: { host: o.grpc.listen.host, port: o.grpc.listen.port } } : {}),
        ...(token === undefined ? {} : { bearerToken: token }),
        ...(o.tls
          ? { tls: { cert: pem(o.tls.certFile), key: pem(o.tls.keyFile), ...(o.tls.clientCaFile ? { ca: pem(o.tls.clientCaFile), requestCert: true } : {}) } }
          : {}),
        limits: {
          maxBodyBytes: o.maxBodyBytes,
          maxDecompressedBytes: o.maxDecompressedBytes,
          maxSpansPerRequest: o.maxSpansPerRequest,
          maxAttributesPerSpan: o.maxAttributesPerSpan,
          maxStringLength: o.maxStringLength,
          maxQueuedSpans: o.maxQueuedSpans,
          maxQueuedBytes: o.maxQueuedBytes,
          maxBufferedBodyBytes: o.maxBufferedBodyBytes,
          maxConnectionsPerPeer: o.maxConnectionsPerPeer,
          maxConnections: o.maxConnections,
        },
        assembly: {
          settleMs: o.settle,
          maxWaitMs: o.maxWait,
          maxPendingAttempts: o.maxPendingAttempts,
          maxPendingSpans: o.maxPendingSpans,
          maxPendingBytes: o.maxPendingBytes,
          recentSpanMemory: o.recentSpanMemory,
          knownOperations: new Set(context.models.flatMap((m) => m.operations.map((op) => op.name))),
        },
        retryAfterSeconds: Math.ceil(o.retryAfter / 1000),
        headersTimeoutMs: o.headersTimeout,
        bodyIdleTimeoutMs: o.bodyIdleTimeout,
        bodyTimeoutMs: o.bodyTimeout,
        shutdownGraceMs: o.shutdownGrace,
      },
      sinks.attempts,
    );
  },
};
