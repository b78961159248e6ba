/**
 * `reconcile-shadow analyze --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased]) [--format table|markdown|json|jsonl|partial] [--workers N|auto] [--shard i/n] [--strict]`
 * Streams the journal, or the operator log through the log source (never holds either whole), replays every attempt
 * through both loops, and prints the report. Bad lines are reported on stderr with file:line and counted in the
 * report; they never stop the analysis.
 * `--workers` splits a journal file's objects among worker threads and `--shard i/n` keeps one shard of n
 * (cli/sharded.ts); `--format partial` prints the partial summary that `reconcile-shadow merge` merges
 * (docs/partial.md).
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { attemptRow } from '../analyzer/engine.js';
import { renderReport } from '../analyzer/report/render.js';
import { readJournal } from '../collector/journal-reader.js';
import type { ObservedLoop } from '../collector/logs/assembler.js';
import { ModelError, resolveModel } from '../model/load.js';
import { encodePartial } from '../analyzer/partial/format.js';
import { summaryReport } from '../analyzer/partial/reports.js';
import { WHOLE } from '../collector/shard.js';
import type { ReconcileModel } from '../model/types.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';
import { LOOP_VALUES, readLogInto } from './log-input.js';
import { analyzeSharded, echoRejections, splitOptions, type SplitOptions } from './sharded.js';

const FORMATS = ['table', 'markdown', 'json', 'jsonl', 'partial'] as const;
type Format = (typeof FORMATS)[number];
/** Rejections echoed to stderr one by one; past this, only counted (the report lists them by reason). */
const MAX_REJECTIONS_PRINTED = 100;

export const ANALYZE_USAGE = `usage: reconcile-shadow analyze --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased]) [--format table|markdown|json|jsonl|partial] [--workers N|auto] [--shard i/n] [--strict]`;

export async function analyzeCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        model: { type: 'string' },
        journal: { type: 'string' },
        logs: { type: 'string' },
        loop: { type: 'string', default: 'auto' },
        format: { type: 'string', default: 'table' },
        strict: { type: 'boolean', default: false },
        workers: { type: 'string', default: '1' },
        shard: { type: 'string' },
      },
      strict: true,
    }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${ANALYZE_USAGE}\n`);
    return EXIT.usage;
  }
  const format = values.format as Format;
  const loop = values.loop as ObservedLoop;
  if (!values.model || (values.journal === undefined) === (values.logs === undefined) || !FORMATS.includes(format) || !LOOP_VALUES.includes(loop)) {
    io.stderr.write(`${ANALYZE_USAGE}\n`);
    return EXIT.usage;
  }
  let model;
  try {
    model = resolveModel(values.model);
  } catch (e) {
    if (e instanceof ModelError) {
      io.stderr.write(`invalid model:\n${e.message}\n`);
      return EXIT.invalidConfig;
    }
    throw e;
  }
  let split: SplitOptions;
  try {
    split = splitOptions(values, format === 'jsonl' ? 'jsonl rows are written in input order, as each attempt is analysed' : undefined);
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${ANALYZE_USAGE}\n`);
    return EXIT.usage;
  }
  if (split.workers > 1 || split.shard || format === 'partial') return analyzeInShards(model, values, split, format as Exclude<Format, 'jsonl'>, io);

  const analyzer = new ShadowAnalyzer([model]);
  const shadow = analyzer.shadows[0]!;
  const out = new BufferedWriter(io.stdout);
  let printed = 0;
  analyzer.listen({
    attempt: format === 'jsonl' ? (_s, a) => out.write(attemptRow(shadow.cm, a) + '\n') : undefined,
    reject: (r) => {
      if (printed++ < MAX_REJECTIONS_PRINTED) io.stderr.write(`${r.where}: ${r.reason}: ${r.message}\n`);
    },
  });
  const afterChunk = (): Promise<void> | undefined => (out.needsFlush ? out.flush() : undefined);
  const [kind, file] = values.logs !== undefined ? ['log', values.logs] : ['journal', values.journal!];
  try {
    if (values.logs !== undefined) await readLogInto(analyzer, { file, model, loop, afterChunk }, io);
    else {
      const input = file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
      await readJournal(input, analyzer, { file, knownOperations: shadow.knownOperations, afterChunk });
    }
  } catch (e) {
    await out.flush();
    io.stderr.write(`cannot read ${kind} ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }

  const report = analyzer.report();
  if (format === 'json') out.write(JSON.stringify(report, null, 2) + '\n');
  else if (format !== 'jsonl') out.write(renderReport(report, format));
  if (printed > MAX_REJECTIONS_PRINTED) io.stderr.write(`... ${printed - MAX_REJECTIONS_PRINTED} more rejected lines (counted in the report)\n`);
  await out.flush();
  return values.strict && report.input.rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}

/** `--workers`, `--shard` or `--format partial`: the input analysed in shards (cli/sharded.ts), then printed as one run. */
async function analyzeInShards(
  model: ReconcileModel,
  values: { journal?: string; logs?: string; loop: string; strict: boolean },
  split: SplitOptions,
  format: Exclude<Format, 'jsonl'>,
  io: CommandIO,
): Promise<number> {
  const input = values.logs !== undefined ? ({ kind: 'logs', file: values.logs, loop: values.loop as ObservedLoop } as const) : ({ kind: 'journal', file: values.journal! } as const);
  let outcome;
  try {
    outcome = await analyzeSharded({ model, input, evidence: format === 'partial' }, split.shard ?? WHOLE, split.workers, io);
  } catch (e) {
    io.stderr.write(`cannot read ${input.kind === 'logs' ? 'log' : 'journal'} ${input.file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  const { partial } = outcome;
  echoRejections(io, outcome.echoed, partial.input.rejected);
  const out = new BufferedWriter(io.stdout);
  if (format === 'partial') out.write(JSON.stringify(encodePartial(partial)) + '\n');
  else {
    const report = summaryReport(partial);
    out.write(format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderReport(report, format));
  }
  await out.flush();
  return values.strict && partial.input.rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}
