/**
 * `reconcile-shadow merge` (flags and help: MERGE in cli/commands.ts). Merges partial summaries (`analyze --format
 * partial`, docs/partial.md) of disjoint shards of the same input, or of different inputs, made with the same model,
 * and decides as `report` does: the merge of every shard of an input reads byte for byte as `report` over the whole
 * input. `--format partial` writes the merged partial instead, to be merged again. A partial that cannot be read, two
 * that overlap (a shard merged twice) or were made with different models stop the merge with the files named; shards
 * missing from an input are named on stderr.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { isComplete } from '../analyzer/partial/coverage.js';
import { decodePartial, encodePartial, type PartialState } from '../analyzer/partial/format.js';
import { MergeError, mergePartials } from '../analyzer/partial/merge.js';
import { ValidationError } from '../lib/validation-error.js';
import { decisionReportOf, summaryOf } from '../analyzer/partial/results.js';
import { readArgs } from './args.js';
import { MERGE } from './commands.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';
import { nothingAnalysed } from './nothing-analysed.js';
import { loadThresholds, writeDecisions } from './report-command.js';

export async function mergeCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(MERGE, argv, io);
  if (typeof args === 'number') return args;
  const { values, positionals: files } = args;
  const { format } = values;
  let thresholds;
  try {
    thresholds = await loadThresholds(values.thresholds, values.threshold);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    io.stderr.write(`invalid ${e.kind}:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }

  let merged: PartialState | undefined;
  for (const file of files) {
    try {
      const partial = decodePartial(await readFile(file, 'utf8'), file);
      merged = merged ? mergePartials(merged, partial) : partial;
    } catch (e) {
      if (e instanceof MergeError) io.stderr.write(`cannot merge ${file}: ${e.message}\n`);
      else if (e instanceof ValidationError) io.stderr.write(`invalid ${e.kind}:\n${e.message}\n`);
      else io.stderr.write(`cannot read ${file}: ${(e as Error).message}\n`);
      return EXIT.failure;
    }
  }
  for (const input of merged!.inputs) {
    if (isComplete(input.shards)) continue;
    const missing = Array.from({ length: input.shards.count }, (_, i) => i).filter((i) => !input.shards.indices.includes(i));
    io.stderr.write(
      `${input.kind} ${input.name}: shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${input.shards.count} not merged: the report covers part of its objects\n`,
    );
  }
  if (format !== 'partial') {
    if (merged!.controllers.some((c) => !c.evidence)) {
      io.stderr.write('a partial carries no decisions evidence ("evidence": null): only the merged partial can be written (--format partial)\n');
      return EXIT.failure;
    }
    const nothing = nothingAnalysed(summaryOf(merged!), merged!.inputs.map((i) => i.name).join(', '));
    if (nothing !== undefined) {
      io.stderr.write(`${nothing}\n`);
      return EXIT.nothingAnalysed;
    }
    return writeDecisions(decisionReportOf(merged!, thresholds), format, values.out, io);
  }
  const text = JSON.stringify(encodePartial(merged!)) + '\n';
  if (values.out) {
    try {
      await writeFile(values.out, text);
    } catch (e) {
      io.stderr.write(`cannot write ${values.out}: ${(e as Error).message}\n`);
      return EXIT.failure;
    }
    return EXIT.ok;
  }
  const out = new BufferedWriter(io.stdout);
  out.write(text);
  await out.flush();
  return EXIT.ok;
}
