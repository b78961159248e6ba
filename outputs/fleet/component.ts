/**
 * The fleet's verdict, where a team looks: with `sources.peers` configured, /report serves the decisions over every
 * peer's partial (JSON by default, `?format=markdown` or `?format=html` as `report` writes them, each naming the
 * peers it covers), and /metrics carries the verdict per controller, its reasons' kinds, each operation's loop
 * comparison with its rates per loop, and the peers read, failing and missing (verdict-series.ts). Without peers it
 * does nothing.
 */
import type { OutputComponent } from '../component.js';

export const fleet: OutputComponent<undefined> = {
  title: "the fleet's decisions on /report and its verdict on /metrics (with sources.peers)",
  schema: undefined,
  enabled: () => true,
  // The decisions' renderers are loaded only where a fleet runs.
  create: async (_config, ctx) => (ctx.fleet ? (await import('./internal/fleet-output.js')).fleetOutput(ctx.fleet, ctx) : {}),
};
