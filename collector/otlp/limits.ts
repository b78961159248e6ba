/**
 * The OTLP receiver's limits and timeouts with their defaults, and the table of them that the README and
 * docs/otlp.md show: cli/generate.ts writes it from `limitsTable()`, and `make verify` (and a test) fail when the
 * docs and these defaults disagree. Every default a user can read is computed here from the value the code uses.
 */
import { MAX_OPERATIONS_PER_ATTEMPT } from '../journal.js';
import { DEFAULT_ASSEMBLER_OPTIONS, type AssemblerOptions } from './assembler.js';
import type { BodyLimits } from './body.js';
import { EXEMPT_CONTAINERS, MIN_BYTES_PER_CONTAINER } from './decode-json.js';
import { MAX_DEPTH } from './decode-protobuf.js';
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

const MiB = 1024 * 1024;

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

export interface LimitRow {
  readonly limit: string;
  /** The option's name (`sources.otlp.<option>` in the config, the same name in OtlpReceiverOptions), or undefined when built in. */
  readonly option?: string;
  readonly default: string;
  readonly whenHit: string;
}

/** One row per limit, defaults from the code. */
export function limitRows(limits: OtlpLimits = DEFAULT_LIMITS, timeouts: OtlpTimeouts = DEFAULT_TIMEOUTS, assembly: AssemblerOptions = DEFAULT_ASSEMBLER_OPTIONS): LimitRow[] {
  return [
    { limit: 'request body on the wire, plain or gzip', option: 'maxBodyBytes', default: bytes(limits.maxBodyBytes), whenHit: '413 `body_too_large`, connection closed (a declared `content-length` is refused before reading)' },
    {
      limit: 'gzip body once inflated (a plain body is held to the wire limit only)',
      option: 'maxDecompressedBytes',
      default: bytes(limits.maxDecompressedBytes),
      whenHit: '413 `decompressed_too_large`; inflating stops at the limit, so a gzip bomb costs at most this',
    },
    {
      limit: 'bytes held by bodies being read, all requests together (received, plus inflated for gzip)',
      option: 'maxBufferedBodyBytes',
      default: bytes(limits.maxBufferedBodyBytes),
      whenHit: '429 + `Retry-After` (`queue_full`). A request holds only the bytes that arrived, so clients that send slowly or not at all hold nothing',
    },
    { limit: 'open connections from one client address', option: 'maxConnectionsPerPeer', default: count(limits.maxConnectionsPerPeer), whenHit: 'the new connection is closed at once (`connection_limit`)' },
    { limit: 'open connections in all', option: 'maxConnections', default: count(limits.maxConnections), whenHit: 'the new connection is closed at once (`connection_limit`)' },
    {
      limit: "a request's headers, from the connection's opening (or the headers' first byte)",
      option: 'headersTimeoutMs',
      default: duration(timeouts.headersTimeoutMs),
      whenHit: `408, connection closed: \`idle_connection\` when it sent nothing, \`request_timeout\` otherwise (checked every ${duration(TIMEOUT_CHECK_MS)})`,
    },
    { limit: "the gap between two pieces of a request's body", option: 'bodyIdleTimeoutMs', default: duration(timeouts.bodyIdleTimeoutMs), whenHit: '408 `request_timeout`, connection closed' },
    { limit: "a request's whole body, from the end of its headers", option: 'bodyTimeoutMs', default: duration(timeouts.bodyTimeoutMs), whenHit: '408 `request_timeout`, connection closed' },
    {
      limit: 'OTLP/JSON object density',
      default: `one \`{\`/\`[\` per ${MIN_BYTES_PER_CONTAINER} bytes (bodies of more than ${count(EXEMPT_CONTAINERS)})`,
      whenHit: '400 `undecodable_body` before parsing: `JSON.parse` of `{},{},…` builds ~22× the body in heap',
    },
    {
      limit: 'spans per request',
      option: 'maxSpansPerRequest',
      default: count(limits.maxSpansPerRequest),
      whenHit: `the first ${count(limits.maxSpansPerRequest)} are kept, the rest rejected in \`partial_success\` (\`too_many_spans\`); a request of more than twice the limit is refused whole: 413 \`too_many_spans\`, every span counted`,
    },
    { limit: 'attributes per span', option: 'maxAttributesPerSpan', default: count(limits.maxAttributesPerSpan), whenHit: 'that span rejected in `partial_success` (`too_many_attributes`)' },
    { limit: 'string length (name, status message, `reconcile.*` values)', option: 'maxStringLength', default: `${count(limits.maxStringLength)} characters`, whenHit: 'that span rejected (`invalid_record`)' },
    { limit: 'nesting of a `reconcile.*` attribute value (others are skipped unread)', default: `${MAX_DEPTH} levels (protobufjs' limit)`, whenHit: '400 `undecodable_body`' },
    { limit: 'decoded spans waiting for assembly', option: 'maxQueuedSpans', default: count(limits.maxQueuedSpans), whenHit: '429 + `Retry-After` (`queue_full`); the OTel exporters wait and retry' },
    { limit: 'the same, in bytes (¹)', option: 'maxQueuedBytes', default: bytes(limits.maxQueuedBytes), whenHit: '429 + `Retry-After` (`queue_full`)' },
    { limit: '`Retry-After` of 429 and 503', option: 'retryAfterSeconds', default: count(DEFAULT_RETRY_AFTER_SECONDS), whenHit: '—' },
    { limit: 'attempts waiting for their spans', option: 'maxPendingAttempts', default: count(assembly.maxPendingAttempts), whenHit: 'pending attempts make room, as for `maxPendingBytes`' },
    { limit: 'spans waiting in attempts', option: 'maxPendingSpans', default: count(assembly.maxPendingSpans), whenHit: 'pending attempts make room, as for `maxPendingBytes`; the byte limit is reached first with real spans' },
    {
      limit: 'the same, in bytes (¹)',
      option: 'maxPendingBytes',
      default: bytes(assembly.maxPendingBytes),
      whenHit:
        'pending attempts make room, oldest first: attempts without `reconcile.operation_count` whose root arrived are analyzed as complete (as when their settle time passes), then others as incomplete when their root has arrived, else their spans dropped as `pending_limit`',
    },
    { limit: "wait for an attempt's remaining spans", option: 'maxWaitMs', default: duration(assembly.maxWaitMs), whenHit: 'analyzed as incomplete; children whose root never came dropped as `orphan_span`' },
    { limit: 'wait without `reconcile.operation_count`', option: 'settleMs', default: duration(assembly.settleMs), whenHit: 'analyzed with what arrived, as complete' },
    { limit: 'span ids remembered to spot resent spans', option: 'recentSpanMemory', default: count(assembly.recentSpanMemory), whenHit: 'older resends are no longer recognised as `duplicate_span`' },
    { limit: 'operations per attempt', default: `${count(MAX_OPERATIONS_PER_ATTEMPT)} (the journal's)`, whenHit: 'further children rejected (`too_many_operations`)' },
    {
      limit: 'requests still being read at shutdown',
      option: 'shutdownGraceMs',
      default: duration(timeouts.shutdownGraceMs),
      whenHit: 'answered 503 and counted (`shutdown`) before `run` prints its final account',
    },
  ];
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The Markdown table of `limitRows()`, with its footnote. */
export function limitsTable(rows: readonly LimitRow[] = limitRows()): string {
  const lines = rows.map((r) => `| ${cell(r.limit)} | ${r.option === undefined ? '—' : `\`${r.option}\``} | ${cell(r.default)} | ${cell(r.whenHit)} |`);
  return [
    '| limit | option | default | when it is hit |',
    '|---|---|---|---|',
    ...lines,
    '',
    '(¹) Bytes of decoded spans are an estimate of the heap a span holds: 400 bytes plus 2 per character of its strings.',
  ].join('\n');
}

function bytes(n: number): string {
  if (n % MiB === 0) return `${n / MiB} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${count(n)} bytes`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
