import { strict as assert } from 'node:assert';
import { FakeHyperFleetApi } from '../../support/fake-hyperfleet-api.js';

/**
 * The in-test API reads list parameters as hyperfleet-api does: the cases of pkg/handlers/list_params_test.go
 * TestParseListParams and pkg/db/sql_helpers_test.go TestArgsToOrder, asked over HTTP.
 */
describe('in-test HyperFleet API: list parameters as list_params.go reads them', () => {
  let api: FakeHyperFleetApi;
  let t = Date.parse('2026-11-02T00:00:00Z');
  before(async () => {
    api = new FakeHyperFleetApi(() => new Date((t += 1000)));
    await api.start();
    for (let i = 0; i < 45; i++) api.createCluster(`c${String(i).padStart(2, '0')}`);
    api.createNodePool('c00', 'np1');
  });
  after(async () => {
    await api.close();
  });

  const list = async (query: string, path = '/api/hyperfleet/v1/clusters') => {
    const res = await fetch(`${api.url}${path}${query}`);
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
  };
  const page = async (query: string) => {
    const { status, body } = await list(query);
    assert.equal(status, 200, JSON.stringify(body));
    const items = body.items as { id: string }[];
    return [body.page, body.size, body.total, items[0]?.id, items.at(-1)?.id];
  };
  const errors = async (query: string) => {
    const { status, type, body } = await list(query);
    assert.deepEqual([status, type], [400, 'application/problem+json']);
    return [body.code, body.detail, (body.errors as { field: string; message: string }[] | undefined)?.map((e) => [e.field, e.message])];
  };

  it('defaults to page 1, size 20, newest first; ignores pageSize and unknown parameters', async () => {
    assert.deepEqual(await page(''), [1, 20, 45, 'c44', 'c25']);
    assert.deepEqual(await page('?pageSize=100&orderBy=created_time%20asc'), [1, 20, 45, 'c44', 'c25']);
    assert.deepEqual(await page('?page=3&unknown=value&size=10'), [3, 10, 45, 'c24', 'c15']);
    assert.deepEqual(await page('?page=%20%20'), [1, 20, 45, 'c44', 'c25']);
  });

  it('answers size as the items on the page, and an empty page past the end', async () => {
    assert.deepEqual(await page('?page=3&size=20'), [3, 5, 45, 'c04', 'c00']);
    assert.deepEqual(await page('?page=4&size=20'), [4, 0, 45, undefined, undefined]);
    assert.deepEqual(await page('?page=1&size=100'), [1, 45, 45, 'c44', 'c00']);
  });

  it('refuses bad page and size values as upstream: format errors, then range errors, all at once', async () => {
    assert.deepEqual(await errors('?size=101'), ['HYPERFLEET-VAL-000', 'Invalid query parameters', [['size', 'size must be at most 100']]]);
    assert.deepEqual(await errors('?size=0'), ['HYPERFLEET-VAL-000', 'Invalid query parameters', [['size', 'size must be at least 1']]]);
    assert.deepEqual(await errors('?page=-1'), ['HYPERFLEET-VAL-000', 'Invalid query parameters', [['page', 'page must be at least 1']]]);
    assert.deepEqual(await errors('?page=100001'), ['HYPERFLEET-VAL-000', 'Invalid query parameters', [['page', 'page must be at most 100000']]]);
    assert.deepEqual(await errors('?page=0&size=999'), [
      'HYPERFLEET-VAL-000',
      'Invalid query parameters',
      [
        ['size', 'size must be at most 100'],
        ['page', 'page must be at least 1'],
      ],
    ]);
    assert.deepEqual(await errors('?page=abc&size=xyz'), [
      'HYPERFLEET-VAL-000',
      'Invalid query parameters',
      [
        ['page', 'must be a valid integer'],
        ['size', 'must be a valid integer'],
      ],
    ]);
    assert.deepEqual(await errors('?page=1.5'), ['HYPERFLEET-VAL-000', 'Invalid query parameters', [['page', 'must be a valid integer']]]);
    assert.deepEqual(await errors('?size=%21%40%23'), ['HYPERFLEET-VAL-000', 'Invalid query parameters', [['size', 'must be a valid integer']]]);
    assert.deepEqual(await errors('?ref_type=dep'), [
      'HYPERFLEET-VAL-000',
      'Invalid query parameters',
      [['reftargetid', 'ref_type and ref_target_id must be provided together']],
    ]);
  });

  it('orders by the order list (a bare field ascending) and refuses a bad one as ArgsToOrder and loadList do', async () => {
    assert.deepEqual(await page('?order=created_time%20asc&size=5'), [1, 5, 45, 'c00', 'c04']);
    assert.deepEqual(await page('?order=created_time&size=5'), [1, 5, 45, 'c00', 'c04']);
    assert.deepEqual(await page('?order=generation%20desc,id&size=5&page=2'), [2, 5, 45, 'c05', 'c09']);
    assert.deepEqual(await page('?order=%20id%20desc%20&order=name&size=5&page=2'), [2, 5, 45, 'c39', 'c35']);
    assert.deepEqual(await page('?order=&size=5'), [1, 5, 45, 'c44', 'c40']);
    assert.deepEqual(await errors('?order=name%3Bdrop'), [
      'HYPERFLEET-VAL-005',
      "invalid order format 'name;drop': expected 'field' or 'field asc|desc'",
      undefined,
    ]);
    assert.deepEqual(await errors('?order=name%20up'), [
      'HYPERFLEET-VAL-005',
      "invalid order format 'name up': expected 'field' or 'field asc|desc'",
      undefined,
    ]);
    assert.deepEqual(await errors('?order=colour'), ['HYPERFLEET-VAL-005', 'invalid field in search or order query', undefined]);
  });

  it('serves child kinds flat and under their parent, and every kind of its registry', async () => {
    const flat = await list('', '/api/hyperfleet/v1/nodepools');
    const nested = await list('', '/api/hyperfleet/v1/clusters/c00/nodepools');
    const other = await list('', '/api/hyperfleet/v1/clusters/c01/nodepools');
    assert.deepEqual(
      [flat, nested, other].map((r) => [r.status, r.body.total]),
      [
        [200, 1],
        [200, 1],
        [200, 0],
      ],
    );
    api.create('Channel', 'stable');
    const channels = await list('', '/api/hyperfleet/v1/channels');
    assert.deepEqual(
      (channels.body.items as { kind: string; id: string }[]).map((c) => [c.kind, c.id]),
      [['Channel', 'stable']],
    );
  });
});
