/**
 * `reconcile-shadow report` (flags and help: REPORT in cli/commands.ts). Replays a journal (or an operator log, through
 * the log source) like `analyze`, then decides: switch readiness per controller, the loop comparison, ordering
 * evidence, the classification check, starvation, the rollout plan and the noise floor (docs/decisions.md). `html` is one self-contained file with the charts as inline SVG; `markdown` is the
 * same content to paste into a pull-request review; `json` is the same decisions as data (docs/decisions.schema.json).
 * `--threshold` overrides one threshold (after the file's), and may be repeated. Without --out the report goes to
 * stdout; with it, stdout gets one `controller: verdict` line per controller. `--workers` and `--shard` split the input's
 * objects as for `analyze` (cli/sharded.ts); the decisions read as one run's.
 */
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { Analyzer } from '../analyzer/analyzer.js';
import { DecisionEvidence } from '../analyzer/decisions/evidence.js';
import { decisionReport } from '../analyzer/decisions/report.js';
import { DECISIONS_SECTION, thresholdsFrom, type DecisionThresholds } from '../analyzer/decisions/thresholds.js';
import { renderDecisions } from '../outputs/review/render.js';
import type { DecisionReport } from '../analyzer/decisions/report.js';
import { decisionReportOf, summaryReport } from '../analyzer/partial/reports.js';
import { readJournal } from '../collector/journal/reader.js';
import { inputName, type OperatorContainer } from '../collector/logs/inputs.js';
import { WHOLE, type Shard } from '../collector/input/shard.js';
import { ValidationError } from '../lib/validation-error.js';
import { YamlSource } from '../lib/yaml-source.js';
import type { LoopSetting, ReconcileModel } from '../model/types.js';
import { resolveModel } from '../sidecar/files.js';
import { selectBuild } from '../model/builds.js';
import { currentKey, validate } from '../lib/schema.js';
import { readArgs } from './args.js';
import { REPORT } from './commands.js';
import { BufferedWriter, EXIT, RejectionEcho, type CommandIO } from './io.js';
import { nothingAnalysed } from './nothing-analysed.js';
import { analyzeSharded, echoRejections, readSplit } from './sharded.js';
import { readContainer } from './log-flags.js';

export class ThresholdsError extends Error {}

/**
 * The DECISIONS_SECTION fields of YAML or JSON text named `where`: the ones given, every problem as
 * `where:line field: message`; an old spelling is read as its new key and warned about.
 */
function thresholdValues(text: string, where: string, warn: (line: string) => void): Partial<DecisionThresholds> {
  const src = new YamlSource(text, where);
  const raw = src.problems.length === 0 ? validate(src, DECISIONS_SECTION, src.value ?? {}) : undefined;
  if (src.problems.length > 0 || !raw) throw new ThresholdsError(src.problems.join('\n'));
  for (const w of src.warnings) warn(w);
  const given = new Set(Object.keys(src.value ?? {}).map((k) => currentKey(DECISIONS_SECTION, k)));
  return Object.fromEntries(Object.entries(raw).filter(([k]) => given.has(k)));
}

/**
 * The thresholds: defaults, then a file's (YAML or JSON), then each `--threshold name=value` in order. Flags are
 * read as lines of one YAML text, so a problem names the flag by its position: `--threshold:2 minObjects: ...`.
 */
export async function loadThresholds(
  path: string | undefined,
  flags: readonly string[] = [],
  warn: (line: string) => void = () => undefined,
): Promise<DecisionThresholds> {
  let fromFile: Partial<DecisionThresholds> = {};
  if (path !== undefined) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new ThresholdsError(`${path}: cannot read thresholds: ${(e as Error).message}`);
    }
    fromFile = thresholdValues(text, path, warn);
  }
  const lines = flags.map((flag, i) => {
    const eq = flag.indexOf('=');
    if (eq < 1) throw new ThresholdsError(`--threshold:${i + 1} ${flag}: expected name=value`);
    return `${flag.slice(0, eq)}: ${flag.slice(eq + 1)}`;
  });
  const fromFlags = lines.length === 0 ? {} : thresholdValues(lines.join('\n'), '--threshold', warn);
  try {
    return thresholdsFrom({ ...fromFile, ...fromFlags });
  } catch (e) {
    const sources = [path, lines.length > 0 ? '--threshold' : undefined].filter((x) => x !== undefined);
    throw new ThresholdsError(`${sources.join(' and ') || 'thresholds'}: ${(e as Error).message}`);
  }
}

export async function reportCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(REPORT, argv, io);
  if (typeof args === 'number') return args;
  const { format, loop, out } = args.values;
  let model;
  let thresholds;
  try {
    model = selectBuild(resolveModel(args.values.model), args.values['operator-version'], '--operator-version');
    thresholds = await loadThresholds(args.values.thresholds, args.values.threshold, (w) => io.stderr.write(`${w}\n`));
  } catch (e) {
    if (e instanceof ValidationError) io.stderr.write(`invalid model:\n${e.message}\n`);
    else if (e instanceof ThresholdsError) io.stderr.write(`invalid thresholds:\n${e.message}\n`);
    else throw e;
    return EXIT.invalidConfig;
  }

  const split = readSplit(REPORT, args.values, io);
  if (typeof split === 'number') return split;
  const container = readContainer(REPORT, args.values.container, io);
  if (typeof container === 'number') return container;
  const logs = args.values.logs;
  const [kind, file] = logs.length > 0 ? ['log', inputName(logs)] : ['journal', args.values.journal!];
  const input = { kind, file, logs, loop, container };
  let decided;
  try {
    decided =
      split.workers > 1 || split.shard
        ? await decideInShards(model, input, split.shard ?? WHOLE, split.workers, thresholds, io)
        : await decide(model, input, thresholds, io);
  } catch (e) {
    io.stderr.write(`cannot read ${kind} ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  if (typeof decided === 'string') {
    io.stderr.write(`${decided}\n`);
    return EXIT.nothingAnalysed;
  }
  return writeDecisions(decided, format, out, io);
}

interface InputValues {
  readonly kind: string;
  /** The input's name: the journal, or the logs' paths. */
  readonly file: string;
  readonly logs: readonly string[];
  readonly loop: LoopSetting;
  readonly container: OperatorContainer;
}

/** One analysis in this thread, rejections echoed as they come: the decisions, or why nothing was analysed. Throws when the input cannot be read. */
async function decide(
  model: ReconcileModel,
  { kind, file, logs, loop, container }: InputValues,
  thresholds: DecisionThresholds,
  io: CommandIO,
): Promise<DecisionReport | string> {
  const analyzer = new Analyzer([model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  const rejections = new RejectionEcho(io.stderr);
  analyzer.listen({ reject: rejections.reject });
  // the log source (and the Kubernetes client it can follow a pod with) is loaded only for a log: ~0.4 s CPU at start
  if (kind === 'log') await (await import('./log-input.js')).readLogInto(analyzer, { files: logs, model, loop, container }, io);
  else {
    const input = file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
    await readJournal(input, analyzer, { file, knownOperations: analyzer.controllers[0]!.knownOperations, knownControllers: new Set([model.controller]) });
  }
  rejections.finish();
  return nothingAnalysed(analyzer.report(), file) ?? decisionReport(analyzer, evidence, thresholds);
}

/** `--workers`, `--shard`: the input analysed in shards (cli/sharded.ts), decided as one run. */
async function decideInShards(
  model: ReconcileModel,
  { kind, file, logs, loop, container }: InputValues,
  shard: Shard,
  workers: number,
  thresholds: DecisionThresholds,
  io: CommandIO,
): Promise<DecisionReport | string> {
  const input = kind === 'log' ? ({ kind: 'logs', files: logs, loop, container } as const) : ({ kind: 'journal', file } as const);
  const { partial, echoed } = await analyzeSharded({ model, input, evidence: true }, shard, workers, io);
  echoRejections(io, echoed, partial.input.rejected);
  return nothingAnalysed(summaryReport(partial), file) ?? decisionReportOf(partial, thresholds);
}

/**
 * Writes the decisions in `format`: to stdout, or to `out` with one `controller: verdict` line per controller on
 * stdout. Returns the exit code.
 */
export async function writeDecisions(report: DecisionReport, format: 'html' | 'markdown' | 'json', out: string | undefined, io: CommandIO): Promise<number> {
  const output = await renderDecisions(report, format);
  if (out === undefined) {
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
