/**
 * A bearer token read from a file that is rewritten under the reader: a projected service-account token, which the
 * kubelet rotates well before its hourly expiry. Read again once the cached copy is older than `cacheMs`, as
 * hyperfleet-sentinel's fileTokenSource.get (internal/client/token.go) does with its 30 s token_cache_ttl; 0 reads
 * the file on every request. `invalidate` drops the copy, so a 401 is followed by a fresh read.
 */
import { readFileSync } from 'node:fs';

/** The token could not be read (missing, unreadable or empty file): the request is not sent. */
export class TokenUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenUnavailable';
  }
}

export const MAX_TOKEN_CACHE_MS = 30_000;

export class FileToken {
  private cached: string | undefined;
  private readAtMs = 0;

  constructor(
    readonly path: string,
    private readonly now: () => number,
    private readonly cacheMs = MAX_TOKEN_CACHE_MS,
  ) {
    if (cacheMs < 0 || cacheMs > MAX_TOKEN_CACHE_MS) throw new RangeError(`token cache ${cacheMs} ms: must be 0..${MAX_TOKEN_CACHE_MS}`);
  }

  /** The token, from the cache while it is younger than the cache time, else from the file. */
  get(): string {
    const now = this.now();
    if (this.cached !== undefined && this.cacheMs > 0 && now - this.readAtMs < this.cacheMs) return this.cached;
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      this.cached = undefined;
      throw new TokenUnavailable(`token file ${this.path}: ${(e as Error).message}`);
    }
    const token = text.trim();
    if (token === '') {
      this.cached = undefined;
      throw new TokenUnavailable(`token file ${this.path} is empty`);
    }
    this.cached = token;
    this.readAtMs = now;
    return token;
  }

  invalidate(): void {
    this.cached = undefined;
  }
}
