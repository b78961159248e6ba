/** lib/table.ts: the one table model, written as Markdown and as plain text, byte for byte. */
import assert from 'node:assert/strict';
import { markdownTable, plainTable, type Table } from '../../lib/table.js';

const TABLE: Table = {
  head: ['operation', 'attempts', 'note'],
  numeric: [1],
  rows: [
    ['ReleaseImageVersion', '7', 'a | b'],
    ['SecretEncryptionSync', '1234', { text: 'failing', tone: 'bad' }],
    ['Infra', '12', { text: 'fine', tone: 'good' }],
  ],
};
const EMPTY: Table = { head: ['blocker', 'blocked', 'attempts'], numeric: [2], rows: [] };

describe('lib/table', function () {
  describe('markdownTable', function () {
    it('escapes pipes, right-aligns numeric columns, bolds a bad cell and keeps every row on one line', () => {
      assert.equal(
        markdownTable(TABLE),
        [
          '| operation | attempts | note |',
          '|---|---:|---|',
          '| ReleaseImageVersion | 7 | a \\| b |',
          '| SecretEncryptionSync | 1234 | **failing** |',
          '| Infra | 12 | fine |',
          '',
        ].join('\n'),
      );
      assert.equal(
        markdownTable({ head: ['where', 'message'], numeric: [], rows: [['line 3', 'first\nsecond']] }),
        '| where | message |\n|---|---|\n| line 3 | first second |\n',
      );
    });

    it('writes an empty table as _none_', () => {
      assert.equal(markdownTable(EMPTY), '_none_\n');
    });
  });

  describe('plainTable', function () {
    it('pads each column to its widest cell, numeric ones on the left, and trims the end of each line', () => {
      assert.equal(
        plainTable(TABLE),
        [
          'operation             attempts  note',
          'ReleaseImageVersion          7  a | b',
          'SecretEncryptionSync      1234  failing',
          'Infra                       12  fine',
          '',
        ].join('\n'),
      );
    });

    it('indents every line and rules the head when asked', () => {
      assert.equal(
        plainTable({ head: ['reason', 'count'], numeric: [1], rows: [['unknown_operation', '3']] }, { indent: '  ', rule: true }),
        '  reason             count\n  -----------------  -----\n  unknown_operation      3\n',
      );
    });

    it('writes an empty table as its head, or as `none` when given', () => {
      assert.equal(plainTable(EMPTY), 'blocker  blocked  attempts\n');
      assert.equal(plainTable(EMPTY, { rule: true }), 'blocker  blocked  attempts\n-------  -------  --------\n');
      assert.equal(plainTable(EMPTY, { indent: '  ', rule: true, none: '(none)' }), '  (none)\n');
    });
  });
});
