/**
 * A rule that exists only in tests (rule-list.test.ts): it finds harm whenever the phased loop ran an attempt, and
 * renders its own evidence through the rule's hooks, a JSON `details` and a review-document section. Nothing but
 * this module and the list handed to the decisions names it.
 */
import { outcome, type ReasonGiven, type Rule } from '../../../analyzer/decisions/rules/rule.js';
import { plural } from '../../../analyzer/decisions/wording.js';

type Kind = 'planted-harm';

export const PLANTED: Rule<Kind> = {
  name: 'planted',
  role: 'harm',
  question: 'did the phased loop run at all?',
  reasons: { 'planted-harm': { harm: true, when: 'the phased loop ran an attempt' } },
  evaluate({ counters }) {
    const attempts = counters.loops.phased.attempts;
    const reasons: ReasonGiven<Kind>[] = attempts > 0 ? [{ kind: 'planted-harm', message: `planted: ${plural(attempts, 'phased attempt')}` }] : [];
    return outcome(PLANTED, reasons, [{ name: 'phased attempts', value: attempts, threshold: 0 }], `${plural(attempts, 'phased attempt')} seen`, {
      details: { phasedAttempts: attempts },
      section: {
        id: 'planted',
        title: 'Planted: the phased loop’s attempts',
        intro: ['Only in tests.'],
        table: { head: ['loop', 'attempts'], numeric: [1], rows: [['phased', String(attempts)]] },
      },
    });
  },
};
