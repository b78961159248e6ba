/**
 * The fleet's view of its peers' partials (analyzer/fleet/fleet.ts): decided as merge decides, the peers it covers
 * named, a failing peer's last partial kept for keepFor and then left out as missing, an unreadable or unmergeable
 * partial refused under its reason, and a peer that leaves the roster leaving the fleet.
 */
import { strict as assert } from 'node:assert';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionsJson } from '../../../analyzer/decisions/json.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { FleetState } from '../../../analyzer/fleet/fleet.js';
import { partialOf, RejectionSampler } from '../../../analyzer/partial/collect.js';
import { encodePartial, type PartialState } from '../../../analyzer/partial/format.js';
import { mergePartials } from '../../../analyzer/partial/merge.js';
import { decisionReportOf } from '../../../analyzer/partial/results.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { parseModel } from '../../../model/load.js';
import { modelDocument } from '../../../model/document.js';
import type { ReconcileModel } from '../../../model/types.js';
import { SMALL, SMALL_REVERSED, smallWorld } from '../decisions/planted-models.js';
import { plantedWorld } from '../decisions/planted-world.js';

const KEEP_FOR_MS = 60_000;
const records = [...plantedWorld(smallWorld(12, SMALL_REVERSED))];

/** One sidecar's partial: the records `keep` selects, as the sidecar `name` would serve them. */
function partialOfPeer(name: string, keep: (r: AttemptRecord) => boolean, model: ReconcileModel = SMALL): PartialState {
  const analyzer = new Analyzer([model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  const sampler = new RejectionSampler(name, () => 0);
  for (const r of records) if (keep(r)) analyzer.attempt(r);
  return partialOf(analyzer, evidence, { kind: 'sidecar', name, shards: { count: 1, indices: [0] } }, sampler);
}

const body = (p: PartialState): string => JSON.stringify(encodePartial(p));
const A = partialOfPeer('a', (r) => r.loop === 'sequential');
const B = partialOfPeer('b', (r) => r.loop === 'phased');

function fleetOf(): FleetState {
  const fleet = new FleetState({ keepForMs: KEEP_FOR_MS, thresholds: DEFAULT_THRESHOLDS });
  fleet.roster(['a', 'b'], 0);
  return fleet;
}

describe('the fleet: its peers’ partials, merged and decided', () => {
  it('decides exactly as merge does over the partials it holds, and covers both peers', () => {
    const fleet = fleetOf();
    fleet.received('a', body(A), 1000);
    fleet.received('b', body(B), 1000);
    const view = fleet.view(2000);
    assert.deepEqual(view.covered, ['a', 'b']);
    assert.deepEqual(
      view.peers.map((p) => [p.peer, p.state]),
      [
        ['a', 'read'],
        ['b', 'read'],
      ],
    );
    assert.deepEqual(decisionsJson(view.decisions!), decisionsJson(decisionReportOf(mergePartials(A, B), DEFAULT_THRESHOLDS)));
    assert.equal(view.decisions!.controllers[0]!.verdict.status, 'not-ready');
  });

  it('keeps a failing peer’s last partial for keepFor, then names it missing and decides without it', () => {
    const fleet = fleetOf();
    fleet.received('a', body(A), 1000);
    fleet.received('b', body(B), 1000);
    fleet.failed('b', 'timeout', 'b: no answer within 5000 ms', 31_000);
    const failing = fleet.view(31_000);
    assert.deepEqual(failing.covered, ['a', 'b']);
    assert.equal(failing.peers[1]!.state, 'failing');
    assert.equal(failing.peers[1]!.failure?.reason, 'timeout');
    fleet.received('a', body(A), 40_000);
    const past = fleet.view(1000 + KEEP_FOR_MS + 1);
    assert.deepEqual(past.covered, ['a']);
    assert.deepEqual(
      past.peers.map((p) => [p.peer, p.state, p.readAtMs]),
      [
        ['a', 'read', 40_000],
        ['b', 'missing', undefined],
      ],
    );
    assert.deepEqual(decisionsJson(past.decisions!), decisionsJson(decisionReportOf(A, DEFAULT_THRESHOLDS)));
    assert.equal(fleet.view(40_000 + KEEP_FOR_MS + 1).decisions, undefined);
    assert.equal(fleet.failures.get('timeout'), 1);
  });

  it('reads a peer anew after it failed: read again, its failure cleared', () => {
    const fleet = fleetOf();
    fleet.failed('a', 'connection', 'a: connect ECONNREFUSED', 500);
    assert.equal(fleet.view(600).peers[0]!.state, 'missing');
    fleet.received('a', body(A), 1000);
    const view = fleet.view(1000);
    assert.deepEqual([view.peers[0]!.state, view.peers[0]!.failure], ['read', undefined]);
  });

  it('refuses a body that is not a partial, naming the peer and the field, and keeps the last good one', () => {
    const fleet = fleetOf();
    fleet.received('a', body(A), 1000);
    fleet.received('a', '{"schema":"reconcile-shadow/partial/v0"}', 2000);
    const view = fleet.view(2000);
    assert.equal(view.peers[0]!.state, 'failing');
    assert.equal(view.peers[0]!.failure?.reason, 'invalid_partial');
    assert.equal(
      view.peers[0]!.failure.message,
      'a:1 schema: expected "reconcile-shadow/partial/v1", got "reconcile-shadow/partial/v0" (a summary of analyze --format json cannot be merged; make partials with --format partial)',
    );
    assert.deepEqual(view.covered, ['a']);
    assert.equal(fleet.failures.get('invalid_partial'), 1);
  });

  it('leaves out, once named, a peer whose partial cannot be merged (another model)', () => {
    const other = parseModel(JSON.stringify({ ...modelDocument(SMALL), metadata: { name: 'planted-other' } }));
    const fleet = fleetOf();
    fleet.received('a', body(A), 1000);
    fleet.received('b', body(partialOfPeer('b', (r) => r.loop === 'phased', other)), 1000);
    const view = fleet.view(1000);
    assert.deepEqual(view.covered, ['a']);
    assert.deepEqual([view.peers[1]!.state, view.peers[1]!.failure?.reason], ['missing', 'not_mergeable']);
    fleet.view(2000);
    assert.equal(fleet.failures.get('not_mergeable'), 1);
  });

  it('forgets a peer that leaves the roster', () => {
    const fleet = fleetOf();
    fleet.received('a', body(A), 1000);
    fleet.received('b', body(B), 1000);
    fleet.roster(['a'], 2000);
    const view = fleet.view(2000);
    assert.deepEqual(
      view.peers.map((p) => p.peer),
      ['a'],
    );
    assert.deepEqual(view.covered, ['a']);
  });
});
