/**
 * ManifestWorks read from an in-test Maestro server as the adapter's Maestro client reads them (hyperfleet-adapter
 * internal/maestroclient, through maestro pkg/client/cloudevents/grpcsource PageList and Get), handed on as object
 * observations, and a recreation of a work timed as Maestro deletes: from the delete request to the work's absence.
 */
import { strict as assert } from 'node:assert';
import { MaestroPoller, type MaestroPollerOptions } from '../../../collector/maestro/poller.js';
import type { Timers } from '../../../collector/kube/informer.js';
import { nestedManifests } from '../../../collector/objects/manifestwork.js';
import type { ObjectObservation, Observation } from '../../../collector/objects/observation.js';
import type { Rejection } from '../../../collector/records.js';
import { RecreationTracker, type FinishedRecreation } from '../../../analyzer/recreations/tracker.js';
import { FakeMaestro, workId, type WorkInput } from '../../support/fake-maestro.js';

class ManualTimers implements Timers {
  constructor(private readonly clock: { ms: number }) {}
  now(): number {
    return this.clock.ms;
  }
  setTimeout(): unknown {
    return undefined;
  }
  clearTimeout(): void {}
}

class Sink {
  readonly observations: Observation[] = [];
  readonly rejections: Rejection[] = [];
  readonly reasons: (string | undefined)[] = [];
  readonly hooks = { state: () => undefined, error: (_e: unknown, reason?: string) => this.reasons.push(reason) };
  observe(o: Observation): void {
    this.observations.push(o);
  }
  reject(r: Rejection): void {
    this.rejections.push(r);
  }
  take(): ObjectObservation[] {
    return this.observations.splice(0).map((o) => {
      assert.equal(o.type, 'object');
      return o;
    });
  }
}

const SOURCE = 'hyperfleet-adapter';

/** A ManifestWork as the adapter's maestro example template renders it (charts/examples/maestro). */
function work(clusterId: string, generation: number): WorkInput {
  return {
    metadata: {
      name: `${clusterId}-mw`,
      labels: { 'hyperfleet.io/cluster-id': clusterId, 'hyperfleet.io/generation': String(generation) },
      annotations: { 'hyperfleet.io/generation': String(generation) },
    },
    spec: {
      workload: {
        manifests: [
          {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: clusterId, labels: { 'hyperfleet.io/cluster-id': clusterId, 'hyperfleet.io/resource-type': 'namespace' } },
          },
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-config', namespace: clusterId } },
        ],
      },
      deleteOption: { propagationPolicy: 'Foreground' },
    },
  };
}

describe('Maestro source: ManifestWorks from the Maestro REST API', function () {
  // polls against an in-test Maestro server
  this.timeout(20_000);
  const clock = { ms: Date.parse('2026-11-02T00:00:00Z') };
  let maestro: FakeMaestro;
  beforeEach(async () => {
    clock.ms = Date.parse('2026-11-02T00:00:00Z');
    maestro = new FakeMaestro(() => new Date(clock.ms));
    await maestro.start();
  });
  afterEach(async () => {
    await maestro.close();
  });

  const poller = (sink: Sink, extra: Partial<MaestroPollerOptions> = {}) =>
    new MaestroPoller(
      { baseUrl: maestro.url, sourceId: SOURCE, intervalMs: 15_000, timeoutMs: 2000, timers: new ManualTimers(clock), hooks: sink.hooks, ...extra },
      sink,
    );
  const lists = () => maestro.requests.filter((r) => r.path === '/api/maestro/v1/resource-bundles').map((r) => r.query);

  it("lists this source's works page by page as grpcsource PageList does, each as the ManifestWork ToManifestWork builds", async () => {
    for (const c of ['c1', 'c2', 'c3']) maestro.apply(SOURCE, 'cluster1', work(c, 1));
    maestro.apply(SOURCE, 'cluster2', work('c4', 1));
    maestro.apply('another-adapter', 'cluster1', work('c5', 1));
    const sink = new Sink();
    await poller(sink, { pageSize: 2 }).pollOnce();
    // Page after page until one has fewer items than asked for: 2, 2, then 0.
    assert.deepEqual(
      lists(),
      [1, 2, 3].map((page) => ({ page: String(page), size: '2', search: "source='hyperfleet-adapter'" })),
    );
    const seen = sink.take();
    assert.deepEqual(
      seen.map((o) => [o.event, o.object.kind, o.object.namespace, o.object.name, o.object.uid, o.source]),
      [
        ['ADDED', 'ManifestWork', 'cluster1', 'c1-mw', workId(SOURCE, 'cluster1', 'c1-mw'), 'maestro'],
        ['ADDED', 'ManifestWork', 'cluster1', 'c2-mw', workId(SOURCE, 'cluster1', 'c2-mw'), 'maestro'],
        ['ADDED', 'ManifestWork', 'cluster1', 'c3-mw', workId(SOURCE, 'cluster1', 'c3-mw'), 'maestro'],
        ['ADDED', 'ManifestWork', 'cluster2', 'c4-mw', workId(SOURCE, 'cluster2', 'c4-mw'), 'maestro'],
      ],
    );
    const raw = seen[0]!.object.raw;
    assert.deepEqual([raw.apiVersion, raw.kind], ['work.open-cluster-management.io/v1', 'ManifestWork']);
    assert.deepEqual(raw.metadata, {
      name: 'c1-mw',
      labels: { 'hyperfleet.io/cluster-id': 'c1', 'hyperfleet.io/generation': '1' },
      annotations: { 'hyperfleet.io/generation': '1' },
      namespace: 'cluster1',
      uid: workId(SOURCE, 'cluster1', 'c1-mw'),
      resourceVersion: '1',
      generation: 1,
    });
    assert.deepEqual(raw.spec, {
      workload: { manifests: work('c1', 1).spec.workload.manifests },
      deleteOption: { propagationPolicy: 'Foreground' },
      manifestConfigs: [],
    });
    assert.equal(seen[0]!.object.annotations['hyperfleet.io/generation'], '1');
    assert.equal(seen[0]!.object.creationTimestampMs, clock.ms);
  });

  it('narrows the search to the configured consumers as ToSyncSearch does', async () => {
    maestro.apply(SOURCE, 'cluster1', work('c1', 1));
    maestro.apply(SOURCE, 'cluster2', work('c2', 1));
    maestro.apply(SOURCE, 'cluster3', work('c3', 1));
    const sink = new Sink();
    await poller(sink, { consumers: ['cluster1', 'cluster3'] }).pollOnce();
    assert.deepEqual(lists(), [{ page: '1', size: '400', search: "source='hyperfleet-adapter' and (consumer_name='cluster1' or consumer_name='cluster3')" }]);
    assert.deepEqual(
      sink.take().map((o) => o.object.name),
      ['c1-mw', 'c3-mw'],
    );
  });

  it("hands on a status report and finds nested manifests with their status as the adapter's nested discoveries do", async () => {
    const id = maestro.apply(SOURCE, 'cluster1', work('c1', 1));
    const sink = new Sink();
    const p = poller(sink);
    await p.pollOnce();
    sink.take();
    await p.pollOnce();
    assert.deepEqual(sink.take(), []);
    clock.ms += 5000;
    const available = { type: 'Available', status: 'True', reason: 'ResourcesAvailable', message: '', lastTransitionTime: new Date(clock.ms).toISOString() };
    maestro.reportStatus(
      id,
      [available],
      [
        {
          resourceMeta: { kind: 'Namespace', name: 'c1', namespace: '' },
          conditions: [available],
          statusFeedback: { values: [{ name: 'phase', fieldValue: { type: 'String', string: 'Active' } }] },
        },
      ],
    );
    await p.pollOnce();
    const [changed] = sink.take();
    assert.equal(changed!.event, 'MODIFIED');
    assert.deepEqual(changed!.object.conditions, [{ type: 'Available', status: 'True', lastTransitionTime: available.lastTransitionTime }]);
    const ns = nestedManifests(changed!.object.raw, { labels: { 'hyperfleet.io/cluster-id': 'c1', 'hyperfleet.io/resource-type': 'namespace' } });
    assert.deepEqual(
      ns.map((m) => [m.kind, m.conditions, m.statusFeedback]),
      [['Namespace', [available], { values: [{ name: 'phase', fieldValue: { type: 'String', string: 'Active' } }] }]],
    );
    const cm = nestedManifests(changed!.object.raw, { byName: 'cluster-config' });
    assert.deepEqual(
      cm.map((m) => [m.kind, 'conditions' in m]),
      [['ConfigMap', false]],
    );
    assert.deepEqual(nestedManifests(changed!.object.raw, { namespace: 'elsewhere', byName: 'cluster-config' }), []);
  });

  it('times a recreation as Maestro deletes: delete requested (deleted_at, still listed), gone later, created again', async () => {
    const id = maestro.apply(SOURCE, 'cluster1', work('c1', 1));
    const sink = new Sink();
    const p = poller(sink);
    const finished: FinishedRecreation[] = [];
    const tracker = new RecreationTracker(
      { maxInFlight: 10, stuckThresholdMs: () => 3_600_000, sentinelIntervalSeconds: 10, readiness: () => ({ kind: 'condition', type: 'Available' }) },
      { finished: (r) => finished.push(r) },
    );
    const feed = () => {
      const seen = sink.take();
      for (const o of seen) tracker.observe(o.event, o.object, o.timeMs);
      return seen.map((o) => o.event);
    };
    await p.pollOnce();
    const [first] = sink.take();
    const t0 = clock.ms;
    assert.ok(tracker.start({ object: first!.object, clusterId: 'c1', trigger: 'rule', atMs: t0 }));

    // The adapter's DeleteManifestWork: Maestro marks the bundle and answers 204 at once.
    clock.ms += 2000;
    const requested = clock.ms;
    const res = await fetch(`${maestro.url}/api/maestro/v1/resource-bundles/${id}`, { method: 'DELETE' });
    assert.equal(res.status, 204);
    clock.ms += 3000;
    await p.pollOnce();
    assert.deepEqual(feed(), ['MODIFIED']);
    assert.equal(tracker.get('ManifestWork/cluster1/c1-mw')?.phase, 'deletion');
    // Still there while the agent deletes the manifests.
    clock.ms += 15_000;
    await p.pollOnce();
    assert.deepEqual(feed(), []);
    assert.ok(maestro.has(id));

    clock.ms += 40_000;
    maestro.agentDeleted(id);
    clock.ms += 5000;
    const gone = clock.ms;
    await p.pollOnce();
    // Missing from the list, then a 404 by id: gone.
    assert.ok(maestro.requests.some((r) => r.method === 'GET' && r.path === `/api/maestro/v1/resource-bundles/${id}` && r.status === 404));
    assert.deepEqual(feed(), ['DELETED']);
    assert.equal(tracker.get('ManifestWork/cluster1/c1-mw')?.phase, 'creation');

    // The adapter applies it again: same name, so the same id and uid.
    clock.ms += 10_000;
    const created = clock.ms;
    assert.equal(maestro.apply(SOURCE, 'cluster1', work('c1', 2)), id);
    clock.ms += 5000;
    await p.pollOnce();
    assert.deepEqual(feed(), ['ADDED']);
    clock.ms += 20_000;
    const availableAt = clock.ms;
    maestro.reportStatus(id, [
      { type: 'Available', status: 'True', reason: 'ResourcesAvailable', message: '', lastTransitionTime: new Date(availableAt).toISOString() },
    ]);
    clock.ms += 5000;
    await p.pollOnce();
    assert.deepEqual(feed(), ['MODIFIED']);
    assert.deepEqual(
      finished.map((r) => [
        r.deletionRequestedAtMs,
        r.goneAtMs,
        r.createdAtMs,
        r.availableAtMs,
        r.deletionSeconds,
        r.creationSeconds,
        r.availabilitySeconds,
        r.newGeneration,
      ]),
      [[requested, gone, created, availableAt, (gone - requested) / 1000, (created - gone) / 1000, (availableAt - created) / 1000, '2']],
    );
  });

  it('fails a poll without handing anything on: 5xx, 401 (its own reason), and recovers', async () => {
    maestro.apply(SOURCE, 'cluster1', work('c1', 1));
    const sink = new Sink();
    const p = poller(sink);
    maestro.failNext(1, 503);
    await p.pollOnce();
    maestro.requireToken = 'secret';
    await p.pollOnce();
    assert.deepEqual(sink.reasons, ['http_5xx', 'unauthorized']);
    assert.deepEqual([p.health.up, p.health.consecutiveFailures], [false, 2]);
    assert.deepEqual(sink.take(), []);
    maestro.requireToken = undefined;
    await p.pollOnce();
    assert.deepEqual(
      sink.take().map((o) => o.event),
      ['ADDED'],
    );
    assert.deepEqual([p.health.up, p.truncated], [true, false]);
  });

  it('cuts a list longer than maxPages (truncated) and infers no deletion from it; rejects a bundle that is not one', async () => {
    for (const c of ['c1', 'c2', 'c3', 'c4', 'c5']) maestro.apply(SOURCE, 'cluster1', work(c, 1));
    const sink = new Sink();
    const p = poller(sink, { pageSize: 2, maxPages: 2 });
    await p.pollOnce();
    assert.deepEqual(
      sink.take().map((o) => o.object.name),
      ['c1-mw', 'c2-mw', 'c3-mw', 'c4-mw'],
    );
    assert.equal(p.truncated, true);
    // c1 deleted for good: the list (still cut) no longer has it, but a cut list proves nothing.
    const c1 = workId(SOURCE, 'cluster1', 'c1-mw');
    await fetch(`${maestro.url}/api/maestro/v1/resource-bundles/${c1}`, { method: 'DELETE' });
    maestro.agentDeleted(c1);
    await p.pollOnce();
    assert.deepEqual(
      sink.take().map((o) => [o.event, o.object.name]),
      [['ADDED', 'c5-mw']],
    );
    assert.ok(!maestro.requests.some((r) => r.method === 'GET' && r.path.endsWith(c1)));
    // With a third page the list fits: not truncated.
    const p2 = poller(new Sink(), { pageSize: 2, maxPages: 3 });
    await p2.pollOnce();
    assert.equal(p2.truncated, false);

    const bad = new Sink();
    const id = maestro.apply(SOURCE, 'cluster9', work('c9', 1));
    // A bundle whose version is not a number is rejected alone, naming the request and item.
    maestro.presentAs(id, { version: 'one' });
    await poller(bad).pollOnce();
    assert.deepEqual(
      bad.rejections.map((r) => [r.source, r.reason, r.message]),
      [['maestro', 'invalid_object', 'resource bundle.version: must be a non-negative integer, got "one"']],
    );
    assert.match(bad.rejections[0]!.where, /^GET \/api\/maestro\/v1\/resource-bundles\?page=1&size=400&search=.* items\[4\]$/);
    assert.equal(bad.take().length, 4);
  });
});
