/**
 * `/partial`: the partial summary (`reconcile-shadow/partial/v1`, docs/partial.md) of everything this sidecar
 * analysed since it started, with the decisions' evidence, so a fleet component (sources.peers) can merge every
 * sidecar's into one verdict. It names objects as /report does, so it is guarded as /report is (sidecar/server.ts).
 *
 * With `partial.path`, the partial is also written there every `saveInterval` and at stop, and read back at start: a
 * restarted sidecar serves its earlier runs' evidence merged with its own. Each run is an input of its own
 * (`sidecar <instance> <start time>`), so merging never counts a run twice; the cost of a restart is that an object's
 * history is split in two (its streaks and flips start again), and what was analysed after the last save is lost.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { DecisionEvidence } from '../../analyzer/decisions/evidence.js';
import { partialOf, RejectionSampler } from '../../analyzer/partial/collect.js';
import { decodePartial, encodePartial, type InputPart, type PartialState } from '../../analyzer/partial/format.js';
import { MergeError, mergePartials } from '../../analyzer/partial/merge.js';
import type { AnalysisListener } from '../../analyzer/analyzer.js';
import type { OutputComponent } from '../component.js';

const schema = {
  kind: 'object',
  present: true,
  doc: '/partial: the partial summary of everything analysed, for a fleet component to merge (docs/partial.md)',
  fields: {
    path: { kind: 'string', doc: 'keep the partial across restarts in this file (a writable volume), written every saveInterval and at stop' },
    saveInterval: { kind: 'duration', default: '1m', min: '1s', doc: 'how often the partial is written to path' },
    instance: { kind: 'string', doc: "this sidecar's name in the fleet's inputs; default: $POD_NAME, else $HOSTNAME" },
  },
} as const;

export const partial: OutputComponent<typeof schema> = {
  title: 'the partial summary on /partial, for the fleet verdict',
  schema,
  enabled: () => true,
  create(config, ctx) {
    const evidence = new DecisionEvidence();
    const instance = config.instance ?? ctx.env.POD_NAME ?? ctx.env.HOSTNAME ?? 'sidecar';
    const input: InputPart = { kind: 'sidecar', name: `${instance} ${new Date(ctx.clock.now()).toISOString()}`, shards: { count: 1, indices: [0] } };
    let position = 0;
    const sampler = new RejectionSampler(input.name, () => position);
    let earlier = config.path === undefined ? undefined : readEarlier(config.path, ctx.log);
    const listener: AnalysisListener = {
      attempt(shadow, analysis) {
        position++;
        evidence.attempt(shadow, analysis);
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
    const timer = config.path === undefined ? undefined : setInterval(() => void save().catch((e: unknown) => ctx.failed('report', e)), config.saveInterval);
    timer?.unref();
    return Promise.resolve({
      attempts: listener,
      endpoints: [{ path: '/partial', serve: () => ({ contentType: 'application/json', body: text() }) }],
      stop: async () => {
        if (timer) clearInterval(timer);
        await save().catch((e: unknown) => ctx.failed('report', e));
      },
    });
  },
};

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
