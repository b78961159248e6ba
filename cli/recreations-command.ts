/**
 * `reconcile-shadow recreations` (flags and help: RECREATIONS in cli/commands.ts). Replays an observation journal
 * through the adapter's lifecycle rules in shadow mode and prints every recreation found, finished or not (unfinished
 * ones aged at the journal's last time). Bad lines are reported on stderr with file:line and counted; they never stop
 * the replay. A broken CEL expression names file:line:column, the resource and field, and the caret (exit 3).
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { CelRuntime } from '../analyzer/recreations/cel.js';
import { trackerOptions } from '../analyzer/recreations/config.js';
import { contractRow, detailedRow, renderTable, sortEntries, summarize, unfinishedEntries, UnreconciledSummary, type RecreationEntry } from '../analyzer/recreations/report.js';
import { CompiledTaskConfig } from '../analyzer/recreations/rules.js';
import { RecreationShadow } from '../analyzer/recreations/shadow.js';
import { loadTaskConfigFile } from '../sidecar/files.js';
import { ValidationError } from '../lib/validation-error.js';
import { parseObservationLine } from '../collector/objects/journal.js';
import { splitStream } from '../collector/lines.js';
import { readArgs } from './args.js';
import { RECREATIONS } from './commands.js';
import { BufferedWriter, EXIT, RejectionEcho, type CommandIO } from './io.js';

export async function recreationsCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(RECREATIONS, argv, io);
  if (typeof args === 'number') return args;
  const { journal, format, strict } = args.values;

  let compiled: CompiledTaskConfig;
  try {
    compiled = CompiledTaskConfig.compile(loadTaskConfigFile(args.values['task-config']), new CelRuntime());
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    io.stderr.write(`invalid task config:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }
  for (const n of compiled.notices) io.stderr.write(`notice: ${n}\n`);

  const options = trackerOptions({ sentinelIntervalSeconds: args.values['sentinel-interval'] / 1000, stuckThresholdsMs: { default: args.values['stuck-threshold'] } });
  const entries: RecreationEntry[] = [];
  const unreconciled = new UnreconciledSummary();
  const rejections = new RejectionEcho(io.stderr);
  const shadow = new RecreationShadow(compiled, options, {
    finished: (r) => entries.push({ finished: true, recreation: r }),
    unreconciled: (p) => unreconciled.add(p),
    rejected: rejections.reject,
  });

  let observed = 0;
  try {
    await splitStream(journal === '-' ? (io.stdin as Readable) : createReadStream(journal), {
      line: (text, lineNo) => {
        if (text.trim() === '') return;
        const parsed = parseObservationLine(text, lineNo, journal);
        if (!parsed.ok) return shadow.reject(parsed.rejection);
        observed++;
        shadow.observe(parsed.observation);
      },
      tooLong: (lineNo, bytes) => shadow.reject({ source: 'journal', reason: 'line_too_long', where: `${journal}:${lineNo}`, message: `line of ${bytes} bytes exceeds the limit` }),
    });
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
  rejections.finish('rejected lines');
  if (observed === 0) {
    const name = journal === '-' ? 'stdin' : journal;
    io.stderr.write(rejections.count === 0 ? `nothing analysed: ${name} holds no observation\n` : `nothing analysed: all ${rejections.count} lines of ${name} were rejected\n`);
    return EXIT.nothingAnalysed;
  }
  return strict && rejections.count > 0 ? EXIT.rejectedInput : EXIT.ok;
}
