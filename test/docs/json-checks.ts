/**
 * How a JSON block of the docs is checked: journal lines through the journal parsers (an attempt journal line against
 * the built-in model's operations, an observation journal line as `recreations` reads it), and rows a command prints
 * (`<!-- doc-check: recreations --format jsonl -->`) against rows it really printed for the contract case.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAttemptLine } from '../../collector/journal/format.js';
import { parseObservationLine } from '../../collector/objects/journal.js';
import { isRecord } from '../../lib/is-record.js';
import { resolveModel } from '../../sidecar/files.js';
import { REPO } from '../support/paths.js';
import type { CodeBlock } from './markdown-blocks.js';

export function checkJsonBlock(block: CodeBlock): void {
  const lines = block.text.trim().split('\n');
  const at = (i: number): string => `${block.file}:${block.line + 1 + i}`;
  if (block.marker?.kind === 'doc-check') {
    assert.equal(block.marker.what, 'recreations --format jsonl', `${at(-1)}: unknown doc-check "${block.marker.what}" for JSON`);
    return checkRecreationRows(lines, at);
  }
  lines.forEach((line, i) => {
    const value: unknown = JSON.parse(line);
    assert.ok(isRecord(value), `${at(i)}: not a JSON object`);
    if ('controller' in value && 'operations' in value) {
      const known = new Set(resolveModel('hypershift-hostedcluster').operations.map((o) => o.name));
      const parsed = parseAttemptLine(line, i + 1, { file: block.file, knownOperations: known });
      assert.ok(parsed.ok, `${at(i)}: ${parsed.ok ? '' : parsed.rejection.message}`);
    } else if (value.type === 'object' || value.type === 'cluster') {
      const parsed = parseObservationLine(line, i + 1, block.file);
      assert.ok(parsed.ok, `${at(i)}: ${parsed.ok ? '' : parsed.rejection.message}`);
    } else assert.fail(`${at(i)}: neither an attempt nor an observation journal line: mark the block <!-- doc-check: ... --> or <!-- not-run: why -->`);
  });
}

/** Each row has exactly the fields, in order, of a row `recreations --format jsonl` printed with the same `finished`. */
function checkRecreationRows(lines: readonly string[], at: (i: number) => string): void {
  const real = readFileSync(join(REPO, 'test/fixtures/contract/recreations/expected.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  lines.forEach((line, i) => {
    const row = JSON.parse(line) as Record<string, unknown>;
    const shapes = real.filter((r) => r.finished === row.finished).map((r) => Object.keys(r).join(','));
    assert.ok(shapes.includes(Object.keys(row).join(',')), `${at(i)}: fields ${Object.keys(row).join(',')} are no row's (${[...new Set(shapes)].join(' | ')})`);
  });
}
