/**
 * What the log source derives from a log, as one text: the journal lines `journal --logs` writes (with their
 * `origin`), then every rejection, then the source's books and reservations (`/summary`'s input section). The golden
 * test compares this text, line by line, with the copy captured from the source as it was before a change
 * (test/fixtures/logs/golden/README.md says how it was made).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import type { LoopSetting } from '../../../model/types.js';
import { formatDerivedAttemptLine } from '../../../collector/journal/format.js';
import { resolveModel } from '../../../sidecar/files.js';
import { REPO } from '../../support/paths.js';
import { readLog } from './against-truth.js';

export const GOLDEN_DIR = join(REPO, 'test/fixtures/logs/golden');

export interface GoldenCase {
  /** The golden file's name, without `.derived.jsonl.gz`. */
  readonly name: string;
  /** The log, relative to test/fixtures/logs (gzipped when it ends `.gz`). */
  readonly log: string;
  readonly loop: LoopSetting;
}

export const GOLDEN_CASES: readonly GoldenCase[] = [
  { name: 'real-sequential.auto', log: 'real/sequential.operator.log.gz', loop: 'auto' },
  { name: 'real-phased.auto', log: 'real/phased.operator.log.gz', loop: 'auto' },
  { name: 'real-sequential.sequential', log: 'real/sequential.operator.log.gz', loop: 'sequential' },
  { name: 'generated.auto', log: 'golden/generated.operator.log.gz', loop: 'auto' },
  { name: 'generated.phased', log: 'golden/generated.operator.log.gz', loop: 'phased' },
  ...['legacy', 'phased', 'malformed', 'unmapped', 'sampled', 'redaction'].map((n) => ({ name: `${n}.auto`, log: `${n}.log`, loop: 'auto' as const })),
];

export function logText(log: string): Buffer {
  const raw = readFileSync(join(REPO, 'test/fixtures/logs', log));
  return log.endsWith('.gz') ? gunzipSync(raw) : raw;
}

/** The derived journal, the rejections and the books, one JSON value a line. */
export async function derivedOutput(c: GoldenCase): Promise<string> {
  // in chunks of 64 KiB, as a file or a pipe delivers it: lines are cut across chunks
  const text = logText(c.log);
  const chunks: Buffer[] = [];
  for (let at = 0; at < text.length; at += 65_536) chunks.push(text.subarray(at, at + 65_536));
  const run = await readLog(Readable.from(chunks), c.log, resolveModel('hypershift-hostedcluster'), { loop: c.loop });
  const out = run.records.map(formatDerivedAttemptLine);
  for (const r of run.rejections) out.push(JSON.stringify({ rejection: r }));
  // keyed `report` as the golden copies were captured (main 6e38c1a), before the books were named the input summary
  out.push(JSON.stringify({ report: run.summary }));
  return out.join('\n') + '\n';
}
