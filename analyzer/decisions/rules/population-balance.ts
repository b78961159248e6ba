/**
 * The population-balance check: ops that run identically in both loops (loop-comparison.ts `identicalOps`: the
 * same fail-fast steps before them, the same error effects) cannot fail more under one loop because of the loop.
 * If e-BH over their two-sided e-values finds one that does, the two loops ran on different populations (the
 * flakiest objects on the canary, another platform) and no difference between the loops is the loop's.
 */
import { eBenjaminiHochberg } from '../e-values.js';
import { eValue, percent, plural } from '../wording.js';
import { listed, outcome, type Rule } from './rule.js';

export const POPULATION_BALANCE: Rule = {
  name: 'population-balance',
  role: 'check',
  question: 'do the ops that run identically in both loops fail as often under each?',
  evaluate({ comparison, thresholds: t }) {
    const identical = comparison.operations.filter((o) => o.identical && o.e !== null);
    const ebh = eBenjaminiHochberg(identical.map((o) => o.e!), t.falseDiscoveryRate);
    const differing = identical.filter((_, i) => ebh.rejected[i]);
    const reasons = differing.length === 0
      ? []
      : [
          {
            kind: 'population-imbalance' as const,
            harm: false,
            message: `population imbalance: ${plural(differing.length, 'op')} that ${differing.length === 1 ? 'runs' : 'run'} identically in both loops ${differing.length === 1 ? 'fails' : 'fail'} at different rates, so the loops ran on different objects and no difference is the loop’s: ${listed(differing, (o) => `${o.operation} ${percent(o.phased.rate)} (phased) vs ${percent(o.sequential.rate)} (sequential), e = ${eValue(o.e)}`)}; assign objects to the canary at random, or compare objects seen under both loops`,
          },
        ];
    return outcome(
      POPULATION_BALANCE,
      reasons,
      identical.map((o, i) => ({ name: `${o.operation}: e-value (phased ${percent(o.phased.rate)}, sequential ${percent(o.sequential.rate)})`, value: o.e, threshold: ebh.bar[i]! })),
      identical.length === 0 ? 'no op runs identically in both loops with enough runs to compare' : `${plural(identical.length, 'op')} that run identically in both loops compared, ${differing.length} differing`,
    );
  },
};
