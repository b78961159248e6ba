/**
 * `reconcile-shadow report --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased])
 *  [--out file] [--format html|markdown|json] [--thresholds file] [--threshold name=value ...] [--workers N|auto] [--shard i/n]`
 * Replays a journal (or an operator log, through the log source) like `analyze`, then decides: switch readiness per
 * controller, the loop comparison, ordering evidence, the classification check, starvation, the rollout plan and the
 * noise floor (docs/decisions.md). `html` is one self-contained file with the charts as inline SVG; `markdown` is the
 * same content to paste into a pull-request review; `json` is the same decisions as data (docs/decisions.schema.json).
 * `--threshold` overrides one threshold (after the file's), and may be repeated. Without --out the report goes to
 * stdout; with it, stdout gets one `controller: verdict` line per controller. `--workers` and `--shard` split the input's
 * objects as for `analyze` (cli/sharded.ts); the report is the same, byte for byte.
 */
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ShadowAnalyzer } from '../analyzer/analyzer.js';
import { DecisionEvidence } from '../analyzer/decisions/evidence.js';
import { decisionReport } from '../analyzer/decisions/report.js';
import { decisionsJson } from '../analyzer/decisions/json.js';
import { DECISIONS_SECTION, thresholdsFrom, type DecisionThresholds } from '../analyzer/decisions/thresholds.js';
import { reportDocument } from '../analyzer/report/html/document.js';
import { renderMarkdown } from '../analyzer/report/html/markdown.js';
import { readJournal } from '../collector/journal-reader.js';
import { ModelError, resolveModel } from '../model/load.js';
import { YamlSource } from '../model/yaml-source.js';
import type { ObservedLoop } from '../collector/logs/assembler.js';
import type { ReconcileModel } from '../model/types.js';
import { LOOP_VALUES, readLogInto } from './log-input.js';
import { check } from '../sidecar/config-schema.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';
import { decisionReportOf } from '../analyzer/partial/reports.js';
import { WHOLE } from '../collector/shard.js';
import { analyzeSharded, echoRejections, splitOptions, type SplitOptions } from './sharded.js';
import type { DecisionReport } from '../analyzer/decisions/report.js';

const FORMATS = ['html', 'markdown', 'json'] as const;
type Format = (typeof FORMATS)[number];
/** Rejections echoed to stderr one by one; past this, only counted (the report lists them by reason). */
const MAX_REJECTIONS_PRINTED = 100;

export const REPORT_USAGE =
  'usage: reconcile-shadow report --model <name|file> (--journal <file|-> | --logs <file|-> [--loop auto|sequential|phased]) [--out file] [--format html|markdown|json] [--thresholds file] [--threshold name=value ...] [--workers N|auto] [--shard i/n]';

export class ThresholdsError extends Error {}

/** The DECISIONS_SECTION fields of YAML or JSON text named `where`: the ones given, every problem as `where:line field: message`. */
function thresholdValues(text: string, where: string): Partial<DecisionThresholds> {
  const src = new YamlSource(text, where);
  const raw = src.problems.length === 0 ? (check(src, [], src.value ?? {}, DECISIONS_SECTION) as Record<string, unknown>) : undefined;
  if (src.problems.length > 0 || !raw) throw new ThresholdsError(src.problems.join('\n'));
  const given = Object.keys(src.value ?? {});
  return Object.fromEntries(given.map((k) => [k, raw[k]]));
}

/**
 * The thresholds: defaults, then a file's (YAML or JSON), then each `--threshold name=value` in order. Flags are
 * read as lines of one YAML text, so a problem names the flag by its position: `--threshold:2 minObjects: ...`.
 */
export async function loadThresholds(path: string | undefined, flags: readonly string[] = []): Promise<DecisionThresholds> {
  let fromFile: Partial<DecisionThresholds> = {};
  if (path !== undefined) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new ThresholdsError(`${path}: cannot read thresholds: ${(e as Error).message}`);
    }
    fromFile = thresholdValues(text, path);
  }
  const lines = flags.map((flag, i) => {
    const eq = flag.indexOf('=');
    if (eq < 1) throw new ThresholdsError(`--threshold:${i + 1} ${flag}: expected name=value`);
    return `${flag.slice(0, eq)}: ${flag.slice(eq + 1)}`;
  });
  const fromFlags = lines.length === 0 ? {} : thresholdValues(lines.join('\n'), '--threshold');
  try {
    return thresholdsFrom({ ...fromFile, ...fromFlags });
  } catch (e) {
    const sources = [path, lines.length > 0 ? '--threshold' : undefined].filter((x) => x !== undefined);
    throw new ThresholdsError(`${sources.join(' and ') || 'thresholds'}: ${(e as Error).message}`);
  }
}

interface InputValues {
  readonly journal?: string;
  readonly logs?: string;
  readonly loop: string;
}

/** One analysis in this thread, rejections echoed as they come. */
async function decide(model: ReconcileModel, values: InputValues, thresholds: DecisionThresholds, io: CommandIO): Promise<DecisionReport> {
  const analyzer = new ShadowAnalyzer([model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  let rejected = 0;
  analyzer.listen({
    reject: (r) => {
      if (rejected++ < MAX_REJECTIONS_PRINTED) io.stderr.write(`${r.where}: ${r.reason}: ${r.message}\n`);
    },
  });
  if (values.logs !== undefined) await readLogInto(analyzer, { file: values.logs, model, loop: values.loop as ObservedLoop }, io);
  else {
    const file = values.journal!;
    await readJournal(file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 }), analyzer, { file, knownOperations: analyzer.shadows[0]!.knownOperations });
  }
  if (rejected > MAX_REJECTIONS_PRINTED) io.stderr.write(`... ${rejected - MAX_REJECTIONS_PRINTED} more rejected lines (counted in the report)\n`);
  return decisionReport(analyzer, evidence, thresholds);
}

/** `--workers`, `--shard`: the input analysed in shards (cli/sharded.ts), decided as one run. */
async function decideInShards(model: ReconcileModel, values: InputValues, split: SplitOptions, thresholds: DecisionThresholds, io: CommandIO): Promise<DecisionReport> {
  const input = values.logs !== undefined ? ({ kind: 'logs', file: values.logs, loop: values.loop as ObservedLoop } as const) : ({ kind: 'journal', file: values.journal! } as const);
  const { partial, echoed } = await analyzeSharded({ model, input, evidence: true }, split.shard ?? WHOLE, split.workers, io);
  echoRejections(io, echoed, partial.input.rejected);
  return decisionReportOf(partial, thresholds);
}

export async function reportCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        model: { type: 'string' },
        journal: { type: 'string' },
        logs: { type: 'string' },
        loop: { type: 'string', default: 'auto' },
        out: { type: 'string' },
        format: { type: 'string', default: 'html' },
        thresholds: { type: 'string' },
        threshold: { type: 'string', multiple: true },
        workers: { type: 'string', default: '1' },
        shard: { type: 'string' },
      },
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
    thresholds = await loadThresholds(values.thresholds, values.threshold ?? []);
  } catch (e) {
    if (e instanceof ModelError) io.stderr.write(`invalid model:\n${e.message}\n`);
    else if (e instanceof ThresholdsError) io.stderr.write(`invalid thresholds:\n${e.message}\n`);
    else throw e;
    return EXIT.invalidConfig;
  }

  let split: SplitOptions;
  try {
    split = splitOptions(values);
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${REPORT_USAGE}\n`);
    return EXIT.usage;
  }
  const [kind, file] = values.logs !== undefined ? ['log', values.logs] : ['journal', values.journal!];
  let report: DecisionReport;
  try {
    report = split.workers > 1 || split.shard ? await decideInShards(model, values, split, thresholds, io) : await decide(model, values, thresholds, io);
  } catch (e) {
    io.stderr.write(`cannot read ${kind} ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }

  return writeDecisions(report, format, values.out, io);
}

/**
 * Writes the decisions in `format`: to stdout, or to `out` with one `controller: verdict` line per controller on
 * stdout. Returns the exit code.
 */
export async function writeDecisions(report: DecisionReport, format: 'html' | 'markdown' | 'json', out: string | undefined, io: CommandIO): Promise<number> {
  // The HTML renderer (and vega with it) is loaded only for HTML.
  const output =
    format === 'json'
      ? JSON.stringify(decisionsJson(report), null, 2) + '\n'
      : format === 'html'
        ? await (await import('../analyzer/report/html/html.js')).renderHtml(reportDocument(report))
        : renderMarkdown(reportDocument(report));
  if (!out) {
    const writer = new BufferedWriter(io.stdout);
    writer.write(output);
    await writer.flush();
    return EXIT.ok;
  }
  try {
    await writeFile(out, output);
  } catch (e) {
    io.stderr.write(`cannot write ${out}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  io.stdout.write(report.controllers.map((c) => `${c.controller}: ${c.verdict.status}\n`).join(''));
  return EXIT.ok;
}
