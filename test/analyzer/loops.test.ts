/** Each rule of the two loops and of the engine's projection, pinned on small models where every outcome is set by hand. */
import { strict as assert } from 'node:assert';
import type { AttemptRecord, OperationRecord } from '../../collector/records.js';
import { compileModel, ERROR, OK, SKIP, STOP, UNKNOWN } from '../../analyzer/compiled-model.js';
import { analyzeAttempt, OutcomeHistory } from '../../analyzer/engine.js';
import { runPhased, runSequential } from '../../analyzer/loops.js';
import { join } from 'node:path';
import { parseModel } from '../../model/load.js';
import { resolveModel } from '../../sidecar/files.js';
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
    assert.deepEqual(
      run.blockedBy.map(([b, g]) => `${cm.groups[b]!.name}->${cm.groups[g]!.name}`),
      ['Core->Collect'],
    );
    assert.deepEqual(
      run.failedGroups.map((g) => cm.groups[g]!.name),
      ['Core'],
    );
  });

  it('collect runs every op of the group and fails it when any failed; non-critical failures never block', () => {
    const run = runPhased(cm, outcomes({ E: ERROR, B: ERROR }));
    assert.equal(ran(run), 'A,B,C,D,E,F,G,New');
    assert.deepEqual(
      run.failedGroups.map((g) => cm.groups[g]!.name),
      ['Early', 'Collect'],
    );
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
    assert.deepEqual(
      example.invertedPairs.map(([a, b]) => `${example.ops[a]}<${example.ops[b]}`),
      ['EnsureBackupSchedule<EnsureStatefulSet', 'EnsureBackupSchedule<EnsureService'],
    );
    assert.equal(compileModel(resolveModel('hypershift-hostedcluster')).invertedPairs.length, 110);
  });
});

/**
 * Per-loop behaviour, one rule per place: Gate goes on in the phased loop for one of its formats; Lookup goes on in
 * the phased loop and then makes Version fail, or, for its `stops` format, makes Gate stop; Parse ends its collect
 * group; Tidy goes on in the sequential loop; Check skips itself after a critical failure.
 */
const effects = compileModel(
  parseModel(`
apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: effects}
spec:
  controller: widget
  operations:
    - name: Fetch
      errors: ["failed to fetch: %w"]
    - name: Lookup
      errors: ["failed to look up: %w", {format: "lookup stops: %w", causes: [{op: Gate, outcome: stop}]}]
      onError: {phased: continue}
      causes: [{op: Version, error: "version unknown"}]
    - name: Gate
      errors: ["invalid: %s", {format: "secret missing: %w", onError: {phased: continue}}]
    - name: Tidy
      errors: ["failed to tidy: %w"]
      onError: {sequential: continue}
    - name: Sync
      errors: ["failed to sync: %w"]
    - name: Version
      errors: ["failed to parse version: %w", {format: "version unknown", only: phased}]
    - name: Check
      only: phased
      errors: ["check failed"]
    - name: Parse
      errors: ["failed to parse: %w"]
      onError: {phased: endGroup}
    - name: Deploy
      errors: ["failed to deploy: %w"]
    - name: Scale
      errors: ["failed to scale: %w"]
    - name: Chained
      errors: ["chained: %w"]
    - name: After
      errors: ["after: %w"]
      onError: {phased: continue}
  phased:
    - op: Fetch
    - op: Lookup
    - op: Gate
    - {group: Tidy, category: nonCritical, ops: [Tidy]}
    - {group: Core, category: critical, ops: [Sync]}
    - {group: Version, category: critical, ops: [Version]}
    - {group: Check, category: critical, skipWhenBlocked: true, ops: [Check]}
    - {group: Deployments, category: nonCritical, blockable: true, mode: collect, ops: [Parse, Deploy, Scale]}
    - {group: Tail, category: nonCritical, mode: chain, ops: [Chained, After]}
`),
);
const at = (name: string): number => effects.opIndex.get(name)!;
function set(outcome: Record<string, number>, variant: Record<string, number> = {}): [Uint8Array, Uint8Array] {
  const o = new Uint8Array(effects.ops.length).fill(OK);
  const v = new Uint8Array(effects.ops.length);
  for (const [name, code] of Object.entries(outcome)) o[at(name)] = code;
  for (const [name, k] of Object.entries(variant)) v[at(name)] = k;
  return [o, v];
}
const ranOf = (run: { ran: Uint8Array }): string => effects.ops.filter((_, i) => run.ran[i] === 1).join(',');
const ALL_PHASED = 'Fetch,Lookup,Gate,Tidy,Sync,Version,Check,Parse,Deploy,Scale,Chained,After';

describe('loop semantics: per-loop effects', () => {
  it('an error the phased loop goes on after: a fail-fast step with `continue` does not end the attempt', () => {
    assert.equal(ranOf(runSequential(effects, ...set({ Lookup: ERROR }))), 'Fetch,Lookup');
    const phased = runPhased(effects, ...set({ Lookup: ERROR }));
    assert.equal(ranOf(phased), ALL_PHASED);
    assert.equal(phased.endedBy, -1);
    assert.deepEqual(phased.failedGroups, [], 'a fail-fast step is in no group');
  });

  it('a format variant: one error of an op ends the attempt, another does not', () => {
    assert.equal(ranOf(runPhased(effects, ...set({ Gate: ERROR }))), 'Fetch,Lookup,Gate', 'variant 0: the op’s own rule');
    assert.equal(ranOf(runPhased(effects, ...set({ Gate: ERROR }, { Gate: 1 }))), ALL_PHASED);
    assert.equal(ranOf(runSequential(effects, ...set({ Gate: ERROR }, { Gate: 1 }))), 'Fetch,Lookup,Gate', 'the variant changes the phased loop only');
    assert.equal(ranOf(runPhased(effects, ...set({ Gate: STOP }, { Gate: 1 }))), 'Fetch,Lookup,Gate', 'a stop is never an error’s effect');
  });

  it('the sequential loop going on after an error (`continue`)', () => {
    assert.equal(ranOf(runSequential(effects, ...set({ Tidy: ERROR }))), 'Fetch,Lookup,Gate,Tidy,Sync,Version,Parse,Deploy,Scale,Chained,After');
  });

  it('`endGroup` in a collect group ends the group, which has failed; the others collect', () => {
    const parse = runPhased(effects, ...set({ Parse: ERROR }));
    assert.equal(ranOf(parse), 'Fetch,Lookup,Gate,Tidy,Sync,Version,Check,Parse,Chained,After');
    assert.deepEqual(
      parse.failedGroups.map((g) => effects.groups[g]!.name),
      ['Deployments'],
    );
    assert.deepEqual([parse.blockerOf(at('Deploy')), parse.blockerOf(at('Scale'))], [at('Parse'), at('Parse')]);
    assert.deepEqual(parse.blocker[at('Scale')], at('Parse'));
    const deploy = runPhased(effects, ...set({ Deploy: ERROR }));
    assert.equal(ranOf(deploy), ALL_PHASED, 'the collect default goes on');
    assert.deepEqual(
      deploy.failedGroups.map((g) => effects.groups[g]!.name),
      ['Deployments'],
    );
  });

  it('`continue` in a chain group goes on with the chain; the default `endGroup` ends it', () => {
    assert.equal(ranOf(runPhased(effects, ...set({ Chained: ERROR }))), 'Fetch,Lookup,Gate,Tidy,Sync,Version,Check,Parse,Deploy,Scale,Chained');
    const after = runPhased(effects, ...set({ After: ERROR }));
    assert.equal(ranOf(after), ALL_PHASED);
    assert.deepEqual(
      after.failedGroups.map((g) => effects.groups[g]!.name),
      ['Tail'],
    );
  });

  it('skipWhenBlocked: after a critical failure the group runs but never fails and is not blocked', () => {
    const run = runPhased(effects, ...set({ Sync: ERROR, Check: ERROR }));
    assert.equal(ranOf(run), 'Fetch,Lookup,Gate,Tidy,Sync,Version,Check,Chained,After');
    assert.deepEqual(
      run.failedGroups.map((g) => effects.groups[g]!.name),
      ['Core'],
    );
    assert.deepEqual(
      run.blockedBy.map(([b, g]) => `${effects.groups[b]!.name}->${effects.groups[g]!.name}`),
      ['Core->Deployments'],
    );
    const alone = runPhased(effects, ...set({ Check: ERROR }));
    assert.deepEqual(
      alone.failedGroups.map((g) => effects.groups[g]!.name),
      ['Check'],
      'unblocked, it fails as a critical group',
    );
    assert.deepEqual(
      alone.blockedBy.map(([b, g]) => `${effects.groups[b]!.name}->${effects.groups[g]!.name}`),
      ['Check->Deployments'],
    );
  });
});

describe('loop semantics: a recovery path', () => {
  // B's error in the sequential loop, and A's in the phased loop, run later ops before the attempt ends
  const recovery = compileModel(
    parseModel(`
apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: recovery}
spec:
  controller: widget
  operations:
    - {name: A, recovery: {phased: [D]}}
    - {name: B, recovery: {sequential: [D, E]}}
    - {name: C}
    - {name: D}
    - {name: E}
  phased:
    - op: A
    - {group: Early, category: critical, mode: chain, ops: [B, C]}
    - {group: Late, category: nonCritical, blockable: true, ops: [D]}
    - {group: Last, category: nonCritical, ops: [E]}
`),
  );
  const codes = (set: Record<string, number>): Uint8Array => {
    const out = new Uint8Array(recovery.ops.length).fill(OK);
    for (const [name, code] of Object.entries(set)) out[recovery.opIndex.get(name)!] = code;
    return out;
  };
  const ranHere = (run: { ran: Uint8Array }): string => recovery.ops.filter((_, i) => run.ran[i] === 1).join(',');
  const blockers = (run: { blocker: readonly number[]; blockerOf(op: number): number }): string[] =>
    recovery.ops.map(
      (name, i) =>
        `${name}:${run.blockerOf(i) === -1 ? '-' : (recovery.ops[run.blockerOf(i)] ?? run.blockerOf(i))}:${run.blocker[i] === -1 ? '-' : (recovery.ops[run.blocker[i]!] ?? run.blocker[i])}`,
    );

  it('an error that ends the attempt runs the recovery ops first; they are run, not blocked, whatever their outcome', () => {
    const seq = runSequential(recovery, codes({ B: ERROR, D: ERROR }));
    assert.equal(ranHere(seq), 'A,B,D,E');
    assert.equal(recovery.ops[seq.endedBy], 'B');
    assert.deepEqual(blockers(seq), ['A:-:-', 'B:-:-', 'C:B:B', 'D:-:-', 'E:-:-']);
    const phased = runPhased(recovery, codes({ A: ERROR }));
    assert.equal(ranHere(phased), 'A,D');
    assert.deepEqual(blockers(phased), ['A:-:-', 'B:A:A', 'C:A:A', 'D:-:-', 'E:A:A']);
  });

  it('a stop, an error in another loop, or a clean run runs no recovery path', () => {
    assert.equal(ranHere(runSequential(recovery, codes({ B: STOP }))), 'A,B');
    assert.equal(ranHere(runSequential(recovery, codes({ A: ERROR }))), 'A', "A's recovery is the phased loop's");
    assert.equal(ranHere(runPhased(recovery, codes({ B: ERROR }))), 'A,B,E', 'in a group, B ends the chain; the blockable D is blocked');
    assert.equal(ranHere(runSequential(recovery, codes({}))), 'A,B,C,D,E');
  });
});

describe('engine: variants, consequences and the history', () => {
  const record = (loop: 'sequential' | 'phased', operations: OperationRecord[], time = '2026-11-29T10:00:00Z'): AttemptRecord => ({
    time,
    timeMs: Date.parse(time),
    controller: 'widget',
    object: 'ns/a',
    loop,
    operations,
    origin: { source: 'journal' },
  });
  const ok = (...names: string[]): OperationRecord[] => names.map((name) => ({ name, outcome: 'ok' }));
  const names = (list: readonly number[]): string[] => list.map((op) => effects.ops[op]!);

  it('reads the variant from the error text, only among the op’s variant formats, and the default without text', () => {
    const history = new OutcomeHistory(effects.ops.length);
    const secret = analyzeAttempt(
      effects,
      record('sequential', [...ok('Fetch', 'Lookup'), { name: 'Gate', outcome: 'error', error: 'secret missing: secrets "s" not found' }]),
      history,
    );
    assert.equal(secret.variants[at('Gate')], 1);
    assert.equal(ranOf(secret.phased), ALL_PHASED, 'the phased projection goes on');
    assert.deepEqual(names(secret.unblocked), ['Chained', 'Deploy', 'Parse', 'Scale', 'Sync', 'Tidy', 'Version', 'After'].sort());
    const invalid = analyzeAttempt(
      effects,
      record('sequential', [...ok('Fetch', 'Lookup'), { name: 'Gate', outcome: 'error', error: 'invalid: bad spec' }]),
      new OutcomeHistory(effects.ops.length),
    );
    assert.equal(invalid.variants[at('Gate')], 0);
    assert.equal(effects.ops[invalid.phased.endedBy], 'Gate');
    const bare = analyzeAttempt(
      effects,
      record('sequential', [...ok('Fetch', 'Lookup'), { name: 'Gate', outcome: 'error' }]),
      new OutcomeHistory(effects.ops.length),
    );
    assert.equal(bare.variants[at('Gate')], 0);
  });

  it('a consequence: a sequential attempt ended by Lookup projects a phased loop that goes on and fails Version', () => {
    const a = analyzeAttempt(
      effects,
      record('sequential', [...ok('Fetch'), { name: 'Lookup', outcome: 'error', error: 'failed to look up: registry down' }]),
      new OutcomeHistory(effects.ops.length),
    );
    assert.deepEqual(names(a.derived), ['Version']);
    assert.equal(a.outcomes[at('Version')], ERROR);
    assert.equal(a.observed[at('Version')], 0, 'derived, never confirmed');
    assert.equal(a.variants[at('Version')], 0, '"version unknown" has no rules of its own');
    assert.deepEqual(
      a.phased.blockedBy.map(([b, g]) => `${effects.groups[b]!.name}->${effects.groups[g]!.name}`),
      ['Version->Deployments'],
    );
    assert.equal(ranOf(a.phased), 'Fetch,Lookup,Gate,Tidy,Sync,Version,Check,Chained,After', 'Check skips itself after Version failed');
  });

  it('a format’s own consequences replace the op’s: a stop derived on the gate', () => {
    const a = analyzeAttempt(
      effects,
      record('sequential', [...ok('Fetch'), { name: 'Lookup', outcome: 'error', error: 'lookup stops: arch unknown' }]),
      new OutcomeHistory(effects.ops.length),
    );
    assert.deepEqual(names(a.derived), ['Gate']);
    assert.equal(a.outcomes[at('Gate')], STOP);
    assert.equal(effects.ops[a.phased.endedBy], 'Gate');
    assert.equal(a.outcomes[at('Version')], OK, 'the op’s own consequence does not apply to this format');
  });

  it('an observed outcome is never overridden by a consequence', () => {
    const a = analyzeAttempt(
      effects,
      record('phased', [
        ...ok('Fetch'),
        { name: 'Lookup', outcome: 'error', error: 'failed to look up: x' },
        ...ok('Gate', 'Tidy', 'Sync', 'Version', 'Check', 'Parse', 'Deploy', 'Scale', 'Chained', 'After'),
      ]),
      new OutcomeHistory(effects.ops.length),
    );
    assert.deepEqual(a.derived, []);
    assert.equal(a.outcomes[at('Version')], OK);
  });

  it('the history keeps the variant: a predicted error keeps its effect; derived outcomes are not remembered', () => {
    const history = new OutcomeHistory(effects.ops.length);
    analyzeAttempt(effects, record('sequential', [...ok('Fetch', 'Lookup'), { name: 'Gate', outcome: 'error', error: 'secret missing: x' }]), history);
    const next = analyzeAttempt(
      effects,
      record('sequential', [{ name: 'Fetch', outcome: 'error', error: 'failed to fetch: x' }], '2026-11-29T10:00:05Z'),
      history,
    );
    assert.equal(next.outcomes[at('Gate')], ERROR);
    assert.equal(next.variants[at('Gate')], 1);
    const history2 = new OutcomeHistory(effects.ops.length);
    analyzeAttempt(effects, record('sequential', [...ok('Fetch'), { name: 'Lookup', outcome: 'error', error: 'failed to look up: x' }]), history2);
    const packed = history2.lookup('widget\u0000ns/a')!;
    assert.equal(packed[at('Lookup')], ERROR, 'observed: outcome ERROR, variant 0');
    assert.equal(packed[at('Version')], UNKNOWN, 'derived Version is not history');
  });
});
