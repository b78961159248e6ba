/**
 * `reconcile-shadow analyze` (flags and help: ANALYZE in cli/commands.ts). Streams the journal, or the operator log
 * through the log source (never holds either whole), replays every attempt through both loops, and prints the report.
 * Bad lines are reported on stderr with file:line and counted in the report; they never stop the analysis.
 */
import { createReadStream } from 'node:fs';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { attemptRow } from '../analyzer/engine.js';
import { renderReport } from '../analyzer/report/render.js';
import { readJournal } from '../collector/journal-reader.js';
import { ValidationError } from '../lib/validation-error.js';
import { resolveModel } from '../sidecar/files.js';
import { readArgs } from './args.js';
import { ANALYZE } from './commands.js';
import { BufferedWriter, EXIT, RejectionEcho, type CommandIO } from './io.js';
import { readLogInto } from './log-input.js';
import { nothingAnalysed } from './nothing-analysed.js';

export async function analyzeCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(ANALYZE, argv, io);
  if (typeof args === 'number') return args;
  const { format, loop, strict } = args.values;
  let model;
  try {
    model = resolveModel(args.values.model);
  } catch (e) {
    if (e instanceof ValidationError) {
      io.stderr.write(`invalid model:\n${e.message}\n`);
      return EXIT.invalidConfig;
    }
    throw e;
  }

  const analyzer = new ShadowAnalyzer([model]);
  const shadow = analyzer.shadows[0]!;
  const out = new BufferedWriter(io.stdout);
  const rejections = new RejectionEcho(io.stderr);
  analyzer.listen({
    attempt: format === 'jsonl' ? (_s, a) => out.write(attemptRow(shadow.cm, a) + '\n') : undefined,
    reject: rejections.reject,
  });
  const afterChunk = (): Promise<void> | undefined => (out.needsFlush ? out.flush() : undefined);
  const [kind, file] = args.values.logs !== undefined ? ['log', args.values.logs] : ['journal', args.values.journal!];
  try {
    if (kind === 'log') await readLogInto(analyzer, { file, model, loop, afterChunk }, io);
    else {
      const input = file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
      await readJournal(input, analyzer, { file, knownOperations: shadow.knownOperations, knownControllers: new Set([model.controller]), afterChunk });
    }
  } catch (e) {
    await out.flush();
    io.stderr.write(`cannot read ${kind} ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }

  const report = analyzer.report();
  if (format === 'json') out.write(JSON.stringify(report, null, 2) + '\n');
  else if (format !== 'jsonl') out.write(renderReport(report, format));
  rejections.finish();
  await out.flush();
  const nothing = nothingAnalysed(report, file);
  if (nothing !== undefined) {
    io.stderr.write(`${nothing}\n`);
    return EXIT.nothingAnalysed;
  }
  return strict && report.input.rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}
