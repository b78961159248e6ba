/**
 * The table of the OTLP receiver's limits that the README and docs/otlp.md show: cli/generate.ts writes it from
 * `limitsTable()`, and `make verify` (and a test) fail when the docs and the defaults disagree. Every default a user
 * can read is computed here from the value the code uses. Options are keys of `sources.otlp`.
 */
import { MAX_OPERATIONS_PER_ATTEMPT } from '../journal/format.js';
import { DEFAULT_SPAN_ASSEMBLER_OPTIONS, type SpanAssemblerOptions } from './internal/assembler.js';
import { EXEMPT_CONTAINERS, MIN_BYTES_PER_CONTAINER } from './internal/decode-json.js';
import { MAX_DEPTH } from './internal/decode-protobuf.js';
import { DEFAULT_LIMITS, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_TIMEOUTS, MiB, TIMEOUT_CHECK_MS, type OtlpLimits, type OtlpTimeouts } from './internal/limits.js';

export interface LimitRow {
  readonly limit: string;
  /** The option's key under `sources.otlp` in the config, or undefined when built in. */
  readonly option?: string;
  readonly default: string;
  readonly whenHit: string;
}

/** One row per limit, defaults from the code. */
export function limitRows(
  limits: OtlpLimits = DEFAULT_LIMITS,
  timeouts: OtlpTimeouts = DEFAULT_TIMEOUTS,
  assembly: SpanAssemblerOptions = DEFAULT_SPAN_ASSEMBLER_OPTIONS,
): LimitRow[] {
  return [
    {
      limit: 'request body on the wire, plain or gzip',
      option: 'maxBodyBytes',
      default: bytes(limits.maxBodyBytes),
      whenHit: '413 `body_too_large`, connection closed (a declared `content-length` is refused before reading)',
    },
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
    {
      limit: 'open connections from one client address',
      option: 'maxConnectionsPerPeer',
      default: count(limits.maxConnectionsPerPeer),
      whenHit: 'the new connection is closed at once (`connection_limit`)',
    },
    {
      limit: 'open connections in all',
      option: 'maxConnections',
      default: count(limits.maxConnections),
      whenHit: 'the new connection is closed at once (`connection_limit`)',
    },
    {
      limit: "a request's headers, from the connection's opening (or the headers' first byte)",
      option: 'headersTimeout',
      default: duration(timeouts.headersTimeoutMs),
      whenHit: `408, connection closed: \`idle_connection\` when it sent nothing, \`request_timeout\` otherwise (checked every ${duration(TIMEOUT_CHECK_MS)})`,
    },
    {
      limit: "the gap between two pieces of a request's body",
      option: 'bodyIdleTimeout',
      default: duration(timeouts.bodyIdleTimeoutMs),
      whenHit: '408 `request_timeout`, connection closed',
    },
    {
      limit: "a request's whole body, from the end of its headers",
      option: 'bodyTimeout',
      default: duration(timeouts.bodyTimeoutMs),
      whenHit: '408 `request_timeout`, connection closed',
    },
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
    {
      limit: 'attributes per span',
      option: 'maxAttributesPerSpan',
      default: count(limits.maxAttributesPerSpan),
      whenHit: 'that span rejected in `partial_success` (`too_many_attributes`)',
    },
    {
      limit: 'string length (name, status message, `reconcile.*` values)',
      option: 'maxStringLength',
      default: `${count(limits.maxStringLength)} characters`,
      whenHit: 'that span rejected (`invalid_record`)',
    },
    {
      limit: 'nesting of a `reconcile.*` attribute value (others are skipped unread)',
      default: `${MAX_DEPTH} levels (protobufjs' limit)`,
      whenHit: '400 `undecodable_body`',
    },
    {
      limit: 'decoded spans waiting for assembly',
      option: 'maxQueuedSpans',
      default: count(limits.maxQueuedSpans),
      whenHit: '429 + `Retry-After` (`queue_full`); the OTel exporters wait and retry',
    },
    { limit: 'the same, in bytes (¹)', option: 'maxQueuedBytes', default: bytes(limits.maxQueuedBytes), whenHit: '429 + `Retry-After` (`queue_full`)' },
    { limit: '`Retry-After` of 429 and 503', option: 'retryAfter', default: duration(DEFAULT_RETRY_AFTER_SECONDS * 1000), whenHit: '—' },
    {
      limit: 'attempts waiting for their spans',
      option: 'maxPendingAttempts',
      default: count(assembly.maxPendingAttempts),
      whenHit: 'pending attempts make room, as for `maxPendingBytes`',
    },
    {
      limit: 'spans waiting in attempts',
      option: 'maxPendingSpans',
      default: count(assembly.maxPendingSpans),
      whenHit: 'pending attempts make room, as for `maxPendingBytes`; the byte limit is reached first with real spans',
    },
    {
      limit: 'the same, in bytes (¹)',
      option: 'maxPendingBytes',
      default: bytes(assembly.maxPendingBytes),
      whenHit:
        'pending attempts make room, oldest first: attempts without `reconcile.operation_count` whose root arrived are analyzed as complete (as when their settle time passes), then others as incomplete when their root has arrived, else their spans dropped as `pending_limit`',
    },
    {
      limit: "wait for an attempt's remaining spans",
      option: 'maxWait',
      default: duration(assembly.maxWaitMs),
      whenHit: 'analyzed as incomplete; children whose root never came dropped as `orphan_span`',
    },
    {
      limit: 'wait without `reconcile.operation_count`',
      option: 'settle',
      default: duration(assembly.settleMs),
      whenHit: 'analyzed with what arrived, as complete',
    },
    {
      limit: 'span ids remembered to spot resent spans',
      option: 'recentSpanMemory',
      default: count(assembly.recentSpanMemory),
      whenHit: 'older resends are no longer recognised as `duplicate_span`',
    },
    {
      limit: 'operations per attempt',
      default: `${count(MAX_OPERATIONS_PER_ATTEMPT)} (the journal's)`,
      whenHit: 'further children rejected (`too_many_operations`)',
    },
    {
      limit: 'requests still being read at shutdown',
      option: 'shutdownGrace',
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
