/**
 * The one line a command prints, with exit code 5, when its input gave it nothing to analyse: an empty file, or lines
 * that were all rejected (most often a journal of another model). A summary full of zeros would look like a result.
 */
import type { Summary } from '../analyzer/summary/types.js';

const count = (n: number): string => n.toLocaleString('en-US');

/** Why nothing was analysed, or undefined when at least one attempt was. `input` names the file (`-`: stdin). */
export function nothingAnalysed(summary: Summary, input: string): string | undefined {
  if (summary.controllers.some((c) => c.attempts.total > 0)) return undefined;
  const { rejected, rejectedByReason } = summary.input;
  const received = Object.values(summary.input.received).reduce((a, b) => a + (b ?? 0), 0);
  const name = input === '-' ? 'stdin' : input;
  if (received === 0 && rejected === 0) return `nothing analysed: ${name} holds no attempt`;
  const reasons = Object.entries(rejectedByReason)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([reason, n]) => `${reason} ${count(n)}`)
    .join(', ');
  const modelHint = Object.keys(rejectedByReason).every((r) => r === 'unknown_operation' || r === 'unknown_controller')
    ? ': is --model the model of this operator?'
    : '';
  if (received > 0 && rejected >= received) return `nothing analysed: all ${count(received)} lines of ${name} were rejected (${reasons})${modelHint}`;
  return `nothing analysed: no line of ${name} became an attempt${rejected > 0 ? ` (${count(rejected)} rejected: ${reasons})` : ''}`;
}
