/**
 * `reconcile-shadow simulate` (flags and help: SIMULATE in cli/commands.ts). Writes a journal from a seeded world where
 * faults come and go per object.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { formatAttemptLine } from '../collector/journal/format.js';
import { ValidationError } from '../lib/validation-error.js';
import { resolveModel } from '../sidecar/files.js';
import { World } from '../simulator/world.js';
import { readArgs } from './args.js';
import { SIMULATE } from './commands.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';

export async function simulateCommand(argv: string[], io: CommandIO): Promise<number> {
  const args = readArgs(SIMULATE, argv, io);
  if (typeof args === 'number') return args;
  const { objects, duration: durationMs, seed, observe, out: file } = args.values;
  let model;
  try {
    model = resolveModel(args.values.model);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    io.stderr.write(`invalid model:\n${e.message}\n`);
    return EXIT.invalidConfig;
  }
  let stream: Writable = io.stdout;
  let failure: Error | undefined;
  if (file !== undefined) {
    const fileStream = createWriteStream(file);
    fileStream.on('error', (e: Error) => (failure ??= e));
    await once(fileStream, 'ready').catch(() => undefined);
    stream = fileStream;
  }
  const out = new BufferedWriter(stream);
  for (const record of new World({ model, objects, durationMs, seed, observe }).attempts()) {
    if (failure) break;
    out.write(formatAttemptLine(record) + '\n');
    if (out.needsFlush) await out.flush();
  }
  await out.flush();
  if (file !== undefined && !failure) await new Promise<void>((resolve) => stream.end(resolve));
  if (failure) {
    io.stderr.write(`cannot write ${file}: ${failure.message}\n`);
    return EXIT.failure;
  }
  return EXIT.ok;
}
