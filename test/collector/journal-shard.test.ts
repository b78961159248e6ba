/**
 * Routing journal lines to shards and workers before they are parsed: every line to exactly one reader, every object's
 * lines to the same one in input order, on lines of every shape (fast-check's, not only the journal writer's).
 */
import { strict as assert } from 'node:assert';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { formatAttemptLine } from '../../collector/journal/format.js';
import { readJournal } from '../../collector/journal/reader.js';
import { JournalRouter, namedObject, namedObjectOfBytes } from '../../collector/journal/shard-lines.js';
import { LineSplitter } from '../../collector/input/lines.js';
import type { AttemptRecord, Rejection } from '../../collector/records.js';
import { resolveModel } from '../../sidecar/files.js';
import { World } from '../../simulator/world.js';
import { FUZZ_RUNS } from '../fuzz/runs.js';

const CANONICAL = '{"time":"2026-11-29T10:00:00Z","controller":"hostedcluster","object":"clusters/a","model":"sequential","operations":[]}';

describe('the object a journal line names at its start', () => {
  it('is read from text and from bytes alike, only in the documented key order and without escapes', () => {
    const cases: [string, object | undefined][] = [
      [CANONICAL, { controller: 'hostedcluster', object: 'clusters/a' }],
      ['{"time":"t","controller":"c","object":"ns/é ü"}', { controller: 'c', object: 'ns/é ü' }],
      ['{"time":"t","controller":"c","object":""}', { controller: 'c', object: '' }],
      ['{"time":"t","object":"o","controller":"c"}', undefined], // another key order
      ['{ "time":"t","controller":"c","object":"o"}', undefined], // whitespace
      ['{"time":"t","controller":"c","object":"ns/\\u00e9"}', undefined], // an escape in a value
      ['{"time":"t\\"","controller":"c","object":"o"}', undefined],
      ['{"time":"t","controller":"c","object":"o', undefined], // no end
      ['not json', undefined],
      ['', undefined],
    ];
    for (const [text, want] of cases) {
      assert.deepEqual(namedObject(text), want, text);
      assert.deepEqual(namedObjectOfBytes(Buffer.from(text)), want, text);
    }
  });

  it('the reader rejects a line that names another controller or object later (a repeated key), with file:line', async () => {
    const lines = [
      '{"time":"2026-11-29T10:00:00Z","controller":"hostedcluster","object":"clusters/a","model":"sequential","operations":[],"object":"clusters/b"}',
      '{"time":"2026-11-29T10:00:00Z","controller":"hostedcluster","object":"clusters/a","model":"sequential","operations":[],"object":"clusters/a"}',
      '{"time":"2026-11-29T10:00:00Z","controller":"x","object":"clusters/a","model":"sequential","operations":[],"contr\\u006fller":"hostedcluster"}',
    ];
    const got = await read(lines.join('\n'));
    assert.deepEqual(got.rejected, [
      'j:1 invalid_record object: named "clusters/a" first and "clusters/b" later; a line names one',
      'j:3 invalid_record controller: named "x" first and "hostedcluster" later; a line names one',
    ]);
    assert.deepEqual(got.attempts, ['2:clusters/a']);
  });
});

interface Read {
  readonly attempts: string[];
  readonly rejected: string[];
  received: number;
}

async function read(text: string, owns?: (lineNo: number, bytes: Buffer | undefined) => boolean, maxLine?: number): Promise<Read> {
  const got: Read = { attempts: [], rejected: [], received: 0 };
  let line = 0;
  const sink = {
    attempt: (r: AttemptRecord) => got.attempts.push(`${line}:${r.object}`),
    reject: (r: Rejection) => got.rejected.push(`${r.where} ${r.reason} ${r.message}`),
    received: () => void got.received++,
  };
  const tracked = owns ?? (() => true);
  const options = { file: 'j', owns: (lineNo: number, bytes: Buffer | undefined) => ((line = lineNo), tracked(lineNo, bytes)) };
  if (maxLine === undefined) await readJournal(Readable.from([Buffer.from(text)]), sink, options);
  else {
    // A splitter with a small line limit, as readJournal would use with a 1 MiB one.
    const { journalLines } = await import('../../collector/journal/reader.js');
    const splitter = new LineSplitter(journalLines(sink, options), maxLine);
    splitter.push(Buffer.from(text));
    splitter.end();
  }
  return got;
}

/** Journal-ish lines: the writer's, keys reordered or repeated, values escaped, other JSON, and no JSON at all. */
const objects = ['clusters/a', 'clusters/b', 'ns/é', 'clusters/"q"', 'x'];
const lineArb = fc.oneof(
  fc
    .record({
      object: fc.constantFrom(...objects),
      model: fc.constantFrom('sequential', 'phased'),
      shape: fc.constantFrom('writer', 'reordered', 'spaced', 'escaped', 'repeated', 'renamed'),
    })
    .map(({ object, model, shape }) => {
      const record = { time: '2026-11-29T10:00:00Z', controller: 'hostedcluster', object, model, operations: [] };
      switch (shape) {
        case 'writer':
          return JSON.stringify(record);
        case 'reordered':
          return JSON.stringify({ object, model, operations: [], controller: 'hostedcluster', time: record.time });
        case 'spaced':
          return JSON.stringify(record, null, 1).replace(/\n/g, ' ');
        case 'escaped':
          return JSON.stringify(record).replace(
            /"object":"([^"]*)"/,
            (_m, v: string) => `"object":"${[...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`,
          );
        case 'repeated':
          return JSON.stringify(record).replace(/}$/, `,"object":${JSON.stringify(object)}}`);
        default:
          return JSON.stringify(record).replace(/}$/, ',"object":"clusters/other"}');
      }
    }),
  fc.json(),
  fc.string(),
  fc.constant(''),
  fc.constant('x'.repeat(300)),
);

describe('journal routing', () => {
  it('hands every line to exactly one (shard, worker), and all of an object’s accepted lines to the same one, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 40 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), async (lines, shards, workers) => {
        const text = lines.join('\n');
        const whole = await read(text, undefined, 200);
        const parts: Read[] = [];
        for (let s = 0; s < shards; s++) {
          for (let w = 0; w < workers; w++) {
            const router = new JournalRouter({ index: s, count: shards }, { index: w, count: workers });
            parts.push(await read(text, (lineNo, bytes) => router.owns(lineNo, bytes), 200));
          }
        }
        // Each line counted once, each attempt and rejection in exactly one part.
        assert.equal(
          parts.reduce((n, p) => n + p.received, 0),
          whole.received,
        );
        assert.deepEqual(parts.flatMap((p) => p.attempts).sort(), [...whole.attempts].sort());
        assert.deepEqual(parts.flatMap((p) => p.rejected).sort(), [...whole.rejected].sort());
        // An object's attempts all in one part, in the whole's order.
        for (const object of new Set(whole.attempts.map((a) => a.slice(a.indexOf(':') + 1)))) {
          const of = (r: Read): string[] => r.attempts.filter((a) => a.slice(a.indexOf(':') + 1) === object);
          const holding = parts.filter((p) => of(p).length > 0);
          assert.equal(holding.length, 1, object);
          assert.deepEqual(of(holding[0]!), of(whole));
        }
      }),
      { numRuns: Math.min(FUZZ_RUNS, 300) },
    );
  });

  it('skips the other workers’ lines unread, and takes a fleet’s objects in turn', () => {
    const model = resolveModel('hypershift-hostedcluster');
    const records = [...new World({ model, objects: 6, durationMs: 3_600_000, seed: 7, observe: 'mixed' }).attempts()];
    const text = records.map(formatAttemptLine).join('\n');
    const firstSight = [...new Set(records.map((r) => r.object))];
    for (let w = 0; w < 3; w++) {
      const router = new JournalRouter({ index: 0, count: 1 }, { index: w, count: 3 });
      const decoded: number[] = [];
      const splitter = new LineSplitter({
        select: (bytes, lineNo) => router.owns(lineNo, bytes),
        line: (_t, lineNo) => decoded.push(lineNo),
        tooLong: () => assert.fail(),
      });
      splitter.push(Buffer.from(text));
      splitter.end();
      const mine = new Set(firstSight.filter((_, i) => i % 3 === w));
      assert.deepEqual(
        decoded,
        records.flatMap((r, i) => (mine.has(r.object) ? [i + 1] : [])),
      );
    }
  });
});
