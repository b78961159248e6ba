/**
 * The fleet's verdict, where a team looks: with `sources.peers` configured, /report serves the decisions over every
 * peer's partial (JSON by default, `?format=markdown` or `?format=html` as `report` writes them, each naming the
 * peers it covers), and /metrics carries the verdict per controller, its reasons' kinds, each operation's loop
 * comparison with its rates per loop, and the peers read, failing and missing (verdict-series.ts). Without peers it
 * does nothing.
 */
import { DECISIONS_CONTENT_TYPES, DECISIONS_FORMATS, renderDecisions, type DecisionsFormat } from '../review/render.js';
import type { FleetView } from '../../analyzer/fleet/fleet.js';
import type { PeerFailure } from '../../collector/peers/sink.js';
import type { OutputComponent } from '../component.js';
import { publishFleet } from './verdict-series.js';

export const fleet: OutputComponent<undefined> = {
  title: "the fleet's decisions on /report and its verdict on /metrics (with sources.peers)",
  schema: undefined,
  enabled: () => true,
  create(_config, ctx) {
    const state = ctx.fleet;
    if (!state) return Promise.resolve({});
    const now = (): number => ctx.clock.now();
    const published = new Map<PeerFailure, number>();
    return Promise.resolve({
      endpoints: [
        {
          path: '/report',
          serve: async ({ format }) => {
            const chosen: DecisionsFormat = DECISIONS_FORMATS.includes(format as DecisionsFormat) ? (format as DecisionsFormat) : 'json';
            const view = state.view(now());
            if (!view.decisions) return { contentType: 'text/plain', body: `no peer's partial is in hand yet: ${coverage(view)}\n` };
            const body = await renderDecisions(view.decisions, chosen, { inputFacts: [coverage(view)] }, { fleet: fleetJson(view) });
            return { contentType: DECISIONS_CONTENT_TYPES[chosen], body };
          },
        },
      ],
      refresh: () => publishFleet(ctx.metrics.metrics, state.view(now()), state.failures, published),
    });
  },
};

/** One line: the peers the decisions cover, and those they do not, with why. */
export function coverage(view: FleetView): string {
  const left = view.peers.filter((p) => p.state === 'missing');
  const failing = view.peers.filter((p) => p.state === 'failing');
  const named = (ps: typeof view.peers): string => ps.map((p) => `${p.peer}${p.failure ? ` (${p.failure.reason})` : ''}`).join(', ');
  return (
    `The fleet's verdict covers ${view.covered.length} of ${view.peers.length} peers${view.covered.length ? `: ${view.covered.join(', ')}` : ''}` +
    (failing.length ? `; failing, their last partial still counted: ${named(failing)}` : '') +
    (left.length ? `; missing, not counted: ${named(left)}` : '') +
    '.'
  );
}

function fleetJson(view: FleetView): Record<string, unknown> {
  return {
    covered: view.covered,
    peers: view.peers.map((p) => ({
      peer: p.peer,
      state: p.state,
      readAt: p.readAtMs === undefined ? null : new Date(p.readAtMs).toISOString(),
      failure: p.failure ? { reason: p.failure.reason, message: p.failure.message, at: new Date(p.failure.atMs).toISOString() } : null,
    })),
  };
}
