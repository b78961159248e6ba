/**
 * Reads a request body under two limits: the bytes on the wire, and the bytes after gunzip. Inflation is streamed
 * and stopped as soon as the output passes the limit, so a gzip bomb costs at most the limit, never its full size.
 * Chunked bodies (the OTel JS exporter sends no content-length) are read the same way.
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { RejectReason } from '../records.js';

export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly maxDecompressedBytes: number;
}

/** Why a body was refused, with the HTTP status to answer (undefined: the client is gone, nothing to answer). */
export class BodyProblem extends Error {
  constructor(
    readonly status: 400 | 413 | undefined,
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message);
  }
}

/** `gzip` or none; any other content-encoding is not supported by OTLP/HTTP. */
export function isSupportedEncoding(contentEncoding: string | undefined): boolean {
  const e = (contentEncoding ?? '').trim().toLowerCase();
  return e === '' || e === 'identity' || e === 'gzip';
}

/** Refuses a declared content-length over the limit before reading anything. */
export function declaredTooLarge(req: IncomingMessage, limits: BodyLimits): BodyProblem | undefined {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared <= limits.maxBodyBytes) return undefined;
  return new BodyProblem(413, 'body_too_large', `content-length ${declared} exceeds the limit of ${limits.maxBodyBytes} bytes`);
}

/**
 * The body, inflated when gzip. Over the wire limit it fails at once (the receiver then closes the connection).
 * A body that inflates too far or is not gzip stops being inflated, but the rest of it is still read (it is within
 * the wire limit), so the client gets its answer on a healthy connection.
 */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  const gzip = (req.headers['content-encoding'] ?? '').trim().toLowerCase() === 'gzip';
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let wireBytes = 0;
    let bodyBytes = 0;
    let settled = false;
    let ended = false;
    /** Found while the rest of the body is still arriving; reported at its end. */
    let problem: BodyProblem | undefined;
    const inflater: Gunzip | undefined = gzip ? createGunzip() : undefined;

    const fail = (p: BodyProblem): void => {
      if (settled) return;
      settled = true;
      req.off('data', onWire);
      inflater?.destroy();
      reject(p);
    };
    const stopInflating = (p: BodyProblem): void => {
      problem ??= p;
      chunks = [];
      inflater?.destroy();
      if (ended) fail(problem);
    };
    const take = (chunk: Buffer): void => {
      if (problem) return;
      bodyBytes += chunk.length;
      if (bodyBytes > limits.maxDecompressedBytes) {
        stopInflating(new BodyProblem(413, 'decompressed_too_large', `the body inflates past the limit of ${limits.maxDecompressedBytes} bytes`));
      } else chunks.push(chunk);
    };
    const finish = (): void => {
      if (problem) return fail(problem);
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, bodyBytes));
    };
    const onWire = (chunk: Buffer): void => {
      wireBytes += chunk.length;
      if (wireBytes > limits.maxBodyBytes) fail(new BodyProblem(413, 'body_too_large', `the body exceeds the limit of ${limits.maxBodyBytes} bytes`));
      else if (problem) return;
      else if (inflater) inflater.write(chunk);
      else take(chunk);
    };

    req.on('data', onWire);
    req.on('end', () => {
      ended = true;
      if (problem) fail(problem);
      else if (inflater) inflater.end();
      else finish();
    });
    req.on('close', () => {
      if (!req.complete) fail(new BodyProblem(undefined, 'undecodable_body', 'the client went away before the body ended'));
    });
    if (inflater) {
      inflater.on('data', take);
      inflater.on('end', finish);
      inflater.on('error', (e) => stopInflating(new BodyProblem(400, 'undecodable_body', `content-encoding gzip: ${e.message}`)));
    }
  });
}
