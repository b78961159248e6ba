import assert from 'node:assert/strict';
import { ResilientInformer, type RawKubeObject, type Timers } from '../../../collector/kube/informer.js';
import { FakeKubeApiServer, kubeConfigFor, resourcePath, RESOURCES, type FakeObject, type ServerEvent } from '../../support/fake-kube-apiserver.js';
import { Waiters } from '../../support/until.js';

const HC = RESOURCES.hostedClusters;
const PATH = resourcePath(HC, 'clusters');
const FAST_BACKOFF = { initialMs: 5, maxMs: 40, resetAfterMs: 60_000 };

function hc(name: string, finalizers: string[] = []): FakeObject {
  return { metadata: { name, namespace: 'clusters', finalizers }, spec: { release: { image: 'r1' } }, status: { n: 0 } };
}

/** One delivery as a comparable line: what happened to which incarnation, and the state it carried. */
function line(verb: 'add' | 'update' | 'delete', obj: RawKubeObject | FakeObject): string {
  const m = obj.metadata!;
  const head = `${verb} ${m.uid}`;
  return verb === 'delete' ? head : `${head} ${JSON.stringify(obj.status)}${m.deletionTimestamp ? ' deleting' : ''}`;
}

const VERB = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' } as const;

/** Per object (namespace/name), in order: the transitions the server's own log says happened. */
function expectedFrom(events: readonly ServerEvent[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of events)
    if (e.resource === 'hypershift.openshift.io/v1beta1/hostedclusters') (out[`${e.namespace}/${e.name}`] ??= []).push(line(VERB[e.type], e.object));
  return out;
}

class Recorder {
  readonly perObject: Record<string, string[]> = {};
  readonly errors: Error[] = [];
  readonly states: boolean[] = [];
  readonly delays: number[] = [];
  private readonly waiters = new Waiters();

  readonly handlers = {
    add: (o: RawKubeObject) => this.record('add', o),
    update: (o: RawKubeObject) => this.record('update', o),
    delete: (o: RawKubeObject) => this.record('delete', o),
    state: (up: boolean) => this.note(() => this.states.push(up)),
    error: (e: Error, retryInMs?: number) =>
      this.note(() => {
        this.errors.push(e);
        if (retryInMs !== undefined) this.delays.push(retryInMs);
      }),
  };

  /** Resolves when `check` holds, re-checked after every callback; rejects after a deadline. */
  until(what: string, check: () => boolean): Promise<void> {
    return this.waiters.until(what, check, { describe: () => JSON.stringify(this.perObject) });
  }

  has(name: string): boolean {
    return (this.perObject[`clusters/${name}`] ?? []).length > 0;
  }

  private record(verb: 'add' | 'update' | 'delete', o: RawKubeObject): void {
    this.note(() => (this.perObject[`${o.metadata?.namespace}/${o.metadata?.name}`] ??= []).push(line(verb, o)));
  }

  private note(fn: () => void): void {
    fn();
    this.waiters.changed();
  }
}

describe('ResilientInformer: the real client-node informer against the fake API server', function () {
  // informers against an in-test API server that fails on purpose
  this.timeout(20_000);
  let server: FakeKubeApiServer;
  let informer: ResilientInformer | undefined;
  let rec: Recorder;

  beforeEach(async () => {
    server = new FakeKubeApiServer({ historyLimit: 100 });
    await server.start();
    rec = new Recorder();
  });
  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
    await server.close();
  });

  async function startInformer(): Promise<void> {
    informer = new ResilientInformer({ kubeConfig: kubeConfigFor(server), path: PATH, backoff: FAST_BACKOFF }, rec.handlers);
    informer.start();
    await informer.whenSynced();
    await server.waitForWatchers(PATH, 1);
  }

  /** A last change: once it is delivered, anything delivered twice before it would already show in the log. */
  async function settle(): Promise<void> {
    server.create(HC, hc('zz-sentinel'));
    await rec.until('the sentinel', () => rec.has('zz-sentinel'));
    assert.deepEqual(rec.perObject, expectedFrom(server.events), 'every transition of the server log exactly once');
  }

  const lists = (): number => server.requests.filter((r) => r.path === PATH && !r.watch).length;

  it('delivers ADDED, MODIFIED and DELETED, with finalizers and deletionTimestamp, from one list and one watch', async () => {
    server.create(HC, hc('a'));
    await startInformer();
    server.create(HC, hc('b'));
    server.patchStatus(HC, 'clusters', 'a', { n: 1 });
    server.delete(HC, 'clusters', 'b');
    server.create(HC, hc('c', ['hypershift.io/finalizer']));
    server.delete(HC, 'clusters', 'c');
    server.removeFinalizers(HC, 'clusters', 'c');
    await settle();
    assert.equal(lists(), 1);
    assert.deepEqual(rec.errors, []);
    assert.deepEqual(rec.states, [true]);
    assert.equal(informer!.isUp, true);
  });

  it('a BOOKMARK advances the RV so a re-watch after compaction needs no re-list; without it, 410 forces one', async () => {
    server.create(HC, hc('a'));
    await startInformer();
    for (let i = 0; i < 3; i++) server.create(RESOURCES.jobs, { metadata: { name: `j${i}`, namespace: 'clusters' } });
    const bookmarkRv = server.resourceVersion;
    server.sendBookmarks();
    server.compactHistory();
    server.endStreams();
    const rewatch = await server.waitForRequest((r) => r.watch && r.path === PATH && r.query.resourceVersion === bookmarkRv);
    assert.equal(rewatch.status, 200);
    assert.equal(lists(), 1);
    await server.waitForWatchers(PATH, 1);
    server.create(RESOURCES.jobs, { metadata: { name: 'j3', namespace: 'clusters' } });
    server.compactHistory();
    server.endStreams();
    await server.waitForRequest((r) => r.path === PATH && !r.watch && lists() === 2);
    await settle();
    assert.deepEqual(rec.errors, []);
  });

  for (const mode of ['http', 'event'] as const) {
    it(`re-lists after 410 Gone (${mode === 'http' ? 'HTTP 410' : 'in-stream ERROR 410'}) and delivers what changed meanwhile once`, async () => {
      server.expiredWatch = mode;
      server.create(HC, hc('a'));
      server.create(HC, hc('b'));
      await startInformer();
      server.endStreams();
      server.patchStatus(HC, 'clusters', 'a', { n: 1 });
      server.delete(HC, 'clusters', 'b');
      server.create(HC, hc('d'));
      server.compactHistory();
      await settle();
      assert.equal(lists(), 2);
      assert.deepEqual(rec.errors, [], 'a 410 is no failure');
    });
  }

  it('re-lists after an in-stream 410 on an established watch', async () => {
    server.create(HC, hc('a'));
    await startInformer();
    server.expireWatches();
    server.patchStatus(HC, 'clusters', 'a', { n: 1 });
    await settle();
    assert.equal(lists(), 2);
  });

  it('recovers from a stream cut mid-event: the cut event is delivered once, whole', async () => {
    server.create(HC, hc('a'));
    await startInformer();
    server.cutNextEvent();
    server.patchStatus(HC, 'clusters', 'a', { n: 1 });
    await settle();
    assert.equal(rec.errors.length, 1);
    assert.deepEqual(rec.states, [true, false, true]);
  });

  it('recovers from dropped streams, with changes and a same-name recreation while disconnected', async () => {
    server.create(HC, hc('a'));
    server.create(HC, hc('b'));
    await startInformer();
    server.dropStreams();
    server.patchStatus(HC, 'clusters', 'b', { n: 1 });
    server.delete(HC, 'clusters', 'a');
    server.create(HC, hc('a'));
    await settle();
    assert.equal(rec.perObject['clusters/a']!.length, 3, 'add, delete of the old uid, add of the new one');
  });

  it('restarts with backoff after 500s until the API answers again', async () => {
    server.create(HC, hc('a'));
    await startInformer();
    server.failNext(3, 500);
    server.endStreams();
    server.patchStatus(HC, 'clusters', 'a', { n: 1 });
    await settle();
    assert.equal(rec.errors.length, 3);
    assert.deepEqual(rec.delays, [5, 10, 20]);
    assert.deepEqual(rec.states, [true, false, true]);
  });

  it('survives refused connections for a while, then catches up once accepted', async () => {
    server.create(HC, hc('a'));
    server.create(HC, hc('b'));
    await startInformer();
    await server.refuseConnections();
    server.patchStatus(HC, 'clusters', 'a', { n: 1 });
    server.delete(HC, 'clusters', 'b');
    await rec.until('five refused attempts', () => rec.errors.length >= 5);
    assert.ok(
      rec.errors.slice(1).every((e) => (e as Error & { code?: string }).code === 'ECONNREFUSED'),
      rec.errors.map((e) => e.message).join('; '),
    );
    assert.deepEqual(rec.delays.slice(0, 5), [5, 10, 20, 40, 40]);
    await server.acceptConnections();
    await settle();
    assert.equal(rec.states.at(-1), true);
  });

  it('an API server restarted with a new RV history: no spurious updates, real changes once', async () => {
    server.create(HC, hc('a'));
    server.create(HC, hc('b'));
    server.create(HC, hc('c'));
    await startInformer();
    server.restartWithNewHistory();
    server.patchStatus(HC, 'clusters', 'b', { n: 1 });
    server.delete(HC, 'clusters', 'c');
    await settle();
    assert.deepEqual(rec.perObject['clusters/a'], [line('add', server.events[0]!.object)]);
  });

  it('a chain of every fault in a row loses and duplicates nothing', async () => {
    server.create(HC, hc('a', ['f']));
    server.create(HC, hc('b'));
    await startInformer();
    const step = async (fault: () => void | Promise<void>, change: () => void): Promise<void> => {
      await fault();
      change();
      await server.acceptConnections();
      await server.waitForWatchers(PATH, 1);
    };
    let n = 0;
    const bump = (name: string) => () => void server.patchStatus(HC, 'clusters', name, { n: ++n });
    await step(() => void server.dropStreams(), bump('a'));
    await step(() => server.cutNextEvent(), bump('b'));
    await step(() => void server.expireWatches(), bump('a'));
    await step(() => {
      server.failNext(2, 503);
      server.endStreams();
    }, bump('b'));
    await step(() => server.refuseConnections(), bump('a'));
    await step(
      () => server.restartWithNewHistory(),
      () => void server.delete(HC, 'clusters', 'a'),
    );
    await step(
      () => {
        server.endStreams();
        server.compactHistory();
      },
      () => void server.removeFinalizers(HC, 'clusters', 'a'),
    );
    await settle();
  });

  it('stop() ends cleanly: no error from the aborted watch, no restart, nothing delivered after', async () => {
    server.create(HC, hc('a'));
    await startInformer();
    await informer!.stop();
    await server.waitForNoWatchers(PATH);
    server.patchStatus(HC, 'clusters', 'a', { n: 1 });
    server.create(HC, hc('b'));
    assert.deepEqual(rec.errors, []);
    assert.deepEqual(rec.states, [true, false]);
    assert.deepEqual(Object.keys(rec.perObject), ['clusters/a']);
  });

  it('a throwing handler is reported and does not stop the informer', async () => {
    server.create(HC, hc('a'));
    let thrown = 0;
    informer = new ResilientInformer(
      { kubeConfig: kubeConfigFor(server), path: PATH, backoff: FAST_BACKOFF },
      {
        ...rec.handlers,
        update: (o) => {
          if (thrown++ === 0) throw new Error('handler bug');
          rec.handlers.update(o);
        },
      },
    );
    informer.start();
    await informer.whenSynced();
    await server.waitForWatchers(PATH, 1);
    server.patchStatus(HC, 'clusters', 'a', { n: 1 });
    server.patchStatus(HC, 'clusters', 'a', { n: 2 });
    await rec.until('the second update', () => (rec.perObject['clusters/a'] ?? []).length === 2);
    assert.deepEqual(
      rec.errors.map((e) => e.message),
      ['handler bug'],
    );
    assert.equal(informer.isUp, true);
  });
});

/** Timers under test control: the delays asked for are recorded; a test fires them and moves the clock. */
class ManualTimers implements Timers {
  clock = 0;
  readonly asked: number[] = [];
  private pending: (() => void) | undefined;

  now(): number {
    return this.clock;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    this.asked.push(ms);
    this.pending = fn;
    return ms;
  }
  clearTimeout(): void {
    this.pending = undefined;
  }
  fire(): void {
    const fn = this.pending;
    this.pending = undefined;
    fn?.();
  }
}

describe('ResilientInformer backoff', function () {
  // informers against an in-test API server that fails on purpose
  this.timeout(20_000);
  it('doubles from initialMs up to maxMs, and starts again after being up for resetAfterMs', async () => {
    const server = new FakeKubeApiServer();
    await server.start();
    const timers = new ManualTimers();
    const rec = new Recorder();
    const informer = new ResilientInformer(
      { kubeConfig: kubeConfigFor(server), path: PATH, timers, backoff: { initialMs: 100, maxMs: 800, resetAfterMs: 5000 } },
      rec.handlers,
    );
    try {
      await server.refuseConnections();
      informer.start();
      for (let i = 1; i <= 5; i++) {
        await rec.until(`failure ${i}`, () => rec.errors.length === i);
        if (i < 5) timers.fire();
      }
      assert.deepEqual(timers.asked, [100, 200, 400, 800, 800]);
      await server.acceptConnections();
      timers.fire();
      await informer.whenSynced();
      await server.waitForWatchers(PATH, 1);
      timers.clock += 4999;
      server.dropStreams();
      await rec.until('a failure before resetAfterMs', () => rec.errors.length === 6);
      assert.equal(timers.asked.at(-1), 800);
      timers.fire();
      await rec.until('up again', () => rec.states.at(-1) === true);
      await server.waitForWatchers(PATH, 1);
      timers.clock += 5000;
      server.dropStreams();
      await rec.until('a failure after resetAfterMs', () => rec.errors.length === 7);
      assert.equal(timers.asked.at(-1), 100);
    } finally {
      await informer.stop();
      await server.close();
    }
  });
});
