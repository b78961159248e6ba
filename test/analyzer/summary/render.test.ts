/**
 * The Markdown report pasted into a review: each table must stay one table. In GitHub's Markdown a line right after a
 * table's last row, without a blank line between, is one more row of that table (the "... and 95 more pairs" note
 * used to be), and a second table right after the first becomes rows of the first.
 */
import assert from 'node:assert/strict';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { renderSummary } from '../../../analyzer/summary/render.js';
import { parseAttemptLine, formatAttemptLine } from '../../../collector/journal/format.js';
import { resolveModel } from '../../../sidecar/files.js';
import { World } from '../../../simulator/world.js';

/** Each line that directly follows a table's last row without a blank line between, as `line N: text`. */
function linesGluedToTables(markdown: string): string[] {
  const lines = markdown.split('\n');
  const glued: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const after = lines[i]!;
    if (lines[i - 1]!.startsWith('|') && !after.startsWith('|') && after.trim() !== '') glued.push(`line ${i + 1}: ${after}`);
  }
  return glued;
}

describe('analyzer/summary/render: Markdown', function () {
  this.timeout(30_000);
  it('a mixed HyperShift fleet with more reordered pairs than shown, and a rejected line: every table stands alone', () => {
    const model = resolveModel('hypershift-hostedcluster');
    const analyzer = new Analyzer([model]);
    const knownOperations = analyzer.controllers[0]!.knownOperations;
    let lineNo = 0;
    for (const record of new World({ model, objects: 10, durationMs: 6 * 3_600_000, seed: 3, observe: 'mixed' }).attempts()) {
      const parsed = parseAttemptLine(formatAttemptLine(record), ++lineNo, { file: 'world.jsonl', knownOperations });
      if (parsed.ok) analyzer.attempt(parsed.record);
    }
    const bad = parseAttemptLine('not json', lineNo + 1, { file: 'world.jsonl' });
    if (!bad.ok) analyzer.reject(bad.rejection);
    const report = analyzer.summary();
    const pairs = report.controllers[0]!.reorderedPairs.length;
    assert.ok(pairs > 15, `${pairs} reordered pairs: more than the 15 shown`);

    const markdown = renderSummary(report, 'markdown');
    assert.deepEqual(linesGluedToTables(markdown), []);
    assert.ok(markdown.includes(`\n\n_… and ${pairs - 15} more pairs (see \`--format json\`)_\n`), 'the note is a paragraph of its own');
    assert.ok(markdown.includes('| invalid_json | 1 |\n\n'), 'the rejection counts and the sample are two tables');
    assert.ok(renderSummary(report, 'table').includes(`  ... and ${pairs - 15} more pairs (see --format json)\n`));
  });

  it('the checker itself finds a note glued to a table', () => {
    assert.deepEqual(linesGluedToTables('| a |\n|---|\n| 1 |\n... and 3 more\n\n| b |\n|---|\n'), ['line 4: ... and 3 more']);
  });
});
