/**
 * Every command's declaration: what it is for, its flags (type, default, accepted values, help), examples and exit
 * codes. The commands parse their arguments from these (cli/args.ts), `--help` and the README's command list are
 * generated from them, and a test runs each example through the parser. This file imports nothing heavy, so the
 * top-level help never loads a command's code.
 */
import type { CommandSpec, Flags } from './args.js';
import type { ObserveMode } from '../simulator/world.js';
import { BUILTIN_MODELS } from '../model/load.js';
import { LOOP_SETTINGS } from '../model/types.js';

const MODEL_HELP = `the reconcile model: a built-in name (${BUILTIN_MODELS.join(', ')}) or a model YAML file`;
const LOOP_HELP = 'which loop wrote the log: auto proves it from lines only one loop writes (docs/log-source.md)';

const model = { type: 'string', value: '<name|file>', help: MODEL_HELP, required: true } as const;
const journal = { type: 'string', value: '<file|->', help: 'a journal: one attempt per JSON line (README "The journal"); - reads stdin' } as const;
const logs = {
  type: 'list',
  value: '<file|dir|->',
  help: "an operator log: controller-runtime JSON lines, raw, CRI-framed or with `kubectl logs --timestamps` prefixes (detected per line), plain or gzip (by its bytes); - reads stdin; a folder (a must-gather) is searched for the operator container's current and previous logs; several are merged by time, each one operator process (docs/log-source.md)",
} as const;
const container = {
  type: 'string',
  value: '<namespace/container>',
  default: 'hypershift/operator',
  help: "in a folder given to --logs, the container whose logs are the operator's; every other file is skipped and named",
  with: 'logs',
} as const;
const loop = { type: 'choice', choices: LOOP_SETTINGS, default: 'auto', help: LOOP_HELP } as const;
const operatorVersion = {
  type: 'string',
  value: '<version>',
  help: "the operator's build (e.g. 4.22, 5.0.3, release-5.0): picks the model's build (spec.builds); unknown: the newest build's, and the output says so",
} as const;
const workers = {
  type: 'string',
  value: '<n|auto>',
  default: '1',
  help: "worker threads that split a journal file's objects among them (auto: one per core); the output is byte for byte one worker's (docs/scaling.md)",
} as const;
const shard = {
  type: 'string',
  value: '<i/n>',
  help: 'analyse only the objects of shard i of n (0-based, by object hash), as one pod of an Indexed Job does (docs/scaling.md)',
} as const;

export const ANALYZE = {
  name: 'analyze',
  summary: 'replay a journal (or an operator log) through both loops and count what the phased loop would change',
  about:
    'Streams the input (never holds it whole), replays every attempt through the sequential and the phased loop, and prints per operation: observed outcomes, unblocked, newly blocked, predicted, top blockers, starvation; the blocked-by matrix and the reordered pairs. A bad line is reported on stderr as file:line: reason: message, counted in the summary, and never stops the analysis.',
  flags: {
    model,
    'operator-version': operatorVersion,
    journal,
    logs,
    loop: { ...loop, with: 'logs' },
    container,
    format: {
      type: 'choice',
      choices: ['table', 'markdown', 'json', 'jsonl', 'partial'],
      default: 'table',
      help: 'table for a terminal, markdown for a review, json (docs/summary.schema.json), jsonl: one row per attempt (docs/attempt-row.schema.json), partial: the partial summary `merge` merges (docs/partial.md)',
    },
    strict: { type: 'boolean', help: 'exit 4 when any input line was rejected' },
    workers,
    shard,
  },
  oneOf: [['journal', 'logs']],
  examples: [
    'reconcile-shadow analyze --model hypershift-hostedcluster --journal world.jsonl',
    'reconcile-shadow analyze --model examples/database-operator/model.yaml --journal examples/database-operator/journal.jsonl --format markdown',
    'reconcile-shadow analyze --model hypershift-hostedcluster --logs operator.log.gz --format json',
    'reconcile-shadow analyze --model hypershift-hostedcluster --journal world.jsonl --workers auto',
    'reconcile-shadow analyze --model hypershift-hostedcluster --journal world.jsonl --shard 0/4 --format partial > part-0.json',
  ],
  exitCodes: ['ok', 'failure', 'usage', 'invalidConfig', 'rejectedInput', 'nothingAnalysed'],
} as const satisfies CommandSpec<Flags>;

export const REPORT = {
  name: 'report',
  summary: 'decide switch readiness from a journal (or an operator log): verdict, evidence, rollout plan',
  about:
    'Replays the input like analyze, then decides per controller whether the phased loop can replace the sequential one (ready, not-ready or inconclusive, with the reasons), with the loop comparison, ordering evidence, the classification check, starvation, the rollout plan and the noise floor (docs/decisions.md). Without --out the report goes to stdout; with it, stdout gets one `controller: verdict` line per controller.',
  flags: {
    model,
    'operator-version': operatorVersion,
    journal,
    logs,
    loop: { ...loop, with: 'logs' },
    container,
    format: {
      type: 'choice',
      choices: ['html', 'markdown', 'json'],
      default: 'html',
      help: 'html: one self-contained file, charts inline; markdown: the same, for a review; json: the decisions as data (docs/decisions.schema.json)',
    },
    out: { type: 'string', value: '<file>', help: 'write the report to this file instead of stdout' },
    thresholds: {
      type: 'string',
      value: '<file>',
      help: 'a YAML or JSON file of decision thresholds; those it names replace the defaults (docs/decisions.md)',
    },
    threshold: { type: 'list', value: '<name=value>', help: 'one threshold, applied after the file, e.g. --threshold minObjects=50' },
    workers,
    shard,
  },
  oneOf: [['journal', 'logs']],
  examples: [
    'reconcile-shadow report --model hypershift-hostedcluster --journal world.jsonl --out report.html',
    'reconcile-shadow report --model hypershift-hostedcluster --journal world.jsonl --format markdown --threshold minObjects=10',
    'reconcile-shadow report --model hypershift-hostedcluster --logs - --format json',
    'reconcile-shadow report --model hypershift-hostedcluster --logs must-gather.local.5512/ --format markdown',
  ],
  exitCodes: ['ok', 'failure', 'usage', 'invalidConfig', 'nothingAnalysed'],
} as const satisfies CommandSpec<Flags>;

export const MERGE = {
  name: 'merge',
  summary: 'merge partial summaries (analyze --format partial) of shards of an input, and decide as report does',
  about:
    'Merges partial summaries of disjoint shards of one input, or of different inputs, made with the same model, and decides as report does: the merge of every shard of an input reads byte for byte as report over the whole input (docs/partial.md). --format partial writes the merged partial instead, to be merged again. A partial that cannot be read, two that overlap (a shard merged twice) or were made with different models stop the merge with the files named; shards missing from an input are named on stderr.',
  flags: {
    format: {
      type: 'choice',
      choices: ['html', 'markdown', 'json', 'partial'],
      default: 'html',
      help: 'html, markdown or json as report writes them; partial: the merged partial summary',
    },
    out: REPORT.flags.out,
    thresholds: REPORT.flags.thresholds,
    threshold: REPORT.flags.threshold,
  },
  positionals: { value: '<partial.json>', help: 'the partial summaries to merge', min: 1 },
  examples: [
    'reconcile-shadow merge part-0.json part-1.json part-2.json part-3.json --format markdown',
    'reconcile-shadow merge part-*.json --format partial --out fleet.json',
  ],
  exitCodes: ['ok', 'failure', 'usage', 'invalidConfig', 'nothingAnalysed'],
} as const satisfies CommandSpec<Flags>;

export const SIMULATE = {
  name: 'simulate',
  summary: 'write a journal from a seeded simulated world where faults come and go per object',
  about:
    'Runs a simulated fleet of objects through the model for the given span of simulated time and writes every attempt as a journal line. The same seed gives the same journal.',
  flags: {
    model: { ...model, required: false, default: 'hypershift-hostedcluster' },
    objects: { type: 'integer', value: '<n>', min: 1, default: 20, help: 'objects in the fleet' },
    duration: { type: 'duration', default: '24h', help: 'simulated time to cover' },
    seed: { type: 'integer', value: '<n>', default: 1, help: 'the random seed' },
    observe: {
      type: 'choice',
      choices: ['sequential', 'phased', 'mixed'] satisfies ObserveMode[],
      default: 'sequential',
      help: 'which loop the simulated operator runs; mixed: part of the fleet on each',
    },
    out: { type: 'string', value: '<file>', help: 'write the journal to this file instead of stdout' },
  },
  examples: ['reconcile-shadow simulate --objects 20 --duration 24h --seed 7 --observe mixed > world.jsonl'],
  exitCodes: ['ok', 'failure', 'usage', 'invalidConfig'],
} as const satisfies CommandSpec<Flags>;

export const JOURNAL = {
  name: 'journal',
  summary: 'write the attempts an operator log proves as a journal',
  about:
    'Reads an operator log through the log source and writes each attempt it proves as a journal line with its origin (source, reconcileID, file:line): what the log proves, to keep or to feed to analyze and report. On stderr: what the source knows about the loop, refused lines as file:line: reason: message, and the books at the end.',
  flags: {
    logs: { ...logs, required: true },
    model: { ...model, required: false, default: 'hypershift-hostedcluster' },
    'operator-version': operatorVersion,
    loop,
    container: { ...container, with: undefined },
    strict: { type: 'boolean', help: 'exit 4 when any line was refused' },
  },
  examples: [
    'reconcile-shadow journal --logs operator.log > attempts.jsonl',
    'reconcile-shadow journal --logs - --loop phased < operator.log',
    'reconcile-shadow journal --logs previous.log --logs current.log > attempts.jsonl',
  ],
  exitCodes: ['ok', 'failure', 'usage', 'invalidConfig', 'rejectedInput', 'nothingAnalysed'],
} as const satisfies CommandSpec<Flags>;

export const RECREATIONS = {
  name: 'recreations',
  summary: "dry-run an adapter's lifecycle rules over recorded objects and report every recreation",
  about:
    "Replays an observation journal through a HyperFleet adapter's lifecycle rules in shadow mode and prints every recreation found, finished or not (unfinished ones aged at the journal's last time), with the predicted unreconciled time under the blocking and the Sentinel flow (docs/recreations.md). With --dry-run-event instead of --journal it takes the adapter's own dry-run files (the event, the mock API responses, the discovered objects) and prints, per resource, what the adapter would do and why. A broken CEL expression in the task config is named with file:line:column and a caret.",
  flags: {
    'task-config': { type: 'string', value: '<file>', required: true, help: "the adapter's task config (AdapterTaskConfig YAML), as the adapter is given it" },
    'adapter-config': {
      type: 'string',
      value: '<file>',
      help: "the adapter's deployment config (adapter-config.yaml): adapter name, config.*, the API base URL",
    },
    proposals: { type: 'string', value: '<file>', help: 'proposed rules the adapter does not implement yet (lifecycle.recreate.when per resource)' },
    journal: { type: 'string', value: '<file|->', help: 'the observation journal: one observed object state per JSON line; - reads stdin' },
    'dry-run-event': { type: 'string', value: '<file>', help: "the adapter's dry-run CloudEvent (its data is event.*); instead of --journal" },
    'dry-run-api-responses': {
      type: 'string',
      value: '<file>',
      help: 'the mock HyperFleet API responses of the adapter dry run (unmatched requests answer 200 {})',
    },
    'dry-run-discovery': { type: 'string', value: '<file>', help: 'the objects present before the event (the dry run discovery overrides)' },
    format: {
      type: 'choice',
      choices: ['table', 'json', 'jsonl'],
      default: 'table',
      help: 'table for a terminal, json with the summary, jsonl: one row per recreation (per resource with --dry-run-event)',
    },
    'stuck-threshold': { type: 'duration', default: '10m', help: 'an unfinished recreation older than this counts as stuck' },
    'sentinel-interval': { type: 'duration', default: '10s', help: 'the Sentinel event interval, for the predicted non-blocking flow' },
    strict: { type: 'boolean', help: 'exit 4 when any journal line was rejected' },
  },
  examples: [
    'reconcile-shadow recreations --task-config examples/adapter-task-config.yaml --proposals examples/recreation-proposals.yaml --journal objects.jsonl --stuck-threshold 15m',
    'reconcile-shadow recreations --task-config task.yaml --adapter-config adapter.yaml --dry-run-event event.json --dry-run-api-responses api.json --dry-run-discovery discovery.json',
  ],
  exitCodes: ['ok', 'failure', 'usage', 'invalidConfig', 'rejectedInput', 'nothingAnalysed'],
} as const satisfies CommandSpec<Flags>;

export const RUN = {
  name: 'run',
  summary: 'the sidecar: sources in, metrics, traces and the summary out (no --config: the embedded demo)',
  about:
    'Starts the sidecar with the config (validated whole at start; unknown keys are errors). Without --config it runs the embedded default: a simulated HyperShift fleet and adapter world, the OTLP receiver, metrics on 127.0.0.1:9464 and a live summary every 5 seconds. SIGTERM or SIGINT stops the sources, hands on what is in flight, flushes traces and exits 0 within shutdownTimeoutMs.',
  flags: {
    config: { type: 'string', value: '<file>', help: 'the sidecar config (apiVersion: reconcile-shadow/v1, kind: ShadowConfig)' },
  },
  examples: ['reconcile-shadow run', 'reconcile-shadow run --config /etc/reconcile-shadow/shadow.yaml'],
  exitCodes: ['ok', 'failure', 'usage', 'invalidConfig'],
} as const satisfies CommandSpec<Flags>;

/** Every command, in the order the help lists them. */
export const COMMAND_SPECS: readonly CommandSpec[] = [RUN, ANALYZE, REPORT, MERGE, SIMULATE, JOURNAL, RECREATIONS];
