/**
 * /partial's machinery (component.ts): the evidence listener, the partial it serves, and its file across restarts.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { partialOf, RejectionSampler } from '../../../analyzer/partial/collect.js';
import { decodePartial, encodePartial, type InputPart, type PartialState } from '../../../analyzer/partial/format.js';
import { MergeError, mergePartials } from '../../../analyzer/partial/merge.js';
import type { AnalysisListener } from '../../../analyzer/analyzer.js';
import type { Output, OutputContext } from '../../component.js';

export interface PartialSettings {
  readonly path?: string | undefined;
  readonly saveInterval: number;
  readonly instance?: string | undefined;
}

export function partialOutput(config: PartialSettings, ctx: OutputContext): Output {
  const evidence = new DecisionEvidence();
  const instance = config.instance ?? ctx.env.POD_NAME ?? ctx.env.HOSTNAME ?? 'sidecar';
  const input: InputPart = { kind: 'sidecar', name: `${instance} ${new Date(ctx.clock.now()).toISOString()}`, shards: { count: 1, indices: [0] } };
  let position = 0;
  const sampler = new RejectionSampler(input.name, () => position);
  let earlier = config.path === undefined ? undefined : readEarlier(config.path, ctx.log);
  const listener: AnalysisListener = {
    attempt(controller, analysis) {
      position++;
      evidence.attempt(controller, analysis);
    },
    reject(r) {
      position++;
      sampler.reject(r);
    },
  };
  const current = (): PartialState => {
    const live = partialOf(ctx.analyzer, evidence, input, sampler);
    if (!earlier) return live;
    try {
      return mergePartials(earlier, live);
    } catch (e) {
      if (!(e instanceof MergeError)) throw e;
      // e.g. the model changed between runs: the earlier evidence cannot be compared with this run's
      ctx.log(`reconcile-shadow: partial.path: ${config.path}: ${e.message}; the earlier runs' evidence is set aside`);
      earlier = undefined;
      return live;
    }
  };
  const text = (): string => JSON.stringify(encodePartial(current())) + '\n';
  const save = async (): Promise<void> => {
    if (config.path === undefined) return;
    // Written beside and renamed, so a crash mid-write leaves the last whole partial.
    const temporary = `${config.path}.tmp`;
    await writeFile(temporary, text());
    await rename(temporary, config.path);
  };
  const timer = config.path === undefined ? undefined : setInterval(() => void save().catch((e: unknown) => ctx.failed('summary', e)), config.saveInterval);
  timer?.unref();
  return {
    attempts: listener,
    endpoints: [{ path: '/partial', serve: () => ({ contentType: 'application/json', body: text() }) }],
    stop: async () => {
      if (timer) clearInterval(timer);
      await save().catch((e: unknown) => ctx.failed('summary', e));
    },
  };
}

/** The partial an earlier run saved, or undefined when there is none; one that cannot be read is named and set aside. */
function readEarlier(path: string, log: (line: string) => void): PartialState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw Object.assign(new Error(`partial.path: ${(e as Error).message}`), { code: (e as NodeJS.ErrnoException).code });
  }
  try {
    return decodePartial(text, path);
  } catch (e) {
    log(`reconcile-shadow: partial.path: ${(e as Error).message}; starting without the earlier runs' evidence`);
    return undefined;
  }
}
