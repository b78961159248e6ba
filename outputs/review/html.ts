/**
 * The report as one self-contained HTML file: inline CSS, charts as inline SVG rendered at build time, no script and
 * no external reference, so it opens offline, in a CI artifact viewer or attached to a ticket.
 */
import { renderSvg, startSvgDocument } from './svg.js';
import type { Cell, Table } from '../../lib/table.js';
import type { ControllerDocument, ReportDocument, Section } from './document.js';

const STYLE = `
:root { --ink:#202124; --muted:#5f6368; --line:#dadce0; --bg:#f8f9fa; --good:#137333; --good-bg:#e6f4ea; --bad:#c5221f; --bad-bg:#fce8e6; --unknown:#b06000; --unknown-bg:#fef7e0; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--bg); }
main { max-width: 1320px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; font-weight: 600; }
h2 { font-size: 18px; margin: 36px 0 12px; font-weight: 600; }
h3 { font-size: 15px; margin: 28px 0 6px; font-weight: 600; }
p { margin: 6px 0; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eef0f2; padding: 0 4px; border-radius: 3px; }
.subtitle { color: var(--muted); margin: 0 0 20px; }
.verdict { border-radius: 10px; padding: 18px 22px; border: 1px solid; margin: 12px 0 16px; }
.verdict.ready { background: var(--good-bg); border-color: #a8dab5; }
.verdict.not-ready { background: var(--bad-bg); border-color: #f4b6b0; }
.verdict.inconclusive { background: var(--unknown-bg); border-color: #f6d47d; }
.verdict .status { display: inline-block; font-size: 24px; font-weight: 700; letter-spacing: .02em; text-transform: uppercase; margin-right: 10px; }
.verdict.ready .status { color: var(--good); } .verdict.not-ready .status { color: var(--bad); } .verdict.inconclusive .status { color: var(--unknown); }
.verdict .headline { font-size: 15px; }
.verdict ul { margin: 10px 0 0; padding-left: 20px; }
.verdict li { margin: 4px 0; }
.verdict .notes { color: var(--muted); margin-top: 10px; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 4px 24px; padding: 0; margin: 0 0 8px; list-style: none; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(540px, 1fr)); gap: 16px; margin-top: 16px; }
figure.chart { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px 10px; overflow-x: auto; }
figure.chart figcaption { margin-bottom: 8px; }
figure.chart figcaption b { display: block; font-size: 14px; }
figure.chart figcaption span { color: var(--muted); font-size: 12px; }
figure.chart svg { max-width: 100%; height: auto; }
.table-wrap { overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { padding: 5px 8px; text-align: left; vertical-align: top; border-bottom: 1px solid #eceff1; white-space: nowrap; }
td.wide { white-space: normal; min-width: 200px; }
th { background: #f1f3f4; font-weight: 600; white-space: nowrap; position: sticky; top: 0; }
tr:nth-child(even) td { background: #fbfbfc; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.tag { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 11.5px; font-weight: 600; white-space: nowrap; }
.tag.good { color: var(--good); background: var(--good-bg); } .tag.bad { color: var(--bad); background: var(--bad-bg); } .tag.unknown { color: var(--unknown); background: var(--unknown-bg); }
.intro { color: var(--muted); max-width: 980px; }
.none { color: var(--muted); font-style: italic; }
details { margin-top: 8px; } summary { cursor: pointer; color: var(--muted); }
footer { color: var(--muted); margin-top: 40px; font-size: 12px; }
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `code` spans in prose: the documents write them with backticks. */
function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function cell(c: Cell, numeric: boolean, wide: boolean): string {
  const cls = numeric ? ' class="num"' : wide ? ' class="wide"' : '';
  if (typeof c === 'string') return `<td${cls}>${escapeHtml(c)}</td>`;
  return `<td${cls}><span class="tag ${c.tone}">${escapeHtml(c.text)}</span></td>`;
}

function table(t: Table): string {
  if (t.rows.length === 0) return '<p class="none">none</p>';
  const head = t.head.map((h, i) => `<th${t.numeric.includes(i) ? ' class="num"' : ''}>${escapeHtml(h)}</th>`).join('');
  const rows = t.rows.map((r) => `<tr>${r.map((c, i) => cell(c, t.numeric.includes(i), t.wide?.includes(i) ?? false)).join('')}</tr>`).join('\n');
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table></div>`;
}

function section(s: Section): string {
  const rest = s.rest ? `<details><summary>${escapeHtml(s.rest.summary)}</summary>${table(s.rest.table)}</details>` : '';
  return `<section data-section="${escapeHtml(s.id)}"><h3>${escapeHtml(s.title)}</h3>${s.intro.map((p) => `<p class="intro">${prose(p)}</p>`).join('')}${table(s.table)}${rest}</section>`;
}

async function controller(c: ControllerDocument): Promise<string> {
  const v = c.verdict;
  const reasons = v.deciding.length === 0 ? '' : `<ul>${v.deciding.map((r) => `<li>${prose(r.message)}</li>`).join('')}</ul>`;
  const notes = v.notes.length === 0 ? '' : `<div class="notes">Also: <ul>${v.notes.map((r) => `<li>${prose(r.message)}</li>`).join('')}</ul></div>`;
  const charts: string[] = [];
  for (const ch of c.charts) {
    charts.push(
      `<figure class="chart" data-chart="${ch.id}"><figcaption><b>${escapeHtml(ch.title)}</b><span>${escapeHtml(ch.caption)}</span></figcaption>${await renderSvg(ch.spec)}</figure>`,
    );
  }
  return [
    `<article data-controller="${escapeHtml(c.id)}">`,
    `<h2>${escapeHtml(c.heading)}</h2>`,
    `<div class="verdict ${v.status}" data-verdict="${v.status}"><span class="status">${v.status}</span><span class="headline">${prose(v.headline)}</span>${reasons}${notes}</div>`,
    `<ul class="facts">${c.facts.map((f) => `<li>${prose(f)}</li>`).join('')}</ul>`,
    `<div class="charts">${charts.join('\n')}</div>`,
    ...c.sections.map(section),
    '</article>',
  ].join('\n');
}

export async function renderHtml(doc: ReportDocument): Promise<string> {
  startSvgDocument();
  const body: string[] = [];
  for (const c of doc.controllers) body.push(await controller(c));
  const input = doc.input.length === 0 ? '' : `<section data-section="input"><h3>Input</h3>${doc.input.map((f) => `<p>${prose(f)}</p>`).join('')}</section>`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(doc.title)}</title><style>${STYLE}</style></head>`,
    '<body><main>',
    `<h1>${escapeHtml(doc.title)}</h1>`,
    '<p class="subtitle">Is the phased reconcile loop safe to switch to? Verdict first, then the charts, then the evidence tables. docs/decisions.md explains every number.</p>',
    ...body,
    input,
    '<footer>Generated by reconcile-shadow report. Pair counts start from a healthy previous attempt of the same object; group failures count once per run of failing attempts.</footer>',
    '</main></body></html>',
    '',
  ].join('\n');
}
