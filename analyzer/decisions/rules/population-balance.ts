/**
 * The population-balance check: ops that run identically in both loops (loop-comparison.ts `identicalOps`: the
 * same fail-fast steps before them, the same error effects) cannot fail more under one loop because of the loop.
 * If e-BH over their two-sided e-values finds one that does, the two loops ran on different populations (the
 * flakiest objects on the canary, another platform) and no difference between the loops is the loop's.
 *
 * Both loops' counts are divided by the sequential loop's design effect, the spread between objects of the fleet in
 * place today: the loop comparison divides each loop by its own, which would let the flaky objects of a canary made
 * of them excuse themselves.
 *
 * One more e-value joins the family: all identical ops together, their failures and runs summed per loop (divided by
 * the largest of their design effects). A canary of flaky objects makes every early op fail a little more, each too
 * rarely to show alone, together plainly. The identical ops run in every attempt that reaches them in either loop,
 * so both loops' runs mix the ops alike and the sum compares like with like; e-BH stays valid over the family
 * whatever the dependence between its members.
 */
import { eBenjaminiHochberg, LOG_E_CAP, logTwoProportionE } from '../e-values.js';
import type { OperationComparison } from '../loop-comparison.js';
import { eValue, percent, plural } from '../wording.js';
import { listed, outcome, type Rule } from './rule.js';

type Kind = 'population-imbalance';

export const POPULATION_BALANCE: Rule<Kind> = {
  name: 'population-balance',
  role: 'check',
  question: 'do the ops that run identically in both loops fail as often under each?',
  reasons: {
    'population-imbalance': {
      harm: false,
      when: 'an op that runs identically in both loops, or all of them together, fails at different rates under each (e-BH at `falseDiscoveryRate`)',
    },
  },
  evaluate({ comparison, thresholds: t }) {
    const identical = comparison.operations.filter((o) => o.identical && o.e !== null);
    const pooled = identical.length > 1 ? pooledE(identical) : undefined;
    const evalues = [...identical.map(balanceE), ...(pooled ? [pooled.e] : [])];
    const ebh = eBenjaminiHochberg(evalues, t.falseDiscoveryRate);
    const differing = identical.filter((_, i) => ebh.rejected[i]);
    const pooledDiffers = pooled !== undefined && ebh.rejected[identical.length] === true;
    const together =
      pooled && pooledDiffers
        ? [`together, ${percent(pooled.phasedRate)} (phased) vs ${percent(pooled.sequentialRate)} (sequential), e = ${eValue(pooled.e)}`]
        : [];
    const reasons =
      differing.length === 0 && !pooledDiffers
        ? []
        : [
            {
              kind: 'population-imbalance' as const,
              message: `population imbalance: ${identical.length === 1 ? '1 op that runs identically in both loops fails' : `the ${identical.length} ops that run identically in both loops fail`} at different rates (${[...together, ...(differing.length > 0 ? [listed(differing, (o) => `${o.operation} ${percent(o.phased.rate)} (phased) vs ${percent(o.sequential.rate)} (sequential), e = ${eValue(evalues[identical.indexOf(o)]!)}`)] : [])].join('; ')}), so the loops ran on different objects and no difference is the loop’s; assign objects to the canary at random, or compare objects seen under both loops`,
            },
          ];
    return outcome(
      POPULATION_BALANCE,
      reasons,
      [
        ...identical.map((o, i) => ({
          name: `${o.operation}: e-value (phased ${percent(o.phased.rate)}, sequential ${percent(o.sequential.rate)})`,
          value: evalues[i]!,
          threshold: ebh.bar[i]!,
        })),
        ...(pooled
          ? [
              {
                name: `all ${identical.length} together: e-value (phased ${percent(pooled.phasedRate)}, sequential ${percent(pooled.sequentialRate)})`,
                value: pooled.e,
                threshold: ebh.bar[identical.length]!,
              },
            ]
          : []),
      ],
      identical.length === 0
        ? 'no op runs identically in both loops with enough runs to compare'
        : `${plural(identical.length, 'op')} that run identically in both loops compared one by one and together, ${differing.length} differing${pooled ? (pooledDiffers ? ', and together they differ' : ', and together they do not differ') : ''}`,
    );
  },
};

/** The two-sided e-value of an identical op, both loops' counts divided by the sequential loop's design effect. */
function balanceE(o: OperationComparison): number {
  const phi = o.sequential.designEffect;
  const side = (s: OperationComparison['sequential']): { x: number; n: number } => {
    const x = Math.round(s.failures / phi);
    return { x, n: Math.max(x, Math.round(s.runs / phi)) };
  };
  const p = side(o.phased);
  const s = side(o.sequential);
  return Math.exp(Math.min(LOG_E_CAP, logTwoProportionE({ x1: p.x, n1: p.n, x2: s.x, n2: s.n }, 'two-sided')));
}

/** All identical ops' failures and runs summed per loop, divided by the largest sequential design effect among them. */
function pooledE(ops: readonly OperationComparison[]): { e: number; phasedRate: number; sequentialRate: number } {
  const phi = Math.max(...ops.map((o) => o.sequential.designEffect));
  const sum = (loop: 'phased' | 'sequential'): { x: number; n: number } => {
    const failures = ops.reduce((t, o) => t + o[loop].failures, 0);
    const runs = ops.reduce((t, o) => t + o[loop].runs, 0);
    const x = Math.round(failures / phi);
    return { x, n: Math.max(x, Math.round(runs / phi)) };
  };
  const p = sum('phased');
  const s = sum('sequential');
  const e = Math.exp(Math.min(LOG_E_CAP, logTwoProportionE({ x1: p.x, n1: p.n, x2: s.x, n2: s.n }, 'two-sided')));
  return { e, phasedRate: p.n === 0 ? 0 : p.x / p.n, sequentialRate: s.n === 0 ? 0 : s.x / s.n };
}
