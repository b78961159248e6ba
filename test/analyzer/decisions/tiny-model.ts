/**
 * A five-op model for the decision unit tests, and attempts written by hand in a compact notation, so every count a
 * test expects can be worked out on paper.
 *
 *   sequential: Fetch, A, B, D, C
 *   phased:     Fetch, [Second: B], [First: A], [Core (critical): C], [Tail (blockable): D]
 *   reordered:  A/B (phased runs B first) and D/C (phased runs C first; a Core failure blocks D)
 */
import type { AttemptRecord, OperationRecord } from '../../../collector/records.js';
import { parseModel } from '../../../model/load.js';
import type { LoopKind } from '../../../model/types.js';

export const TINY = parseModel(`
apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: tiny}
spec:
  controller: widget
  operations: [{name: Fetch}, {name: A}, {name: B}, {name: D}, {name: C}]
  phased:
    - op: Fetch
    - {group: Second, category: nonCritical, ops: [B]}
    - {group: First, category: nonCritical, ops: [A]}
    - {group: Core, category: critical, ops: [C]}
    - {group: Tail, category: nonCritical, blockable: true, ops: [D]}
`);

let clock = Date.parse('2026-11-29T00:00:00Z');

/**
 * An attempt from `ops`, the operations as they ran: `A` ok, `A!` error, `A~` skip, in the order given.
 * Each call is 10 s after the previous one.
 */
export function attempt(loop: LoopKind, object: string, ops: string, generation = 1): AttemptRecord {
  clock += 10_000;
  const operations: OperationRecord[] = ops.split(/\s+/).map((token) => {
    const name = token.replace(/[!~]$/, '');
    if (token.endsWith('!')) return { name, outcome: 'error', error: `${name} failed` };
    return { name, outcome: token.endsWith('~') ? 'skip' : 'ok' };
  });
  return {
    time: new Date(clock).toISOString(),
    timeMs: clock,
    controller: 'widget',
    object: `ns/${object}`,
    generation,
    loop,
    operations,
    origin: { source: 'journal' },
  };
}

export const PHASED_OK = 'Fetch B A C D';
export const SEQUENTIAL_OK = 'Fetch A B D C';
