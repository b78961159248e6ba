/**
 * The shared projections (loop-projection.ts) and the summary's counts per projection are shortcuts: both loops run afresh
 * on every attempt, and a summary folded after every attempt, must give exactly what they give.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { compileModel, ERROR, OK, SKIP, STOP, type CompiledModel } from '../../analyzer/compiled-model.js';
import { runPhased, runSequential, type LoopRun } from '../../analyzer/loops.js';
import { loopProjectionOf, type LoopProjection } from '../../analyzer/loop-projection.js';
import { ControllerSummaryBuilder } from '../../analyzer/summary/summary.js';
import { ControllerAnalyzer } from '../../analyzer/controller-analyzer.js';
import { resolveModel } from '../../sidecar/files.js';
import { World } from '../../simulator/world.js';
import { FUZZ_RUNS } from '../fuzz/runs.js';
import { BUILTIN_MODEL } from '../support/paths.js';

const model = resolveModel(BUILTIN_MODEL);
const cm = compileModel(model);
const n = cm.ops.length;

/** What a run is, as plain values. */
const runOf = (run: LoopRun): unknown => ({
  ran: [...run.ran],
  endedBy: run.endedBy,
  failedGroups: run.failedGroups,
  blockedBy: run.blockedBy,
  blocker: run.blocker,
});

/** Both loops run afresh and compared, as the engine did before projections were shared. */
function afresh(c: CompiledModel, outcomes: Uint8Array, variants: Uint8Array): unknown {
  const sequential = runSequential(c, outcomes, variants);
  const phased = runPhased(c, outcomes, variants);
  const only = (inPhased: number, notIn: LoopRun, inRun: LoopRun): number[] =>
    c.byName.filter((op) => inRun.ran[op] === 1 && notIn.ran[op] === 0 && c.oneLoopOnly[op] === inPhased);
  const unblocked = only(0, sequential, phased);
  const newlyBlocked = only(0, phased, sequential);
  const structural = c.byName.filter((op) => c.oneLoopOnly[op] === 1 && sequential.ran[op] !== phased.ran[op]);
  const reordered = c.invertedPairs.flatMap(([a, b], i) => ([a, b].every((op) => sequential.ran[op] === 1 && phased.ran[op] === 1) ? [i] : []));
  return {
    sequential: runOf(sequential),
    phased: runOf(phased),
    unblocked,
    newlyBlocked,
    structural,
    diverged: unblocked.length + newlyBlocked.length > 0,
    reordered,
  };
}

const plain = (p: LoopProjection): unknown => ({
  ...p,
  sequential: runOf(p.sequential),
  phased: runOf(p.phased),
  unblocked: [...p.unblocked],
  newlyBlocked: [...p.newlyBlocked],
  structural: [...p.structural],
  reordered: [...p.reordered],
});

/** Mostly ok, some errors (with any variant the model has), stops and skips. */
const attemptInput = fc.tuple(
  fc.array(fc.constantFrom(OK, OK, OK, OK, OK, OK, SKIP, ERROR, STOP), { minLength: n, maxLength: n }),
  fc.array(fc.integer({ min: 0, max: cm.variantStride - 1 }), { minLength: n, maxLength: n }),
);

describe('shared projections', () => {
  it('equal both loops run afresh, for any outcomes and variants', () =>
    fc.assert(
      fc.property(attemptInput, ([outcomes, variants]) => {
        const o = Uint8Array.from(outcomes);
        const v = Uint8Array.from(variants);
        assert.deepEqual(plain(loopProjectionOf(cm, o, v)), afresh(cm, o, v));
      }),
      { numRuns: FUZZ_RUNS },
    ));

  it('stay right past the most the table keeps (it starts afresh), and are shared by attempts that fail alike', () => {
    // every pair of failing ops, the second an error or a stop: 4,830 distinct failure sets, then the first 100 again
    const inputs: Uint8Array[] = [];
    for (let a = 0; a < n; a++)
      for (let b = a + 1; b < n; b++)
        for (const second of [ERROR, STOP]) {
          const o = new Uint8Array(n);
          o[a] = ERROR;
          o[b] = second;
          inputs.push(o);
        }
    assert.ok(inputs.length > 4096);
    const zero = new Uint8Array(n);
    for (const o of [...inputs, ...inputs.slice(0, 100)])
      assert.deepEqual(plain(loopProjectionOf(cm, o, zero)), afresh(cm, o, zero), `failures ${[...o.keys()].filter((k) => o[k] !== 0).join(',')}`);
    // the same failing op under each of its variants: the variant is part of what the projection is shared by
    for (let op = 0; op < n; op++)
      for (let variant = 0; variant < cm.variantStride; variant++) {
        const o = new Uint8Array(n);
        o[op] = ERROR;
        const v = new Uint8Array(n);
        v[op] = variant;
        assert.deepEqual(plain(loopProjectionOf(cm, o, v)), afresh(cm, o, v), `${cm.ops[op]} variant ${variant}`);
      }
    const healthy = loopProjectionOf(cm, zero, zero);
    assert.equal(
      loopProjectionOf(
        cm,
        Uint8Array.from(zero, (_, i) => (i % 2 ? SKIP : OK)),
        zero,
      ),
      healthy,
      'skip runs on as ok does',
    );
  });
});

describe('summary counts per projection', () => {
  it('give the summary a builder gets by folding after every attempt', () => {
    const shadow = new ControllerAnalyzer(model);
    const once = new ControllerSummaryBuilder(shadow.cm, shadow.starvation, () => shadow.trackedObjects);
    const always = new ControllerSummaryBuilder(shadow.cm, shadow.starvation, () => shadow.trackedObjects);
    for (const record of new World({ model, objects: 12, durationMs: 3 * 3600_000, seed: 99, observe: 'mixed' }).attempts()) {
      const analysis = shadow.analyze(record);
      once.add(analysis);
      always.add(analysis);
      always.build();
    }
    assert.deepEqual(once.build(), always.build());
    assert.ok(once.build().attempts.diverged > 0, 'the world diverges');
  });
});
