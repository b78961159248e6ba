/**
 * Harm: an op fails more under the phased loop (loop-comparison.ts decides each op). Also what keeps it from
 * `ready`: no sequential baseline to compare with, or a material op (failed in `materialFailures` runs) not yet
 * compared.
 */
import { count, eValue, percent, plural } from '../wording.js';
import { listed, outcome, type Rule, type ReasonGiven } from './rule.js';

type Kind = 'worse-under-phased' | 'no-baseline' | 'op-not-compared';

export const LOOP_COMPARISON: Rule<Kind> = {
  name: 'loop-comparison',
  role: 'harm',
  question: 'does an op fail more often under the phased loop than under the sequential loop, beyond the margin?',
  reasons: {
    'worse-under-phased': { harm: true, when: 'an op fails more under the phased loop, beyond the margin (an e-BH discovery)' },
    'no-baseline': { harm: false, when: 'the sequential loop ran fewer than `minAttempts` attempts or `minObjects` objects' },
    'op-not-compared': { harm: false, when: 'an op that failed in ≥ `materialFailures` counted runs is not yet compared' },
  },
  evaluate({ comparison, counters, thresholds: t }) {
    const reasons: ReasonGiven<Kind>[] = [];
    const worse = comparison.operations.filter((o) => o.finding === 'worse-under-phased');
    for (const op of worse) reasons.push({ kind: 'worse-under-phased', message: `${op.operation} fails more under the phased loop: ${op.why}` });
    const s = counters.loops.sequential;
    if (s.attempts === 0) {
      reasons.push({
        kind: 'no-baseline',
        message: 'no attempt ran the sequential loop, so no op’s failure rate can be compared between the loops: keep part of the fleet on it',
      });
    } else if (s.attempts < t.minAttempts || s.objects < t.minObjects) {
      reasons.push({
        kind: 'no-baseline',
        message: `too little to compare with: ${plural(s.attempts, 'attempt')} on ${plural(s.objects, 'object')} ran the sequential loop (${count(t.minAttempts)} attempts and ${count(t.minObjects)} objects needed)`,
      });
    }
    const uncompared = comparison.operations.filter((o) => o.material && o.finding === 'inconclusive');
    if (uncompared.length > 0 && comparison.unavailable === null) {
      reasons.push({
        kind: 'op-not-compared',
        message: `${plural(uncompared.length, 'op')} that fail often enough to matter ${uncompared.length === 1 ? 'is' : 'are'} not yet compared between the loops: ${listed(uncompared, (o) => `${o.operation} (${o.why})`)}`,
      });
    }
    return outcome(
      LOOP_COMPARISON,
      reasons,
      comparison.operations
        .filter((o) => o.e !== null && (o.finding !== 'same' || o.material))
        .map((o) => ({
          name: `${o.operation}: e-value (phased ${percent(o.phased.rate)} vs sequential ${percent(o.sequential.rate)}, margin ${percent(o.margin)}, ${o.finding})`,
          value: o.e,
          threshold: o.eBar,
        })),
      `${plural(comparison.tested, 'op')} compared by e-BH at ${t.falseDiscoveryRate}: ${worse.length} worse under the phased loop${worse.length > 0 ? ` (${worse.map((o) => `${o.operation}, e = ${eValue(o.e)}`).join('; ')})` : ''}`,
    );
  },
};
