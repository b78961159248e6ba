/**
 * The lifecycle decision (what the adapter would do: the CEL rules' outcome; not the rollout verdict of
 * analyzer/decisions/) for one resource of one cluster, in the order the recreation design fixes:
 *   1. `lifecycle.delete.when` — true: `delete` (`recreate.when` is still evaluated, for counting only: both true is a
 *      `conflict`, and delete wins);
 *   2. `lifecycle.recreate.when` — true: `recreate` (trigger `rule`);
 *   3. the generation-aware apply: absent → `create` (unless `lifecycle.create.when` is false: `skip`); the
 *      `hyperfleet.io/generation` annotation equal to the desired one → `skip`; different → `update`, or `recreate`
 *      with `recreate_on_change` (trigger `recreate_on_change`).
 * A rule that fails to evaluate, or returns something other than a bool, makes the decision `error`, never false.
 */
import { GENERATION_ANNOTATION, type ManagedObject } from '../../collector/objects/observation.js';
import type { CompiledExpression } from './cel.js';
import type { ClusterContext, CompiledResource, RuleError } from './rules.js';

export const LIFECYCLE_DECISIONS = ['create', 'update', 'skip', 'delete', 'recreate', 'error'] as const;
export type LifecycleDecisionKind = (typeof LIFECYCLE_DECISIONS)[number];
export type RecreationTrigger = 'rule' | 'recreate_on_change';

export interface LifecycleDecision {
  readonly resource: CompiledResource;
  readonly decision: LifecycleDecisionKind;
  /** delete.when and recreate.when were both true (the decision is `delete`). */
  readonly conflict: boolean;
  readonly trigger?: RecreationTrigger;
  readonly error?: RuleError;
}

export interface LifecycleDecisionInput {
  readonly resource: CompiledResource;
  readonly ctx: ClusterContext;
  /** `resources.<name>` for every resource of the cluster: CEL values, absent resources absent. */
  readonly resources: Readonly<Record<string, unknown>>;
  /** The current object of this resource, when present. */
  readonly object?: Pick<ManagedObject, 'annotations'>;
  /** The generation the adapter would stamp on the object now. */
  readonly desiredGeneration: string;
}

type Gate = { ok: true; value: boolean } | { ok: false; error: RuleError };

function gate(rule: CompiledExpression, name: string, context: Readonly<Record<string, unknown>>): Gate {
  const r = rule.evaluate(context);
  if (!r.ok) return { ok: false, error: { rule: name, reason: r.reason, message: r.message } };
  if (typeof r.value !== 'boolean') return { ok: false, error: { rule: name, reason: 'not_bool', message: `returned ${describe(r.value)}, not a bool` } };
  return { ok: true, value: r.value };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return 'int';
  return Array.isArray(v) ? 'list' : typeof v;
}

export function decideLifecycle(input: LifecycleDecisionInput): LifecycleDecision {
  const { resource, ctx } = input;
  const base = { resource, conflict: false };
  if (ctx.error) return { ...base, decision: 'error', error: ctx.error };
  if (!ctx.preconditionsMet) return { ...base, decision: 'skip' };
  const context = { ...ctx.values, resources: input.resources };

  if (resource.deleteWhen) {
    const del = gate(resource.deleteWhen, 'lifecycle.delete.when', context);
    if (!del.ok) return { ...base, decision: 'error', error: del.error };
    if (del.value) {
      const rec = resource.recreateWhen ? gate(resource.recreateWhen, 'lifecycle.recreate.when', context) : undefined;
      return { ...base, decision: 'delete', conflict: rec?.ok === true && rec.value };
    }
  }
  if (resource.recreateWhen) {
    const rec = gate(resource.recreateWhen, 'lifecycle.recreate.when', context);
    if (!rec.ok) return { ...base, decision: 'error', error: rec.error };
    if (rec.value) return { ...base, decision: 'recreate', trigger: 'rule' };
  }
  const object = input.object;
  if (!object) {
    if (!resource.createWhen) return { ...base, decision: 'create' };
    const create = gate(resource.createWhen, 'lifecycle.create.when', context);
    if (!create.ok) return { ...base, decision: 'error', error: create.error };
    return { ...base, decision: create.value ? 'create' : 'skip' };
  }
  if (object.annotations[GENERATION_ANNOTATION] === input.desiredGeneration) return { ...base, decision: 'skip' };
  return resource.spec.recreateOnChange ? { ...base, decision: 'recreate', trigger: 'recreate_on_change' } : { ...base, decision: 'update' };
}
