/**
 * Test support: the `ReconciliationSucceeded` condition the HyperShift operator would set after an attempt of the
 * journal (README.md, "The journal and `analyze`"), with error texts written from the built-in model's Go formats (the
 * journal's own error strings are placeholders).
 * - no error: True / `ReconciliatonSucceeded` (sic) / `Reconciliation completed successfully`;
 * - sequential: False / `ReconciliationError` / the failing operation's error;
 * - phased: False / `ReconciliationError` / aggregate() (docs/status-source.md): a fail-fast step's error alone when
 *   it ended the attempt (an error the loop went on after is not returned: True if nothing else failed); with a
 *   critical failure `critical error: <aggregate of critical errors>; blocked operations: [sorted groups]`;
 *   otherwise the aggregate of all errors. apimachinery's aggregate flattens nested aggregates, deduplicates, and
 *   writes one message bare, several as `[m1, m2]`.
 */
import type { CompiledModel } from '../../../analyzer/compiled-model.js';
import { OUTCOME_CODE } from '../../../analyzer/compiled-model.js';
import { runPhased } from '../../../analyzer/loops.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { formatsIn } from '../../../model/effects.js';
import type { GroupStep, LoopKind } from '../../../model/types.js';

export interface OperatorCondition {
  readonly type: 'ReconciliationSucceeded';
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

export interface Expectation {
  readonly condition: OperatorCondition;
  /** Failing operations the text carries (phased critical: only the critical ones), in execution order. */
  readonly visibleFailures: readonly string[];
  /** Blockable groups the phased loop skipped because of a critical failure, sorted. */
  readonly blocked: readonly string[];
}

/** The text an operation's error has: its first Go format with the verbs filled in, or a callee's own text. */
/** The operation's first error text in `loop` (a format marked `only:` for the other loop is never that loop's). */
export function errorText(cm: CompiledModel, op: string, loop: LoopKind): string {
  const operation = cm.model.operations.find((o) => o.name === op);
  const format = operation ? formatsIn(operation, loop)[0]?.format : undefined;
  if (format === undefined) return `${op.toLowerCase()} callee failed: connection reset by peer`;
  return format.replace(/%[wvsqd]/g, (verb) => (verb === '%q' ? '"item"' : verb === '%d' ? '7' : verb === '%w' ? 'secrets "x" not found' : 'item'));
}

function aggregate(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

export function operatorCondition(cm: CompiledModel, attempt: AttemptRecord): Expectation {
  const failures = attempt.operations.filter((o) => o.outcome === 'error').map((o) => o.name);
  if (failures.length === 0) {
    return {
      condition: { type: 'ReconciliationSucceeded', status: 'True', reason: 'ReconciliatonSucceeded', message: 'Reconciliation completed successfully' },
      visibleFailures: [],
      blocked: [],
    };
  }
  const fail = (message: string, visibleFailures: readonly string[], blocked: readonly string[] = []): Expectation => ({
    condition: { type: 'ReconciliationSucceeded', status: 'False', reason: 'ReconciliationError', message },
    visibleFailures,
    blocked,
  });
  if (attempt.loop === 'sequential') return fail(errorText(cm, failures[0]!, 'sequential'), [failures[0]!]);

  const groupOf = new Map(cm.model.phased.filter((s): s is GroupStep => s.kind === 'group').flatMap((g) => g.ops.map((op) => [op, g] as const)));
  // A fail-fast step's error is returned alone when it ended the attempt; one the loop went on after is not returned.
  const last = attempt.operations.at(-1)!.name;
  if (!groupOf.has(last) && failures.includes(last)) return fail(errorText(cm, last, 'phased'), [last]);
  const returned = failures.filter((op) => groupOf.has(op));
  if (returned.length === 0)
    return {
      condition: { type: 'ReconciliationSucceeded', status: 'True', reason: 'ReconciliatonSucceeded', message: 'Reconciliation completed successfully' },
      visibleFailures: [],
      blocked: [],
    };
  const critical = returned.filter((op) => groupOf.get(op)?.category === 'critical');
  if (critical.length === 0) return fail(aggregate(returned.map((op) => errorText(cm, op, 'phased'))), returned);

  const outcomes = new Uint8Array(cm.ops.length);
  for (const o of attempt.operations) outcomes[cm.opIndex.get(o.name)!] = OUTCOME_CODE[o.outcome];
  const blocked = [...new Set(runPhased(cm, outcomes).blockedBy.map(([, g]) => cm.groups[g]!.name))].sort();
  const suffix = blocked.length > 0 ? `; blocked operations: [${blocked.join(', ')}]` : '';
  return fail(`critical error: ${aggregate(critical.map((op) => errorText(cm, op, 'phased')))}${suffix}`, critical, blocked);
}
