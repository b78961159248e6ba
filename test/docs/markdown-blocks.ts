/**
 * The fenced code blocks of a Markdown file, each with where it starts and the check comment written before it:
 *
 *   <!-- doc-check: ShadowConfig at sources.logs -->     how to check a block that does not say what it is
 *   <!-- not-run: a synopsis, not a command -->          a block deliberately not checked; the reason is required
 *
 * The comment is the last non-blank line before the fence.
 */
export interface CodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's info string (`sh`, `yaml`, ...), empty when none. */
  readonly lang: string;
  readonly text: string;
  readonly marker?: Marker;
}

export type Marker = { readonly kind: 'doc-check'; readonly what: string } | { readonly kind: 'not-run'; readonly why: string };

const MARKER = /^<!--\s*(doc-check|not-run):(.*?)-->$/;

export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence) && l.trim() === fence);
    if (end < 0) throw new Error(`${file}:${i + 1}: a code fence that is never closed`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const found = before >= 0 ? MARKER.exec(lines[before]!.trim()) : null;
    const marker: Marker | undefined = !found
      ? undefined
      : found[1] === 'not-run'
        ? { kind: 'not-run', why: found[2]!.trim() }
        : { kind: 'doc-check', what: found[2]!.trim() };
    blocks.push({ file, line: i + 1, lang: open[2]!, text: lines.slice(i + 1, end).join('\n') + '\n', ...(marker ? { marker } : {}) });
    i = end;
  }
  return blocks;
}
