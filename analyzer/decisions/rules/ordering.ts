/**
 * Harm: an op fails more when an op the phased loop now runs before it failed earlier in the attempt
 * (ordering.ts). A testable reordered pair whose first op fails in `materialFailures` runs holds back `ready`
 * until it is judged.
 */
import { eValue, plural } from '../wording.js';
import { listed, outcome, type Rule, type ReasonGiven } from './rule.js';

type Kind = 'reordered-dependence' | 'pair-not-judged';

export const ORDERING: Rule<Kind> = {
  name: 'ordering',
  role: 'harm',
  question: 'does an op fail more after an op the phased loop now runs before it failed?',
  reasons: {
    'reordered-dependence': { harm: true, when: 'an op fails more after an op the phased loop now runs before it failed' },
    'pair-not-judged': { harm: false, when: 'a testable reordered pair whose first op failed in ≥ `materialFailures` runs lacks data' },
  },
  evaluate({ ordering, thresholds: t }) {
    const reasons: ReasonGiven<Kind>[] = [];
    const dependent = ordering.reordered.filter((p) => p.status === 'dependent');
    for (const p of dependent) {
      reasons.push({
        kind: 'reordered-dependence',
        message: `${p.then} depends on ${p.first} failing earlier in the attempt, and the phased loop runs ${p.first} first: ${p.why}`,
      });
    }
    const unjudged = ordering.reordered.filter((p) => p.status === 'inconclusive' && p.followsFailure && p.firstFailureRuns >= t.materialFailures);
    if (unjudged.length > 0) {
      reasons.push({
        kind: 'pair-not-judged',
        message: `${plural(unjudged.length, 'reordered pair')} whose first op fails often enough to matter lack data: ${listed(unjudged, (p) => `${p.first} → ${p.then} (${p.why})`)}`,
      });
    }
    return outcome(
      ORDERING,
      reasons,
      ordering.reordered
        .filter((p) => p.e !== null)
        .slice(0, 10)
        .map((p) => ({ name: `${p.first} → ${p.then}: e-value (${p.status})`, value: p.e, threshold: p.eBar })),
      `${plural(ordering.tested, 'pair table')} tested by e-BH at ${t.falseDiscoveryRate}; ${dependent.length} reordered pair${dependent.length === 1 ? '' : 's'} dependent${dependent.length > 0 ? ` (${dependent.map((p) => `${p.first} → ${p.then}, e = ${eValue(p.e)}`).join('; ')})` : ''}`,
    );
  },
};
