import assert from 'node:assert/strict';
import { request } from 'node:http';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { FakeKubeApiServer, kubeConfigFor, resourcePath, RESOURCES, type FakeObject } from './fake-kube-apiserver.js';

const HC = RESOURCES.hostedClusters;
const HC_PATH = resourcePath(HC, 'clusters');

function hostedCluster(name: string, labels: Record<string, string> = {}, finalizers: string[] = []): FakeObject {
  return { metadata: { name, namespace: 'clusters', labels, finalizers }, spec: { release: { image: 'r1' } } };
}

/** A raw HTTP watch: collects each line as it arrives; `next()` waits for the next one. */
class RawWatch {
  readonly lines: string[] = [];
  status = 0;
  readonly ended: Promise<'end' | 'aborted'>;
  private readers: (() => void)[] = [];
  private taken = 0;

  constructor(server: FakeKubeApiServer, pathAndQuery: string) {
    this.ended = new Promise((resolve) => {
      const req = request(`${server.url}${pathAndQuery}`, { headers: { Authorization: `Bearer ${server.token}` } }, (res) => {
        this.status = res.statusCode ?? 0;
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            this.lines.push(buffered.slice(0, nl));
            buffered = buffered.slice(nl + 1);
          }
          this.wake();
        });
        res.on('error', () => undefined);
        res.on('close', () => {
          if (buffered !== '') this.lines.push(`PARTIAL:${buffered}`);
          resolve(res.complete ? 'end' : 'aborted');
        });
      });
      req.on('error', () => resolve('aborted'));
      req.end();
    });
    void this.ended.then(() => this.wake());
  }

  async next(): Promise<{ type: string; object: FakeObject & { code?: number } }> {
    while (this.lines.length <= this.taken) await new Promise<void>((r) => this.readers.push(r));
    return JSON.parse(this.lines[this.taken++]!) as { type: string; object: FakeObject & { code?: number } };
  }

  async waitForLines(n: number): Promise<void> {
    while (this.lines.length < n) await new Promise<void>((r) => this.readers.push(r));
  }

  private wake(): void {
    const readers = this.readers;
    this.readers = [];
    for (const r of readers) r();
  }
}

async function getJson(server: FakeKubeApiServer, pathAndQuery: string, token = server.token): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${pathAndQuery}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('FakeKubeApiServer (test support): the list/watch protocol', function () {
  // client-node against the in-test API server
  this.timeout(20_000);
  let server: FakeKubeApiServer;
  const fixedNow = new Date('2026-11-01T00:00:00.250Z');

  beforeEach(async () => {
    server = new FakeKubeApiServer({ historyLimit: 5, now: () => fixedNow });
    await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('assigns uid, generation, timestamps and increasing resourceVersions; lists with the current RV', async () => {
    const a = server.create(HC, hostedCluster('a'));
    const b = server.create(HC, hostedCluster('b'));
    assert.equal(a.apiVersion, 'hypershift.openshift.io/v1beta1');
    assert.equal(a.kind, 'HostedCluster');
    assert.equal(a.metadata.generation, 1);
    assert.equal(a.metadata.creationTimestamp, '2026-11-01T00:00:00Z');
    assert.notEqual(a.metadata.uid, b.metadata.uid);
    assert.ok(Number(b.metadata.resourceVersion) > Number(a.metadata.resourceVersion));
    const { status, body } = await getJson(server, HC_PATH);
    assert.equal(status, 200);
    assert.equal(body.kind, 'HostedClusterList');
    assert.deepEqual((body.metadata as { resourceVersion: string }).resourceVersion, b.metadata.resourceVersion);
    assert.deepEqual(
      (body.items as FakeObject[]).map((o) => o.metadata.name),
      ['a', 'b'],
    );
    const one = await getJson(server, `${HC_PATH}/b`);
    assert.equal((one.body as unknown as FakeObject).metadata.uid, b.metadata.uid);
    assert.equal((await getJson(server, `${HC_PATH}/zz`)).status, 404);
    assert.equal((await getJson(server, '/apis/example.com/v1/namespaces/x/widgets')).status, 404);
  });

  it('bumps generation only on spec change; status patches and no-op updates do not', () => {
    const a = server.create(HC, hostedCluster('a'));
    const s = server.patchStatus(HC, 'clusters', 'a', { conditions: [{ type: 'ReconciliationSucceeded', status: 'True' }] });
    assert.equal(s.metadata.generation, 1);
    assert.ok(Number(s.metadata.resourceVersion) > Number(a.metadata.resourceVersion));
    const same = server.update(HC, s);
    assert.equal(same.metadata.resourceVersion, s.metadata.resourceVersion);
    const g2 = server.patch(HC, 'clusters', 'a', { spec: { release: { image: 'r2' } } });
    assert.equal(g2.metadata.generation, 2);
    assert.deepEqual(
      server.events.map((e) => [e.type, e.name, e.object.metadata.generation]),
      [
        ['ADDED', 'a', 1],
        ['MODIFIED', 'a', 1],
        ['MODIFIED', 'a', 2],
      ],
    );
  });

  it('deletes with finalizers in two steps: MODIFIED with deletionTimestamp, then one DELETED', () => {
    server.create(HC, hostedCluster('a', {}, ['f1', 'f2']));
    const marked = server.delete(HC, 'clusters', 'a');
    assert.equal(marked.metadata.deletionTimestamp, '2026-11-01T00:00:00Z');
    server.removeFinalizers(HC, 'clusters', 'a', ['f1']);
    assert.ok(server.get(HC, 'clusters', 'a'));
    const gone = server.removeFinalizers(HC, 'clusters', 'a');
    assert.deepEqual(gone.metadata.finalizers, []);
    assert.equal(server.get(HC, 'clusters', 'a'), undefined);
    assert.deepEqual(
      server.events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED'],
    );
  });

  it('replays events after the watch RV and then streams live ones, in RV order', async () => {
    const a = server.create(HC, hostedCluster('a'));
    server.patchStatus(HC, 'clusters', 'a', { phase: 'one' });
    const watch = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${a.metadata.resourceVersion}`);
    const replayed = await watch.next();
    assert.equal(replayed.type, 'MODIFIED');
    assert.deepEqual(replayed.object.status, { phase: 'one' });
    await server.waitForWatchers(HC_PATH, 1);
    server.create(HC, hostedCluster('b'));
    server.delete(HC, 'clusters', 'a');
    const live = [await watch.next(), await watch.next()];
    assert.deepEqual(
      live.map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'b'],
        ['DELETED', 'a'],
      ],
    );
    assert.equal(live[1]!.object.metadata.resourceVersion, server.events[3]!.rv);
  });

  it('starts a watch without RV with synthetic ADDED events for the current objects', async () => {
    server.create(HC, hostedCluster('a'));
    server.patchStatus(HC, 'clusters', 'a', { phase: 'x' });
    const watch = new RawWatch(server, `${HC_PATH}?watch=1`);
    const first = await watch.next();
    assert.equal(first.type, 'ADDED');
    assert.deepEqual(first.object.status, { phase: 'x' });
  });

  it('answers an RV older than the history with 410: in-stream ERROR by default, HTTP 410 when configured', async () => {
    const first = server.create(HC, hostedCluster('a'));
    for (let i = 0; i < 6; i++) server.patchStatus(HC, 'clusters', 'a', { n: i });
    const inStream = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    const err = await inStream.next();
    assert.equal(inStream.status, 200);
    assert.equal(err.type, 'ERROR');
    assert.equal(err.object.code, 410);
    assert.equal(await inStream.ended, 'end');
    server.expiredWatch = 'http';
    const http = await getJson(server, `${HC_PATH}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    assert.equal(http.status, 410);
    assert.equal(http.body.reason, 'Expired');
    // The 5 retained events can still be replayed from just before them.
    const recent = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${Number(server.resourceVersion) - 5}`);
    assert.deepEqual((await recent.next()).object.status, { n: 1 });
  });

  it('compactHistory() expires every earlier RV; restartWithNewHistory() moves RVs to a new epoch and cuts streams', async () => {
    const a = server.create(HC, hostedCluster('a'));
    server.patchStatus(HC, 'clusters', 'a', { phase: 'p' });
    server.compactHistory();
    server.expiredWatch = 'http';
    assert.equal((await getJson(server, `${HC_PATH}?watch=true&resourceVersion=${a.metadata.resourceVersion}`)).status, 410);
    const current = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${server.resourceVersion}`);
    await server.waitForWatchers(HC_PATH, 1);
    server.restartWithNewHistory();
    assert.equal(await current.ended, 'aborted');
    const after = server.get(HC, 'clusters', 'a')!;
    assert.equal(after.metadata.uid, a.metadata.uid);
    assert.ok(Number(after.metadata.resourceVersion) > 1_000_000);
    assert.equal((await getJson(server, `${HC_PATH}?watch=true&resourceVersion=${a.metadata.resourceVersion}`)).status, 410);
    assert.equal(server.events.length, 2, 'the restart itself is no object transition');
  });

  it('filters lists and watches by label and field selectors; leaving a selection is a DELETED', async () => {
    server.create(HC, hostedCluster('a', { tier: 'gold', env: 'prod' }));
    server.create(HC, hostedCluster('b', { tier: 'silver' }));
    server.create(HC, hostedCluster('c', {}));
    const names = async (q: string): Promise<string[]> => ((await getJson(server, `${HC_PATH}?${q}`)).body.items as FakeObject[]).map((o) => o.metadata.name);
    assert.deepEqual(await names('labelSelector=tier%3Dgold'), ['a']);
    assert.deepEqual(await names('labelSelector=tier!%3Dgold'), ['b', 'c']);
    assert.deepEqual(await names('labelSelector=tier%20in%20(gold,silver),!env'), ['b']);
    assert.deepEqual(await names('labelSelector=tier%20notin%20(gold)'), ['b', 'c']);
    assert.deepEqual(await names('labelSelector=tier'), ['a', 'b']);
    assert.deepEqual(await names('fieldSelector=metadata.name%3Dc'), ['c']);
    assert.equal((await getJson(server, `${HC_PATH}?fieldSelector=spec.x%3D1`)).status, 400);
    const watch = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${server.resourceVersion}&labelSelector=tier%3Dgold`);
    await server.waitForWatchers(HC_PATH, 1);
    server.patch(HC, 'clusters', 'b', { metadata: { labels: { tier: 'gold' } } });
    server.patch(HC, 'clusters', 'a', { metadata: { labels: { tier: null } } });
    server.patchStatus(HC, 'clusters', 'c', { ignored: true });
    assert.deepEqual(
      [await watch.next(), await watch.next()].map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'b'],
        ['DELETED', 'a'],
      ],
    );
  });

  it('serves across all namespaces, core resources, and pages with limit/continue', async () => {
    server.create(HC, { metadata: { name: 'x', namespace: 'other' } });
    server.create(HC, hostedCluster('a'));
    const all = await getJson(server, resourcePath(HC));
    assert.deepEqual(
      (all.body.items as FakeObject[]).map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ['clusters/a', 'other/x'],
    );
    server.create(RESOURCES.namespaces, { metadata: { name: 'clusters' } });
    assert.equal((await getJson(server, '/api/v1/namespaces/clusters')).status, 200);
    const page1 = await getJson(server, `${resourcePath(HC)}?limit=1`);
    const token = (page1.body.metadata as { continue: string }).continue;
    const page2 = await getJson(server, `${resourcePath(HC)}?limit=1&continue=${token}`);
    assert.deepEqual(
      (page2.body.items as FakeObject[]).map((o) => o.metadata.name),
      ['x'],
    );
    assert.equal((page2.body.metadata as { continue?: string }).continue, undefined);
  });

  it('sends BOOKMARKs at the current RV, cuts streams mid-event, ends them cleanly, expires them in-stream', async () => {
    const watch = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${server.resourceVersion}`);
    await server.waitForWatchers(HC_PATH, 1);
    server.create(RESOURCES.jobs, { metadata: { name: 'j', namespace: 'clusters' } });
    server.sendBookmarks();
    const bookmark = await watch.next();
    assert.equal(bookmark.type, 'BOOKMARK');
    assert.equal(bookmark.object.metadata.resourceVersion, server.resourceVersion);
    server.cutNextEvent();
    server.create(HC, hostedCluster('a'));
    assert.equal(await watch.ended, 'aborted');
    assert.match(watch.lines[1]!, /^PARTIAL:\{"type":"ADDED"/);
    const clean = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${server.resourceVersion}`);
    await server.waitForWatchers(HC_PATH, 1);
    assert.equal(server.endStreams(), 1);
    assert.equal(await clean.ended, 'end');
    const expiring = new RawWatch(server, `${HC_PATH}?watch=true&resourceVersion=${server.resourceVersion}`);
    await server.waitForWatchers(HC_PATH, 1);
    server.expireWatches();
    assert.equal((await expiring.next()).object.code, 410);
    assert.equal(await expiring.ended, 'end');
  });

  it('injects 5xx, refuses connections on the same port, requires the token and refuses writes', async () => {
    server.failNext(2, 500);
    assert.equal((await getJson(server, HC_PATH)).status, 500);
    assert.equal((await getJson(server, HC_PATH)).status, 500);
    assert.equal((await getJson(server, HC_PATH)).status, 200);
    assert.equal((await getJson(server, HC_PATH, 'wrong')).status, 401);
    const post = await fetch(`${server.url}${HC_PATH}`, { method: 'POST', headers: { Authorization: `Bearer ${server.token}` }, body: '{}' });
    assert.equal(post.status, 405);
    const url = server.url;
    await server.refuseConnections();
    const refused = await new Promise<string | undefined>((resolve) => {
      const req = request(`${url}${HC_PATH}`, { agent: false }, () => resolve(undefined));
      req.on('error', (e: Error & { code?: string }) => resolve(e.code));
      req.end();
    });
    assert.equal(refused, 'ECONNREFUSED');
    await server.acceptConnections();
    assert.equal(server.url, url);
    assert.equal((await getJson(server, HC_PATH)).status, 200);
    assert.deepEqual(
      server.requests.map((r) => [r.method, r.status, r.authorization]),
      [
        ['GET', 500, 'Bearer fake-token'],
        ['GET', 500, 'Bearer fake-token'],
        ['GET', 200, 'Bearer fake-token'],
        ['GET', 401, 'Bearer wrong'],
        ['POST', 405, 'Bearer fake-token'],
        ['GET', 200, 'Bearer fake-token'],
      ],
    );
  });

  it('streams pod logs: existing lines, then appended ones with follow=true, per container, with timestamps', async () => {
    server.create(RESOURCES.pods, { metadata: { name: 'op', namespace: 'hs' }, spec: { containers: [{ name: 'operator' }, { name: 'sidecar' }] } });
    server.appendPodLog('hs', 'op', 'first');
    server.appendPodLog('hs', 'op', 'other container', { container: 'sidecar' });
    const path = '/api/v1/namespaces/hs/pods/op/log';
    const plain = await fetch(`${server.url}${path}?timestamps=true`, { headers: { Authorization: `Bearer ${server.token}` } });
    assert.equal(await plain.text(), '2026-11-01T00:00:00.250000000Z first\n');
    const follow = new RawWatch(server, `${path}?follow=true&container=operator`);
    await server.waitForRequest((r) => r.path === path && r.query.follow === 'true' && r.status === 200);
    server.appendPodLog('hs', 'op', '{"msg":"second"}');
    server.appendPodLog('hs', 'op', 'half', { raw: true });
    await follow.waitForLines(2);
    server.dropStreams();
    assert.equal(await follow.ended, 'aborted');
    assert.deepEqual(follow.lines, ['first', '{"msg":"second"}', 'PARTIAL:half']);
    assert.equal((await getJson(server, '/api/v1/namespaces/hs/pods/nope/log')).status, 404);
  });

  it('answers the real client-node API clients', async () => {
    server.create(HC, hostedCluster('a'));
    server.create(RESOURCES.pods, { metadata: { name: 'p', namespace: 'clusters' } });
    const kc = kubeConfigFor(server);
    const list = (await kc
      .makeApiClient(CustomObjectsApi)
      .listNamespacedCustomObject({ group: HC.group, version: HC.version, namespace: 'clusters', plural: HC.plural })) as { items: FakeObject[] };
    assert.deepEqual(
      list.items.map((o) => o.metadata.name),
      ['a'],
    );
    const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'clusters' });
    assert.deepEqual(
      pods.items.map((p) => p.metadata?.name),
      ['p'],
    );
    assert.ok(server.requests.every((r) => r.authorization === 'Bearer fake-token'));
  });
});
