/**
 * What the receiver does about connections before a request exists on them, so that no client can hold the intake
 * by connecting and saying little or nothing:
 *   - at most `maxConnectionsPerPeer` open connections per client address and `maxConnections` in all; a connection
 *     past either is closed at once (`connection_limit`);
 *   - a request's headers must be complete within `headersTimeoutMs` of the connection's opening (or of their first
 *     byte on a kept-alive connection). Node enforces that itself, but checks only every 30 s by default; the server
 *     is made with `connectionsCheckingInterval` TIMEOUT_CHECK_MS. A connection cut so that sent nothing is counted as
 *     `idle_connection`, one that sent part of a request as `request_timeout`; both are answered 408;
 *   - bytes that are not HTTP are answered 400 (431 for oversized headers) and counted as `bad_request`.
 * A connection its client closes or resets before a request's headers are complete is not counted: no request
 * arrived. Errors on a connection whose request the receiver is serving belong to that request (BodyRead counts them).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { RejectReason } from '../../records.js';

export interface ConnectionLimits {
  readonly maxConnectionsPerPeer: number;
  readonly maxConnections: number;
}

/** A connection refused or cut: counted once, under `reason`, where it came from. */
export type ConnectionCount = (reason: RejectReason, where: string, message: string) => void;

const RESPONSES = {
  400: 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
  408: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
  431: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
} as const;

export class ConnectionGuard {
  private readonly perPeer = new Map<string, number>();
  private readonly open = new Set<Socket>();
  /** Sockets carrying a request the receiver is serving, with how many (HTTP/1.1 pipelining may queue a second). */
  private readonly serving = new WeakMap<Socket, number>();

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly headersTimeoutMs: number,
    private readonly count: ConnectionCount,
  ) {}

  /** Open connections now. */
  get connections(): number {
    return this.open.size;
  }

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.opened(socket));
    server.on('clientError', (e: NodeJS.ErrnoException, socket: Socket) => this.clientError(e, socket));
    // https: a connection that never finishes its handshake is an idle one too
    server.on('tlsClientError', (e: NodeJS.ErrnoException, socket: Socket) => {
      if (e.code === 'ERR_TLS_HANDSHAKE_TIMEOUT')
        this.count('idle_connection', from(socket), `no TLS handshake within ${this.headersTimeoutMs} ms of connecting`);
    });
  }

  /** Closes every connection that carries no request being served (at shutdown: no new request may start on them). */
  closeUnserved(): void {
    for (const socket of this.open) if ((this.serving.get(socket) ?? 0) === 0) socket.destroy();
  }

  /** The receiver serves a request on `socket` until `done` is called. */
  serve(socket: Socket): () => void {
    this.serving.set(socket, (this.serving.get(socket) ?? 0) + 1);
    return () => this.serving.set(socket, (this.serving.get(socket) ?? 1) - 1);
  }

  private opened(socket: Socket): void {
    const peer = socket.remoteAddress ?? '';
    const fromPeer = this.perPeer.get(peer) ?? 0;
    if (fromPeer >= this.limits.maxConnectionsPerPeer || this.open.size >= this.limits.maxConnections) {
      const message =
        fromPeer >= this.limits.maxConnectionsPerPeer
          ? `${peer} already holds ${fromPeer} connections (limit ${this.limits.maxConnectionsPerPeer} per client address)`
          : `the receiver already holds ${this.open.size} connections (limit ${this.limits.maxConnections})`;
      this.count('connection_limit', from(socket), `connection closed at once: ${message}`);
      socket.destroy();
      return;
    }
    this.perPeer.set(peer, fromPeer + 1);
    this.open.add(socket);
    socket.once('close', () => {
      this.open.delete(socket);
      const left = (this.perPeer.get(peer) ?? 1) - 1;
      if (left === 0) this.perPeer.delete(peer);
      else this.perPeer.set(peer, left);
    });
  }

  private clientError(e: NodeJS.ErrnoException, socket: Socket): void {
    const where = from(socket);
    const counted = (this.serving.get(socket) ?? 0) === 0 ? this.classify(e, socket) : undefined;
    if (counted) {
      this.count(counted.reason, where, counted.message);
      if (socket.writable) socket.end(RESPONSES[counted.status]);
    }
    socket.destroySoon();
  }

  private classify(e: NodeJS.ErrnoException, socket: Socket): { reason: RejectReason; status: keyof typeof RESPONSES; message: string } | undefined {
    if (e.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      return socket.bytesRead === 0
        ? { reason: 'idle_connection', status: 408, message: `no request within ${this.headersTimeoutMs} ms of connecting` }
        : { reason: 'request_timeout', status: 408, message: `the request's headers did not arrive within ${this.headersTimeoutMs} ms` };
    }
    // the client closed in the middle of a request's headers: nothing to answer, and no request arrived
    if (e.code === 'HPE_INVALID_EOF_STATE' || !e.code?.startsWith('HPE_')) return undefined;
    const status = e.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    return { reason: 'bad_request', status, message: `not an HTTP/1.1 request (${e.code}: ${e.message})` };
  }
}

function from(socket: Socket): string {
  return `connection from ${socket.remoteAddress}:${socket.remotePort}`;
}
