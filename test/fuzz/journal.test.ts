/** Property: no journal line, however broken, escapes as an exception; each is a record or a bounded rejection. */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { parseAttemptLine } from '../../collector/journal/format.js';
import { LineSplitter } from '../../collector/input/lines.js';
import { REJECT_REASONS } from '../../collector/records.js';
import { FUZZ_RUNS } from './runs.js';

const known = new Set(['GetHCP', 'SSHKeySync']);
const validLine = JSON.stringify({
  time: '2026-11-29T10:00:00Z',
  controller: 'hostedcluster',
  object: 'clusters/a',
  generation: 3,
  model: 'sequential',
  operations: [
    { name: 'GetHCP', outcome: 'ok' },
    { name: 'SSHKeySync', outcome: 'error', error: 'boom' },
  ],
});

/** Journal-shaped values with every field sometimes wrong. */
const attemptish = fc.record(
  {
    time: fc.oneof(fc.constant('2026-11-29T10:00:00Z'), fc.string(), fc.integer(), fc.constant(null)),
    controller: fc.oneof(fc.constant('hostedcluster'), fc.string(), fc.array(fc.string())),
    object: fc.oneof(fc.constant('clusters/a'), fc.string(), fc.double()),
    generation: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.string()),
    model: fc.oneof(fc.constantFrom('sequential', 'phased'), fc.string()),
    operations: fc.oneof(
      fc.array(
        fc.record(
          {
            name: fc.oneof(fc.constantFrom('GetHCP', 'SSHKeySync'), fc.string()),
            outcome: fc.oneof(fc.constantFrom('ok', 'error', 'stop', 'skip'), fc.string()),
            error: fc.oneof(fc.string(), fc.integer()),
            durationSeconds: fc.oneof(fc.double(), fc.string()),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 8 },
      ),
      fc.anything(),
    ),
  },
  { requiredKeys: [] },
);

function checkLine(text: string): void {
  const parsed = parseAttemptLine(text, 7, { file: 'j.jsonl', knownOperations: known });
  if (parsed.ok) {
    assert.equal(typeof parsed.record.timeMs, 'number');
    assert.ok(parsed.record.operations.every((o) => known.has(o.name)));
  } else {
    assert.ok((REJECT_REASONS as readonly string[]).includes(parsed.rejection.reason), parsed.rejection.reason);
    assert.equal(parsed.rejection.where, 'j.jsonl:7');
    assert.ok(parsed.rejection.message.length > 0);
  }
}

describe('fuzz: journal lines', function () {
  // each property runs FUZZ_RUNS generated cases
  this.timeout(60_000);
  it('arbitrary text', () => fc.assert(fc.property(fc.string({ unit: 'binary' }), checkLine), { numRuns: FUZZ_RUNS }));
  it('arbitrary JSON', () => fc.assert(fc.property(fc.json(), checkLine), { numRuns: FUZZ_RUNS }));
  it('journal-shaped values with wrong types', () =>
    fc.assert(
      fc.property(attemptish, (v) => checkLine(JSON.stringify(v))),
      { numRuns: FUZZ_RUNS },
    ));
  it('a valid line truncated or with a byte replaced', () =>
    fc.assert(
      fc.property(fc.nat(validLine.length), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        checkLine(validLine.slice(0, at));
        checkLine(validLine.slice(0, at) + String.fromCharCode(byte) + validLine.slice(at + 1));
      }),
      { numRuns: FUZZ_RUNS },
    ));
  it('the line splitter hands on every line, whole or refused as too long, whatever the chunking', () =>
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 5 }),
        (lines, cuts) => {
          const text = Buffer.from(lines.map((l) => l.replace(/\n/g, ' ')).join('\n'));
          const got: string[] = [];
          let tooLong = 0;
          const splitter = new LineSplitter({ line: (t) => got.push(t), tooLong: () => tooLong++ }, 32);
          let at = 0;
          for (let i = 0; at < text.length; i++) {
            const n = cuts[i % cuts.length]!;
            splitter.push(text.subarray(at, at + n));
            at += n;
          }
          splitter.end();
          // A trailing newline ends the last line rather than starting an empty one, as in any text file.
          const expected = text.length === 0 ? [] : text.toString().split('\n');
          if (expected.at(-1) === '') expected.pop();
          const kept = expected.filter((l) => Buffer.byteLength(l) <= 32);
          assert.deepEqual(
            got.map((l) => l.replace(/\r$/, '')),
            kept.map((l) => l.replace(/\r$/, '')),
          );
          assert.equal(tooLong, expected.length - kept.length);
        },
      ),
      { numRuns: FUZZ_RUNS },
    ));
});
