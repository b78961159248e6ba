/**
 * The decisions as text in each format `report` writes: JSON (docs/decisions.schema.json), Markdown to paste into a
 * review, or one self-contained HTML file (its renderer, and vega with it, loaded only for HTML). The `report` and
 * `merge` commands and the fleet's /report all render through this.
 */
import { decisionsJson } from '../../analyzer/decisions/json.js';
import type { DecisionReport } from '../../analyzer/decisions/decide.js';
import { reportDocument, type DocumentOptions } from './document.js';
import { renderMarkdown } from './markdown.js';

export type DecisionsFormat = 'html' | 'markdown' | 'json';
export const DECISIONS_FORMATS: readonly DecisionsFormat[] = ['html', 'markdown', 'json'];

export const DECISIONS_CONTENT_TYPES: Readonly<Record<DecisionsFormat, string>> = {
  html: 'text/html; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  json: 'application/json',
};

/** `extra`: top-level fields added to the JSON after the decisions' own (the fleet's `fleet`). */
export async function renderDecisions(
  report: DecisionReport,
  format: DecisionsFormat,
  options: DocumentOptions = {},
  extra: Readonly<Record<string, unknown>> = {},
): Promise<string> {
  if (format === 'json') return JSON.stringify({ ...decisionsJson(report), ...extra }, null, 2) + '\n';
  if (format === 'html') return (await import('./html.js')).renderHtml(reportDocument(report, options));
  return renderMarkdown(reportDocument(report, options));
}
