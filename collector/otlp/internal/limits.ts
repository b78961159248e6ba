/**
 * The OTLP receiver's limits and timeouts with their defaults: the receiver's own, and the config schema's
 * (component.ts), so the two cannot disagree. Imports nothing of the decoders: reading the config must not load
 * protobufjs. limits-table.ts makes the docs' table of them.
 */
import type { BodyLimits } from './body.js';
import type { DecodeLimits } from './span.js';

export interface OtlpLimits extends BodyLimits, DecodeLimits {
  /** Decoded spans waiting for assembly; past it requests get 429 (one larger than it gets in only while it is empty). */
  readonly maxQueuedSpans: number;
  /** The same in bytes (heldBytes, an estimate of the heap the spans take), so large spans are bounded too. */
  readonly maxQueuedBytes: number;
  /** Bytes held by bodies being read, all requests together (BodyBudget); a request holds only what arrived. */
  readonly maxBufferedBodyBytes: number;
  /** Open connections from one client address; more are closed at once. */
  readonly maxConnectionsPerPeer: number;
  /** Open connections in all. */
  readonly maxConnections: number;
}

export interface OtlpTimeouts {
  /**
   * A connection must complete a request's headers within this of opening (or of the headers' first byte on a
   * kept-alive connection); one that sent nothing is counted as `idle_connection`, one that sent part as
   * `request_timeout`.
   */
  readonly headersTimeoutMs: number;
  /** The longest gap between two pieces of a body. */
  readonly bodyIdleTimeoutMs: number;
  /** From the end of the headers to the end of the body. */
  readonly bodyTimeoutMs: number;
  /** On stop, requests still being read after this are answered 503 and counted (`shutdown`). */
  readonly shutdownGraceMs: number;
}

export const MiB = 1024 * 1024;

/**
 * Sized for the deployed container (V8 heap capped at 192 MiB, RSS target 256 MiB; docs/limits.md has the
 * arithmetic): bodies being read hold up to maxBufferedBodyBytes outside the heap, decoding one takes up to ~10× its
 * size in the heap for OTLP/JSON (about its size for protobuf), and the queue and the assembler's pending spans hold
 * up to their byte limits.
 */
export const DEFAULT_LIMITS: OtlpLimits = {
  maxBodyBytes: 4 * MiB,
  maxDecompressedBytes: 4 * MiB,
  maxSpansPerRequest: 10_000,
  maxAttributesPerSpan: 128,
  maxStringLength: 8 * 1024,
  maxQueuedSpans: 50_000,
  maxQueuedBytes: 16 * MiB,
  maxBufferedBodyBytes: 8 * MiB,
  maxConnectionsPerPeer: 256,
  maxConnections: 1024,
};

/** Seconds, not Node's own 60 s headers timeout checked every 30 s: a slow client is cut within a quarter second of its deadline. */
export const DEFAULT_TIMEOUTS: OtlpTimeouts = {
  headersTimeoutMs: 5_000,
  bodyIdleTimeoutMs: 5_000,
  // the OTel exporters give up on an export after 10 s, retries included: a body slower than that helps no one
  bodyTimeoutMs: 10_000,
  shutdownGraceMs: 2_000,
};

export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** How often Node checks the headers timeout of every connection (its own default is 30 s). */
export const TIMEOUT_CHECK_MS = 250;
