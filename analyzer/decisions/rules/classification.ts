/**
 * Harm: downstream failures follow a non-critical group's failures (classification.ts). A material non-critical
 * group not judged yet, or no group failing often enough to show how the phased loop behaves after a failure, holds
 * back `ready`.
 */
import { plural } from '../wording.js';
import { outcome, type Rule, type ReasonGiven } from './rule.js';

type Kind = 'non-critical-downstream' | 'group-not-judged' | 'nothing-to-judge';

export const CLASSIFICATION: Rule<Kind> = {
  name: 'classification',
  role: 'harm',
  question: 'is each group’s category borne out: do downstream failures follow a non-critical group’s failures?',
  reasons: {
    'non-critical-downstream': { harm: true, when: "downstream failures follow a non-critical group's failures" },
    'group-not-judged': { harm: false, when: 'a non-critical group that failed in ≥ `materialFailures` runs is not judged yet' },
    'nothing-to-judge': { harm: false, when: 'no group failed in `materialFailures` or more runs under the phased loop' },
  },
  evaluate({ groups, counters, thresholds: t }) {
    const reasons: ReasonGiven<Kind>[] = [];
    for (const g of groups.filter((x) => x.finding === 'should-be-critical'))
      reasons.push({ kind: 'non-critical-downstream', message: `${g.group} is non-critical, but ${g.why}` });
    const material = groups.filter((g) => g.failureRuns >= t.materialFailures);
    for (const g of material.filter((x) => x.finding === 'inconclusive'))
      reasons.push({ kind: 'group-not-judged', message: `${g.group} (non-critical): ${g.why}` });
    if (material.length === 0 && counters.loops.phased.attempts > 0) {
      reasons.push({
        kind: 'nothing-to-judge',
        message: `no group failed in ${t.materialFailures} or more distinct runs under the phased loop, so nothing shows how it behaves after a failure`,
      });
    }
    return outcome(
      CLASSIFICATION,
      reasons,
      groups.map((g) => ({ name: `${g.group}: judged failure runs (${g.finding})`, value: g.judgedRuns, threshold: t.minFailedObservations })),
      `${plural(groups.length, 'group')}, ${plural(material.length, 'material one')} (failed in ${t.materialFailures} or more runs)`,
    );
  },
};
