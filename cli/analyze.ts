/**
 * `reconcile-shadow analyze --model <name|file> --journal <file|-> [--format table|markdown|json|jsonl] [--strict]`
 * Streams the journal (never holds it whole), replays every attempt through both loops, and prints the report.
 * Bad lines are reported on stderr with file:line and counted in the report; they never stop the analysis.
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { attemptRow } from '../analyzer/engine.js';
import { renderReport } from '../analyzer/report/render.js';
import { readJournal } from '../collector/journal-reader.js';
import { ModelError, resolveModel } from '../model/load.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';

const FORMATS = ['table', 'markdown', 'json', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];
/** Rejections echoed to stderr one by one; past this, only counted (the report lists them by reason). */
const MAX_REJECTIONS_PRINTED = 100;

export const ANALYZE_USAGE = `usage: reconcile-shadow analyze --model <name|file> --journal <file|-> [--format table|markdown|json|jsonl] [--strict]`;

export async function analyzeCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { model: { type: 'string' }, journal: { type: 'string' }, format: { type: 'string', default: 'table' }, strict: { type: 'boolean', default: false } },
      strict: true,
    }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${ANALYZE_USAGE}\n`);
    return EXIT.usage;
  }
  const format = values.format as Format;
  if (!values.model || !values.journal || !FORMATS.includes(format)) {
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
  const file = values.journal;
  let printed = 0;
  analyzer.listen({
    attempt: format === 'jsonl' ? (_s, a) => out.write(attemptRow(shadow.cm, a) + '\n') : undefined,
    reject: (r) => {
      if (printed++ < MAX_REJECTIONS_PRINTED) io.stderr.write(`${r.where}: ${r.reason}: ${r.message}\n`);
    },
  });
  try {
    const input = file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
    await readJournal(input, analyzer, { file, knownOperations: shadow.knownOperations, afterChunk: () => (out.needsFlush ? out.flush() : undefined) });
  } catch (e) {
    await out.flush();
    io.stderr.write(`cannot read journal ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }

  const report = analyzer.report();
  if (format === 'json') out.write(JSON.stringify(report, null, 2) + '\n');
  else if (format !== 'jsonl') out.write(renderReport(report, format));
  if (printed > MAX_REJECTIONS_PRINTED) io.stderr.write(`... ${printed - MAX_REJECTIONS_PRINTED} more rejected lines (counted in the report)\n`);
  await out.flush();
  return values.strict && report.input.rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}
