/**
 * Evidence, not wall clock: each loop must have run attempts in `minHoursOfDay` hours of the day (UTC), so a
 * time-of-day effect (a nightly job, the busy hours) is seen under both; and, when `minWindow` is set (a release
 * cycle for the last step), each loop's window with one resync of slack (the mean interval between an object's
 * attempts: the first and last attempt each stand for one) must reach it. Coverage may hold back `ready`; it never
 * demotes harm found on enough data. That every material op is judged is the other rules' (op-not-compared,
 * group-not-judged, pair-not-judged).
 */
import type { LoopKind } from '../../../model/types.js';
import type { LoopCounters } from '../counters.js';
import { span } from '../wording.js';
import { outcome, type Rule, type ReasonGiven } from './rule.js';

export const hoursCovered = (l: LoopCounters): number => l.hourAttempts.reduce((n, a) => n + (a > 0 ? 1 : 0), 0);

/** The loop's window with one resync of slack, ms. */
export function windowWithSlack(l: LoopCounters): number {
  if (l.attempts === 0) return 0;
  const slack = l.rateIntervals === 0 ? 0 : l.rateMs / l.rateIntervals;
  return l.lastMs - l.firstMs + slack;
}

type Kind = 'hours-not-covered' | 'window-too-short';

export const COVERAGE: Rule<Kind> = {
  name: 'coverage',
  role: 'coverage',
  question: 'has each loop been seen at every hour of the day (and for the window asked, if any)?',
  reasons: {
    'hours-not-covered': { harm: false, when: 'a loop ran attempts in fewer than `minHoursOfDay` hours of the day (UTC)' },
    'window-too-short': { harm: false, when: "a loop's window with one resync of slack is shorter than `minWindow`" },
  },
  evaluate({ counters, thresholds: t }) {
    const reasons: ReasonGiven<Kind>[] = [];
    const loops: LoopKind[] = ['phased', 'sequential'];
    for (const loop of loops) {
      const l = counters.loops[loop];
      if (l.attempts === 0) continue;
      const hours = hoursCovered(l);
      if (hours < t.minHoursOfDay) {
        const missing = Array.from(l.hourAttempts.keys()).filter((h) => l.hourAttempts[h] === 0);
        reasons.push({
          kind: 'hours-not-covered',
          message: `the ${loop} loop ran attempts in ${hours} of the 24 hours of the day (${t.minHoursOfDay} needed; none at ${missing.map((h) => `${String(h).padStart(2, '0')}h`).join(', ')} UTC)`,
        });
      }
      const ms = windowWithSlack(l);
      if (t.minWindow > 0 && ms < t.minWindow)
        reasons.push({
          kind: 'window-too-short',
          message: `the ${loop} loop was observed for ${span(ms)} with one resync of slack (${span(t.minWindow)} asked: about ${span(t.minWindow - ms)} more)`,
        });
    }
    return outcome(
      COVERAGE,
      reasons,
      loops.flatMap((loop) => [
        { name: `hours of the day covered (${loop})`, value: hoursCovered(counters.loops[loop]), threshold: t.minHoursOfDay },
        { name: `window with slack, seconds (${loop})`, value: windowWithSlack(counters.loops[loop]) / 1000, threshold: t.minWindow / 1000 },
      ]),
      `hours of the day covered: ${hoursCovered(counters.loops.phased)} (phased), ${hoursCovered(counters.loops.sequential)} (sequential)`,
    );
  },
};
