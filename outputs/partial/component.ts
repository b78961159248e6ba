/**
 * `/partial`: the partial summary (`reconcile-shadow/partial/v1`, docs/partial.md) of everything this sidecar
 * analysed since it started, with the decisions' evidence, so a fleet component (sources.peers) can merge every
 * sidecar's into one verdict. It names objects as /summary does, so it is guarded as /summary is (sidecar/server.ts).
 *
 * With `partial.path`, the partial is also written there every `saveInterval` and at stop, and read back at start: a
 * restarted sidecar serves its earlier runs' evidence merged with its own. Each run is an input of its own
 * (`sidecar <instance> <start time>`), so merging never counts a run twice; the cost of a restart is that an object's
 * history is split in two (its streaks and flips start again), and what was analysed after the last save is lost.
 */
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
  // The partial format (and the model reader behind it) is loaded at start, not with the registry.
  create: async (config, ctx) => (await import('./internal/partial-output.js')).partialOutput(config, ctx),
};
