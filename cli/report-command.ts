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
import { decisionReport } from '../analyzer/decisions/decide.js';
import { DECISIONS_SECTION, thresholdProblems, thresholdsFrom, type DecisionThresholds } from '../analyzer/decisions/thresholds.js';
import { renderDecisions } from '../outputs/review/render.js';
import type { DecisionReport } from '../analyzer/decisions/decide.js';
import { decisionReportOf, summaryOf } from '../analyzer/partial/results.js';
import { readJournal } from '../collector/journal/reader.js';
import { inputName, type OperatorContainer } from '../collector/logs/inputs.js';
import { WHOLE, type Shard } from '../collector/input/shard.js';
import { ValidationError } from '../lib/validation-error.js';
import { isRecord } from '../lib/is-record.js';
import { YamlSource } from '../lib/yaml-source.js';
import type { LoopSetting, ReconcileModel } from '../model/types.js';
import { resolveModel } from '../sidecar/files.js';
import { selectBuild } from '../model/builds.js';
import { validate } from '../lib/schema.js';
import { readArgs } from './args.js';
import { REPORT } from './commands.js';
import { BufferedWriter, EXIT, RejectionEcho, type CommandIO } from './io.js';
import { nothingAnalysed } from './nothing-analysed.js';
import { analyzeSharded, echoRejections, readSplit } from './sharded.js';
import { readContainer } from './log-flags.js';

/** Compares problems of `file`, each `file:line field: message`, by their line. */
const inFileOrder =
  (file: string) =>
  (a: string, b: string): number =>
    Number(a.slice(file.length + 1).split(' ')[0]) - Number(b.slice(file.length + 1).split(' ')[0]);

/**
 * The DECISIONS_SECTION fields of a thresholds text (YAML or JSON): the ones given, or undefined with every problem
 * noted on `src` as `file:line field: message`, in file order.
 */
function thresholdValues(src: YamlSource): Partial<DecisionThresholds> | undefined {
  if (src.problems.length > 0) return undefined;
  const text = src.value ?? {};
  // The ranges the schema cannot say, checked on the numbers as written: a value out of range is not checked again.
  const numbers = isRecord(text) ? Object.fromEntries(Object.entries(text).filter(([, v]) => typeof v === 'number')) : {};
  const outOfRange = thresholdProblems(numbers);
  const rest = isRecord(text) ? Object.fromEntries(Object.entries(text).filter(([k]) => !outOfRange.some(([key]) => key === k))) : text;
  const raw = validate(src, DECISIONS_SECTION, rest);
  for (const [key, problem] of outOfRange) src.fail([key], problem);
  if (src.problems.length > 0) {
    src.problems.sort(inFileOrder(src.file));
    return undefined;
  }
  const given = new Set(Object.keys(text));
  return Object.fromEntries(Object.entries(raw!).filter(([k]) => given.has(k)));
}

/**
 * The thresholds: defaults, then a file's (YAML or JSON), then each `--threshold name=value` in order. Flags are
 * read as lines of one YAML text, so a problem names the flag by its position: `--threshold:2 minObjects: ...`.
 * Every problem of the file and the flags is reported at once (a ValidationError).
 */
export async function loadThresholds(path: string | undefined, flags: readonly string[] = []): Promise<DecisionThresholds> {
  const problems: string[] = [];
  let fromFile: Partial<DecisionThresholds> | undefined = {};
  if (path !== undefined) {
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      problems.push(`${path}: cannot read thresholds: ${(e as Error).message}`);
    }
    const src = text === undefined ? undefined : new YamlSource(text, path);
    fromFile = src && thresholdValues(src);
    problems.push(...(src?.problems ?? []));
  }
  // A flag that is not name=value keeps its line, empty, so the others keep their positions.
  const malformed: string[] = [];
  const lines = flags.map((flag, i) => {
    const eq = flag.indexOf('=');
    if (eq >= 1) return `${flag.slice(0, eq)}: ${flag.slice(eq + 1)}`;
    malformed.push(`--threshold:${i + 1} ${flag}: expected name=value`);
    return '';
  });
  const flagSource = lines.length === 0 ? undefined : new YamlSource(lines.join('\n'), '--threshold');
  const fromFlags = flagSource ? thresholdValues(flagSource) : {};
  problems.push(...[...malformed, ...(flagSource?.problems ?? [])].sort(inFileOrder('--threshold')));
  if (problems.length > 0 || !fromFile || !fromFlags) throw new ValidationError('thresholds', problems);
  return thresholdsFrom({ ...fromFile, ...fromFlags });
}

export async function reportCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(REPORT, argv, io);
  if (typeof args === 'number') return args;
  const { format, loop, out } = args.values;
  let model;
  let thresholds;
  try {
    model = selectBuild(resolveModel(args.values.model), args.values['operator-version'], '--operator-version');
    thresholds = await loadThresholds(args.values.thresholds, args.values.threshold);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    io.stderr.write(`invalid ${e.kind}:\n${e.message}\n`);
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
  // the log source (and the Kubernetes client it can follow a pod with) is loaded only for a log: a journal does not pay its start-up
  if (kind === 'log') await (await import('./log-input.js')).readLogInto(analyzer, { files: logs, model, loop, container }, io);
  else {
    const input = file === '-' ? io.stdin : createReadStream(file, { highWaterMark: 1 << 20 });
    await readJournal(input, analyzer, { file, knownOperations: analyzer.controllers[0]!.knownOperations, knownControllers: new Set([model.controller]) });
  }
  rejections.finish('rejected lines (counted in the report)');
  return nothingAnalysed(analyzer.summary(), file) ?? decisionReport(analyzer, evidence, thresholds);
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
  echoRejections(io, echoed, partial.input.rejected, 'report');
  return nothingAnalysed(summaryOf(partial), file) ?? decisionReportOf(partial, thresholds);
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
