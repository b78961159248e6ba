/**
 * Enough data to decide at all: the phased loop must have run attempts (only they show how it behaves after a
 * failure), at least `minAttempts` of them, on at least `minObjects` objects. Below that, harm seen is only an
 * early sign: a gate.
 */
import { count, plural } from '../wording.js';
import { outcome, type Rule, type ReasonGiven } from './rule.js';

type Kind = 'no-phased-attempts' | 'too-few-attempts' | 'too-few-objects';

export const DATA_SIZE: Rule<Kind> = {
  name: 'data-size',
  role: 'gate',
  question: 'did the phased loop run enough attempts on enough objects to decide?',
  reasons: {
    'no-phased-attempts': { harm: false, when: 'no attempt ran the phased loop' },
    'too-few-attempts': { harm: false, when: 'fewer than `minAttempts` attempts ran the phased loop' },
    'too-few-objects': { harm: false, when: 'fewer than `minObjects` objects ran the phased loop' },
  },
  evaluate({ counters, thresholds: t }) {
    const p = counters.loops.phased;
    const reasons: ReasonGiven<Kind>[] = [];
    if (p.attempts === 0) {
      reasons.push({
        kind: 'no-phased-attempts',
        message: 'no attempt ran the phased loop: only attempts it runs show how it behaves after a failure; put part of the fleet on it (a canary)',
      });
    } else {
      if (p.attempts < t.minAttempts)
        reasons.push({
          kind: 'too-few-attempts',
          message: `${plural(p.attempts, 'attempt')} ran the phased loop (${count(t.minAttempts)} needed: ${count(t.minAttempts - p.attempts)} more)`,
        });
      if (p.objects < t.minObjects)
        reasons.push({
          kind: 'too-few-objects',
          message: `${plural(p.objects, 'object')} ran the phased loop (${count(t.minObjects)} needed: ${count(t.minObjects - p.objects)} more)`,
        });
    }
    return outcome(
      DATA_SIZE,
      reasons,
      [
        { name: 'phased attempts', value: p.attempts, threshold: t.minAttempts },
        { name: 'phased objects', value: p.objects, threshold: t.minObjects },
      ],
      `${plural(p.attempts, 'attempt')} on ${plural(p.objects, 'object')} under the phased loop`,
    );
  },
};
