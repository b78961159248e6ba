/**
 * Harm: an op fails more when an op the phased loop now runs before it failed earlier in the attempt
 * (ordering.ts). A testable reordered pair whose first op fails in `materialFailures` runs holds back `ready`
 * until it is judged.
 */
import { eValue, plural } from '../wording.js';
import { listed, outcome, type Rule, type RuleReason } from './rule.js';

export const ORDERING: Rule = {
  name: 'ordering',
  role: 'harm',
  question: 'does an op fail more after an op the phased loop now runs before it failed?',
  evaluate({ ordering, thresholds: t }) {
    const reasons: RuleReason[] = [];
    const dependent = ordering.reordered.filter((p) => p.status === 'dependent');
    for (const p of dependent) {
      reasons.push({
        kind: 'reordered-dependence',
        harm: true,
        message: `${p.then} depends on ${p.first} failing earlier in the attempt, and the phased loop runs ${p.first} first: ${p.why}`,
      });
    }
    const unjudged = ordering.reordered.filter((p) => p.status === 'inconclusive' && p.followsFailure && p.firstFailureRuns >= t.materialFailures);
    if (unjudged.length > 0) {
      reasons.push({
        kind: 'pair-not-judged',
        harm: false,
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
