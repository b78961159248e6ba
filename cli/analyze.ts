/**
 * `reconcile-shadow analyze` (flags and help: ANALYZE in cli/commands.ts). Streams the journal, or the operator log
 * through the log source (never holds either whole), replays every attempt through both loops, and prints the summary.
 * Bad lines are reported on stderr with file:line and counted in the summary; they never stop the analysis.
 * `--workers` splits a journal file's objects among worker threads and `--shard i/n` keeps one shard of n
 * (cli/sharded.ts); `--format partial` prints the partial summary that `reconcile-shadow merge` merges
 * (docs/partial.md).
 */
import { createReadStream } from 'node:fs';
import { Analyzer } from '../analyzer/analyzer.js';
import { attemptRow } from '../analyzer/engine.js';
import { renderSummary } from '../analyzer/summary/render.js';
import { encodePartial } from '../analyzer/partial/format.js';
import { summaryOf } from '../analyzer/partial/results.js';
import { readJournal } from '../collector/journal/reader.js';
import { inputName, parseOperatorContainer } from '../collector/logs/inputs.js';
import { WHOLE } from '../collector/input/shard.js';
import { ValidationError } from '../lib/validation-error.js';
import type { ReconcileModel } from '../model/types.js';
import { resolveModel } from '../sidecar/files.js';
import { selectBuild } from '../model/builds.js';
import { readArgs, type Values } from './args.js';
import { ANALYZE } from './commands.js';
import { BufferedWriter, EXIT, RejectionEcho, type CommandIO } from './io.js';
import { nothingAnalysed } from './nothing-analysed.js';
import { analyzeSharded, echoRejections, readSplit, type SplitOptions } from './sharded.js';
import { readContainer } from './log-flags.js';

export async function analyzeCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(ANALYZE, argv, io);
  if (typeof args === 'number') return args;
  const { format, loop, strict } = args.values;
  let model;
  try {
    model = selectBuild(resolveModel(args.values.model), args.values['operator-version'], '--operator-version');
  } catch (e) {
    if (e instanceof ValidationError) {
      io.stderr.write(`invalid model:\n${e.message}\n`);
      return EXIT.invalidConfig;
    }
    throw e;
  }
  const split = readSplit(ANALYZE, args.values, io, format === 'jsonl' ? 'jsonl rows are written in input order, as each attempt is analysed' : undefined);
  if (typeof split === 'number') return split;
  const container = readContainer(ANALYZE, args.values.container, io);
  if (typeof container === 'number') return container;
  const logs = args.values.logs;
  if (split.workers > 1 || split.shard || format === 'partial') return analyzeInShards(model, args.values, split, io);

  const analyzer = new Analyzer([model]);
  const controller = analyzer.controllers[0]!;
  const out = new BufferedWriter(io.stdout);
  const rejections = new RejectionEcho(io.stderr);
  analyzer.listen({
    attempt: format === 'jsonl' ? (_s, a) => out.write(attemptRow(controller.cm, a) + '\n') : undefined,
    reject: rejections.reject,
  });
  const afterChunk = (): Promise<void> | undefined => (out.needsFlush ? out.flush() : undefined);
  const [kind, file] = logs.length > 0 ? ['log', inputName(logs)] : ['journal', args.values.journal!];
  try {
    // the log source (and the Kubernetes client it can follow a pod with) is loaded only for a log: a journal does not pay its start-up
    if (kind === 'log') await (await import('./log-input.js')).readLogInto(analyzer, { files: logs, model, loop, container, afterChunk }, io);
    else {
      const input = file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
      await readJournal(input, analyzer, { file, knownOperations: controller.knownOperations, knownControllers: new Set([model.controller]), afterChunk });
    }
  } catch (e) {
    await out.flush();
    io.stderr.write(`cannot read ${kind} ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }

  const summary = analyzer.summary();
  if (format === 'json') out.write(JSON.stringify(summary, null, 2) + '\n');
  else if (format !== 'jsonl') out.write(renderSummary(summary, format));
  rejections.finish('rejected lines (counted in the summary)');
  await out.flush();
  const nothing = nothingAnalysed(summary, file);
  if (nothing !== undefined) {
    io.stderr.write(`${nothing}\n`);
    return EXIT.nothingAnalysed;
  }
  return strict && summary.input.rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}

/** `--workers`, `--shard` or `--format partial`: the input analysed in shards (cli/sharded.ts), then printed as one run. */
async function analyzeInShards(model: ReconcileModel, values: Values<typeof ANALYZE.flags>, split: SplitOptions, io: CommandIO): Promise<number> {
  const { format } = values;
  const input =
    values.logs.length > 0
      ? ({ kind: 'logs', files: values.logs, loop: values.loop, container: parseOperatorContainer(values.container)! } as const)
      : ({ kind: 'journal', file: values.journal! } as const);
  const name = input.kind === 'logs' ? inputName(input.files) : input.file;
  let outcome;
  try {
    outcome = await analyzeSharded({ model, input, evidence: format === 'partial' }, split.shard ?? WHOLE, split.workers, io);
  } catch (e) {
    io.stderr.write(`cannot read ${input.kind === 'logs' ? 'log' : 'journal'} ${name}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  const { partial } = outcome;
  echoRejections(io, outcome.echoed, partial.input.rejected, 'summary');
  const summary = summaryOf(partial);
  const out = new BufferedWriter(io.stdout);
  if (format === 'partial') out.write(JSON.stringify(encodePartial(partial)) + '\n');
  else if (format === 'json') out.write(JSON.stringify(summary, null, 2) + '\n');
  else if (format !== 'jsonl') out.write(renderSummary(summary, format));
  await out.flush();
  // A shard of no objects is an answer (the fleet had fewer objects than shards): its partial is still written.
  const nothing = format === 'partial' ? undefined : nothingAnalysed(summary, name);
  if (nothing !== undefined) {
    io.stderr.write(`${nothing}\n`);
    return EXIT.nothingAnalysed;
  }
  return values.strict && partial.input.rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}
