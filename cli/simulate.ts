/**
 * `reconcile-shadow simulate --model <m> --objects N --duration 24h --seed S [--observe sequential|phased|mixed] [--out file]`
 * Writes a journal from a seeded world where faults come and go per object.
 */
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatAttemptLine } from '../collector/journal.js';
import { ModelError, resolveModel } from '../model/load.js';
import { World, type ObserveMode } from '../simulator/world.js';
import { parseDuration } from '../lib/duration.js';
import { BufferedWriter, EXIT, type CommandIO } from './io.js';

export const SIMULATE_USAGE = 'usage: reconcile-shadow simulate --model <name|file> [--objects 20] [--duration 24h] [--seed 1] [--observe sequential|phased|mixed] [--out file]';

export async function simulateCommand(argv: string[], io: CommandIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        model: { type: 'string', default: 'hypershift-hostedcluster' },
        objects: { type: 'string', default: '20' },
        duration: { type: 'string', default: '24h' },
        seed: { type: 'string', default: '1' },
        observe: { type: 'string', default: 'sequential' },
        out: { type: 'string' },
      },
      strict: true,
    }));
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n${SIMULATE_USAGE}\n`);
    return EXIT.usage;
  }
  const objects = Number(values.objects);
  const seed = Number(values.seed);
  const durationMs = parseDuration(values.duration);
  const observe = values.observe as ObserveMode;
  if (!Number.isInteger(objects) || objects < 1 || !Number.isInteger(seed) || durationMs === undefined || !['sequential', 'phased', 'mixed'].includes(observe)) {
    io.stderr.write(`${SIMULATE_USAGE}\n`);
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
  const stream = values.out ? createWriteStream(values.out) : io.stdout;
  const out = new BufferedWriter(stream);
  for (const record of new World({ model, objects, durationMs, seed, observe }).attempts()) {
    out.write(formatAttemptLine(record) + '\n');
    if (out.needsFlush) await out.flush();
  }
  await out.flush();
  if (values.out) await new Promise<void>((resolve, reject) => stream.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return EXIT.ok;
}
