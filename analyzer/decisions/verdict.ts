/**
 * Switch readiness per controller, in the style of Argo Rollouts' analysis runs (Successful / Failed / Inconclusive):
 * a fold over the outcomes of the rules (rules.ts), in their roles (rules/rule.ts):
 *
 *   inconclusive  a check of the data failed (sample ratio, population balance), or too little data (the phased
 *                 loop's attempts or objects): the failed checks and gates are the first reasons, and harm seen is
 *                 listed only as an early sign;
 *   not-ready     otherwise, a harm rule found the phased loop measurably worse;
 *   inconclusive  otherwise, some rule says what is not judged yet (a baseline, a material op, group or pair, an
 *                 op's effect, the hours of the day);
 *   ready         none of the above.
 * No data is never a pass, and blocked work alone is never harm: the phased loop skipping the blockable groups while
 * a critical group fails is what the model asks for.
 */
import type { RuleOutcome } from './rules/rule.js';

export type VerdictStatus = 'ready' | 'not-ready' | 'inconclusive';

export interface VerdictReason {
  /** A kind of reason its rule declares (rules.ts REASON_KINDS). */
  readonly kind: string;
  /** The rule that gave it (rules.ts). */
  readonly rule: string;
  readonly status: Exclude<VerdictStatus, 'ready'>;
  /** A sign of harm seen on data not fit or too small to decide: reported, but the verdict stays inconclusive. */
  readonly early: boolean;
  readonly message: string;
}

/** What the phased loop would have run that the sequential loop did not, and how much of it counts. */
export interface Benefit {
  /** Op-runs the phased loop runs and the sequential loop skips (one-loop ops left out). */
  readonly unblockedOpRuns: number;
  /** Of those, the runs that would have succeeded, with work that writes (or not known not to), of ops that do not fail more under the phased loop, behind a sequential stop that is not one. */
  readonly creditedOpRuns: number;
  /** Not credited: the op would have failed, or nothing withheld with it writes. */
  readonly wouldFail: number;
  /** Not credited: the op, or the op that stopped the sequential loop, fails more under the phased loop. */
  readonly fromWorseOps: number;
}

export interface Verdict {
  readonly status: VerdictStatus;
  readonly reasons: readonly VerdictReason[];
  /** Every rule's outcome, in the list's order: what it measured, against what, and why. */
  readonly rules: readonly RuleOutcome[];
  readonly benefit: Benefit;
  /** Attempts in which the phased loop would skip an op the sequential loop ran: by design while a critical group fails. */
  readonly newlyBlockedAttempts: number;
}

export function decideVerdict(rules: readonly RuleOutcome[], benefit: Benefit, newlyBlockedAttempts: number): Verdict {
  const blocking = rules.filter((r) => r.role === 'check' || r.role === 'gate').flatMap((r) => r.reasons.map((x) => ({ ...x, rule: r.rule })));
  const decided = blocking.length === 0;
  const all = rules.filter((r) => r.role === 'harm' || r.role === 'coverage').flatMap((r) => r.reasons.map((x) => ({ ...x, rule: r.rule })));
  const harm = all.filter((x) => x.harm);
  const missing = all.filter((x) => !x.harm);
  const reason = (x: { kind: string; rule: string; message: string }, status: VerdictReason['status'], early = false): VerdictReason => ({
    kind: x.kind,
    rule: x.rule,
    status,
    early,
    message: early ? `early sign, on data not fit to decide: ${x.message}` : x.message,
  });
  const reasons = decided
    ? [...harm.map((x) => reason(x, 'not-ready')), ...missing.map((x) => reason(x, 'inconclusive'))]
    : [
        ...blocking.map((x) => reason(x, 'inconclusive')),
        ...harm.map((x) => reason(x, 'inconclusive', true)),
        ...missing.map((x) => reason(x, 'inconclusive')),
      ];
  const status: VerdictStatus = decided && harm.length > 0 ? 'not-ready' : reasons.length > 0 ? 'inconclusive' : 'ready';
  return { status, reasons, rules, benefit, newlyBlockedAttempts };
}
