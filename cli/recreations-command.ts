/**
 * `reconcile-shadow recreations` (flags and help: RECREATIONS in cli/commands.ts). Replays an observation journal
 * through the adapter's lifecycle rules in shadow mode and prints every recreation found, finished or not (unfinished
 * ones aged at the journal's last time). Bad lines are reported on stderr with file:line and counted; they never stop
 * the replay. A broken CEL expression names file:line:column, the resource and field, and the caret (exit 3).
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { CelRuntime } from '../analyzer/recreations/cel.js';
import { trackerOptions } from '../analyzer/recreations/config.js';
import {
  contractRow,
  detailedRow,
  renderTable,
  sortEntries,
  summarize,
  unfinishedEntries,
  UnreconciledSummary,
  type RecreationEntry,
} from '../analyzer/recreations/rows.js';
import { CompiledTaskConfig } from '../analyzer/recreations/rules.js';
import { RecreationAnalyzer } from '../analyzer/recreations/recreation-analyzer.js';
import { loadAdapterConfigFile, loadTaskConfigWithProposals } from '../sidecar/files.js';
import { executeEvent } from '../analyzer/recreations/adapter-event.js';
import { objectWorld, parseDryRunApiResponses, parseDryRunDiscovery, parseDryRunEvent } from '../analyzer/recreations/dry-run-inputs.js';
import { dryRunJson, dryRunRow, renderDryRunTable } from '../analyzer/recreations/dry-run-rows.js';
import { readFileSync } from 'node:fs';
import { ValidationError } from '../lib/validation-error.js';
import { parseObservationLine } from '../collector/objects/journal.js';
import { splitStream } from '../collector/input/lines.js';
import { readArgs } from './args.js';
import { RECREATIONS } from './commands.js';
import { BufferedWriter, EXIT, RejectionEcho, type CommandIO } from './io.js';

export async function recreationsCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(RECREATIONS, argv, io);
  if (typeof args === 'number') return args;
  const { journal, format, strict } = args.values;
  const dryRunEvent = args.values['dry-run-event'];
  const usage = (problem: string): number => {
    io.stderr.write(`${problem}\n`);
    return EXIT.usage;
  };
  if ((journal === undefined) === (dryRunEvent === undefined))
    return usage('give either --journal <file|-> (replay observations) or --dry-run-event <file> (the adapter dry-run inputs)');
  if (journal !== undefined && (args.values['dry-run-api-responses'] !== undefined || args.values['dry-run-discovery'] !== undefined)) {
    return usage('--dry-run-api-responses and --dry-run-discovery go with --dry-run-event, not --journal');
  }

  let compiled: CompiledTaskConfig;
  try {
    const adapterConfigFile = args.values['adapter-config'];
    compiled = CompiledTaskConfig.compile(loadTaskConfigWithProposals(args.values['task-config'], args.values.proposals), new CelRuntime(), {
      env: process.env as Record<string, string>,
      ...(adapterConfigFile ? { adapterConfig: loadAdapterConfigFile(adapterConfigFile) } : {}),
    });
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    io.stderr.write(`invalid ${e.kind === 'adapter task config' ? 'task config' : e.kind}:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }
  for (const n of compiled.notices) io.stderr.write(`notice: ${n}\n`);
  if (dryRunEvent !== undefined) return dryRun(compiled, dryRunEvent, args.values['dry-run-api-responses'], args.values['dry-run-discovery'], format, io);
  if (journal === undefined) return EXIT.usage;

  const options = trackerOptions({
    sentinelIntervalSeconds: args.values['sentinel-interval'] / 1000,
    stuckThresholdsMs: { default: args.values['stuck-threshold'] },
  });
  const entries: RecreationEntry[] = [];
  const unreconciled = new UnreconciledSummary();
  const rejections = new RejectionEcho(io.stderr);
  const recreations = new RecreationAnalyzer(compiled, options, {
    finished: (r) => entries.push({ finished: true, recreation: r }),
    unreconciled: (p) => unreconciled.add(p),
    rejected: rejections.reject,
  });

  let observed = 0;
  try {
    await splitStream(journal === '-' ? (io.stdin as Readable) : createReadStream(journal), {
      line: (text, lineNo) => {
        if (text.trim() === '') return;
        const parsed = parseObservationLine(text, lineNo, journal);
        if (!parsed.ok) return recreations.reject(parsed.rejection);
        observed++;
        recreations.observe(parsed.observation);
      },
      tooLong: (lineNo, bytes) =>
        recreations.reject({ source: 'journal', reason: 'line_too_long', where: `${journal}:${lineNo}`, message: `line of ${bytes} bytes exceeds the limit` }),
    });
  } catch (e) {
    io.stderr.write(`${journal}: cannot read: ${(e as Error).message}\n`);
    return EXIT.failure;
  }

  entries.push(...unfinishedEntries(recreations.inFlight(), recreations.lastObservationMs, options.stuckThresholdMs));
  sortEntries(entries);
  const summary = summarize(entries, recreations.stats, unreconciled);
  const out = new BufferedWriter(io.stdout);
  if (format === 'jsonl') {
    for (const e of entries) {
      out.write(JSON.stringify(contractRow(e)) + '\n');
      if (out.needsFlush) await out.flush();
    }
  } else if (format === 'json') out.write(JSON.stringify({ recreations: entries.map(detailedRow), summary }, null, 2) + '\n');
  else out.write(renderTable(entries, summary));
  await out.flush();
  rejections.finish('rejected lines');
  if (observed === 0) {
    const name = journal === '-' ? 'stdin' : journal;
    io.stderr.write(
      rejections.count === 0
        ? `nothing analysed: ${name} holds no observation\n`
        : `nothing analysed: all ${rejections.count} lines of ${name} were rejected\n`,
    );
    return EXIT.nothingAnalysed;
  }
  return strict && rejections.count > 0 ? EXIT.rejectedInput : EXIT.ok;
}

/** One adapter event from the adapter's own dry-run files, decided without acting; the clock is the event's `time`. */
function dryRun(
  compiled: CompiledTaskConfig,
  eventFile: string,
  apiFile: string | undefined,
  discoveryFile: string | undefined,
  format: string,
  io: CommandIO,
): number {
  let inputs;
  try {
    const read = (f: string): string => readFileSync(f, 'utf8');
    const eventText = read(eventFile);
    const event = parseDryRunEvent(eventText, eventFile);
    const stamp = (JSON.parse(eventText) as { time?: unknown }).time;
    const time = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
    inputs = {
      event,
      api: apiFile === undefined ? () => ({ status: 200, body: {} }) : parseDryRunApiResponses(read(apiFile), apiFile)(),
      objects: objectWorld(discoveryFile === undefined ? [] : parseDryRunDiscovery(read(discoveryFile), discoveryFile)),
      nowMs: Number.isNaN(time) ? 0 : time,
    };
  } catch (e) {
    if (e instanceof ValidationError) {
      io.stderr.write(`invalid ${e.kind}:\n${e.message}\n`);
      return EXIT.invalidConfig;
    }
    io.stderr.write(`cannot read the dry-run inputs: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  const outcome = executeEvent(compiled, { ...inputs, env: compiled.env, adapterConfig: compiled.adapterConfig });
  if (format === 'jsonl') io.stdout.write(outcome.resources.map((r) => JSON.stringify(dryRunRow(r)) + '\n').join(''));
  else if (format === 'json') io.stdout.write(JSON.stringify(dryRunJson(outcome), null, 2) + '\n');
  else io.stdout.write(renderDryRunTable(outcome));
  return EXIT.ok;
}
