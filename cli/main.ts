#!/usr/bin/env node
/** The `reconcile-shadow` command: one entry, one subcommand per job (each declared in cli/commands.ts). */
import { helpText } from './args.js';
import { COMMAND_SPECS } from './commands.js';
import { isEntryPoint } from './entry-point.js';
import { EXIT, type CommandIO } from './io.js';

type Command = (argv: string[], io: CommandIO) => Promise<number>;
/** Each command's module is loaded only when it runs, so `run` never pays for the report renderer and vice versa. */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => (await import('./run.js')).runCommand,
  analyze: async () => (await import('./analyze.js')).analyzeCommand,
  report: async () => (await import('./report-command.js')).reportCommand,
  simulate: async () => (await import('./simulate.js')).simulateCommand,
  journal: async () => (await import('./journal-command.js')).journalCommand,
  recreations: async () => (await import('./recreations-command.js')).recreationsCommand,
};

function usage(): string {
  const width = Math.max(...COMMAND_SPECS.map((c) => c.name.length)) + 2;
  return [
    'reconcile-shadow <command> [flags]',
    '',
    'Shadows a Kubernetes operator’s reconcile loop: replays what it did through the sequential and the phased loop and',
    'says what the change would do (README.md).',
    '',
    'commands:',
    ...COMMAND_SPECS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'reconcile-shadow <command> --help   a command’s flags, examples and exit codes',
    'reconcile-shadow --version          the version',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(usage());
    return EXIT.usage;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const spec = COMMAND_SPECS.find((c) => c.name === rest[0]);
    io.stdout.write(spec ? helpText(spec) : usage());
    return rest[0] === undefined || spec ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-V') {
    // Loaded here: reading package.json is the only work `--version` does.
    io.stdout.write(`reconcile-shadow ${(await import('../sidecar/version.js')).VERSION}\n`);
    return EXIT.ok;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.stderr.write(`reconcile-shadow: unknown command "${name}"\n\n${usage()}`);
    return EXIT.usage;
  }
  return (await load())(rest, io);
}

if (isEntryPoint(import.meta.url)) {
  const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
  // Exit explicitly: the sidecar's clients (informers, keep-alive agents) may hold handles after a clean stop.
  process.exit(code);
}
