/**
 * `reconcile-shadow run` (flags and help: RUN in cli/commands.ts): the sidecar. With no config it starts the embedded
 * default (a simulated HyperShift fleet, the OTLP receiver, metrics on 127.0.0.1:9464 and a live summary).
 * SIGTERM/SIGINT: stop accepting input, finish what is in flight, flush traces, exit 0 within the shutdown timeout.
 */
import { EMBEDDED_DEFAULT, loadConfig, parseConfig, type Config } from '../sidecar/config.js';
import { SourceStartError, startSidecar } from '../sidecar/sidecar.js';
import { ValidationError } from '../lib/validation-error.js';
import type { Summary } from '../analyzer/summary/types.js';
import { readArgs } from './args.js';
import { RUN } from './commands.js';
import { EXIT, type CommandIO } from './io.js';

export interface RunHooks {
  /** Resolves when the sidecar should stop; defaults to the first SIGTERM or SIGINT. */
  readonly stopSignal?: Promise<string>;
  readonly env?: NodeJS.ProcessEnv;
}

function firstSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

/** What arrived and what became of it, logged at exit so received = analyzed + dropped can be checked after the fact. */
function finalAccount(r: Summary): Record<string, unknown> {
  const attempts = r.controllers.reduce((n, c) => n + c.attempts.total, 0);
  const operations = r.controllers.reduce(
    (n, c) => n + c.operations.reduce((m, o) => m + o.outcomes.ok + o.outcomes.error + o.outcomes.stop + o.outcomes.skip, 0),
    0,
  );
  return { received: r.input.received, rejectedByReason: r.input.rejectedByReason, attempts, operations };
}

function baseUrl(a: { readonly host: string; readonly port: number }): string {
  return `http://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}

export async function runCommand(argv: string[], io: CommandIO, hooks: RunHooks = {}): Promise<number> {
  const args = readArgs(RUN, argv, io);
  if (typeof args === 'number') return args;
  const { values } = args;
  let config: Config;
  try {
    config = values.config ? loadConfig(values.config) : parseConfig(EMBEDDED_DEFAULT, '(embedded default)');
  } catch (e) {
    if (!(e instanceof ValidationError)) {
      io.stderr.write(`cannot read config: ${(e as Error).message}\n`);
      return EXIT.invalidConfig;
    }
    io.stderr.write(`invalid config:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }

  const log = (line: string): void => void io.stderr.write(line + '\n');
  let sidecar;
  try {
    sidecar = await startSidecar(config, { log, env: hooks.env ?? process.env });
  } catch (e) {
    if (e instanceof ValidationError) {
      io.stderr.write(`invalid ${e.kind}:\n${e.message}\n`);
      return EXIT.invalidConfig;
    }
    if (!(e instanceof SourceStartError) && !(e as NodeJS.ErrnoException).code) throw e;
    io.stderr.write(`reconcile-shadow: ${(e as Error).message}\n`);
    return EXIT.failure;
  }
  const base = baseUrl(sidecar.metricsAddress);
  const summary = sidecar.guardedAddress
    ? `${baseUrl(sidecar.guardedAddress)}/summary`
    : 'not served on a public listener (set listen.summary or summary.bearerTokenFile)';
  log(`reconcile-shadow ${values.config ? `running ${values.config}` : 'running the embedded default (a simulated HyperShift fleet)'}`);
  log(`  metrics ${base}/metrics · health ${base}/healthz, ${base}/readyz · summary ${summary}`);
  for (const source of sidecar.sources) log(`  source: ${source.kind}`);

  const signal = await (hooks.stopSignal ?? firstSignal());
  log(`reconcile-shadow: ${signal}, stopping`);
  const deadline = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), config.shutdownTimeout).unref());
  const outcome = await Promise.race([sidecar.stop().then(() => 'stopped' as const), deadline]);
  if (outcome === 'timeout') {
    log(`reconcile-shadow: shutdown took longer than ${config.shutdownTimeout} ms; exiting anyway`);
    return EXIT.failure;
  }
  log(`reconcile-shadow: stopped: ${JSON.stringify(finalAccount(sidecar.analyzer.summary()))}`);
  return EXIT.ok;
}
