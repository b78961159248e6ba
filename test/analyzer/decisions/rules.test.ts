/**
 * The rules of the verdict (analyzer/decisions/rules.ts), each on evidence written by hand or on a few attempts of the
 * tiny model, so every figure can be worked out on paper: the checks (sample ratio, population balance) come first
 * and demote harm to an early sign; coverage holds back ready but never demotes harm; starvation and credited work
 * count only where withheld work writes.
 */
import { strict as assert } from 'node:assert';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { compileModel } from '../../../analyzer/compiled-model.js';
import { emptyCounters, type ControllerCounters } from '../../../analyzer/decisions/counters.js';
import { logMixture, logLikelihood } from '../../../analyzer/decisions/e-values.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { compareLoops, identicalOps } from '../../../analyzer/decisions/loop-comparison.js';
import { decideOrdering } from '../../../analyzer/decisions/ordering.js';
import { RULES } from '../../../analyzer/decisions/rules.js';
import { COVERAGE } from '../../../analyzer/decisions/rules/coverage.js';
import { POPULATION_BALANCE } from '../../../analyzer/decisions/rules/population-balance.js';
import type { RuleContext } from '../../../analyzer/decisions/rules/rule.js';
import { logAttemptRatioE, SAMPLE_RATIO } from '../../../analyzer/decisions/rules/sample-ratio.js';
import { compareStarvation } from '../../../analyzer/decisions/starvation-comparison.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { decideVerdict } from '../../../analyzer/decisions/verdict.js';
import type { ControllerSummary } from '../../../analyzer/summary/types.js';
import { parseModel } from '../../../model/load.js';
import { SMALL, smallWorld } from './planted-models.js';
import { plantedWorld, Xorshift } from './planted-world.js';
import { decisionReport } from '../../../analyzer/decisions/decide.js';
import { attempt, TINY } from './tiny-model.js';

const CM = compileModel(TINY);
const DAY = 86_400_000;

function context(counters: ControllerCounters): RuleContext {
  return {
    cm: CM,
    counters,
    summary: {} as ControllerSummary,
    thresholds: DEFAULT_THRESHOLDS,
    comparison: compareLoops(CM, counters, DEFAULT_THRESHOLDS),
    ordering: decideOrdering(CM, counters, DEFAULT_THRESHOLDS),
    starvation: compareStarvation(CM, counters, DEFAULT_THRESHOLDS),
    groups: [],
    evidence: undefined,
  };
}

/** Ten objects per loop, each with `intervals` healthy intervals over a day. */
function fleet(sequentialIntervals: number, phasedIntervals: number): ControllerCounters {
  const c = emptyCounters(CM);
  for (const [loop, intervals] of [
    ['sequential', sequentialIntervals],
    ['phased', phasedIntervals],
  ] as const) {
    const l = c.loops[loop];
    l.objects = 10;
    l.attempts = l.usedAttempts = 10 * (intervals + 1);
    l.rateObjects = 10;
    l.rateIntervals = 10 * intervals;
    l.rateMs = 10 * DAY;
    l.rateSquares = 10 * intervals * intervals;
  }
  return c;
}

describe('decision rules', () => {
  it('the list: checks first, then gates, harms and coverage, each rule once', () => {
    assert.deepEqual(
      RULES.map((r) => `${r.role}:${r.name}`),
      [
        'check:sample-ratio',
        'check:population-balance',
        'gate:data-size',
        'harm:loop-comparison',
        'harm:starvation',
        'harm:ordering',
        'harm:classification',
        'coverage:coverage',
      ],
    );
  });

  it('sample ratio: 141 vs 201 healthy attempts per object-day fails; 195 vs 201 passes', () => {
    // Every object alike: no dispersion beyond Poisson, so the e-value is the mixture's against the time share ½.
    const dropped = fleet(201, 141);
    const x = 1410;
    assert.equal(logAttemptRatioE(dropped.loops.sequential, dropped.loops.phased), logMixture(x, 3420) - logLikelihood(0.5, x, 3420));
    const failed = SAMPLE_RATIO.evaluate(context(dropped));
    assert.equal(failed.status, 'fail');
    assert.match(
      failed.reasons[0]!.message,
      /^sample ratio: healthy objects of the phased loop show 141\.0 attempts per object-day, those of the sequential loop 201\.0 \(e = [\d.]+e\+\d+, bar 1000\)/,
    );
    assert.equal(SAMPLE_RATIO.evaluate(context(fleet(201, 195))).status, 'pass');
  });

  it('sample ratio: a planted world with 30 % of the phased loop’s attempts dropped at random is inconclusive, the check first', () => {
    for (const seed of [11, 12]) {
      const random = new Xorshift(seed * 77);
      const analyzer = new Analyzer([SMALL]);
      const evidence = new DecisionEvidence();
      analyzer.listen(evidence);
      for (const r of plantedWorld(smallWorld(seed, { kind: 'none' }))) if (r.loop === 'sequential' || random.next() >= 0.3) analyzer.attempt(r);
      const c = decisionReport(analyzer, evidence, DEFAULT_THRESHOLDS).controllers[0]!;
      assert.equal(c.verdict.status, 'inconclusive');
      assert.equal(c.verdict.reasons[0]!.kind, 'sample-ratio', c.verdict.reasons[0]!.message);
    }
  });

  it('sample ratio: incomplete attempts in one loop only fail the check', () => {
    const c = fleet(200, 200);
    c.loops.phased.incompleteAttempts = 300;
    const r = SAMPLE_RATIO.evaluate(context(c));
    assert.equal(r.status, 'fail');
    assert.match(r.reasons[0]!.message, /^sample ratio: 15% of the phased loop’s attempts are incomplete .*, 0% of the sequential loop’s/);
  });

  it('population balance: an op both loops run identically that fails more under one is the populations’, named as such', () => {
    // Fetch is the first fail-fast step of both loops with the same effects; A, B, C, D are not.
    assert.deepEqual(Array.from(identicalOps(CM)), [1, 0, 0, 0, 0]);
    const c = fleet(200, 200);
    const fetch = CM.opIndex.get('Fetch')!;
    for (const [loop, failures] of [
      ['sequential', 10],
      ['phased', 100],
    ] as const) {
      const l = c.loops[loop];
      l.commonRuns[fetch] = 2000;
      l.commonFailures[fetch] = failures;
      l.clusters[fetch] = 10;
      l.clusterSquares[fetch] = (10 * (failures / 10) ** 2) / 200;
    }
    const ctx = context(c);
    const r = POPULATION_BALANCE.evaluate(ctx);
    assert.equal(r.status, 'fail');
    assert.match(
      r.reasons[0]!.message,
      /^population imbalance: 1 op that runs identically in both loops fails at different rates \(Fetch 5\.0% \(phased\) vs 0\.5% \(sequential\), e = [\d.e+]+\), so the loops ran on different objects and no difference is the loop’s; /,
    );
    // The verdict: inconclusive, the check first; Fetch "worse under the phased loop" only an early sign.
    const v = decideVerdict(
      RULES.map((rule) => rule.evaluate(ctx)),
      { unblockedOpRuns: 0, creditedOpRuns: 0, wouldFail: 0, fromWorseOps: 0 },
      0,
    );
    assert.equal(v.status, 'inconclusive');
    assert.equal(v.reasons[0]!.kind, 'population-imbalance');
    const worse = v.reasons.find((x) => x.kind === 'worse-under-phased')!;
    assert.equal(worse.early, true);
    assert.match(worse.message, /^early sign, on data not fit to decide: Fetch fails more under the phased loop/);
  });

  it('coverage holds back ready but never demotes harm', () => {
    const c = fleet(200, 200);
    c.loops.phased.hourAttempts.fill(5, 0, 20);
    c.loops.sequential.hourAttempts.fill(5);
    const r = COVERAGE.evaluate(context(c));
    assert.equal(r.reasons[0]!.message, 'the phased loop ran attempts in 20 of the 24 hours of the day (24 needed; none at 20h, 21h, 22h, 23h UTC)');
    const harm = {
      rule: 'loop-comparison',
      role: 'harm' as const,
      status: 'fail' as const,
      measurements: [],
      explanation: '',
      reasons: [{ kind: 'worse-under-phased' as const, harm: true, message: 'X fails more' }],
    };
    const v = decideVerdict([r, harm], { unblockedOpRuns: 0, creditedOpRuns: 0, wouldFail: 0, fromWorseOps: 0 }, 0);
    assert.equal(v.status, 'not-ready');
    assert.deepEqual(
      v.reasons.map((x) => `${x.status}:${x.kind}:${x.early}`),
      ['not-ready:worse-under-phased:false', 'inconclusive:hours-not-covered:false'],
    );
    assert.equal(decideVerdict([r], { unblockedOpRuns: 0, creditedOpRuns: 0, wouldFail: 0, fromWorseOps: 0 }, 0).status, 'inconclusive');
  });

  describe('starvation counts work lost: withheld ops that write', () => {
    const withWrites = (c: string, d: string): ReturnType<typeof parseModel> =>
      parseModel(`
apiVersion: reconcile-shadow/v1
kind: ReconcileModel
metadata: {name: tiny}
spec:
  controller: widget
  operations: [{name: Fetch, writes: none}, {name: A, writes: none}, {name: B, writes: none}, {name: D${d}}, {name: C${c}}]
  phased:
    - op: Fetch
    - {group: Second, category: nonCritical, ops: [B]}
    - {group: First, category: nonCritical, ops: [A]}
    - {group: Core, category: critical, ops: [C]}
    - {group: Tail, category: nonCritical, blockable: true, ops: [D]}
`);

    /** The counters after a healthy attempt and ten sequential ones whose A fails: the sequential loop withholds B, D and C. */
    function starved(model: ReturnType<typeof parseModel>): ControllerCounters {
      const analyzer = new Analyzer([model]);
      const evidence = new DecisionEvidence();
      analyzer.listen(evidence);
      analyzer.attempt(attempt('sequential', 'w1', 'Fetch A B D C'));
      for (let i = 0; i < 10; i++) analyzer.attempt(attempt('sequential', 'w1', 'Fetch A!'));
      return evidence.controller('widget')!.snapshot();
    }
    const op = (name: string): number => CM.opIndex.get(name)!;

    it('B (a read) loses work when C, which writes status, is withheld after it; D (no write, nothing after it) loses none', () => {
      const c = starved(withWrites(', writes: status', ', writes: none'));
      // Nine intervals of 10 s after the first failing attempt, in which the sequential loop withholds B, D and C.
      assert.deepEqual([c.sequentialStarvedMs[op('B')], c.sequentialNoLossMs[op('B')], c.sequentialUnknownMs[op('B')]], [90_000, 0, 0]);
      assert.deepEqual([c.sequentialStarvedMs[op('D')], c.sequentialNoLossMs[op('D')]], [90_000, 90_000]);
      assert.deepEqual([c.sequentialStarvedMs[op('C')], c.sequentialNoLossMs[op('C')]], [90_000, 0]);
    });

    it('an op whose model says nothing loses unknown work: reported, never harm by itself', () => {
      const c = starved(withWrites('', ', writes: none'));
      assert.deepEqual([c.sequentialUnknownMs[op('B')], c.sequentialUnknownMs[op('C')], c.sequentialNoLossMs[op('D')]], [90_000, 90_000, 90_000]);
    });

    it('the comparison: lost time beyond the tolerance is starved; unknown time only holds back ready, naming the ops to describe', () => {
      const c = emptyCounters(CM);
      c.objectMs = 1000;
      const b = op('B');
      c.phasedStarvedMs[b] = 100;
      c.phasedUnknownMs[b] = 100;
      const model = compileModel(withWrites('', ', writes: none'));
      let s = compareStarvation(model, c, DEFAULT_THRESHOLDS).operations[0]!;
      assert.equal(s.finding, 'effect-unknown');
      assert.deepEqual(s.unknownWrites, ['C']);
      c.phasedUnknownMs[b] = 0;
      c.phasedNoLossMs[b] = 100;
      s = compareStarvation(model, c, DEFAULT_THRESHOLDS).operations[0]!;
      assert.equal(s.finding, 'ok');
      c.phasedNoLossMs[b] = 0;
      s = compareStarvation(model, c, DEFAULT_THRESHOLDS).operations[0]!;
      assert.equal(s.finding, 'starved-under-phased');
      assert.equal(s.extraShare, 0.1);
    });
  });
});
