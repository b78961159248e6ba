/** Each rule of the two loops, pinned on a small model where every outcome is set by hand. */
import { strict as assert } from 'node:assert';
import { compileModel, ERROR, OK, SKIP, STOP } from '../../analyzer/compiled-model.js';
import { runPhased, runSequential } from '../../analyzer/loops.js';
import { join } from 'node:path';
import { parseModel, resolveModel } from '../../model/load.js';
import { REPO } from '../support/paths.js';

const cm = compileModel(
  parseModel(`
apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: rules}
spec:
  controller: widget
  operations: [{name: A}, {name: B}, {name: C}, {name: D}, {name: E}, {name: F}, {name: G}, {name: Old, only: sequential}, {name: New, only: phased}]
  phased:
    - op: A
    - group: Early
      category: nonCritical
      blockable: true
      mode: chain
      ops: [B]
    - group: Core
      category: critical
      mode: chain
      ops: [C, D]
    - group: Collect
      category: nonCritical
      blockable: true
      mode: collect
      ops: [E, F]
    - group: Tail
      category: critical
      ops: [G, New]
`),
);

function outcomes(set: Record<string, number>): Uint8Array {
  const out = new Uint8Array(cm.ops.length).fill(OK);
  for (const [name, code] of Object.entries(set)) out[cm.opIndex.get(name)!] = code;
  return out;
}
const ran = (run: { ran: Uint8Array }): string => cm.ops.filter((_, i) => run.ran[i] === 1).join(',');

describe('loop semantics', () => {
  it('sequential: runs in spec.operations order, skips phased-only ops, ends at the first error or stop', () => {
    assert.equal(ran(runSequential(cm, outcomes({}))), 'A,B,C,D,E,F,G,Old');
    assert.equal(ran(runSequential(cm, outcomes({ C: ERROR }))), 'A,B,C');
    assert.equal(ran(runSequential(cm, outcomes({ B: STOP }))), 'A,B');
    assert.equal(ran(runSequential(cm, outcomes({ B: SKIP }))), 'A,B,C,D,E,F,G,Old', 'skip does not end the loop');
  });

  it('phased: a fail-fast step’s error or stop ends the attempt', () => {
    assert.equal(ran(runPhased(cm, outcomes({ A: ERROR }))), 'A');
    assert.equal(ran(runPhased(cm, outcomes({ A: STOP }))), 'A');
  });

  it('chain ends the group at its first failing op; a critical failure blocks later blockable groups only', () => {
    const run = runPhased(cm, outcomes({ C: ERROR }));
    assert.equal(ran(run), 'A,B,C,G,New', 'D ends with the chain, Collect is blocked, Early ran before the failure');
    assert.deepEqual(run.blockedBy.map(([b, g]) => `${cm.groups[b]!.name}->${cm.groups[g]!.name}`), ['Core->Collect']);
    assert.deepEqual(run.failedGroups.map((g) => cm.groups[g]!.name), ['Core']);
  });

  it('collect runs every op of the group and fails it when any failed; non-critical failures never block', () => {
    const run = runPhased(cm, outcomes({ E: ERROR, B: ERROR }));
    assert.equal(ran(run), 'A,B,C,D,E,F,G,New');
    assert.deepEqual(run.failedGroups.map((g) => cm.groups[g]!.name), ['Early', 'Collect']);
    assert.deepEqual(run.blockedBy, []);
  });

  it('a stop inside a chain group ends the chain without failing the group', () => {
    const run = runPhased(cm, outcomes({ C: STOP }));
    assert.equal(ran(run), 'A,B,C,E,F,G,New');
    assert.deepEqual(run.failedGroups, []);
  });

  it('a critical failure after a blockable group does not reach back: it was checked when the group was reached', () => {
    const run = runPhased(cm, outcomes({ G: ERROR }));
    assert.equal(ran(run), 'A,B,C,D,E,F,G');
    assert.deepEqual(run.blockedBy, []);
  });

  it('finds the pairs the two loops order differently', () => {
    const example = compileModel(resolveModel(join(REPO, 'examples/database-operator/model.yaml')));
    assert.deepEqual(example.invertedPairs.map(([a, b]) => `${example.ops[a]}<${example.ops[b]}`), ['EnsureBackupSchedule<EnsureStatefulSet', 'EnsureBackupSchedule<EnsureService']);
    assert.equal(compileModel(resolveModel('hypershift-hostedcluster')).invertedPairs.length, 110);
  });
});
