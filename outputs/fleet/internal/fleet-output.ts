/** The fleet output's machinery (component.ts): /report over the fleet's view, and its series before each scrape. */
import { DECISIONS_CONTENT_TYPES, DECISIONS_FORMATS, renderDecisions, type DecisionsFormat } from '../../review/render.js';
import type { FleetState, FleetView } from '../../../analyzer/fleet/fleet.js';
import type { PeerFailure } from '../../../collector/peers/sink.js';
import type { Output, OutputContext } from '../../component.js';
import { publishFleet } from './verdict-series.js';

export function fleetOutput(state: FleetState, ctx: OutputContext): Output {
  const now = (): number => ctx.clock.now();
  const published = new Map<PeerFailure, number>();
  return {
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
  };
}

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
