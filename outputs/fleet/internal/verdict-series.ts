/**
 * The fleet's view as series (catalog: reconcile_shadow_verdict, _verdict_reasons, _verdict_rule_passed,
 * _loop_comparison, _loop_comparison_e_value, _loop_failure_ratio, _fleet_peers, _fleet_peer_up, _fleet_peer_failures_total), set before each scrape. The
 * decision series are rewritten whole each time, so a finding or a reason kind the verdict no longer gives leaves
 * no stale 1 behind; a peer that leaves the roster leaves its series.
 */
import { LOOP_KINDS } from '../../../model/types.js';
import type { FleetView } from '../../../analyzer/fleet/fleet.js';
import { PEER_STATES } from '../../../analyzer/fleet/fleet.js';
import type { VerdictStatus } from '../../../analyzer/decisions/verdict.js';
import type { LoopFinding } from '../../../analyzer/decisions/loop-comparison.js';
import { PEER_FAILURES, type PeerFailure } from '../../../collector/peers/sink.js';
import type { Metrics } from '../../metrics/registry.js';

const VERDICTS: readonly VerdictStatus[] = ['ready', 'not-ready', 'inconclusive'];
const FINDINGS: readonly LoopFinding[] = ['worse-under-phased', 'better-under-phased', 'same', 'inconclusive'];

/** `published`: the failures the counter already carries, by reason (the caller's, one per registry). */
export function publishFleet(m: Metrics, view: FleetView, failures: ReadonlyMap<PeerFailure, number>, published: Map<PeerFailure, number>): void {
  m.reconcile_shadow_verdict.reset();
  m.reconcile_shadow_verdict_reasons.reset();
  m.reconcile_shadow_loop_comparison.reset();
  m.reconcile_shadow_loop_failure_ratio.reset();
  m.reconcile_shadow_verdict_rule_passed.reset();
  m.reconcile_shadow_loop_comparison_e_value.reset();
  for (const c of view.decisions?.controllers ?? []) {
    const controller = c.controller;
    for (const verdict of VERDICTS) m.reconcile_shadow_verdict.set({ controller, verdict }, c.verdict.status === verdict ? 1 : 0);
    const kinds = new Map<string, number>();
    for (const r of c.verdict.reasons) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
    for (const [kind, n] of kinds) m.reconcile_shadow_verdict_reasons.set({ controller, kind }, n);
    for (const r of c.verdict.rules) m.reconcile_shadow_verdict_rule_passed.set({ controller, rule: r.rule, role: r.role }, r.status === 'pass' ? 1 : 0);
    for (const o of c.comparison.operations) {
      for (const finding of FINDINGS) m.reconcile_shadow_loop_comparison.set({ controller, operation: o.operation, finding }, o.finding === finding ? 1 : 0);
      if (o.e !== null) m.reconcile_shadow_loop_comparison_e_value.set({ controller, operation: o.operation }, o.e);
      for (const loop of LOOP_KINDS) {
        const rate = o[loop].rate;
        if (rate !== null) m.reconcile_shadow_loop_failure_ratio.set({ controller, operation: o.operation, loop }, rate);
      }
    }
  }
  m.reconcile_shadow_fleet_peers.reset();
  for (const state of PEER_STATES) m.reconcile_shadow_fleet_peers.set({ state }, view.peers.filter((p) => p.state === state).length);
  m.reconcile_shadow_fleet_peer_up.reset();
  for (const p of view.peers) m.reconcile_shadow_fleet_peer_up.set({ peer: p.peer }, p.state === 'missing' ? 0 : 1);
  for (const reason of PEER_FAILURES) {
    // A counter only grows: it is given what failed since the last scrape.
    const total = failures.get(reason) ?? 0;
    m.reconcile_shadow_fleet_peer_failures_total.inc({ reason }, total - (published.get(reason) ?? 0));
    published.set(reason, total);
  }
}
