/**
 * One JSON GET as the HyperFleet pollers make it (the HyperFleet API's and the Maestro server's REST APIs): a bearer
 * token from a file re-read as it rotates, a timeout, a cap on the body, and every failure classified under one
 * bounded reason, so a failed poll is counted by what went wrong. A 401 is its own reason: an expired or rotated
 * token the poller re-reads before the next request, not a fault of the API.
 */
import { FileToken, TokenUnavailable } from './token.js';

export const POLL_FAILURES = [
  'timeout',
  'connection',
  'http_5xx',
  'http_4xx',
  'unauthorized',
  'token_unavailable',
  'malformed_body',
  'body_too_large',
] as const;
export type PollFailure = (typeof POLL_FAILURES)[number];

/** A poll that failed, with the bounded reason it is counted under (`reason` is what SourceHooks.error counts). */
export class PollError extends Error {
  constructor(
    readonly reason: PollFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PollError';
  }
}

export interface JsonClientOptions {
  /** e.g. `http://hyperfleet-api:8000`; request paths are appended. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly token?: FileToken;
  readonly maxBodyBytes?: number;
}

export class JsonClient {
  constructor(private readonly options: JsonClientOptions) {}

  /** GET `path` (with its query); `allow404` returns a 404 instead of failing. */
  async get(path: string, allow404 = false): Promise<{ status: number; value: unknown }> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = this.options.token;
    if (token) {
      try {
        headers.Authorization = `Bearer ${token.get()}`;
      } catch (e) {
        if (e instanceof TokenUnavailable) throw new PollError('token_unavailable', `GET ${path}: ${e.message}`);
        throw e;
      }
    }
    const url = this.options.baseUrl.replace(/\/+$/, '') + path;
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(this.options.timeoutMs) });
    } catch (e) {
      throw failure(e, path);
    }
    if (allow404 && res.status === 404) {
      await res.body?.cancel();
      return { status: 404, value: undefined };
    }
    if (!res.ok) {
      await res.body?.cancel();
      if (res.status === 401) {
        token?.invalidate();
        throw new PollError(
          'unauthorized',
          `GET ${path}: HTTP 401${token ? ` (the token from ${token.path} is read again before the next request)` : ' (no tokenFile is configured)'}`,
        );
      }
      throw new PollError(res.status >= 500 ? 'http_5xx' : 'http_4xx', `GET ${path}: HTTP ${res.status}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.options.maxBodyBytes ?? 16 * 1024 * 1024, path);
    } catch (e) {
      throw e instanceof PollError ? e : failure(e, path);
    }
    try {
      return { status: res.status, value: JSON.parse(text) as unknown };
    } catch (e) {
      throw new PollError('malformed_body', `GET ${path}: body is not JSON: ${(e as Error).message}`);
    }
  }
}

function failure(e: unknown, path: string): PollError {
  const err = e as Error;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return new PollError('timeout', `GET ${path}: no answer in time`);
  return new PollError('connection', `GET ${path}: ${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}`);
}

async function readCapped(res: Response, maxBytes: number, path: string): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new PollError('body_too_large', `GET ${path}: body exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
