/**
 * `reconcile-shadow analyze --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased]) [--format table|markdown|json|jsonl] [--strict]`
 * Streams the journal, or the operator log through the log source (never holds either whole), replays every attempt
 * through both loops, and prints the report. Bad lines are reported on stderr with file:line and counted in the
 * report; they never stop the analysis.
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { attemptRow } from '../analyzer/engine.js';
import { renderReport } from '../analyzer/report/render.js';
import { readJournal } from '../collector/journal-reader.js';
import type { ObservedLoop } from '../collector/logs/assembler.js';
import { ModelError, resolveModel } from '../model/load.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';
import { LOOP_VALUES, readLogInto } from './log-input.js';

const FORMATS = ['table', 'markdown', 'json', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];
/** Rejections echoed to stderr one by one; past this, only counted (the report lists them by reason). */
const MAX_REJECTIONS_PRINTED = 100;

export const ANALYZE_USAGE = `usage: reconcile-shadow analyze --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased]) [--format table|markdown|json|jsonl] [--strict]`;

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
