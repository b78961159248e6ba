/**
 * The fleet's view: the last partial summary read from each peer (a sidecar's `/partial`), merged exactly as `merge`
 * merges files and decided as `report` decides. A peer that cannot be read keeps its last partial for `keepForMs`
 * after it was read, and is named as failing meanwhile; past that its evidence leaves the fleet's numbers and the
 * peer is named as missing, never silently dropped. Every view says which peers it covers.
 * Pure: the peers source hands in bodies and failures with their times; the view is computed for a given time and
 * kept until something changes, so a scrape every few seconds does not merge again.
 */
import { decisionReportOf } from '../partial/results.js';
import { decodePartial, type ModelCache, type PartialState } from '../partial/format.js';
import { ValidationError } from '../../lib/validation-error.js';
import { MergeError, mergePartials } from '../partial/merge.js';
import type { DecisionReport } from '../decisions/decide.js';
import type { Rule } from '../decisions/rules/rule.js';
import type { DecisionThresholds } from '../decisions/thresholds.js';
import { PEER_FAILURES, type PartialSink, type PeerFailure } from '../../collector/peers/sink.js';

/**
 * A peer's state in a view:
 * - `read`: its last fetch succeeded and its partial is in the fleet's numbers;
 * - `failing`: its last fetch failed, its last partial (younger than keepFor) is still counted;
 * - `missing`: no partial of it is counted (never read, or its last one is older than keepFor).
 */
export type PeerState = 'read' | 'failing' | 'missing';
export const PEER_STATES: readonly PeerState[] = ['read', 'failing', 'missing'];

export interface PeerView {
  readonly peer: string;
  readonly state: PeerState;
  /** When its partial in hand was read (epoch ms), if any. */
  readonly readAtMs: number | undefined;
  readonly failure: { readonly reason: PeerFailure; readonly message: string; readonly atMs: number } | undefined;
}

export interface FleetView {
  readonly atMs: number;
  readonly peers: readonly PeerView[];
  /** The peers whose partials the decisions rest on, sorted. */
  readonly covered: readonly string[];
  /** Undefined while no peer's partial is in hand. */
  readonly decisions: DecisionReport | undefined;
  readonly merged: PartialState | undefined;
}

export interface FleetOptions {
  /** How long a peer's last partial counts after it was read, while it cannot be read again. */
  readonly keepForMs: number;
  readonly thresholds: DecisionThresholds;
  /** The decision rules peers' partials are read and decided with (RULES by default; a test plants one). */
  readonly rules?: readonly Rule[];
}

/** Distinct models kept compiled; more (a fleet of many operator builds) are compiled again as they come. */
const MAX_MODELS = 16;

interface Peer {
  partial: PartialState | undefined;
  readAtMs: number | undefined;
  failure: PeerView['failure'];
}

export class FleetState implements PartialSink {
  private readonly peers = new Map<string, Peer>();
  private cached: FleetView | undefined;
  /** Every peer sends the same model (or a few, mid-upgrade): compiled once, not at every read. */
  private readonly models: ModelCache = new Map();
  /** Failures by reason since start, for the counter. */
  readonly failures = new Map<PeerFailure, number>(PEER_FAILURES.map((r) => [r, 0]));

  constructor(private readonly options: FleetOptions) {}

  roster(peers: readonly string[], _atMs: number): void {
    const wanted = new Set(peers);
    for (const name of [...this.peers.keys()]) if (!wanted.has(name)) this.peers.delete(name);
    for (const name of peers) if (!this.peers.has(name)) this.peers.set(name, { partial: undefined, readAtMs: undefined, failure: undefined });
    this.cached = undefined;
  }

  received(peer: string, body: string, atMs: number): void {
    let partial: PartialState;
    try {
      if (this.models.size > MAX_MODELS) this.models.clear();
      partial = decodePartial(body, peer, this.models, this.options.rules);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      this.failed(peer, 'invalid_partial', e.message, atMs);
      return;
    }
    this.peers.set(peer, { partial, readAtMs: atMs, failure: undefined });
    this.cached = undefined;
  }

  failed(peer: string, reason: PeerFailure, message: string, atMs: number): void {
    const p = this.peers.get(peer) ?? { partial: undefined, readAtMs: undefined, failure: undefined };
    p.failure = { reason, message, atMs };
    this.peers.set(peer, p);
    this.failures.set(reason, (this.failures.get(reason) ?? 0) + 1);
    this.cached = undefined;
  }

  /** The fleet at `nowMs`: each peer's state, and the decisions over the partials that count. */
  view(nowMs: number): FleetView {
    const expired = [...this.peers.values()].some((p) => p.readAtMs !== undefined && nowMs - p.readAtMs > this.options.keepForMs);
    if (this.cached && !expired && this.cached.atMs <= nowMs) return this.cached;
    for (const p of this.peers.values()) {
      if (p.readAtMs !== undefined && nowMs - p.readAtMs > this.options.keepForMs) {
        p.partial = undefined;
        p.readAtMs = undefined;
      }
    }
    const names = [...this.peers.keys()].sort();
    let merged: PartialState | undefined;
    const covered: string[] = [];
    for (const name of names) {
      const p = this.peers.get(name)!;
      if (!p.partial) continue;
      try {
        merged = merged ? mergePartials(merged, p.partial) : p.partial;
        covered.push(name);
      } catch (e) {
        if (!(e instanceof MergeError)) throw e;
        // Not counted again for a peer already named so: the failure stands until it is read anew.
        if (p.failure?.reason !== 'not_mergeable') this.failed(name, 'not_mergeable', `${name}: ${e.message}`, nowMs);
        p.partial = undefined;
        p.readAtMs = undefined;
      }
    }
    const peers: PeerView[] = names.map((name) => {
      const p = this.peers.get(name)!;
      const state: PeerState = !p.partial ? 'missing' : p.failure && p.failure.atMs >= (p.readAtMs ?? 0) ? 'failing' : 'read';
      return { peer: name, state, readAtMs: p.readAtMs, failure: p.failure };
    });
    const decisions = merged && merged.controllers.every((c) => c.evidence) ? decisionReportOf(merged, this.options.thresholds, this.options.rules) : undefined;
    this.cached = { atMs: nowMs, peers, covered, decisions, merged };
    return this.cached;
  }
}
