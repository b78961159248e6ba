import assert from 'node:assert/strict';
import { SYSTEM_TIMERS } from '../../../collector/kube/informer.js';
import type { AttemptRecord, Rejection } from '../../../collector/records.js';
import { HYPERSHIFT_OPERATOR } from '../../../collector/hypershift/operator-loop.js';
import { HostedClusterStatusSource, type HostedClusterStatusSourceOptions, type StatusTransition } from '../../../collector/status/source.js';
import { resolveModel } from '../../../sidecar/files.js';
import { FakeKubeApiServer, kubeConfigFor, resourcePath, RESOURCES, type FakeObject } from '../../support/fake-kube-apiserver.js';
import { until } from '../../support/until.js';

const HC = RESOURCES.hostedClusters;
const model = resolveModel('hypershift-hostedcluster');
const FAST_BACKOFF = { initialMs: 5, maxMs: 40, resetAfterMs: 60_000 };

/** Both loops write it (the legacy loop's own wrap, `failed to reconcile controlplane SSHKey secret`, is one loop's). */
const SSH = 'failed to get hostedcluster SSHKey secret clusters/ssh: secrets "ssh" not found';
const PULL = 'failed to get pull secret: secrets "pull" not found';
const CRITICAL = `critical error: ${PULL}; blocked operations: [KubeconfigAndPasswordSync, MonitoringAndCLISecrets, OperatorDeployments, PlatformOIDCAndCSI, PublicEndpointExposed, RBACAndPolicies]`;

function condition(status: 'True' | 'False' | 'Unknown', message: string, lastTransitionTime: string): Record<string, unknown> {
  return { type: 'ReconciliationSucceeded', status, reason: status === 'True' ? 'ReconciliatonSucceeded' : 'ReconciliationError', message, lastTransitionTime };
}

function hostedCluster(name: string, status?: Record<string, unknown>): FakeObject {
  return { metadata: { name, namespace: 'clusters' }, spec: { release: { image: 'r1' } }, ...(status ? { status: { conditions: [status] } } : {}) };
}

const LEGACY_ENV = HYPERSHIFT_OPERATOR.legacyEnv;

/** The operator Deployment as `hypershift install` writes it: its build's version annotation, and `env`. */
function operatorDeployment(env: { name: string; value: string }[]): FakeObject {
  const annotations = {
    [HYPERSHIFT_OPERATOR.versionAnnotation]: 'openshift/hypershift: 3ee9615567acffaf3e3ee25c2ca2942d650565cf. Latest supported OCP: 5.1.0',
  };
  return { metadata: { name: 'operator', namespace: 'hypershift', annotations }, spec: { template: { spec: { containers: [{ name: 'operator', env }] } } } };
}

/** The source under test, its sink, and a wait on the n-th transition. */
class Harness {
  readonly records: AttemptRecord[] = [];
  readonly rejections: Rejection[] = [];
  readonly transitions: StatusTransition[] = [];
  readonly states: boolean[] = [];
  clock = Date.parse('2026-11-01T12:00:00.500Z');
  readonly source: HostedClusterStatusSource;
  private waiters: (() => void)[] = [];

  constructor(server: FakeKubeApiServer, options: Partial<HostedClusterStatusSourceOptions> = {}) {
    this.source = new HostedClusterStatusSource(
      {
        model,
        kubeConfig: kubeConfigFor(server),
        namespace: 'clusters',
        backoff: FAST_BACKOFF,
        timers: { ...SYSTEM_TIMERS, now: () => this.clock },
        onTransition: (t) => {
          this.transitions.push(t);
          this.wake();
        },
        hooks: { state: (up) => this.states.push(up), error: () => undefined },
        ...options,
      },
      { attempt: (r) => this.records.push(r), reject: (r) => this.rejections.push(r) },
    );
  }

  async start(): Promise<void> {
    await this.source.start();
    await this.source.whenSynced();
  }

  /** Resolves once `n` transitions were handed on, re-checked after each. */
  async transitionsReach(n: number): Promise<void> {
    while (this.transitions.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }
}

const failing = (r: AttemptRecord): string[] => r.operations.filter((o) => o.outcome === 'error').map((o) => o.name);

describe('HostedClusterStatusSource', function () {
  // a watch against an in-test API server
  this.timeout(20_000);
  let server: FakeKubeApiServer;
  let h: Harness | undefined;

  beforeEach(async () => {
    server = new FakeKubeApiServer();
    await server.start();
  });
  afterEach(async () => {
    await h?.source.stop();
    h = undefined;
    await server.close();
  });

  async function started(options: Partial<HostedClusterStatusSourceOptions> = {}): Promise<Harness> {
    h = new Harness(server, options);
    await h.start();
    await server.waitForWatchers(resourcePath(HC, 'namespace' in options ? options.namespace : 'clusters'), 1);
    return h;
  }

  const set = (name: string, status: 'True' | 'False' | 'Unknown', message: string, ltt: string): void =>
    void server.patchStatus(HC, 'clusters', name, { conditions: [condition(status, message, ltt)] });

  describe('reading the condition', () => {
    it('times a status flip by lastTransitionTime and a message-only change by when it was seen', async () => {
      server.create(HC, hostedCluster('a'));
      const t = await started({ loop: 'sequential' });
      set('a', 'False', SSH, '2026-11-01T10:00:00Z');
      await t.transitionsReach(1);
      t.clock = Date.parse('2026-11-01T10:05:00.250Z');
      set('a', 'False', PULL, '2026-11-01T10:00:00Z');
      await t.transitionsReach(2);
      set('a', 'True', 'Reconciliation completed successfully', '2026-11-01T10:06:00Z');
      await t.transitionsReach(3);
      assert.deepEqual(
        t.records.map((r) => [r.time, r.timeMs, failing(r)]),
        [
          ['2026-11-01T10:00:00Z', Date.parse('2026-11-01T10:00:00Z'), ['SSHKeySync']],
          ['2026-11-01T10:05:00.250Z', Date.parse('2026-11-01T10:05:00.250Z'), ['GetPullSecretBytes']],
          ['2026-11-01T10:06:00Z', Date.parse('2026-11-01T10:06:00Z'), []],
        ],
      );
      assert.deepEqual(
        t.transitions.map((x) => [x.time.from, x.initial]),
        [
          ['lastTransitionTime', false],
          ['observed', false],
          ['lastTransitionTime', false],
        ],
      );
      const sequentialOps = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
      assert.deepEqual(
        t.records[0]!.operations.map((o) => o.name),
        sequentialOps.slice(0, sequentialOps.indexOf('SSHKeySync') + 1),
      );
      assert.deepEqual(
        t.records[2]!.operations.map((o) => `${o.name}:${o.outcome}`),
        sequentialOps.map((n) => `${n}:ok`),
      );
      assert.deepEqual(t.rejections, []);
    });

    it('reports the condition found at start once, marked initial; emitInitial: false waits for a change', async () => {
      server.create(HC, hostedCluster('a', condition('False', SSH, '2026-11-01T09:00:00Z')));
      const t = await started({ loop: 'sequential' });
      await t.transitionsReach(1);
      assert.deepEqual([t.transitions[0]!.initial, t.records[0]!.time], [true, '2026-11-01T09:00:00Z']);
      await t.source.stop();

      const quiet = await started({ loop: 'sequential', emitInitial: false });
      set('a', 'False', PULL, '2026-11-01T09:00:00Z');
      await quiet.transitionsReach(1);
      assert.deepEqual(quiet.records.map(failing), [['GetPullSecretBytes']]);
    });

    it('ignores objects without the condition, Unknown status, and unchanged conditions; forgets deleted objects', async () => {
      server.create(HC, hostedCluster('a'));
      const t = await started({ loop: 'sequential' });
      set('a', 'Unknown', 'waiting', '2026-11-01T09:00:00Z');
      server.patch(HC, 'clusters', 'a', { metadata: { labels: { touched: 'yes' } } });
      set('a', 'False', SSH, '2026-11-01T09:01:00Z');
      server.patch(HC, 'clusters', 'a', { metadata: { labels: { touched: 'again' } } });
      server.delete(HC, 'clusters', 'a');
      server.create(HC, hostedCluster('a', condition('False', SSH, '2026-11-01T09:02:00Z')));
      await t.transitionsReach(2);
      assert.deepEqual(
        t.transitions.map((x) => [x.initial, x.record.time]),
        [
          [false, '2026-11-01T09:01:00Z'],
          [true, '2026-11-01T09:02:00Z'],
        ],
      );
    });

    it('counts and samples unmapped messages (bounded), still recording that an attempt happened', async () => {
      server.create(HC, hostedCluster('a'));
      const t = await started({ loop: 'sequential', unmappedSampleSize: 2 });
      const messages = ['boom one', 'boom two', 'boom one', 'boom three'];
      for (const [i, m] of messages.entries()) {
        set('a', 'False', m, '2026-11-01T09:00:00Z');
        await t.transitionsReach(i + 1);
      }
      assert.deepEqual(t.rejections, [], 'an unmapped message is noted, never a dropped transition');
      assert.equal(t.source.stats.notes.unmapped_error, 4);
      const sample = t.source.unmappedSample();
      assert.deepEqual(
        [sample.total, sample.truncated, sample.distinct.map((e) => [e.message, e.count, e.why])],
        [
          4,
          true,
          [
            ['boom one', 2, 'no_format'],
            ['boom two', 1, 'no_format'],
          ],
        ],
      );
      assert.deepEqual(
        t.records.map((r) => r.operations.length),
        [0, 0, 0, 0],
      );
      assert.equal(t.source.stats.unmappedErrors, 4);
    });

    it('refuses a malformed condition (invalid_object) and objects beyond maxTrackedObjects (pending_limit)', async () => {
      server.create(HC, { ...hostedCluster('a'), status: { conditions: [{ type: 'ReconciliationSucceeded', status: 1 }] } });
      server.create(HC, hostedCluster('b'));
      server.create(HC, hostedCluster('c'));
      const t = await started({ loop: 'sequential', maxTrackedObjects: 1 });
      assert.deepEqual(
        t.rejections.map((r) => [r.reason, r.where, r.message]),
        [
          ['invalid_object', 'hostedcluster clusters/a', 'status.conditions[0].status: not a string'],
          ['pending_limit', 'hostedcluster clusters/c', 'more than 1 HostedClusters tracked; raise maxTrackedObjects or narrow namespace/labelSelector'],
        ],
      );
      assert.equal(t.records.length, 0);
    });
  });

  describe('the observed loop', () => {
    it('phased: a critical error records the critical failure, no non-critical group, and exposes the blocked groups', async () => {
      server.create(HC, hostedCluster('a'));
      const t = await started({ loop: 'phased' });
      set('a', 'False', CRITICAL, '2026-11-01T09:00:00Z');
      set('a', 'False', `[${SSH}, failed to reconcile control plane operator: timeout]`, '2026-11-01T09:00:00Z');
      await t.transitionsReach(2);
      const [critical, aggregate] = t.transitions as [StatusTransition, StatusTransition];
      assert.deepEqual(failing(critical.record), ['GetPullSecretBytes']);
      assert.deepEqual(critical.blocked, [
        'KubeconfigAndPasswordSync',
        'MonitoringAndCLISecrets',
        'OperatorDeployments',
        'PlatformOIDCAndCSI',
        'PublicEndpointExposed',
        'RBACAndPolicies',
      ]);
      assert.ok(!critical.record.operations.some((o) => ['SSHKeySync', 'KubeconfigSync', 'ControlPlaneOperator'].includes(o.name)));
      assert.deepEqual(failing(aggregate.record), ['SSHKeySync', 'ControlPlaneOperator']);
      assert.ok(aggregate.record.operations.some((o) => o.name === 'PublicEndpointExposed' && o.outcome === 'ok'));
      assert.deepEqual([critical.record.loop, critical.loopDecidedBy], ['phased', 'config']);
    });

    it('auto: follows HYPERSHIFT_RECONCILE_LEGACY in the operator Deployment, also when a rollout changes it', async () => {
      server.create(RESOURCES.deployments, operatorDeployment([{ name: LEGACY_ENV, value: '1' }]));
      server.create(HC, hostedCluster('a'));
      const t = await started();
      set('a', 'False', SSH, '2026-11-01T09:00:00Z');
      await t.transitionsReach(1);
      server.patch(RESOURCES.deployments, 'hypershift', 'operator', { spec: { template: { spec: { containers: [{ name: 'operator', env: [] }] } } } });
      // The Deployment change and the next condition travel on different watches; wait until the first arrived.
      await until('the Deployment change', () => t.source.deploymentLoop === 'phased');
      set('a', 'False', PULL, '2026-11-01T09:00:00Z');
      await t.transitionsReach(2);
      assert.deepEqual(
        t.transitions.map((x) => [x.loop, x.loopDecidedBy]),
        [
          ['sequential', 'deployment'],
          ['phased', 'deployment'],
        ],
      );
      const deploymentRequests = server.requests.filter((r) => r.path.includes('/deployments'));
      assert.ok(
        deploymentRequests.every((r) => r.path === '/apis/apps/v1/namespaces/hypershift/deployments' && r.query.fieldSelector === 'metadata.name=operator'),
      );
    });

    it('auto without a readable Deployment: not known until a message proves its loop (dropped, never assumed), then that loop', async () => {
      server.create(HC, hostedCluster('a'));
      const t = await started();
      set('a', 'False', SSH, '2026-11-01T09:00:00Z');
      set('a', 'False', CRITICAL, '2026-11-01T09:00:00Z');
      set('a', 'False', SSH + ' again', '2026-11-01T09:00:00Z');
      await t.transitionsReach(2);
      assert.deepEqual(
        t.rejections.map((r) => [r.reason, r.where]),
        [['loop_unknown', 'hostedcluster clusters/a']],
      );
      assert.deepEqual(
        t.transitions.map((x) => [x.loop, x.loopDecidedBy]),
        [
          ['phased', 'input'],
          ['phased', 'input'],
        ],
      );
      const summary = t.source.inputSummary();
      assert.deepEqual(
        [summary.unit, summary.received, summary.analyzed, summary.dropped, summary.notes.loop_inherited],
        ['transitions', 3, 2, { loop_unknown: 1 }, 1],
      );
      assert.equal(summary.loop.statement, 'Deployment hypershift/operator: not read yet; a condition message last proved the phased loop');
    });

    it('auto: start() waits for an unreadable Deployment no longer than loopDetectTimeoutMs', async () => {
      server.failNext(1_000_000, 500, (r) => r.path.includes('/deployments'));
      server.create(HC, hostedCluster('a', condition('False', CRITICAL, '2026-11-01T09:00:00Z')));
      const t = await started({ loopDetectTimeoutMs: 50 });
      await t.transitionsReach(1);
      assert.deepEqual([t.transitions[0]!.loop, t.transitions[0]!.loopDecidedBy], ['phased', 'input']);
      assert.equal(t.source.deploymentLoop, undefined, 'the Deployment was never read');
    });

    it('auto with operatorDeployment: false never reads a Deployment', async () => {
      server.create(RESOURCES.deployments, operatorDeployment([{ name: LEGACY_ENV, value: '1' }]));
      server.create(HC, hostedCluster('a', condition('False', SSH, '2026-11-01T09:00:00Z')));
      const t = await started({ operatorDeployment: false });
      await until('the rejection', () => t.rejections.length === 1);
      assert.deepEqual([t.transitions.length, t.rejections[0]!.reason], [0, 'loop_unknown']);
      assert.ok(server.requests.every((r) => !r.path.includes('/deployments')));
    });
  });

  describe('through API faults', () => {
    it('hands on every transition exactly once across dropped streams, cut events, 500s, refused connections and a new RV history', async () => {
      for (const name of ['a', 'b']) server.create(HC, hostedCluster(name));
      const t = await started({ loop: 'sequential' });
      const path = resourcePath(HC, 'clusters');
      let n = 0;
      const change = (name: string): void => set(name, 'False', `${SSH} #${++n}`, '2026-11-01T09:00:00Z');
      const faults: (() => void | Promise<void>)[] = [
        () => void server.dropStreams(),
        () => server.cutNextEvent(),
        () => {
          server.failNext(3, 500);
          server.endStreams();
        },
        () => server.refuseConnections(),
        () => server.restartWithNewHistory(),
        () => {
          server.endStreams();
          server.compactHistory();
        },
      ];
      for (const fault of faults) {
        await fault();
        change('a');
        change('b');
        await server.acceptConnections();
        await server.waitForWatchers(path, 1);
      }
      await t.transitionsReach(faults.length * 2);
      change('a');
      await t.transitionsReach(faults.length * 2 + 1);
      const seen = t.transitions.map((x) => `${x.object} ${x.condition.message}`).sort();
      const happened = server.events
        .filter((e) => e.type === 'MODIFIED')
        .map((e) => `clusters/${e.name} ${(e.object.status as { conditions: { message: string }[] }).conditions[0]!.message}`)
        .sort();
      assert.deepEqual(seen, happened);
      assert.equal(t.states[0], true);
      assert.equal(t.states.at(-1), true);
      assert.ok(t.states.includes(false));
      assert.equal(t.source.isUp, true);
    });

    it('is read-only: GET list/watch on hostedclusters and the one Deployment, never a Secret; all namespaces when none is set', async () => {
      server.create(RESOURCES.deployments, operatorDeployment([]));
      server.create(RESOURCES.secrets, { metadata: { name: 'pull', namespace: 'clusters' } });
      server.create(HC, hostedCluster('a', condition('False', PULL, '2026-11-01T09:00:00Z')));
      const t = await started({ namespace: undefined });
      await t.transitionsReach(1);
      const paths = new Set(server.requests.map((r) => `${r.method} ${r.path}`));
      assert.deepEqual([...paths].sort(), ['GET /apis/apps/v1/namespaces/hypershift/deployments', 'GET /apis/hypershift.openshift.io/v1beta1/hostedclusters']);
    });
  });
});
