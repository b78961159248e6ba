import { strict as assert } from 'node:assert';
import { collectionPath, KubeObjectSource, pluralOf } from '../../../collector/objects/kube-source.js';
import type { ObjectObservation, Observation } from '../../../collector/objects/observation.js';
import type { Rejection } from '../../../collector/records.js';
import { FakeKubeApiServer, kubeConfigFor, RESOURCES, type FakeObject } from '../../support/fake-kube-apiserver.js';
import { until } from '../../support/until.js';

const JOBS = RESOURCES.jobs;

function job(cluster: string, generation: number, finalizers: string[] = []): FakeObject {
  return {
    metadata: {
      name: `validate-${cluster}`,
      namespace: `hf-${cluster}`,
      labels: { 'hyperfleet.io/cluster-id': cluster },
      annotations: { 'hyperfleet.io/generation': String(generation) },
      finalizers,
    },
    spec: { template: {} },
  };
}

class Sink {
  readonly seen: ObjectObservation[] = [];
  readonly rejected: Rejection[] = [];
  observe(o: Observation): void {
    assert.equal(o.type, 'object');
    this.seen.push(o);
  }
  reject(r: Rejection): void {
    this.rejected.push(r);
  }
  lines(): string[] {
    return this.seen.map(
      (o) =>
        `${o.event} ${o.object.namespace}/${o.object.name} gen=${o.object.annotations['hyperfleet.io/generation']}${o.object.deletionTimestampMs ? ' deleting' : ''}`,
    );
  }
}

describe('managed objects from Kubernetes informers', function () {
  // watches against an in-test API server
  this.timeout(20_000);
  let server: FakeKubeApiServer;
  let clock = Date.parse('2026-11-02T00:00:00Z');
  beforeEach(async () => {
    server = new FakeKubeApiServer({ now: () => new Date(clock) });
    await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('paths and plurals of watched kinds', () => {
    assert.deepEqual(
      ['Job', 'Namespace', 'Ingress', 'NetworkPolicy', 'Endpoints', 'ConfigMap'].map((k) => pluralOf(k)),
      ['jobs', 'namespaces', 'ingresses', 'networkpolicies', 'endpoints', 'configmaps'],
    );
    assert.equal(pluralOf('Widget', { Widget: 'widgetz' }), 'widgetz');
    assert.equal(collectionPath({ apiVersion: 'batch/v1', kind: 'Job' }), '/apis/batch/v1/jobs');
    assert.equal(collectionPath({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'hf' }), '/api/v1/namespaces/hf/configmaps');
  });

  it('lists and watches the kind with the static label selector, and hands on every change as an observation', async () => {
    server.create(JOBS, job('c1', 1, ['example.com/hold']));
    server.create(JOBS, { metadata: { name: 'unrelated', namespace: 'default' }, spec: {} });
    const sink = new Sink();
    let now = clock;
    const source = new KubeObjectSource(
      {
        kubeConfig: kubeConfigFor(server),
        watches: [{ apiVersion: 'batch/v1', kind: 'Job', labelSelector: 'hyperfleet.io/cluster-id' }],
        timers: { now: () => now, setTimeout, clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
      },
      sink,
    );
    await source.start();
    await source.whenSynced();
    await server.waitForWatchers('/apis/batch/v1/jobs');
    assert.deepEqual(sink.lines(), ['ADDED hf-c1/validate-c1 gen=1']);
    // List items of built-in types carry no apiVersion/kind; the watch fills them in.
    assert.deepEqual([sink.seen[0]!.object.apiVersion, sink.seen[0]!.object.kind, sink.seen[0]!.timeMs], ['batch/v1', 'Job', now]);
    const list = server.requests.find((r) => r.path === '/apis/batch/v1/jobs' && !r.watch)!;
    assert.deepEqual(list.query, { labelSelector: 'hyperfleet.io/cluster-id' });

    clock += 5000;
    now = clock;
    server.delete(JOBS, 'hf-c1', 'validate-c1');
    await until('the deletion request', () => sink.seen.length === 2);
    assert.equal(sink.seen[1]!.object.deletionTimestampMs, clock);
    server.removeFinalizers(JOBS, 'hf-c1', 'validate-c1');
    server.create(JOBS, job('c1', 2));
    await until('the recreation', () => sink.seen.length === 4);
    assert.deepEqual(sink.lines(), [
      'ADDED hf-c1/validate-c1 gen=1',
      'MODIFIED hf-c1/validate-c1 gen=1 deleting',
      'DELETED hf-c1/validate-c1 gen=1 deleting',
      'ADDED hf-c1/validate-c1 gen=2',
    ]);
    assert.notEqual(sink.seen[3]!.object.uid, sink.seen[0]!.object.uid);
    assert.deepEqual(sink.rejected, []);
    await source.stop();
    await server.waitForNoWatchers();
  });

  it('a deletion that happened while the API server was unreachable still arrives, once', async () => {
    server.create(JOBS, job('c1', 1));
    const sink = new Sink();
    const states: boolean[] = [];
    const source = new KubeObjectSource(
      {
        kubeConfig: kubeConfigFor(server),
        watches: [{ apiVersion: 'batch/v1', kind: 'Job', namespace: 'hf-c1' }],
        backoff: { initialMs: 5, maxMs: 20 },
        hooks: { state: (up) => states.push(up), error: () => undefined },
      },
      sink,
    );
    await source.start();
    await source.whenSynced();
    await server.waitForWatchers('/apis/batch/v1/namespaces/hf-c1/jobs');
    await server.refuseConnections();
    await until('the watch to go down', () => states.includes(false));
    server.delete(JOBS, 'hf-c1', 'validate-c1');
    server.create(JOBS, job('c1', 2));
    await server.acceptConnections();
    await until('the relist', () => sink.seen.length === 3);
    assert.deepEqual(sink.lines(), ['ADDED hf-c1/validate-c1 gen=1', 'DELETED hf-c1/validate-c1 gen=1', 'ADDED hf-c1/validate-c1 gen=2']);
    await source.stop();
  });
});
