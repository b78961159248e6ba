/** Runs a CLI command in-process with captured stdout/stderr, as a person would run it from a shell. */
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../cli/main.js';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCli(argv: string[], stdin: Readable | string = ''): Promise<CommandResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const input = typeof stdin === 'string' ? Readable.from([Buffer.from(stdin)]) : stdin;
  const code = await main(argv, { stdout, stderr, stdin: input });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
