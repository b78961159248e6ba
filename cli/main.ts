#!/usr/bin/env node
/** The `reconcile-shadow` command: one entry, one subcommand per job. */
import { analyzeCommand } from './analyze.js';
import { EXIT, type CommandIO } from './io.js';
import { recreationsCommand } from './recreations-command.js';
import { reportCommand } from './report-command.js';
import { runCommand } from './run.js';
import { simulateCommand } from './simulate.js';

const USAGE = `reconcile-shadow <command> [options]

commands:
  run          the sidecar: sources in, metrics/traces/report out (no --config: the embedded demo)
  analyze      replay a journal of reconcile attempts through both loops and report
  simulate     write a journal from a seeded simulated world
  report       decide switch readiness from a journal: verdict, evidence, rollout plan (HTML or Markdown)
  recreations  dry-run an adapter's lifecycle rules over recorded objects and report every recreation
  help         this text

Run a command with --help for its options.`;

type Command = (argv: string[], io: CommandIO) => Promise<number>;
const COMMANDS: Record<string, Command> = {
  analyze: analyzeCommand,
  recreations: recreationsCommand,
  report: reportCommand,
  run: runCommand,
  simulate: simulateCommand,
};

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`unknown command "${name}"\n${USAGE}\n`);
    return EXIT.usage;
  }
  return command(rest, io);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/main.js') || process.argv[1]?.endsWith('/cli/main.ts')) {
  const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
  // Exit explicitly: the sidecar's clients (informers, keep-alive agents) may hold handles after a clean stop.
  process.exit(code);
}
