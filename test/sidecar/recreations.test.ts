import { strict as assert } from 'node:assert';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HyperFleetPoller } from '../../collector/hyperfleet/poller.js';
import type { Timers } from '../../collector/kube/informer.js';
import { recreationsLine } from '../../outputs/console/live-summary.js';
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { FakeHyperFleetApi } from '../support/fake-hyperfleet-api.js';
import { FakeKubeApiServer, kubeConfigFor, RESOURCES, type FakeObject } from '../support/fake-kube-apiserver.js';
import { CONTRACT_CASES } from '../support/paths.js';
import { valueOf, type Sample } from '../support/prometheus-text.js';
import { scrape } from '../support/sidecar-metrics.js';
import { until } from '../support/until.js';

const JOBS = RESOURCES.jobs;
const T0 = Date.parse('2026-11-02T00:00:00Z');

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

/** One clock for the API server, the HyperFleet API and the sidecar; timers fire only when the test says. */
class Clock implements Timers {
  ms = T0;
  readonly pending: { fn: () => void; ms: number }[] = [];
  now(): number {
    return this.ms;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const t = { fn, ms };
    this.pending.push(t);
    return t;
  }
  clearTimeout(handle: unknown): void {
    const i = this.pending.indexOf(handle as { fn: () => void; ms: number });
    if (i >= 0) this.pending.splice(i, 1);
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

describe('the recreation analyzer live: informers against an in-test API server, cluster state from an in-test HyperFleet API', function () {
  // sidecars against in-test Kubernetes and HyperFleet APIs
  this.timeout(30_000);
  let kube: FakeKubeApiServer;
  let api: FakeHyperFleetApi;
  let clock: Clock;
  const sidecars: Sidecar[] = [];
  let taskConfig: string;

  beforeEach(async () => {
    clock = new Clock();
    kube = new FakeKubeApiServer({ now: () => new Date(clock.ms) });
    api = new FakeHyperFleetApi(() => new Date(clock.ms));
    await kube.start();
    await api.start();
    const dir = mkdtempSync(join(tmpdir(), 'recreations-live-'));
    taskConfig = join(dir, 'adapter-task-config.yaml');
    copyFileSync(join(CONTRACT_CASES, 'recreations', 'task-config.yaml'), taskConfig);
  });

  afterEach(async () => {
    for (const s of sidecars.splice(0)) await s.stop();
    await kube.close();
    await api.close();
  });

  /** The sidecar with a `recreations:` section, on the test's clock, against the in-test API servers. */
  async function sidecar(log: (line: string) => void = () => undefined, summary = 'console: {enabled: false}'): Promise<Sidecar> {
    const config = `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
listen: {metrics: 127.0.0.1:0}
recreations:
  taskConfig: ${JSON.stringify(taskConfig)}
  hyperfleet: {url: ${JSON.stringify(api.url)}, interval: 15s, timeout: 2s, kinds: [clusters]}
  sentinelInterval: 10s
  maxInFlight: 100
${summary}
`;
    const s = await startSidecar(parseConfig(config, 'shadow.yaml'), { env: {}, kubeConfig: kubeConfigFor(kube), timers: clock, log });
    sidecars.push(s);
    return s;
  }

  const shadowOf = (s: Sidecar) => s.recreations!.analyzer;
  const poller = (s: Sidecar) => s.sources.find((x) => x.kind === 'hyperfleet') as HyperFleetPoller;
  const up = (samples: Sample[], source: string) => valueOf(samples, 'reconcile_shadow_source_up', { source });

  it('a Job recreated by recreate_on_change, its deletion held by a finalizer across many events, then a sidecar restart', async () => {
    api.createCluster('c1');
    api.setReconciled('c1', true);
    kube.create(JOBS, job('c1', 1, ['example.com/hold']));
    const a = await sidecar();
    await until('the cluster and the Job', () => shadowOf(a).stats.observations === 2);
    assert.deepEqual(
      kube.requests.filter((r) => !r.watch).map((r) => `${r.path}?${new URLSearchParams(r.query).toString()}`),
      ['/apis/batch/v1/jobs?labelSelector=hyperfleet.io%2Fcluster-id'],
    );

    // The spec changes at T0+100 s: the poll that sees generation 2 is the trigger.
    clock.advance(100);
    api.patchSpec('c1', { version: '2' });
    await poller(a).pollOnce();
    assert.deepEqual(
      [...shadowOf(a).inFlight()].map((r) => [r.phase, r.triggeredAtMs, r.trigger]),
      [['triggered', T0 + 100_000, 'recreate_on_change']],
    );

    // The adapter deletes at +103 s; a finalizer holds the Job while many other events come and go.
    clock.advance(3);
    kube.delete(JOBS, 'hf-c1', 'validate-c1');
    await until('the deletion request', () => [...shadowOf(a).inFlight()][0]?.phase === 'deletion');
    for (let i = 0; i < 20; i++) {
      clock.advance(30);
      kube.patchStatus(JOBS, 'hf-c1', 'validate-c1', { active: i });
      await poller(a).pollOnce();
    }
    await until('the status updates', () => shadowOf(a).stats.observations === 2 + 1 + 1 + 20);
    assert.equal([...shadowOf(a).inFlight()][0]?.phase, 'deletion');
    let s = await scrape(a);
    // Triggered at 100 s, now 703 s: stuck for over 10 minutes, and named.
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_stuck', { kind: 'Job' }), 1);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_stuck_seconds', { kind: 'Job', namespace: 'hf-c1', name: 'validate-c1' }), 603);
    assert.equal(valueOf(s, 'reconcile_shadow_recreations_in_flight', { kind: 'Job', phase: 'deletion' }), 1);
    assert.equal(valueOf(s, 'reconcile_shadow_lifecycle_decisions_total', { kind: 'Job', decision: 'recreate' }), 22);
    assert.equal(recreationsLine(shadowOf(a), clock.ms), 'recreations: 0 finished, 1 in flight (oldest 10m03s, 1 stuck), 0 evicted');
    assert.deepEqual([up(s, 'hyperfleet'), up(s, 'objects')], [1, 1]);

    // The sidecar restarts: the new one rebuilds the recreation from the Job and the API, at its true age.
    await a.stop();
    clock.advance(60);
    const b = await sidecar();
    await until('the relist after the restart', () => shadowOf(b).stats.observations === 2);
    const [rebuilt] = [...shadowOf(b).inFlight()];
    assert.deepEqual(
      [rebuilt?.phase, rebuilt?.triggeredAtMs, rebuilt?.deletionRequestedAtMs, rebuilt?.rebuilt],
      ['deletion', T0 + 100_000, T0 + 103_000, true],
    );
    s = await scrape(b);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_oldest_seconds', { kind: 'Job' }), 663);

    // The finalizer goes, the adapter creates generation 2, the Job completes.
    clock.advance(10);
    kube.removeFinalizers(JOBS, 'hf-c1', 'validate-c1');
    await until('the Job to be gone', () => [...shadowOf(b).inFlight()][0]?.phase === 'creation');
    clock.advance(1);
    kube.create(JOBS, job('c1', 2));
    await until('the new Job', () => [...shadowOf(b).inFlight()][0]?.phase === 'availability');
    clock.advance(40);
    kube.patchStatus(JOBS, 'hf-c1', 'validate-c1', {
      conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: new Date(clock.ms).toISOString().replace('.000Z', 'Z') }],
      succeeded: 1,
    });
    await until('the recreation to finish', () => shadowOf(b).stats.recreationsFinished === 1);
    clock.advance(1);
    api.setReconciled('c1', true);
    await poller(b).pollOnce();
    s = await scrape(b);
    const sum = (phase: string) => valueOf(s, 'reconcile_shadow_recreation_duration_seconds_sum', { kind: 'Job', phase });
    // deletion 103 s → 773 s (DELETED when the finalizer went), creation 1 s, availability 40 s; total 100 s → 814 s.
    assert.deepEqual(['deletion', 'creation', 'availability', 'total'].map(sum), [670, 1, 40, 714]);
    assert.equal(valueOf(s, 'reconcile_shadow_recreation_stuck', { kind: 'Job' }), 0);
    assert.equal(s.filter((x) => x.name === 'reconcile_shadow_recreation_stuck_seconds').length, 0);
    // The API's own Reconciled=False period (100 s → 815 s), caused by a recreation.
    assert.equal(valueOf(s, 'reconcile_shadow_unreconciled_seconds_sum', { resource_type: 'cluster', flow: 'recreate' }), 715);
    assert.deepEqual([up(s, 'hyperfleet'), up(s, 'objects')], [1, 1]);
  });

  it('an unreachable HyperFleet API keeps the last cluster state, reports the input stale, and recovers', async () => {
    api.createCluster('c1');
    kube.create(JOBS, job('c1', 1));
    const summaries: string[] = [];
    const a = await sidecar((line) => summaries.push(line), 'console: {interval: 100ms}');
    await until('the first state', () => shadowOf(a).stats.observations === 2);
    api.failNext(1, { status: 503 });
    await poller(a).pollOnce();
    assert.equal(up(await scrape(a), 'hyperfleet'), 0);
    // The live summary says the API is stale, and why.
    await until('the summary of a stale API', () =>
      summaries.some((l) => l.endsWith('recreations: 0 finished, 0 in flight, 0 evicted · HyperFleet API stale (http_5xx)')),
    );
    clock.advance(5);
    api.patchSpec('c1', { v: 2 });
    await poller(a).pollOnce();
    assert.deepEqual(
      [...shadowOf(a).inFlight()].map((r) => r.triggeredAtMs),
      [T0 + 5000],
    );
    assert.equal(up(await scrape(a), 'hyperfleet'), 1);
  });
});
