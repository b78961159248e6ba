/**
 * The fleet verdict end to end (test/support/fleet-world.ts): three sidecars serve their /partial, and a fourth runs
 * `sources.peers`, discovers them as the running pods of a label selector and decides across them. Its /report must equal the
 * merge of the three partials, as `merge` computes it, apart from the `fleet` section; killing one sidecar must name
 * it missing once its partial is past keepFor, and the verdict must then cover two peers.
 */
import { strict as assert } from 'node:assert';
import { decodePartial } from '../../analyzer/partial/format.js';
import { mergePartials } from '../../analyzer/partial/merge.js';
import { decisionReportOf } from '../../analyzer/partial/results.js';
import { DEFAULT_THRESHOLDS } from '../../analyzer/decisions/thresholds.js';
import { renderDecisions } from '../../outputs/review/render.js';
import type { Sidecar } from '../../sidecar/sidecar.js';
import { FLEET_NAMESPACE as NAMESPACE, FLEET_PEERS as PEERS, startFleetWorld, type FleetWorld } from '../support/fleet-world.js';
import { valueOf } from '../support/prometheus-text.js';
import { scrape, untilScraped } from '../support/sidecar-metrics.js';

async function get(url: string): Promise<string> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `GET ${url}`);
  return res.text();
}

describe('the fleet verdict: sidecars serve /partial, a fleet component merges and decides', function () {
  this.timeout(60_000);
  let world: FleetWorld | undefined;
  let fleet: Sidecar | undefined;
  let port: number;

  before(async () => {
    world = await startFleetWorld({ keepFor: '2s', interval: '1s' });
    fleet = world.fleet;
    port = world.port;
  });

  after(async () => {
    await world?.close();
  });

  it('says not-ready, naming Report, from the first round of reads', async () => {
    const samples = await scrape(fleet!);
    assert.equal(valueOf(samples, 'reconcile_shadow_verdict', { controller: 'gadget', verdict: 'not-ready' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_verdict', { controller: 'gadget', verdict: 'ready' }), 0);
    assert.equal(valueOf(samples, 'reconcile_shadow_verdict_reasons', { controller: 'gadget', kind: 'worse-under-phased' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_loop_comparison', { operation: 'Report', finding: 'worse-under-phased' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_fleet_peers', { state: 'read' }), 3);
    for (const p of PEERS) assert.equal(valueOf(samples, 'reconcile_shadow_fleet_peer_up', { peer: `${NAMESPACE}/${p.pod}` }), 1);
    const phased = valueOf(samples, 'reconcile_shadow_loop_failure_ratio', { operation: 'Report', loop: 'phased' });
    const sequential = valueOf(samples, 'reconcile_shadow_loop_failure_ratio', { operation: 'Report', loop: 'sequential' });
    assert.ok(phased > sequential, `Report fails at ${phased} phased vs ${sequential} sequential`);
  });

  it('serves on /report the decisions merge computes from the three partials, and names the peers it covers', async () => {
    const partials = await Promise.all(PEERS.map(async (p) => decodePartial(await get(`http://${p.host}:${port}/partial`), p.pod)));
    const merged = partials.reduce((a, b) => mergePartials(a, b));
    const expected = await renderDecisions(decisionReportOf(merged, DEFAULT_THRESHOLDS), 'json');
    const served = JSON.parse(await get(`http://127.0.0.1:${fleet!.metricsAddress.port}/report`)) as Record<string, unknown>;
    const fleetSection = served.fleet as { covered: string[]; peers: { peer: string; state: string }[] };
    delete served.fleet;
    assert.equal(JSON.stringify(served, null, 2) + '\n', expected);
    assert.deepEqual(
      fleetSection.covered,
      PEERS.map((p) => `${NAMESPACE}/${p.pod}`),
    );
    const markdown = await get(`http://127.0.0.1:${fleet!.metricsAddress.port}/report?format=markdown`);
    assert.ok(
      markdown.includes("The fleet's verdict covers 3 of 3 peers: hypershift/operator-a, hypershift/operator-b, hypershift/operator-c."),
      markdown.slice(0, 400),
    );
  });

  it('names a killed sidecar failing, then missing past keepFor, and the verdict then covers two peers', async () => {
    await world!.stopPeer();
    const killed = `${NAMESPACE}/operator-c`;
    await untilScraped('the killed peer to be missing', fleet!, (s) => valueOf(s, 'reconcile_shadow_fleet_peer_up', { peer: killed }) === 0, {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    const samples = await scrape(fleet!);
    assert.equal(valueOf(samples, 'reconcile_shadow_fleet_peers', { state: 'missing' }), 1);
    assert.equal(valueOf(samples, 'reconcile_shadow_fleet_peers', { state: 'read' }), 2);
    assert.ok(valueOf(samples, 'reconcile_shadow_fleet_peer_failures_total', { reason: 'connection' }) >= 1);
    // Only sequential evidence is left: nothing to compare the phased loop with.
    assert.equal(valueOf(samples, 'reconcile_shadow_verdict', { controller: 'gadget', verdict: 'inconclusive' }), 1);
    const served = JSON.parse(await get(`http://127.0.0.1:${fleet!.metricsAddress.port}/report`)) as {
      fleet: { covered: string[]; peers: { peer: string; state: string; failure: { reason: string } | null }[] };
    };
    assert.deepEqual(served.fleet.covered, [`${NAMESPACE}/operator-a`, `${NAMESPACE}/operator-b`]);
    const gone = served.fleet.peers.find((p) => p.peer === killed)!;
    assert.equal(gone.state, 'missing');
    assert.equal(gone.failure?.reason, 'connection');
  });
});
