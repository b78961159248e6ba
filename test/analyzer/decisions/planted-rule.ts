/**
 * A rule that exists only in tests (rule-list.test.ts, rule-evidence.test.ts): it finds harm whenever the phased loop
 * ran an attempt, counts evidence of its own that the shared counters do not hold (per loop, the attempts whose first
 * operation failed), and renders it through the rule's hooks, a JSON `details` and a review-document section.
 * Nothing but this module and the list handed to the decisions names it.
 */
import { outcome, type ReasonGiven, type Rule } from '../../../analyzer/decisions/rules/rule.js';
import { plural } from '../../../analyzer/decisions/wording.js';
import { at } from '../../../lib/json-reader.js';
import { LOOP_KINDS, type LoopKind } from '../../../model/types.js';

type Kind = 'planted-harm';

/** Per loop: attempts whose first operation, as recorded, failed. */
type FirstFailed = Record<LoopKind, number>;

export const PLANTED: Rule<Kind, FirstFailed> = {
  name: 'planted',
  role: 'harm',
  question: 'did the phased loop run at all?',
  reasons: { 'planted-harm': { harm: true, when: 'the phased loop ran an attempt' } },
  evidence: {
    create: () => ({ sequential: 0, phased: 0 }),
    observe(state, { record }) {
      // A status transition lists only the failing operations: its first is always a failure.
      if (!record.origin.transition && record.operations[0]?.outcome === 'error') state[record.loop]++;
    },
    merge: (a, b) => ({ sequential: a.sequential + b.sequential, phased: a.phased + b.phased }),
    toJSON: (state) => ({ ...state }),
    fromJSON(r, json, path) {
      const m = r.record(json, path, LOOP_KINDS);
      return { sequential: r.count(m.sequential, at(path, 'sequential')), phased: r.count(m.phased, at(path, 'phased')) };
    },
  },
  evaluate({ counters, evidence: firstFailed }) {
    const attempts = counters.loops.phased.attempts;
    const reasons: ReasonGiven<Kind>[] = attempts > 0 ? [{ kind: 'planted-harm', message: `planted: ${plural(attempts, 'phased attempt')}` }] : [];
    return outcome(
      PLANTED,
      reasons,
      [
        { name: 'phased attempts', value: attempts, threshold: 0 },
        { name: 'phased attempts whose first op failed', value: firstFailed.phased, threshold: null },
      ],
      `${plural(attempts, 'phased attempt')} seen, ${firstFailed.phased} of them with a failed first op`,
      {
        details: { phasedAttempts: attempts, firstOpFailed: { ...firstFailed } },
        section: {
          id: 'planted',
          title: 'Planted: the phased loop’s attempts',
          intro: ['Only in tests.'],
          table: {
            head: ['loop', 'attempts', 'first op failed'],
            numeric: [1, 2],
            rows: [['phased', String(attempts), String(firstFailed.phased)]],
          },
        },
      },
    );
  },
};
