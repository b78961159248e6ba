/**
 * `reconcile-shadow recreations --task-config <file> --journal <file|-> [--format table|json|jsonl]
 *   [--stuck-threshold 10m] [--sentinel-interval 10s] [--strict]`
 * Replays an observation journal through the adapter's lifecycle rules in shadow mode and prints every recreation
 * found, finished or not (unfinished ones aged at the journal's last time). Bad lines are reported on stderr with
 * file:line and counted; they never stop the replay.
 *
 * Exit codes: 0 done; 1 the journal could not be read; 2 bad arguments; 3 the task config is invalid or unreadable
 * (a broken CEL expression names file:line:column, the resource and field, and the caret); 4 with --strict, some
 * journal lines were rejected.
 */
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { CelRuntime } from '../analyzer/recreations/cel.js';
import { DEFAULT_SENTINEL_INTERVAL_SECONDS, trackerOptions } from '../analyzer/recreations/config.js';
import { contractRow, detailedRow, renderTable, sortEntries, summarize, unfinishedEntries, UnreconciledSummary, type RecreationEntry } from '../analyzer/recreations/report.js';
import { CompiledTaskConfig } from '../analyzer/recreations/rules.js';
import { RecreationShadow } from '../analyzer/recreations/shadow.js';
import { loadTaskConfigFile } from '../analyzer/recreations/load.js';
import { TaskConfigError } from '../analyzer/recreations/task-config.js';
import { parseObservationLine } from '../collector/objects/journal.js';
import { LineSplitter } from '../collector/lines.js';
import { parseDuration } from '../lib/duration.js';
import { BufferedWriter, EXIT } from './io.js';

const FORMATS = ['table', 'json', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];
const MAX_REJECTIONS_PRINTED = 100;

export const RECREATIONS_USAGE =
  'usage: reconcile-shadow recreations --task-config <file> --journal <file|-> [--format table|json|jsonl] [--stuck-threshold 10m] [--sentinel-interval 10s] [--strict]';

export interface RecreationsIO {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin?: NodeJS.ReadableStream;
}

export async function recreationsCommand(argv: string[], io: RecreationsIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'task-config': { type: 'string' },
        journal: { type: 'string' },
        format: { type: 'string', default: 'table' },
        'stuck-threshold': { type: 'string', default: '10m' },
        'sentinel-interval': { type: 'string', default: `${DEFAULT_SENTINEL_INTERVAL_SECONDS}s` },
        strict: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${RECREATIONS_USAGE}\n`);
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(`${RECREATIONS_USAGE}\n`);
    return EXIT.ok;
  }
  const format = values.format as Format;
  const stuckMs = parseDuration(values['stuck-threshold'] ?? '');
  const sentinelMs = parseDuration(values['sentinel-interval'] ?? '');
  const taskConfigFile = values['task-config'];
  const journal = values.journal;
  if (!taskConfigFile || !journal || !FORMATS.includes(format) || !stuckMs || !sentinelMs) {
    io.stderr.write(`${RECREATIONS_USAGE}\n`);
    return EXIT.usage;
  }
  if (journal === '-' && !io.stdin) {
    io.stderr.write('--journal -: no standard input available\n');
    return EXIT.usage;
  }

  let compiled: CompiledTaskConfig;
  try {
    compiled = CompiledTaskConfig.compile(loadTaskConfigFile(taskConfigFile), new CelRuntime());
  } catch (e) {
    if (!(e instanceof TaskConfigError)) throw e;
    io.stderr.write(`invalid task config:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }
  for (const n of compiled.notices) io.stderr.write(`notice: ${n}\n`);

  const options = trackerOptions({ sentinelIntervalSeconds: sentinelMs / 1000, stuckThresholdsMs: { default: stuckMs } });
  const entries: RecreationEntry[] = [];
  const unreconciled = new UnreconciledSummary();
  let printed = 0;
  const shadow = new RecreationShadow(compiled, options, {
    finished: (r) => entries.push({ finished: true, recreation: r }),
    unreconciled: (p) => unreconciled.add(p),
    rejected: (r) => {
      if (printed++ < MAX_REJECTIONS_PRINTED) io.stderr.write(`${r.where}: ${r.reason}: ${r.message}\n`);
    },
  });

  const splitter = new LineSplitter({
    line: (text, lineNo) => {
      if (text.trim() === '') return;
      const parsed = parseObservationLine(text, lineNo, journal);
      if (parsed.ok) shadow.observe(parsed.observation);
      else shadow.reject(parsed.rejection);
    },
    tooLong: (lineNo, bytes) => shadow.reject({ source: 'journal', reason: 'line_too_long', where: `${journal}:${lineNo}`, message: `line of ${bytes} bytes exceeds the limit` }),
  });
  try {
    const stream = journal === '-' ? io.stdin! : createReadStream(journal);
    for await (const chunk of stream) splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    splitter.end();
  } catch (e) {
    io.stderr.write(`${journal}: cannot read: ${(e as Error).message}\n`);
    return EXIT.failure;
  }

  entries.push(...unfinishedEntries(shadow.inFlight(), shadow.lastObservationMs, options.stuckThresholdMs));
  sortEntries(entries);
  const summary = summarize(entries, shadow.stats, unreconciled);
  const out = new BufferedWriter(io.stdout);
  if (format === 'jsonl') {
    for (const e of entries) {
      out.write(JSON.stringify(contractRow(e)) + '\n');
      if (out.needsFlush) await out.flush();
    }
  } else if (format === 'json') out.write(JSON.stringify({ recreations: entries.map(detailedRow), summary }, null, 2) + '\n');
  else out.write(renderTable(entries, summary));
  await out.flush();
  const rejected = [...shadow.stats.rejected.values()].reduce((a, b) => a + b, 0);
  if (rejected > MAX_REJECTIONS_PRINTED) io.stderr.write(`... ${rejected - MAX_REJECTIONS_PRINTED} more rejected lines\n`);
  return values.strict && rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}
