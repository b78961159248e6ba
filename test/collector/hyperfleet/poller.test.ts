import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HyperFleetPoller, type PollerOptions } from '../../../collector/hyperfleet/poller.js';
import { FileToken } from '../../../collector/hyperfleet/token.js';
import type { Timers } from '../../../collector/kube/informer.js';
import type { ClusterObservation, Observation } from '../../../collector/objects/observation.js';
import type { Rejection } from '../../../collector/records.js';
import { FakeHyperFleetApi } from '../../support/fake-hyperfleet-api.js';
import { until } from '../../support/until.js';

/** A clock and timers the test moves by hand: a scheduled poll runs only when the test fires it. */
class ManualTimers implements Timers {
  nowMs = Date.parse('2026-11-02T00:00:00Z');
  readonly scheduled: { fn: () => void; ms: number }[] = [];
  now(): number {
    return this.nowMs;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const entry = { fn, ms };
    this.scheduled.push(entry);
    return entry;
  }
  clearTimeout(handle: unknown): void {
    const i = this.scheduled.indexOf(handle as { fn: () => void; ms: number });
    if (i >= 0) this.scheduled.splice(i, 1);
  }
}

class Sink {
  readonly observations: Observation[] = [];
  readonly rejections: Rejection[] = [];
  /** What the poller told the health hooks after each poll. */
  readonly ups: boolean[] = [];
  readonly failures: string[] = [];
  readonly reasons: (string | undefined)[] = [];
  readonly infos: string[] = [];
  readonly hooks = {
    state: (up: boolean) => this.ups.push(up),
    error: (e: unknown, reason?: string) => {
      this.failures.push((e as Error).message);
      this.reasons.push(reason);
    },
    info: (line: string) => this.infos.push(line),
  };
  observe(o: Observation): void {
    this.observations.push(o);
  }
  reject(r: Rejection): void {
    this.rejections.push(r);
  }
  take(): ClusterObservation[] {
    return this.observations.splice(0).map((o) => {
      assert.equal(o.type, 'cluster');
      return o;
    });
  }
}

describe('HyperFleet API poller', function () {
  // polls against an in-test HyperFleet API, with timeouts on purpose
  this.timeout(20_000);
  let api: FakeHyperFleetApi;
  let clock = Date.parse('2026-11-02T00:00:00Z');
  beforeEach(async () => {
    api = new FakeHyperFleetApi(() => new Date(clock));
    await api.start();
  });
  afterEach(async () => {
    await api.close();
  });

  const poller = (sink: Sink, timers = new ManualTimers(), extra: Partial<PollerOptions> = {}) =>
    new HyperFleetPoller({ baseUrl: api.url, collections: ['clusters'], intervalMs: 15_000, timeoutMs: 2000, timers, hooks: sink.hooks, ...extra }, sink);

  const ORDER = 'created_time asc,id asc';
  const listQueries = () => api.requests.filter((r) => r.path === '/api/hyperfleet/v1/clusters').map((r) => r.query);
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${String(i).padStart(3, '0')}`);

  it('reads a 45-cluster fleet whole in one request with size=100 (the API ignores pageSize; its default size is 20)', async () => {
    for (const id of ids(45)) api.createCluster(id);
    const sink = new Sink();
    const p = poller(sink);
    await p.pollOnce();
    assert.deepEqual(listQueries(), [{ page: '1', size: '100', order: ORDER }]);
    assert.deepEqual(
      sink.take().map((o) => o.cluster.id),
      ids(45),
    );
    assert.deepEqual([p.health.up, p.health.truncated, p.truncated], [true, false, false]);
    assert.deepEqual(sink.infos, []);
  });

  it('pages through the list as the API does and hands on only what changed', async () => {
    for (const id of ids(250)) api.createCluster(id);
    const sink = new Sink();
    const p = poller(sink);
    await p.pollOnce();
    assert.deepEqual(
      listQueries(),
      [1, 2, 3].map((page) => ({ page: String(page), size: '100', order: ORDER })),
    );
    const first = sink.take();
    assert.equal(first.length, 250);
    assert.equal(new Set(first.map((o) => o.cluster.id)).size, 250);
    assert.deepEqual(
      first[0]!.cluster.conditions.map((c) => [c.type, c.status]),
      [
        ['Reconciled', 'False'],
        ['LastKnownReconciled', 'False'],
      ],
    );

    await p.pollOnce();
    assert.deepEqual(sink.take(), []);
    clock += 30_000;
    api.setReconciled('c007', true);
    clock += 30_000;
    api.patchSpec('c007', { version: '4.17' });
    await p.pollOnce();
    const changed = sink.take();
    assert.deepEqual(
      changed.map((o) => [o.cluster.id, o.cluster.generation, o.cluster.conditions[0]!.lastTransitionTimeMs]),
      [['c007', 2, clock]],
    );
    assert.deepEqual(p.health, { up: true, stale: false, consecutiveFailures: 0, lastSuccessMs: Date.parse('2026-11-02T00:00:00Z'), truncated: false });
  });

  it('reads a 300-cluster fleet over polls at 2 pages of 100 per poll, truncated while a pass spans polls', async () => {
    for (const id of ids(300)) api.createCluster(id);
    const sink = new Sink();
    const p = poller(sink, new ManualTimers(), { pageSize: 100, maxPagesPerPoll: 2, maxLookupsPerPoll: 500 });
    await p.pollOnce();
    assert.deepEqual(
      listQueries().map((q) => q.page),
      ['1', '2'],
    );
    assert.deepEqual(
      sink.take().map((o) => o.cluster.id),
      ids(300).slice(0, 200),
    );
    assert.deepEqual([p.health.up, p.health.truncated], [true, true]);
    assert.deepEqual(sink.infos, [
      'clusters: 300 resources, more than one poll reads (2 pages of 100): the list is read over several polls, each resource once per pass (truncated)',
    ]);

    // The next poll continues at page 3 and ends the pass: the whole fleet has been read, over two polls.
    api.softDelete('c010');
    await p.pollOnce();
    assert.deepEqual(
      listQueries().map((q) => q.page),
      ['1', '2', '3'],
    );
    const rest = sink.take();
    // c010 left the list (soft-deleted), so page 3 starts one later; c010 was read in the pass, so it is not looked up.
    assert.deepEqual(
      rest.map((o) => o.cluster.id),
      ids(300).slice(201, 300),
    );
    assert.ok(!api.requests.some((r) => r.path === '/api/hyperfleet/v1/clusters/c010'));
    assert.equal(p.health.truncated, true);

    // A new pass: c010 is missing from it, so it is fetched by id and handed on with its deleted_time.
    for (const id of ids(300).slice(150)) if (id !== 'c010') api.hardDelete(id);
    await p.pollOnce();
    assert.deepEqual(
      listQueries().map((q) => q.page),
      ['1', '2', '3', '1', '2'],
    );
    const after = sink.take();
    assert.deepEqual(
      after.filter((o) => !o.gone).map((o) => [o.cluster.id, o.cluster.deletedTimeMs]),
      [['c010', clock]],
    );
    assert.equal(after.filter((o) => o.gone).length, 149);
    // 149 clusters left in the list: read whole in one poll again.
    assert.deepEqual([p.health.up, p.health.truncated], [true, false]);
    assert.equal(sink.infos[1], 'clusters: 149 resources, read whole in one poll again (up to 200 per poll)');
  });

  it('a pass that fails half-way hands nothing on and is read again from where it stood', async () => {
    for (const id of ids(300)) api.createCluster(id);
    const sink = new Sink();
    const p = poller(sink, new ManualTimers(), { maxPagesPerPoll: 2 });
    await p.pollOnce();
    sink.take();
    api.failNext(1, { status: 503 }, (r) => r.query.page === '3');
    await p.pollOnce();
    assert.deepEqual([p.health.up, p.health.lastFailure?.reason], [false, 'http_5xx']);
    await p.pollOnce();
    assert.deepEqual(
      listQueries().map((q) => q.page),
      ['1', '2', '3', '3'],
    );
    assert.deepEqual(
      sink.take().map((o) => o.cluster.id),
      ids(300).slice(200),
    );
  });

  it('reads the token file again at most every 30 s, and at once after a 401, counted as unauthorized', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-token-'));
    try {
      const file = join(dir, 'token');
      writeFileSync(file, 'one\n');
      api.createCluster('c1');
      api.requireToken = 'one';
      const timers = new ManualTimers();
      const sink = new Sink();
      const p = poller(sink, timers, { token: new FileToken(file, () => timers.now()) });
      await p.pollOnce();
      assert.equal(p.health.up, true);
      // The kubelet rotates the projected token; the API stops accepting the old one at once.
      writeFileSync(file, 'two\n');
      api.requireToken = 'two';
      timers.nowMs += 10_000;
      await p.pollOnce();
      assert.deepEqual([p.health.up, p.health.lastFailure?.reason], [false, 'unauthorized']);
      assert.deepEqual(sink.reasons, ['unauthorized']);
      await p.pollOnce();
      assert.equal(p.health.up, true);
      // Rotated again: read once the cached copy is 30 s old, without a 401 first.
      writeFileSync(file, 'three');
      api.requireToken = 'three';
      timers.nowMs += 30_000;
      await p.pollOnce();
      assert.equal(p.health.up, true);
      const auths = api.requests.filter((r) => r.path === '/api/hyperfleet/v1/clusters').map((r) => [r.authorization, r.status]);
      assert.deepEqual(auths, [
        ['Bearer one', 200],
        ['Bearer one', 401],
        ['Bearer two', 200],
        ['Bearer three', 200],
      ]);
      rmSync(file);
      timers.nowMs += 30_000;
      await p.pollOnce();
      assert.deepEqual([p.health.up, p.health.lastFailure?.reason], [false, 'token_unavailable']);
      assert.match(p.health.lastFailure!.message, /token file .*token: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("polls any entity kind the API's registry declares, by its plural, and fails on one it does not", async () => {
    api.create('Channel', 'stable');
    api.create('Version', 'v4-17', 'v4-17', 'stable');
    const sink = new Sink();
    const p = poller(sink, new ManualTimers(), { collections: ['channels', 'versions'] });
    await p.pollOnce();
    assert.deepEqual(
      sink.take().map((o) => [o.cluster.kind, o.cluster.id]),
      [
        ['Channel', 'stable'],
        ['Version', 'v4-17'],
      ],
    );
    const unknown = poller(sink, new ManualTimers(), { collections: ['widgets'] });
    await unknown.pollOnce();
    assert.deepEqual(
      [unknown.health.lastFailure?.reason, unknown.health.lastFailure?.message],
      ['http_4xx', 'GET /api/hyperfleet/v1/widgets?page=1&size=100&order=created_time%20asc%2Cid%20asc: HTTP 404'],
    );
  });

  it('follows a resource that left the list: soft-deleted with deleted_time, then gone with a 404', async () => {
    api.createCluster('c1');
    api.createCluster('c2');
    api.createNodePool('c1', 'np1');
    const sink = new Sink();
    const p = poller(sink, new ManualTimers(), { collections: ['clusters', 'nodepools'] });
    await p.pollOnce();
    assert.deepEqual(
      sink.take().map((o) => [o.cluster.kind, o.cluster.id]),
      [
        ['Cluster', 'c1'],
        ['Cluster', 'c2'],
        ['NodePool', 'np1'],
      ],
    );
    clock += 5000;
    api.softDelete('c1');
    await p.pollOnce();
    assert.ok(api.requests.some((r) => r.path === '/api/hyperfleet/v1/clusters/c1'));
    assert.deepEqual(
      sink.take().map((o) => [o.cluster.id, o.cluster.generation, o.cluster.deletedTimeMs, o.gone]),
      [['c1', 2, clock, undefined]],
    );
    api.hardDelete('c1');
    await p.pollOnce();
    assert.deepEqual(
      sink.take().map((o) => [o.cluster.kind, o.cluster.id, o.gone]),
      [['Cluster', 'c1', true]],
    );
    await p.pollOnce();
    assert.deepEqual(sink.take(), []);
  });

  it('keeps the last good state on 5xx, timeouts and malformed bodies, marks it stale, and recovers', async () => {
    api.createCluster('c1');
    const sink = new Sink();
    const p = poller(sink, new ManualTimers(), { timeoutMs: 200 });
    await p.pollOnce();
    sink.take();
    const failures: [Parameters<FakeHyperFleetApi['failNext']>[1], string][] = [
      [{ status: 503 }, 'http_5xx'],
      [{ status: 401 }, 'unauthorized'],
      [{ status: 403 }, 'http_4xx'],
      [{ body: 'malformed' }, 'malformed_body'],
      [{ body: 'not-a-list' }, 'malformed_body'],
      [{ delayMs: 5000 }, 'timeout'],
    ];
    for (const [i, [fault, reason]] of failures.entries()) {
      api.failNext(1, fault);
      await p.pollOnce();
      assert.deepEqual([p.health.up, p.health.stale, p.health.consecutiveFailures, p.health.lastFailure?.reason], [false, true, i + 1, reason]);
    }
    assert.match(p.health.lastFailure!.message, /GET \/api\/hyperfleet\/v1\/clusters\?page=1&size=100&order=created_time%20asc%2Cid%20asc: no answer in time/);
    // Nothing was handed on while failing: no resource looked deleted.
    assert.deepEqual(sink.take(), []);
    await p.pollOnce();
    assert.deepEqual([p.health.up, p.health.stale, p.health.consecutiveFailures], [true, false, 0]);
    assert.deepEqual(sink.ups, [true, false, false, false, false, false, false, true]);
    assert.deepEqual(
      sink.failures.map((m) => m.split(':')[0]),
      ['http_5xx', 'unauthorized', 'http_4xx', 'malformed_body', 'malformed_body', 'timeout'],
    );
    assert.deepEqual(sink.reasons, ['http_5xx', 'unauthorized', 'http_4xx', 'malformed_body', 'malformed_body', 'timeout']);
  });

  it('a connection refused is a failure too, and an item that is not a resource is rejected alone', async () => {
    api.createCluster('c1');
    const sink = new Sink();
    const closed = new FakeHyperFleetApi();
    await closed.start();
    const url = closed.url;
    await closed.close();
    const refused = new HyperFleetPoller({ baseUrl: url, collections: ['clusters'], intervalMs: 1000, timeoutMs: 1000, timers: new ManualTimers() }, sink);
    await refused.pollOnce();
    assert.equal(refused.health.lastFailure?.reason, 'connection');

    const small = poller(sink, new ManualTimers(), { maxBodyBytes: 100 });
    await small.pollOnce();
    assert.equal(small.health.lastFailure?.reason, 'body_too_large');

    const p = poller(sink);
    api.failNext(1, { extraItem: { id: 'c2', kind: 'Cluster', generation: 'two' } });
    await p.pollOnce();
    assert.deepEqual(
      sink.take().map((o) => o.cluster.id),
      ['c1'],
    );
    assert.deepEqual(sink.rejections, [
      {
        source: 'hyperfleet',
        reason: 'invalid_record',
        where: 'GET /api/hyperfleet/v1/clusters?page=1&size=100&order=created_time%20asc%2Cid%20asc items[1]',
        message: 'cluster.generation: must be a non-negative integer, got "two"',
      },
    ]);
    assert.equal(p.health.up, true);
  });

  it('polls on its interval, backs off exponentially while failing, and stops', async () => {
    api.createCluster('c1');
    const timers = new ManualTimers();
    const sink = new Sink();
    const p = poller(sink, timers, { backoff: { initialMs: 1000, maxMs: 4000 } });
    await p.start();
    assert.deepEqual(
      timers.scheduled.map((t) => t.ms),
      [15_000],
    );
    api.failNext(4, { status: 500 });
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = timers.scheduled.shift()!;
      const polled = api.requests.length;
      next.fn();
      await until('the poll to finish and schedule the next', () => timers.scheduled.length === 1 && api.requests.length > polled);
      delays.push(timers.scheduled[0]!.ms);
    }
    // Four failures: 1 s, 2 s, 4 s, 4 s (capped); then a success: back to the interval.
    assert.deepEqual(delays, [1000, 2000, 4000, 4000, 15_000]);
    await p.stop();
    assert.deepEqual(timers.scheduled, []);
  });
});
