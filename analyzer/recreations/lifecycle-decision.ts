/**
 * A lifecycle decision as the recreation analyzer counts it: per resource and adapter event, what the adapter would do
 * (adapter-event.ts decides it, as hyperfleet-adapter's resource executor would) and why. `recreate` comes from a
 * proposed `lifecycle.recreate.when` (the proposals file) or from `recreate_on_change`; `conflict` marks a
 * `delete.when` and a proposed `recreate.when` matched together (delete wins). `error` is a failed event or
 * resource (a required param, a precondition that cannot be evaluated, a manifest that does not render); a rule
 * whose evaluation fails is not an error but not matched, as the adapter's EvaluateSafe takes it, and is kept in
 * `ruleErrors`.
 */
import type { RuleError } from './adapter-event.js';
import type { CompiledResource } from './rules.js';

export const LIFECYCLE_DECISIONS = ['create', 'update', 'skip', 'delete', 'recreate', 'error'] as const;
export type LifecycleDecisionKind = (typeof LIFECYCLE_DECISIONS)[number];
export type RecreationTrigger = 'rule' | 'recreate_on_change';

export interface LifecycleDecision {
  readonly resource: CompiledResource;
  readonly decision: LifecycleDecisionKind;
  readonly reason: string;
  readonly conflict: boolean;
  readonly trigger?: RecreationTrigger;
  /** For `error`: what failed. */
  readonly error?: RuleError;
  /** Rule evaluations that failed and counted as not matched. */
  readonly ruleErrors: readonly RuleError[];
}
