/**
 * `reconcile-shadow report --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased]) [--out report.html] [--format html|markdown] [--thresholds file]`
 * Replays a journal (or an operator log, through the log source) like `analyze`, then decides: switch readiness per controller, ordering evidence, the
 * classification check, the rollout plan and the noise floor (docs/decisions.md). `html` is one self-contained file
 * with the charts as inline SVG; `markdown` is the same content to paste into a pull-request review.
 * Without --out the report goes to stdout; with it, stdout gets one `controller: verdict` line per controller.
 */
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { DecisionEvidence } from '../analyzer/decisions/evidence.js';
import { decisionReport } from '../analyzer/decisions/report.js';
import { DECISIONS_SECTION, thresholdsFrom, type DecisionThresholds } from '../analyzer/decisions/thresholds.js';
import { reportDocument } from '../analyzer/report/html/document.js';
import { renderHtml } from '../analyzer/report/html/html.js';
import { renderMarkdown } from '../analyzer/report/html/markdown.js';
import { readJournal } from '../collector/journal-reader.js';
import { ModelError, resolveModel } from '../model/load.js';
import { YamlSource } from '../model/yaml-source.js';
import type { ObservedLoop } from '../collector/logs/assembler.js';
import { LOOP_VALUES, readLogInto } from './log-input.js';
import { check } from '../sidecar/config-schema.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';

const FORMATS = ['html', 'markdown'] as const;
type Format = (typeof FORMATS)[number];
/** Rejections echoed to stderr one by one; past this, only counted (the report lists them by reason). */
const MAX_REJECTIONS_PRINTED = 100;

export const REPORT_USAGE = 'usage: reconcile-shadow report --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased]) [--out report.html] [--format html|markdown] [--thresholds file]';

class ThresholdsError extends Error {}

/** A thresholds file: the DECISIONS_SECTION fields as YAML or JSON, every problem as `file:line field: message`. */
export async function loadThresholds(path: string): Promise<DecisionThresholds> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ThresholdsError(`${path}: cannot read thresholds: ${(e as Error).message}`);
  }
  const src = new YamlSource(text, path);
  const raw = src.problems.length === 0 ? check(src, [], src.value ?? {}, DECISIONS_SECTION) : undefined;
  if (src.problems.length > 0) throw new ThresholdsError(src.problems.join('\n'));
  try {
    return thresholdsFrom(raw as Partial<DecisionThresholds>);
  } catch (e) {
    throw new ThresholdsError(`${path}: ${(e as Error).message}`);
  }
}

export async function reportCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { model: { type: 'string' }, journal: { type: 'string' }, logs: { type: 'string' }, loop: { type: 'string', default: 'auto' }, out: { type: 'string' }, format: { type: 'string', default: 'html' }, thresholds: { type: 'string' } },
      strict: true,
    }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${REPORT_USAGE}\n`);
    return EXIT.usage;
  }
  const format = values.format as Format;
  const loop = values.loop as ObservedLoop;
  if (!values.model || (values.journal === undefined) === (values.logs === undefined) || !LOOP_VALUES.includes(loop) || !FORMATS.includes(format)) {
    io.stderr.write(`${REPORT_USAGE}\n`);
    return EXIT.usage;
  }
  let model;
  let thresholds;
  try {
    model = resolveModel(values.model);
    thresholds = values.thresholds ? await loadThresholds(values.thresholds) : thresholdsFrom({});
  } catch (e) {
    if (e instanceof ModelError) io.stderr.write(`invalid model:\n${e.message}\n`);
    else if (e instanceof ThresholdsError) io.stderr.write(`invalid thresholds:\n${e.message}\n`);
    else throw e;
    return EXIT.invalidConfig;
  }

  const analyzer = new ShadowAnalyzer([model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  let rejected = 0;
  analyzer.listen({
    reject: (r) => {
      if (rejected++ < MAX_REJECTIONS_PRINTED) io.stderr.write(`${r.where}: ${r.reason}: ${r.message}\n`);
    },
  });
  const [kind, file] = values.logs !== undefined ? ['log', values.logs] : ['journal', values.journal!];
  try {
    if (values.logs !== undefined) await readLogInto(analyzer, { file, model, loop }, io);
    else await readJournal(file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 }), analyzer, { file, knownOperations: analyzer.shadows[0]!.knownOperations });
  } catch (e) {
    io.stderr.write(`cannot read ${kind} ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  if (rejected > MAX_REJECTIONS_PRINTED) io.stderr.write(`... ${rejected - MAX_REJECTIONS_PRINTED} more rejected lines (counted in the report)\n`);

  const report = decisionReport(analyzer, evidence, thresholds);
  const doc = reportDocument(report);
  const output = format === 'html' ? await renderHtml(doc) : renderMarkdown(doc);
  if (!values.out) {
    const out = new BufferedWriter(io.stdout);
    out.write(output);
    await out.flush();
    return EXIT.ok;
  }
  try {
    await writeFile(values.out, output);
  } catch (e) {
    io.stderr.write(`cannot write ${values.out}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  io.stdout.write(report.controllers.map((c) => `${c.controller}: ${c.verdict.status}\n`).join(''));
  return EXIT.ok;
}
