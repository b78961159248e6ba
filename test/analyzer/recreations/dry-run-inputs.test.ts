import { strict as assert } from 'node:assert';
import { parseDryRunApiResponses, parseDryRunDiscovery, parseDryRunEvent } from '../../../analyzer/recreations/dry-run-inputs.js';
import { applyProposals } from '../../../analyzer/recreations/proposals.js';
import { parseTaskConfig } from '../../../analyzer/recreations/task-config.js';
import { ValidationError } from '../../../lib/validation-error.js';

const problems = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof ValidationError) return [...e.problems];
    throw e;
  }
  return assert.fail('expected a refusal');
};

describe("the adapter's dry-run inputs (hyperfleet-adapter internal/dryrun)", () => {
  it('API responses: endpoints in order by method (or *) and unanchored regexp; the next response per call, the last repeating; unmatched is 200 {} (dryrun_api_client.go Do)', () => {
    const api = parseDryRunApiResponses(
      JSON.stringify({
        responses: [
          {
            match: { method: 'GET', urlPattern: '/clusters/[a-z0-9]+$' },
            responses: [
              { statusCode: 200, body: { n: 1 } },
              { statusCode: 404, body: { n: 2 } },
            ],
          },
          { match: { method: '*', urlPattern: 'statuses' }, responses: [{ statusCode: 0 }] },
        ],
      }),
      'api.json',
    )();
    assert.deepEqual(
      [
        api('GET', '/api/v1/clusters/c1'),
        api('GET', '/api/v1/clusters/c1'),
        api('GET', '/api/v1/clusters/c1'),
        api('PUT', '/clusters/c1/statuses'),
        api('POST', '/other'),
      ],
      [
        { status: 200, body: { n: 1 } },
        { status: 404, body: { n: 2 } },
        { status: 404, body: { n: 2 } },
        { status: 200, body: {} },
        { status: 200, body: {} },
      ],
    );
  });

  it('refuses what the adapter refuses, naming the file, line and entry (dryrun_responses.go LoadDryrunResponses, discovery_overrides.go LoadDiscoveryOverrides)', () => {
    assert.deepEqual(
      problems(() =>
        parseDryRunApiResponses('{"responses":[{"match":{"urlPattern":""},"responses":[{}]},{"match":{"urlPattern":"x"},"responses":[]}]}', 'api.json'),
      ),
      ['api.json:1 responses[0].match.urlPattern: endpoint 0 has empty urlPattern', 'api.json:1 responses[1].responses: endpoint 1 has no responses defined'],
    );
    assert.deepEqual(
      problems(() => parseDryRunDiscovery('{"a":{"kind":"Namespace"},"b":{"apiVersion":"v1"}}', 'd.json')),
      ['d.json:1 a: discovery override "a" is missing required field "apiVersion"', 'd.json:1 b: discovery override "b" is missing required field "kind"'],
    );
    assert.deepEqual(parseDryRunEvent('{"id":"e","data":{"id":"abc123","generation":5}}', 'e.json'), { id: 'abc123', generation: 5 });
    assert.deepEqual(
      problems(() => parseDryRunEvent('{"id":"e"}', 'e.json')),
      ['e.json:1 data: the event has no JSON object data'],
    );
    assert.deepEqual(
      problems(() => parseDryRunEvent('[]', 'e.json')),
      ['e.json:1 (document): a CloudEvent is a JSON object'],
    );
    assert.deepEqual(
      problems(() => parseDryRunDiscovery('{\n  "a": 1,', 'd.json')),
      ['d.json:2 (document): not JSON: Expected double-quoted property name in JSON at position 11 (line 2 column 10)'],
    );
  });

  it('reports every problem of an entry, each at its line', () => {
    const api = JSON.stringify(
      {
        responses: [
          { match: { urlPattern: '(' }, responses: [] },
          { match: { method: 'GET', urlPattern: 'x' }, responses: [{}] },
        ],
      },
      null,
      2,
    );
    assert.deepEqual(
      problems(() => parseDryRunApiResponses(api, 'api.json')),
      [
        'api.json:5 responses[0].match.urlPattern: endpoint 0: invalid urlPattern "(": Invalid regular expression: /(/: Unterminated group',
        'api.json:7 responses[0].responses: endpoint 0 has no responses defined',
      ],
    );
    const discovery = JSON.stringify({ ns: { metadata: { name: 'ns' } }, cm: 'x' }, null, 2);
    assert.deepEqual(
      problems(() => parseDryRunDiscovery(discovery, 'd.json')),
      [
        'd.json:2 ns: discovery override "ns" is missing required field "apiVersion"',
        'd.json:2 ns: discovery override "ns" is missing required field "kind"',
        'd.json:7 cm: discovery override "cm" is not an object',
      ],
    );
  });
});

describe("the shadow's proposals file", () => {
  const config = parseTaskConfig(
    'params: [{name: clusterId, source: event.id}]\nresources:\n  - name: job\n    manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: j}}\n    discovery: {by_name: j}\n',
    'task.yaml',
  );

  it('adds lifecycle.recreate.when to the resource it names, and nothing else', () => {
    const withRule = applyProposals(
      config,
      'apiVersion: reconcile-shadow/v1\nkind: RecreationProposals\nresources:\n  - name: job\n    lifecycle: {recreate: {when: {expression: "true"}}}\n',
      'p.yaml',
    );
    assert.deepEqual(
      [withRule.resources[0]!.recreateWhen?.source, withRule.resources[0]!.recreateWhen?.owner, config.resources[0]!.recreateWhen],
      ['true', 'proposal "job" lifecycle.recreate.when.expression', undefined],
    );
  });

  it('refuses a resource the task config does not have, and keys it does not know', () => {
    assert.deepEqual(
      problems(() =>
        applyProposals(
          config,
          'apiVersion: reconcile-shadow/v1\nkind: RecreationProposals\nresources:\n  - name: jobs\n    lifecycle: {recreate: {when: {expression: "true"}}}\n  - {name: job, lifecycle: {recreate: {when: {expression: "true", x: 1}}}}\n',
          'p.yaml',
        ),
      ),
      [
        'p.yaml:4 resources[0].name: no resource "jobs" in task.yaml (it has job)',
        'p.yaml:6 resources[1].lifecycle.recreate.when.x: unknown key (expected expression)',
      ],
    );
  });
});
