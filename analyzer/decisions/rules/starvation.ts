/**
 * Harm: the phased loop's order keeps work with an effect from running for longer than the sequential loop does
 * (starvation-comparison.ts). An op whose loss the model cannot say (no `writes`) holds back `ready` instead.
 */
import { percent, plural } from '../wording.js';
import { listed, outcome, type Rule, type ReasonGiven } from './rule.js';

type Kind = 'starved-under-phased' | 'starvation-effect-unknown';

export const STARVATION: Rule<Kind> = {
  name: 'starvation',
  role: 'harm',
  question: 'does the phased loop’s order keep work that writes from running longer than the sequential loop does?',
  reasons: {
    'starved-under-phased': {
      harm: true,
      when: 'the phased loop keeps work that writes from running for more than `maxStarvationShare` of the object-time beyond the sequential loop',
    },
    'starvation-effect-unknown': { harm: false, when: 'the phased loop keeps an op from running whose effect the model does not say (no `writes`)' },
  },
  evaluate({ starvation, thresholds: t }) {
    const reasons: ReasonGiven<Kind>[] = [];
    const starved = starvation.operations.filter((o) => o.finding === 'starved-under-phased');
    for (const op of starved) reasons.push({ kind: 'starved-under-phased', message: `${op.operation} waits longer under the phased loop: ${op.why}` });
    const unknown = starvation.operations.filter((o) => o.finding === 'effect-unknown');
    if (unknown.length > 0) {
      reasons.push({
        kind: 'starvation-effect-unknown',
        message: `${plural(unknown.length, 'op')} the phased loop keeps from running without a known effect: ${listed(unknown, (o) => `${o.operation} (${o.why})`)}`,
      });
    }
    return outcome(
      STARVATION,
      reasons,
      starvation.operations
        .slice(0, 10)
        .map((o) => ({ name: `${o.operation}: extra share of object-time with work lost`, value: o.extraShare, threshold: t.maxStarvationShare })),
      `${starved.length} op${starved.length === 1 ? '' : 's'} starved beyond ${percent(t.maxStarvationShare)} of the object-time, ${unknown.length} with an unknown effect`,
    );
  },
};
