/**
 * OTLP/gRPC: `opentelemetry.proto.collector.trace.v1.TraceService/Export`, served with @grpc/grpc-js into the same
 * intake as OTLP/HTTP (intake.ts): the same decoder, limits, queue, books and refusal reasons, answered with the
 * gRPC status the OTLP spec pairs with each (responses.ts, grpcCode): INVALID_ARGUMENT for a request that is not
 * OTLP or is too large, UNAUTHENTICATED without the bearer token, RESOURCE_EXHAUSTED with a RetryInfo when the queue
 * is full, UNAVAILABLE while stopping.
 * The service is registered with pass-through (de)serializers, so the message reaches the intake as the bytes on the
 * wire (inflated by grpc-js when the client sent it gzip) and is read by the receiver's own protobuf decoder.
 * grpc-js refuses some calls itself before the handler runs (a message past `grpc.max_receive_message_length`, a
 * compressed message that does not inflate, an unknown compression, a deadline that passed); an interceptor sees
 * their status and counts each as one request, under the reason the same fault has over HTTP, so received = analyzed
 * + dropped holds for gRPC too. A call whose client went away before its message was complete counts as one as well.
 */
import grpc from '@grpc/grpc-js';
import type { RejectReason } from '../../records.js';
import type { SpanIntake, Verdict } from './intake.js';
import type { OtlpLimits } from './limits.js';
import { exportResponse, grpcCode, retryStatusDetails } from './responses.js';

export const TRACE_SERVICE = 'opentelemetry.proto.collector.trace.v1.TraceService';
export const EXPORT_PATH = `/${TRACE_SERVICE}/Export`;

export interface GrpcListenOptions {
  readonly host: string;
  readonly port: number;
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer; readonly ca?: string | Buffer; readonly requestCert?: boolean };
}

export interface GrpcIntake {
  readonly intake: SpanIntake;
  /** The bearer token check of the HTTP path, on the `authorization` metadata. */
  readonly authorized: (authorization: string | undefined) => boolean;
  readonly stopping: () => boolean;
}

/** One Export call, from its first frame to its status. */
interface CallState {
  readonly where: string;
  /** Our handler took the call: it counted it and answers it. */
  handled: boolean;
  /** Counted as a refusal grpc-js made, or as a client gone. */
  counted: boolean;
}

const passThrough = (b: Buffer): Buffer => b;

const SERVICE: grpc.ServiceDefinition = {
  Export: {
    path: EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: passThrough,
    requestDeserialize: passThrough,
    responseSerialize: passThrough,
    responseDeserialize: passThrough,
  },
};

export class OtlpGrpcServer {
  private readonly server: grpc.Server;
  private port: number | undefined;
  private calls = 0;
  /** Calls not yet answered or counted; stop() waits for them. */
  private readonly live = new Set<CallState>();
  /** The message of a call, to the call it came in: how the handler finds what the interceptor knows. */
  private readonly byMessage = new WeakMap<Buffer, CallState>();

  constructor(
    private readonly options: GrpcListenOptions,
    limits: OtlpLimits,
    private readonly intake: GrpcIntake,
  ) {
    this.server = new grpc.Server({
      // one limit for the message on the wire and once inflated (grpc-js applies the one it has to both)
      'grpc.max_receive_message_length': Math.min(limits.maxBodyBytes, limits.maxDecompressedBytes),
      interceptors: [(_method, call) => this.intercept(call)],
    });
    this.server.addService(SERVICE, {
      Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => this.export(call, callback),
    });
  }

  async start(): Promise<void> {
    const tls = this.options.tls;
    const credentials = tls
      ? grpc.ServerCredentials.createSsl(
          tls.ca === undefined ? null : Buffer.from(tls.ca),
          [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }],
          tls.requestCert ?? false,
        )
      : grpc.ServerCredentials.createInsecure();
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`${host}:${this.options.port}`, credentials, (e, port) => (e ? reject(e) : resolve(port))),
    );
  }

  address(): { host: string; port: number } {
    if (this.port === undefined) throw new Error('OtlpGrpcServer: not started');
    return { host: this.options.host, port: this.port };
  }

  /**
   * Stops taking connections and lets calls in flight end (each is answered at once: UNAVAILABLE while stopping);
   * after `graceMs` the rest are cancelled and counted (`shutdown`). Resolves once every call is answered or counted.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.port === undefined) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    // a cancelled call is told so on the next tick
    while (this.live.size > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  private intercept(call: grpc.ServerInterceptingCallInterface): grpc.ServerInterceptingCall {
    const state: CallState = { where: `gRPC ${EXPORT_PATH} #${++this.calls} from ${call.getPeer()}`, handled: false, counted: false };
    this.live.add(state);
    // grpc-js's own refusals are sent by the call itself, below any interceptor: seen here, where every status passes
    const send = call.sendStatus.bind(call);
    call.sendStatus = (status) => {
      if (!state.handled && !state.counted) this.countTransportRefusal(state, status.code ?? grpc.status.UNKNOWN, status.details ?? '');
      this.live.delete(state);
      send(status);
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMessage: (message: Buffer, nextMessage) => {
            this.byMessage.set(message, state);
            nextMessage(message);
          },
          onCancel: () => {
            if (!state.handled && !state.counted) {
              state.counted = true;
              const stopping = this.intake.stopping();
              this.intake.intake.count(
                stopping ? 'shutdown' : 'undecodable_body',
                state.where,
                stopping ? 'the receiver stopped before the message was complete' : 'the client went away before its message was complete',
              );
            }
            this.live.delete(state);
          },
        }),
    });
  }

  private export(call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>): void {
    const state = this.byMessage.get(call.request);
    if (!state) throw new Error('OtlpGrpcServer: a message the interceptor did not see');
    state.handled = true;
    let verdict: Verdict;
    try {
      verdict = this.decide(call.request, call.metadata, state.where);
    } catch (e) {
      verdict = this.intake.intake.refuse(state.where, 500, 'internal_error', `the receiver failed: ${(e as Error).message}`);
    }
    if (verdict.accepted) {
      callback(null, Buffer.from(exportResponse('protobuf', verdict.rejectedSpans, verdict.errorMessage).body));
      return;
    }
    const code = grpcCode(verdict.status);
    const metadata = new grpc.Metadata();
    if (verdict.retryAfterSeconds !== undefined)
      metadata.set('grpc-status-details-bin', Buffer.from(retryStatusDetails(code, verdict.message, verdict.retryAfterSeconds)));
    callback({ code, details: verdict.message, metadata });
  }

  /** The same checks, in the same order, as a POST /v1/traces whose body arrived. */
  private decide(body: Buffer, metadata: grpc.Metadata, where: string): Verdict {
    const { intake, authorized, stopping } = this.intake;
    const authorization = metadata.get('authorization')[0];
    if (!authorized(typeof authorization === 'string' ? authorization : undefined))
      return intake.refuse(where, 401, 'unauthorized', 'missing or wrong bearer token');
    if (stopping()) return intake.unavailable(where);
    return intake.admit(where) ?? intake.accept(body, 'protobuf', where);
  }

  /** A call grpc-js answered before the handler ran, counted as one under the reason the same fault has over HTTP. */
  private countTransportRefusal(state: CallState, code: grpc.status, details: string): void {
    state.counted = true;
    this.intake.intake.count(transportReason(code, details, this.intake.stopping()), state.where, `${grpc.status[code]}: ${details}`);
  }
}

function transportReason(code: grpc.status, details: string, stopping: boolean): RejectReason {
  switch (code) {
    case grpc.status.RESOURCE_EXHAUSTED:
      return details.includes('decompresses') ? 'decompressed_too_large' : 'body_too_large';
    case grpc.status.UNIMPLEMENTED:
      return 'unsupported_media_type';
    case grpc.status.DEADLINE_EXCEEDED:
      return 'request_timeout';
    case grpc.status.CANCELLED:
      return stopping ? 'shutdown' : 'undecodable_body';
    default:
      return 'undecodable_body';
  }
}
