/**
 * Renders the summary for people: `table` for a terminal, `markdown` to paste into a pull-request review.
 * Both show the same sections in the same order; only the table syntax differs.
 */
import { formatDuration } from '../../lib/duration.js';
import { markdownTable, plainTable, type Table } from '../../lib/table.js';
import type { ControllerSummary, OperationSummary, Summary } from './types.js';

export type TextFormat = 'table' | 'markdown';
const MAX_REORDERED_ROWS = 15;

/** Markdown, or for a terminal indented under its heading with a rule under the head. */
function renderTable(t: Table, format: TextFormat): string {
  return format === 'markdown' ? markdownTable(t) : plainTable(t, { indent: '  ', rule: true, none: '(none)' });
}

const percent = (rate: number | null): string => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);

function heading(text: string, format: TextFormat, level: 2 | 3): string {
  return format === 'markdown' ? `${'#'.repeat(level)} ${text}\n\n` : `${level === 2 ? '==' : '--'} ${text}\n`;
}

/** How the operations table words its numbers: plain here, with the decisions' wording in the review document. */
export interface NumberWords {
  readonly count: (n: number) => string;
  readonly percent: (rate: number | null) => string;
}

/** The operations that ran or would have, one row each: the summary's table, and the review document's too. */
export function operationsTable(ops: readonly OperationSummary[], words: NumberWords = { count: String, percent }): Table {
  const { count } = words;
  const active = ops.filter((o) => o.observed > 0 || o.unblocked > 0 || o.newlyBlocked > 0);
  return {
    head: ['operation', 'group', 'observed', 'failures', 'failure rate', 'unblocked', 'newly blocked', 'predicted', 'top blockers', 'longest starvation'],
    numeric: [2, 3, 4, 5, 6, 7, 9],
    rows: active.map((o) => [
      o.name,
      o.group ?? (o.category === 'sequentialOnly' ? '(sequential only)' : '(fail-fast)'),
      count(o.observed),
      count(o.outcomes.error),
      words.percent(o.failureRate),
      count(o.unblocked),
      count(o.newlyBlocked),
      count(o.predicted),
      o.topBlockers.map((b) => `${b.blocker} (${count(b.count)})`).join(', ') || '-',
      o.longestStarvationSeconds > 0 ? formatDuration(o.longestStarvationSeconds) : '-',
    ]),
  };
}

function controllerSection(s: ControllerSummary, format: TextFormat): string {
  const a = s.attempts;
  const out: string[] = [];
  out.push(heading(`${s.controller} (model ${s.model})`, format, 2));
  const partial =
    (a.partial > 0 ? `; ${a.partial} seen only in part, so counts from them are lower bounds` : '') +
    (a.estimate === undefined ? '' : `; ${a.sampled} analyzed from sampled traces: ${a.estimate}`);
  const facts = [
    `attempts: ${a.total} (sequential ${a.byObservedLoop.sequential}, phased ${a.byObservedLoop.phased})${partial}`,
    `diverged: ${a.diverged} (${percent(a.divergenceRate)} of attempts)` +
      (a.structural > 0 ? `; besides, ${a.structural} ran an operation that exists in one loop alone (structural, not divergence)` : ''),
    `objects: ${s.objects}`,
    `window: ${s.window.first ?? '-'} .. ${s.window.last ?? '-'} (${formatDuration(s.window.seconds)})`,
    ...(s.operatorBuild ? [`operator build: ${s.operatorBuild.name}${s.operatorBuild.statement === null ? '' : ` (${s.operatorBuild.statement})`}`] : []),
  ];
  out.push(facts.map((f) => (format === 'markdown' ? `- ${f}` : `  ${f}`)).join('\n') + '\n\n');
  out.push(heading('Operations', format, 3));
  out.push(renderTable(operationsTable(s.operations), format));
  out.push(format === 'markdown' ? '\n_predicted_: attempts where the op’s own outcome was predicted from history, not observed.\n\n' : '\n');
  out.push(heading('Blocked by (phased loop: failed critical group -> skipped blockable group)', format, 3));
  out.push(
    renderTable({ head: ['blocker', 'blocked', 'attempts'], numeric: [2], rows: s.blockedBy.map((b) => [b.blocker, b.blocked, String(b.count)]) }, format),
  );
  out.push('\n');
  out.push(heading('Reordered pairs (both loops ran both ops, in a different order)', format, 3));
  const pairs = s.reorderedPairs.slice(0, MAX_REORDERED_ROWS);
  out.push(renderTable({ head: ['sequential first', 'then', 'attempts'], numeric: [2], rows: pairs.map((p) => [p.first, p.second, String(p.count)]) }, format));
  const more = s.reorderedPairs.length - pairs.length;
  // In Markdown a line right after a table is one more row of it: the note needs a blank line before it.
  if (more > 0)
    out.push(format === 'markdown' ? `\n_… and ${more} more pairs (see \`--format json\`)_\n` : `  ... and ${more} more pairs (see --format json)\n`);
  return out.join('');
}

export function renderSummary(summary: Summary, format: TextFormat): string {
  const out = summary.controllers.map((s) => controllerSection(s, format));
  const input = summary.input;
  if (input.rejected > 0) {
    out.push('\n' + heading(`Rejected input: ${input.rejected}`, format, 3));
    out.push(renderTable({ head: ['reason', 'count'], numeric: [1], rows: Object.entries(input.rejectedByReason).map(([r, n]) => [r, String(n)]) }, format));
    if (format === 'markdown') out.push('\n');
    out.push(
      renderTable({ head: ['where', 'reason', 'message'], numeric: [], rows: input.rejectionSample.map((r) => [r.where, r.reason, r.message]) }, format),
    );
  }
  return out.join('\n');
}
