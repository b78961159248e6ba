/**
 * Vega-Lite specs (charts.ts) to SVG strings, with no DOM, no canvas and no network. Only the HTML report loads this
 * module, and with it vega.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';

/**
 * Without a canvas (none in Node), vega sizes text at 0.8 em per character, about a third wider than real sans-serif
 * labels, which pushes legends and axes far apart. This per-character estimate (DejaVu Sans widths, the widest of
 * the common sans-serif fonts, so labels never overflow) keeps the layout tight.
 */
const NARROW = new Set("iljI.,:;|!'`");
const SEMI_NARROW = new Set('frt()[]{}-/ ');
const WIDE = new Set('mwMW%');
function estimateTextWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) {
    if (NARROW.has(ch)) em += 0.3;
    else if (SEMI_NARROW.has(ch)) em += 0.4;
    else if (WIDE.has(ch)) em += 0.95;
    else if (ch >= 'A' && ch <= 'Z') em += 0.75;
    else if (ch >= '0' && ch <= '9') em += 0.64;
    else em += 0.62;
  }
  return Math.ceil(em * fontSize);
}
interface TextItem {
  text?: string | number | readonly string[];
  fontSize?: number;
  limit?: number;
}
const metrics = (vega as unknown as { textMetrics: { width: (item: TextItem, text?: string | number) => number } }).textMetrics;
metrics.width = (item, text) => {
  const value = text ?? (Array.isArray(item.text) ? item.text.join(' ') : (item.text as string | number | undefined)) ?? '';
  const width = estimateTextWidth(String(value).trim(), item.fontSize ?? 11);
  // Called without text, vega wants the drawn (truncated) width of the item's own text.
  return text === undefined && item.limit !== undefined && item.limit > 0 ? Math.min(width, item.limit) : width;
};

/**
 * Starts the clip-path and gradient ids of the next SVGs from zero. Call once per document, then render its charts
 * one after another: ids stay unique within the document (inline SVGs share one id space) and the same report
 * renders to the same bytes.
 */
export function startSvgDocument(): void {
  vega.resetSVGDefIds();
}

/** Renders a Vega-Lite spec to a standalone SVG string (no DOM, no canvas, no network). */
export async function renderSvg(chartSpec: TopLevelSpec): Promise<string> {
  const logger = vega.logger(vega.Error);
  const view = new vega.View(vega.parse(vl.compile(chartSpec, { logger }).spec), { renderer: 'none', logger });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
