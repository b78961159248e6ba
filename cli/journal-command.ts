/**
 * `reconcile-shadow journal --logs <file|-> [--model <name|file>] [--loop auto|sequential|phased]`
 * Writes the attempts the log source derives from an operator log (a must-gather, a `kubectl logs` capture) as journal
 * lines on stdout, each with `origin: {source: "logs", reconcileID, where}`: what the log proves, to read, keep, or
 * feed to `analyze` and `report`. Refused lines go to stderr as `file:line: reason: message`; the books at the end.
 */
import { parseArgs } from 'node:util';
import { formatDerivedAttemptLine } from '../collector/journal.js';
import type { ObservedLoop } from '../collector/logs/assembler.js';
import type { RecordSink } from '../collector/records.js';
import { ModelError, resolveModel } from '../model/load.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';
import { LOOP_VALUES, readLogInto } from './log-input.js';

export const JOURNAL_USAGE = 'usage: reconcile-shadow journal --logs <file|-> [--model <name|file>] [--loop auto|sequential|phased] [--strict]';
/** Rejections echoed to stderr one by one; past this, only counted. */
const MAX_REJECTIONS_PRINTED = 100;

export async function journalCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        logs: { type: 'string' },
        model: { type: 'string', default: 'hypershift-hostedcluster' },
        loop: { type: 'string', default: 'auto' },
        strict: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${JOURNAL_USAGE}\n`);
    return EXIT.usage;
  }
  const loop = values.loop as ObservedLoop;
  if (!values.logs || !LOOP_VALUES.includes(loop)) {
    io.stderr.write(`${JOURNAL_USAGE}\n`);
    return EXIT.usage;
  }
  let model;
  try {
    model = resolveModel(values.model);
  } catch (e) {
    if (!(e instanceof ModelError)) throw e;
    io.stderr.write(`invalid model:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }
  const out = new BufferedWriter(io.stdout);
  let rejected = 0;
  const sink: RecordSink = {
    attempt: (a) => out.write(formatDerivedAttemptLine(a) + '\n'),
    reject: (r) => {
      if (rejected++ < MAX_REJECTIONS_PRINTED) io.stderr.write(`${r.where}: ${r.reason}: ${r.message}\n`);
    },
  };
  try {
    await readLogInto(sink, { file: values.logs, model, loop, afterChunk: () => (out.needsFlush ? out.flush() : undefined) }, io);
  } catch (e) {
    await out.flush();
    io.stderr.write(`cannot read log ${values.logs}: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  await out.flush();
  if (rejected > MAX_REJECTIONS_PRINTED) io.stderr.write(`... ${rejected - MAX_REJECTIONS_PRINTED} more refused lines (counted above)\n`);
  return values.strict && rejected > 0 ? EXIT.rejectedInput : EXIT.ok;
}
