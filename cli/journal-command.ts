/**
 * `reconcile-shadow journal` (flags and help: JOURNAL in cli/commands.ts). Writes the attempts the log source derives
 * from an operator log (a must-gather, a `kubectl logs` capture) as journal lines on stdout, each with
 * `origin: {source: "logs", reconcileID, where}`: what the log proves, to read, keep, or feed to `analyze` and
 * `report`. Refused lines go to stderr as `file:line: reason: message`; the books at the end.
 */
import { formatDerivedAttemptLine } from '../collector/journal/format.js';
import type { RecordSink } from '../collector/records.js';
import { ValidationError } from '../lib/validation-error.js';
import { resolveModel } from '../sidecar/files.js';
import { selectBuild } from '../model/builds.js';
import { readArgs } from './args.js';
import { JOURNAL } from './commands.js';
import { BufferedWriter, EXIT, RejectionEcho, type CommandIO } from './io.js';
import { readLogInto } from './log-input.js';
import { readContainer } from './log-flags.js';
import { inputName } from '../collector/logs/inputs.js';

export async function journalCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(JOURNAL, argv, io);
  if (typeof args === 'number') return args;
  const { logs, loop, strict } = args.values;
  const container = readContainer(JOURNAL, args.values.container, io);
  if (typeof container === 'number') return container;
  const file = inputName(logs);
  let model;
  try {
    model = selectBuild(resolveModel(args.values.model), args.values['operator-version'], '--operator-version');
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    io.stderr.write(`invalid model:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }
  // The journal's lines are the log's facts; which build's model read them is said once, with the loop.
  if (model.build !== undefined) io.stderr.write(`model: ${model.name}, operator build ${model.build}: ${model.buildStatement ?? 'chosen by name'}\n`);
  const out = new BufferedWriter(io.stdout);
  const rejections = new RejectionEcho(io.stderr);
  const sink: RecordSink = { attempt: (a) => out.write(formatDerivedAttemptLine(a) + '\n'), reject: rejections.reject };
  let attempts;
  try {
    ({ attempts } = await readLogInto(sink, { files: logs, model, loop, container, afterChunk: () => (out.needsFlush ? out.flush() : undefined) }, io));
  } catch (e) {
    await out.flush();
    io.stderr.write(`cannot read log ${file}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  await out.flush();
  rejections.finish('refused lines (counted above)');
  if (attempts === 0) {
    io.stderr.write(`nothing analysed: ${file === '-' ? 'stdin' : file} proves no attempt (its books are above)\n`);
    return EXIT.nothingAnalysed;
  }
  return strict && rejections.count > 0 ? EXIT.rejectedInput : EXIT.ok;
}
