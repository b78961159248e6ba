/**
 * The fleet component's cost per interval: reading 100 peers' partials (their /partial bodies, as the peers source
 * hands them on), merging them and deciding (analyzer/fleet/fleet.ts), as one read of every peer does. The peers
 * are 100 shards by object of a week of the simulator's HyperShift fleet (one cluster per peer, both loops observed,
 * seed 42): a partial's size depends on the model and the window, not on the clusters it holds, so small peers over
 * a long window are what a real peer weighs. The baseline is JSON.parse of the same bodies, the least any reading of
 * them costs.
 */
import { Analyzer } from '../analyzer/analyzer.js';
import { DecisionEvidence } from '../analyzer/decisions/evidence.js';
import { DEFAULT_THRESHOLDS } from '../analyzer/decisions/thresholds.js';
import { FleetState } from '../analyzer/fleet/fleet.js';
import { partialOf, RejectionSampler } from '../analyzer/partial/collect.js';
import { encodePartial } from '../analyzer/partial/format.js';
import { objectHash } from '../collector/input/shard.js';
import { World } from '../simulator/world.js';
import { HYPERSHIFT } from './data.js';
import { sideBySide, type BenchResult } from './harness.js';

const PEERS = 100;
const OBJECTS = PEERS;
/** The default interval of sources.peers: the fleet component's whole read of its peers must fit in a small part of it. */
const INTERVAL_SECONDS = 30;
const MAX_SHARE = 0.05;

function peerBodies(): string[] {
  const analyzers = Array.from({ length: PEERS }, () => new Analyzer([HYPERSHIFT]));
  const evidence = analyzers.map((a) => {
    const e = new DecisionEvidence();
    a.listen(e);
    return e;
  });
  for (const r of new World({ model: HYPERSHIFT, objects: OBJECTS, durationMs: 7 * 86_400_000, seed: 42, observe: 'mixed' }).attempts()) {
    analyzers[objectHash(r.controller, r.object) % PEERS]!.attempt(r);
  }
  return analyzers.map((a, i) =>
    JSON.stringify(
      encodePartial(
        partialOf(a, evidence[i], { kind: 'sidecar', name: `peer-${i}`, shards: { count: 1, indices: [0] } }, new RejectionSampler(`peer-${i}`, () => 0)),
      ),
    ),
  );
}

export async function benchFleet(): Promise<BenchResult> {
  const bodies = peerBodies();
  const names = bodies.map((_, i) => `peer-${i}`);
  const round = (): void => {
    const fleet = new FleetState({ keepForMs: 600_000, thresholds: DEFAULT_THRESHOLDS });
    fleet.roster(names, 0);
    bodies.forEach((b, i) => fleet.received(names[i]!, b, 1));
    const view = fleet.view(2);
    if (view.covered.length !== PEERS || !view.decisions) throw new Error('the fleet did not cover every peer');
  };
  const [figure, baseline] = await sideBySide(round, () => bodies.forEach((b) => JSON.parse(b) as unknown), 5);
  return finish(figure, baseline, bodies);
}

function finish(figure: number, baseline: number, bodies: readonly string[]): BenchResult {
  const mib = bodies.reduce((n, b) => n + b.length, 0) / 2 ** 20;
  const max = INTERVAL_SECONDS * MAX_SHARE;
  return {
    name: `fleet: read, merge and decide ${PEERS} peers' partials`,
    unit: 's CPU per interval',
    figure,
    baseline,
    ratio: figure / baseline,
    target: `<= ${max} s (${MAX_SHARE * 100} % of the ${INTERVAL_SECONDS} s interval)`,
    met: figure <= max,
    notes: `${PEERS} partials, ${mib.toFixed(1)} MiB in all (${Math.round((mib * 1024) / PEERS)} KiB each); baseline: JSON.parse of the bodies`,
  };
}
