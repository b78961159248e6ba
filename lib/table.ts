/**
 * One table model and its text writers, for every table the project prints: the summary (`analyze`), the decisions'
 * review document (`report`; its HTML writer is outputs/review/html.ts), the recreation rows (`recreations`) and the
 * benchmarks. Markdown pastes into a pull-request review; plain text is for a terminal, columns padded to their
 * widest cell.
 */

/** How a cell is marked: `bad` stands out (bold in Markdown, a red tag in HTML); plain text drops the mark. */
export type Tone = 'bad' | 'good' | 'unknown';
export type Cell = string | { readonly text: string; readonly tone: Tone };

export interface Table {
  readonly head: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  /** Right-aligned (numeric) columns. */
  readonly numeric: readonly number[];
  /** Columns of prose that may wrap (the others stay on one line); only HTML wraps. */
  readonly wide?: readonly number[];
}

const textOf = (c: Cell): string => (typeof c === 'string' ? c : c.text);

/**
 * A GitHub-flavoured Markdown table; an empty one is `_none_`. A cell's `|` is escaped and a line break becomes a
 * space, since either would end the cell or the row.
 */
export function markdownTable(t: Table): string {
  if (t.rows.length === 0) return '_none_\n';
  const text = (c: Cell): string => {
    const s = typeof c !== 'string' && c.tone === 'bad' ? `**${c.text}**` : textOf(c);
    return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  };
  const line = (cells: readonly Cell[]): string => `| ${cells.map(text).join(' | ')} |`;
  const rule = t.head.map((_, i) => (t.numeric.includes(i) ? '---:' : '---'));
  return [line(t.head), `|${rule.join('|')}|`, ...t.rows.map(line)].join('\n') + '\n';
}

export interface PlainOptions {
  /** Written before every line (the summary indents its tables under their headings). */
  readonly indent?: string;
  /** A line of dashes under the head. */
  readonly rule?: boolean;
  /** What an empty table is written as; absent: its head alone. */
  readonly none?: string;
}

/** A plain-text table: columns two spaces apart, each as wide as its widest cell, numeric ones right-aligned. */
export function plainTable(t: Table, options: PlainOptions = {}): string {
  const { indent = '', rule = false, none } = options;
  if (t.rows.length === 0 && none !== undefined) return `${indent}${none}\n`;
  const rows = t.rows.map((r) => r.map(textOf));
  const widths = t.head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    indent +
    cells
      .map((c, i) => (t.numeric.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(t.head), ...(rule ? [line(widths.map((w) => '-'.repeat(w)))] : []), ...rows.map(line)].join('\n') + '\n';
}
