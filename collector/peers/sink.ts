/**
 * What the peers source hands on: each round's roster of peers, each peer's `/partial` body as read, and each failure
 * to read one under a bounded reason. The fleet (analyzer/fleet/) decodes, keeps and merges them.
 */

/** Why a peer's partial is not in hand (reconcile_shadow_fleet_peer_failures_total{reason}). */
export const PEER_FAILURES = [
  'timeout',
  'connection',
  'http_status',
  'unauthorized',
  'body_too_large',
  'invalid_partial',
  'not_mergeable',
  'discovery',
] as const;
export type PeerFailure = (typeof PEER_FAILURES)[number];

export interface PartialSink {
  /** The peers of this round (static and discovered): one that leaves the roster leaves the fleet. */
  roster(peers: readonly string[], atMs: number): void;
  received(peer: string, body: string, atMs: number): void;
  failed(peer: string, reason: PeerFailure, message: string, atMs: number): void;
}
