#!/usr/bin/env node
/** The `reconcile-shadow` command: one entry, one subcommand per job. */
import { EXIT, type CommandIO } from './io.js';

const USAGE = `reconcile-shadow <command> [options]

commands:
  run          the sidecar: sources in, metrics/traces/report out (no --config: the embedded demo)
  analyze      replay a journal (or an operator log: --logs) through both loops and report
  simulate     write a journal from a seeded simulated world
  journal      write the attempts an operator log proves as a journal (--logs FILE|-)
  report       decide switch readiness from a journal (or an operator log: --logs): verdict, evidence, rollout plan (HTML, Markdown or JSON)
  recreations  dry-run an adapter's lifecycle rules over recorded objects and report every recreation
  help         this text

Run a command with --help for its options.`;

type Command = (argv: string[], io: CommandIO) => Promise<number>;
/** Each command's module is loaded only when it runs, so `run` never pays for the report renderer and vice versa. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run.js')).runCommand,
  analyze: async () => (await import('./analyze.js')).analyzeCommand,
  simulate: async () => (await import('./simulate.js')).simulateCommand,
  journal: async () => (await import('./journal-command.js')).journalCommand,
  report: async () => (await import('./report-command.js')).reportCommand,
  recreations: async () => (await import('./recreations-command.js')).recreationsCommand,
};

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.stderr.write(`unknown command "${name}"\n${USAGE}\n`);
    return EXIT.usage;
  }
  return (await load())(rest, io);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/main.js') || process.argv[1]?.endsWith('/cli/main.ts')) {
  const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
  // Exit explicitly: the sidecar's clients (informers, keep-alive agents) may hold handles after a clean stop.
  process.exit(code);
}
