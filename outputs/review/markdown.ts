/**
 * The same report document as Markdown, to paste into a pull-request review: verdict, facts, charts and every table
 * in the HTML report's order. A chart with a text form (the per-loop comparison) is drawn as fixed-width bars; the
 * others are pictures of the tables' numbers and are named as in the HTML report.
 */
import { markdownTable } from '../../lib/table.js';
import type { ControllerDocument, ReportDocument, Section } from './document.js';

const STATUS_MARK: Record<string, string> = { ready: '✅', 'not-ready': '❌', inconclusive: '⚠️' };

function section(s: Section): string {
  const out = [`### ${s.title}\n`, ...s.intro.map((p) => `${p}\n`), markdownTable(s.table)];
  if (s.rest) out.push(`\n_${s.rest.summary}: see the HTML report._\n`);
  return out.join('\n');
}

function controller(c: ControllerDocument): string {
  const v = c.verdict;
  const out = [`## ${c.heading}\n`, `**${STATUS_MARK[v.status]} ${v.status.toUpperCase()}**: ${v.headline}\n`];
  if (v.deciding.length > 0) out.push(v.deciding.map((r) => `- ${r.message}`).join('\n') + '\n');
  if (v.notes.length > 0) out.push('Also:\n\n' + v.notes.map((r) => `- ${r.message}`).join('\n') + '\n');
  out.push(c.facts.map((f) => `- ${f}`).join('\n') + '\n');
  for (const ch of c.charts.filter((x) => x.text)) out.push(`**${ch.title}**: ${ch.caption}\n\n\`\`\`text\n${ch.text!.join('\n')}\n\`\`\`\n`);
  const pictures = c.charts.filter((x) => !x.text);
  if (pictures.length > 0) out.push(`_More charts (${pictures.map((ch) => ch.title.toLowerCase()).join('; ')}) are in the HTML report (\`--format html\`)._\n`);
  out.push(...c.sections.map(section));
  return out.join('\n');
}

export function renderMarkdown(doc: ReportDocument): string {
  const out = [`# ${doc.title}\n`, ...doc.controllers.map(controller)];
  if (doc.input.length > 0) out.push('### Input\n', ...doc.input.map((f) => `${f}\n`));
  return out.join('\n');
}
