/**
 * What `reconcile-shadow recreations --dry-run-event` prints: per resource, what the adapter would do on the event
 * and why, beside what upstream's own dry run reports (its in-memory client never compares generations), and the
 * event's params, preconditions and failures. `jsonl` has one row per resource; `json` adds the event; `table` is
 * for people.
 */
import { plainTable } from '../../lib/table.js';
import { goText } from './go-template.js';
import type { EventOutcome, ResourceOutcome, RuleError } from './adapter-event.js';

export interface DryRunRow {
  resource: string;
  transport: string;
  kind: string | null;
  namespace: string | null;
  name: string | null;
  decision: string;
  trigger: string | null;
  conflict: boolean;
  reason: string;
  /** What upstream's dry run would print for the resource. */
  upstreamDryRun: string | null;
  ruleErrors: { rule: string; reason: string; message: string }[];
}

const err = (e: RuleError): { rule: string; reason: string; message: string } => ({ rule: e.rule, reason: e.reason, message: e.message });

export function dryRunRow(o: ResourceOutcome): DryRunRow {
  return {
    resource: o.resource.name,
    transport: o.resource.transport,
    kind: o.target?.kind ?? o.resource.kind ?? null,
    namespace: o.target ? o.target.namespace : null,
    name: o.target ? o.target.name : null,
    decision: o.decision,
    trigger: o.trigger ?? null,
    conflict: o.conflict,
    reason: o.reason,
    upstreamDryRun: o.dryRun ?? (o.decision === 'skip' || o.decision === 'error' ? o.decision : null),
    ruleErrors: o.errors.map(err),
  };
}

export function dryRunJson(outcome: EventOutcome): Record<string, unknown> {
  return {
    event: {
      status: outcome.status,
      skipped: outcome.skipped ?? null,
      failure: outcome.failure ? { phase: outcome.failure.phase, ...err(outcome.failure.error) } : null,
      preconditions: outcome.preconditions.map((p) => ({ name: p.name, matched: p.matched, ruleErrors: p.errors.map(err) })),
      discovered: outcome.discovered,
      params: Object.fromEntries(
        Object.entries(outcome.params)
          .filter(([k]) => !['adapter', 'config', 'env', 'event'].includes(k))
          .map(([k, v]) => [k, jsonValue(v)]),
      ),
    },
    resources: outcome.resources.map(dryRunRow),
  };
}

function jsonValue(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v ?? null, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x))) as unknown;
}

export function renderDryRunTable(outcome: EventOutcome): string {
  const rows = outcome.resources.map(dryRunRow);
  const header = ['RESOURCE', 'OBJECT', 'DECISION', 'UPSTREAM-DRY-RUN', 'WHY'];
  const cells = rows.map((r) => [
    r.resource,
    r.kind === null ? '-' : `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? ''}`.trim(),
    `${r.decision}${r.trigger ? ` (${r.trigger})` : ''}${r.conflict ? ' conflict' : ''}`,
    r.upstreamDryRun ?? '-',
    r.reason,
  ]);
  const out = [plainTable({ head: header, rows: cells, numeric: [] })];
  out.push(
    `event: ${outcome.status}${outcome.skipped ? `, resources skipped: ${outcome.skipped}` : ''}${outcome.failure ? `, failed in ${outcome.failure.phase}: ${outcome.failure.error.rule}: ${outcome.failure.error.message}` : ''}`,
  );
  for (const p of outcome.preconditions) out.push(`precondition ${p.name}: ${p.matched ? 'met' : 'not met'}`);
  if (outcome.discovered.length > 0) out.push(`resources after the event: ${outcome.discovered.join(', ')}`);
  for (const p of outcome.preconditions)
    for (const e of p.errors) out.push(`rule error (not matched): precondition ${p.name}: ${e.rule}: ${e.reason}: ${e.message}`);
  for (const r of rows)
    for (const e of r.decision === 'error' ? r.ruleErrors.slice(0, -1) : r.ruleErrors)
      out.push(`rule error (not matched): resource ${r.resource} ${e.rule}: ${e.reason}: ${e.message}`);
  const params = Object.entries(outcome.params).filter(([k]) => !['adapter', 'config', 'env', 'event'].includes(k));
  if (params.length > 0) out.push(`params: ${params.map(([k, v]) => `${k}=${short(v)}`).join(' ')}`);
  return out.join('\n') + '\n';
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : goText(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}
