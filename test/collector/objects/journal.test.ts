import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatObservationLine, parseObservationLine } from '../../../collector/objects/journal.js';
import { CONTRACT_CASES } from '../../support/paths.js';

describe('observation journal', () => {
  it('parses every line of the contract journal and writes it back unchanged in content', () => {
    const lines = readFileSync(join(CONTRACT_CASES, 'recreations', 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n');
    lines.forEach((text, i) => {
      const parsed = parseObservationLine(text, i + 1, 'journal.jsonl');
      assert.ok(parsed.ok, JSON.stringify(parsed));
      assert.deepEqual(JSON.parse(formatObservationLine(parsed.observation)), JSON.parse(text));
    });
    const deletion = parseObservationLine(lines[16]!, 17, 'journal.jsonl');
    assert.ok(deletion.ok && deletion.observation.type === 'object');
    const o = deletion.observation.object;
    assert.deepEqual(
      [o.kind, o.namespace, o.name, o.uid, o.creationTimestampMs, o.deletionTimestampMs, o.annotations['hyperfleet.io/generation'], o.conditions],
      [
        'Job',
        'hf-c000',
        'validate-c000',
        'c393fd0e-1cc6-2be5-7836-46bf0324aac3',
        Date.parse('2026-11-02T00:00:27Z'),
        Date.parse('2026-11-02T00:09:04Z'),
        '1',
        [{ type: 'Complete', status: 'True', lastTransitionTime: '2026-11-02T00:00:28Z' }],
      ],
    );
    const c = parseObservationLine(lines[15]!, 16, 'journal.jsonl');
    assert.ok(c.ok && c.observation.type === 'cluster');
    assert.deepEqual(
      [c.observation.cluster.id, c.observation.cluster.kind, c.observation.cluster.generation, c.observation.cluster.deletedTimeMs],
      ['c000', 'Cluster', 2, undefined],
    );
  });

  it('a bad line is a rejection naming file:line, the field and a bounded reason', () => {
    const cases: [string, string, string][] = [
      // JSON.parse's own words, as every supported Node (22.15 and later) says them: V8 adds the line and column.
      ['{', 'invalid_json', "not JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)"],
      ['[]', 'invalid_record', 'an observation is a JSON object'],
      ['{"type":"object"}', 'invalid_record', 'time: required RFC 3339 string'],
      ['{"time":"yesterday","type":"object"}', 'invalid_record', 'time: "yesterday" is not an RFC 3339 time'],
      ['{"time":"2026-11-02T00:00:00Z","type":"pod"}', 'invalid_record', 'type: must be "object" or "cluster", got "pod"'],
      [
        '{"time":"2026-11-02T00:00:00Z","type":"object","event":"UPSERT","object":{}}',
        'invalid_record',
        'event: must be one of ADDED|MODIFIED|DELETED, got "UPSERT"',
      ],
      [
        '{"time":"2026-11-02T00:00:00Z","type":"object","event":"ADDED","object":{"apiVersion":"v1","kind":"X","metadata":{"name":"a"}}}',
        'invalid_object',
        'object.metadata.uid: required string',
      ],
      [
        '{"time":"2026-11-02T00:00:00Z","type":"object","event":"ADDED","object":{"apiVersion":"v1","kind":"X","metadata":{"name":"a","uid":"u","deletionTimestamp":"soon"}}}',
        'invalid_object',
        'object.metadata.deletionTimestamp: "soon" is not an RFC 3339 time',
      ],
      [
        '{"time":"2026-11-02T00:00:00Z","type":"object","event":"ADDED","object":{"apiVersion":"v1","kind":"X","metadata":{"name":"a","uid":"u","labels":{"a":1}}}}',
        'invalid_object',
        'object.metadata.labels.a: must be a string',
      ],
      [
        '{"time":"2026-11-02T00:00:00Z","type":"cluster","cluster":{"id":"c1","generation":1.5}}',
        'invalid_record',
        'cluster.generation: must be a non-negative integer, got 1.5',
      ],
      [
        '{"time":"2026-11-02T00:00:00Z","type":"cluster","cluster":{"id":"c1","generation":1,"status":{"conditions":[{"type":"Reconciled"}]}}}',
        'invalid_record',
        'cluster.status.conditions[0]: needs type and status strings',
      ],
    ];
    cases.forEach(([text, reason, message], i) => {
      const parsed = parseObservationLine(text, i + 1, 'j.jsonl');
      assert.deepEqual(parsed, { ok: false, rejection: { source: 'journal', reason, where: `j.jsonl:${i + 1}`, message } }, text);
    });
  });
});
