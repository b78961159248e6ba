/**
 * Maestro-transport resources decided live: the recreation pipeline with upstream's Maestro task config
 * (hyperfleet-adapter test/testdata/dryrun/maestro-delete, a ManifestWork for consumer cluster1 with
 * `lifecycle.delete.when: is_deleting`), its ManifestWorks read by the Maestro source from an in-test Maestro server
 * and the cluster's state as the HyperFleet API answers it. The work is found by name within its consumer
 * (maestroclient/client.go GetResource) and decided as the adapter's executor decides it (resource_executor.go
 * ExecuteAll); a recreation is timed as Maestro deletes, asynchronously: delete request (the bundle's deleted_at),
 * gone (a 404 by id), created again, Available reported by the work agent.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LifecycleDecision } from '../../../analyzer/recreations/lifecycle-decision.js';
import type { FinishedRecreation } from '../../../analyzer/recreations/tracker.js';
import type { Timers } from '../../../collector/kube/informer.js';
import { MaestroPoller } from '../../../collector/maestro/poller.js';
import { toHyperFleetResource } from '../../../collector/objects/observation.js';
import { RecreationPipeline } from '../../../sidecar/recreations.js';
import { FakeMaestro, workId, type WorkInput } from '../../support/fake-maestro.js';
import { REPO } from '../../support/paths.js';

const DRYRUN = join(REPO, 'test', 'fixtures', 'hyperfleet-adapter', 'test', 'testdata', 'dryrun');
const TASK_CONFIG = join(DRYRUN, 'maestro-delete', 'dryrun-maestro-delete-task-config.yaml');
/** base_url http://localhost:8000: the task config's api_call is then the cluster's own URL. */
const ADAPTER_CONFIG = join(DRYRUN, 'dryrun-maestro-adapter-config.yaml');
const SOURCE = 'hyperfleet-adapter';
const CONSUMER = 'cluster1';
const CLUSTER = 'abc123';
const WORK = `${CLUSTER}-manifestwork`;
const T0 = Date.parse('2026-11-02T00:00:00Z');

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

/** The ManifestWork as the task config renders it at `generation` (the adapter's Maestro client sends it). */
function work(generation: number): WorkInput {
  return {
    metadata: {
      name: WORK,
      labels: {
        'hyperfleet.io/cluster-id': CLUSTER,
        'hyperfleet.io/adapter': 'dry-run-adapter',
        'hyperfleet.io/managed-by': 'dry-run-adapter',
        'maestro.io/resource-type': 'manifestwork',
      },
      annotations: { 'hyperfleet.io/created-by': 'hyperfleet-adapter-framework', 'hyperfleet.io/generation': String(generation) },
    },
    spec: {
      deleteOption: { propagationPolicy: 'Foreground' },
      workload: { manifests: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: CLUSTER } }] },
    },
  };
}

const available = (ms: number): Record<string, unknown> => ({
  type: 'Available',
  status: 'True',
  reason: 'ResourcesAvailable',
  message: 'All resources are available',
  lastTransitionTime: new Date(ms).toISOString(),
});

describe('Maestro resources decided live: the recreation pipeline fed by the Maestro source', function () {
  // polls an in-test Maestro server
  this.timeout(20_000);
  const clock = { ms: T0 };
  let maestro: FakeMaestro;
  let dir: string;
  beforeEach(async () => {
    clock.ms = T0;
    maestro = new FakeMaestro(() => new Date(clock.ms));
    await maestro.start();
    dir = mkdtempSync(join(tmpdir(), 'maestro-recreations-'));
  });
  afterEach(async () => {
    await maestro.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The pipeline as the sidecar builds it, a Maestro source feeding it, and the cluster's API state fed to it. */
  function shadow(proposals?: string, taskConfig = TASK_CONFIG) {
    const pipeline = new RecreationPipeline(
      { taskConfig, adapterConfig: ADAPTER_CONFIG, ...(proposals ? { proposals } : {}), sentinelInterval: 10_000, maxInFlight: 100, maxStuckSeries: 10 },
      ['cluster'],
      (e) => assert.fail(String(e)),
      (r) => assert.fail(`rejected: ${r.message}`),
    );
    const decisions: (readonly [number, string, string, string, string, string | null])[] = [];
    const finished: FinishedRecreation[] = [];
    pipeline.analyzer.listen({
      decision: (d: LifecycleDecision, atMs) => decisions.push([(atMs - T0) / 1000, d.resource.kind, d.resource.name, d.decision, d.reason, d.trigger ?? null]),
      finished: (r) => finished.push(r),
    });
    const poller = new MaestroPoller(
      { baseUrl: maestro.url, sourceId: SOURCE, consumers: [CONSUMER], intervalMs: 15_000, timeoutMs: 2000, timers: new ManualTimers(clock) },
      pipeline.analyzer,
    );
    const cluster = (generation: number, deleting = false): void => {
      const raw = {
        id: CLUSTER,
        kind: 'Cluster',
        name: CLUSTER,
        href: `/api/hyperfleet/v1/clusters/${CLUSTER}`,
        generation,
        ...(deleting ? { deleted_time: new Date(clock.ms).toISOString() } : {}),
        status: { conditions: [{ type: 'Reconciled', status: 'False' }] },
      };
      pipeline.analyzer.observe({
        type: 'cluster',
        time: new Date(clock.ms).toISOString(),
        timeMs: clock.ms,
        cluster: toHyperFleetResource(raw),
        source: 'hyperfleet',
      });
    };
    return { pipeline, decisions, finished, poller, cluster };
  }

  it('compiles the ManifestWork resource, watched through Maestro only (no Kubernetes watch), without a notice', () => {
    const { pipeline } = shadow();
    assert.deepEqual(pipeline.kinds, ['ManifestWork']);
    assert.deepEqual(pipeline.watches, []);
    assert.deepEqual(
      pipeline.analyzer.compiled.notices.filter((n) => n.includes('not watched live')),
      [],
    );
  });

  it('a cluster marked deleting yields a delete decision for its ManifestWork, found by name within its consumer', async () => {
    const { decisions, poller, cluster } = shadow();
    maestro.apply(SOURCE, CONSUMER, work(5));
    cluster(5);
    await poller.pollOnce();
    clock.ms += 10_000;
    cluster(5, true);
    assert.deepEqual(decisions, [
      // No work read yet: the adapter would create it.
      [0, 'ManifestWork', 'clusterManifestWork', 'create', 'resource not found', null],
      [0, 'ManifestWork', 'clusterManifestWork', 'skip', 'generation 5 unchanged', null],
      [10, 'ManifestWork', 'clusterManifestWork', 'delete', 'lifecycle.delete.when evaluated to true', null],
    ]);
  });

  it('with a proposal, a new generation recreates the work, timed delete request -> gone -> created -> Available', async () => {
    const proposals = join(dir, 'proposals.yaml');
    writeFileSync(
      proposals,
      `apiVersion: reconcile-shadow/v1
kind: RecreationProposals
resources:
  - name: clusterManifestWork
    lifecycle:
      recreate:
        when:
          expression: generation != resources.?clusterManifestWork.metadata.annotations["hyperfleet.io/generation"].orValue(generation)
`,
    );
    const { decisions, finished, poller, cluster } = shadow(proposals);
    const id = maestro.apply(SOURCE, CONSUMER, work(5));
    maestro.reportStatus(id, [available(T0)]);
    cluster(5);
    await poller.pollOnce();
    decisions.splice(0);

    clock.ms = T0 + 60_000;
    cluster(6);
    // The adapter's DeleteManifestWork: Maestro marks the bundle, which stays listed while the agent deletes.
    clock.ms = T0 + 63_000;
    assert.equal((await fetch(`${maestro.url}/api/maestro/v1/resource-bundles/${id}`, { method: 'DELETE' })).status, 204);
    clock.ms = T0 + 65_000;
    await poller.pollOnce();
    clock.ms = T0 + 100_000;
    maestro.agentDeleted(id);
    clock.ms = T0 + 105_000;
    await poller.pollOnce();
    // The next event creates it: same name, so the same id (and uid).
    clock.ms = T0 + 110_000;
    assert.equal(maestro.apply(SOURCE, CONSUMER, work(6)), id);
    clock.ms = T0 + 120_000;
    await poller.pollOnce();
    clock.ms = T0 + 130_000;
    maestro.reportStatus(id, [available(clock.ms)]);
    clock.ms = T0 + 135_000;
    await poller.pollOnce();

    const recreate = 'lifecycle.recreate.when (proposal) evaluated to true: deleted now, created by the next event';
    assert.deepEqual(decisions, [
      [60, 'ManifestWork', 'clusterManifestWork', 'recreate', recreate, 'rule'],
      // Still listed, deletion under way: the adapter would send the delete again.
      [65, 'ManifestWork', 'clusterManifestWork', 'recreate', recreate, 'rule'],
      [105, 'ManifestWork', 'clusterManifestWork', 'create', 'resource not found', null],
      [120, 'ManifestWork', 'clusterManifestWork', 'skip', 'generation 6 unchanged', null],
      [135, 'ManifestWork', 'clusterManifestWork', 'skip', 'generation 6 unchanged', null],
    ]);
    assert.deepEqual(
      finished.map((r) => [
        r.kind,
        r.namespace,
        r.name,
        r.clusterId,
        r.trigger,
        r.oldUid,
        r.newUid,
        r.newGeneration,
        (r.deletionRequestedAtMs! - r.triggeredAtMs) / 1000,
        r.deletionSeconds,
        r.creationSeconds,
        r.availabilitySeconds,
        r.totalSeconds,
      ]),
      [['ManifestWork', CONSUMER, WORK, CLUSTER, 'rule', workId(SOURCE, CONSUMER, WORK), workId(SOURCE, CONSUMER, WORK), '6', 3, 42, 5, 20, 70]],
    );
  });

  it("a later resource's rule reads a nested discovery of an earlier work, enriched with its status feedback", async () => {
    // Upstream's maestro-two-resources shape: the ConfigMap's work is deleted once the Namespace inside the other
    // work reports itself Terminating (generation.go DiscoverNestedManifest, EnrichWithResourceStatus).
    const taskConfig = join(dir, 'adapter-task-config.yaml');
    const resource = (name: string, work: string, extra: string): string => `  - name: ${name}
    transport: {client: maestro, maestro: {target_cluster: ${CONSUMER}}}
    manifest:
      apiVersion: work.open-cluster-management.io/v1
      kind: ManifestWork
      metadata:
        name: "{{ .clusterId }}-${work}"
        annotations: {hyperfleet.io/generation: "{{ .generation }}"}
      spec: {workload: {manifests: []}}
    discovery: {by_name: "{{ .clusterId }}-${work}"}
${extra}`;
    writeFileSync(
      taskConfig,
      `params:
  - {name: clusterId, source: event.id, type: string, required: true}
  - {name: generation, source: event.generation, type: string, required: true}
resources:
${resource(
  'namespaceWork',
  'ns-mw',
  `    nested_discoveries:
      - name: mgmtNamespace
        discovery: {by_selectors: {label_selector: {hyperfleet.io/resource-type: namespace}}}
`,
)}${resource(
        'configMapWork',
        'cm-mw',
        `    lifecycle:
      delete:
        when:
          expression: resources.?mgmtNamespace.?statusFeedback.?values.orValue([]).exists(v, v.name == "phase" && v.fieldValue.string == "Terminating")
`,
      )}`,
    );
    const { decisions, poller, cluster } = shadow(undefined, taskConfig);
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CLUSTER, labels: { 'hyperfleet.io/resource-type': 'namespace' } } };
    const applied = (name: string, manifests: Record<string, unknown>[]): string =>
      maestro.apply(SOURCE, CONSUMER, {
        metadata: { name: `${CLUSTER}-${name}`, annotations: { 'hyperfleet.io/generation': '1' } },
        spec: { workload: { manifests } },
      });
    const ns = applied('ns-mw', [namespace]);
    applied('cm-mw', []);
    cluster(1);
    await poller.pollOnce();
    decisions.splice(0);
    clock.ms += 30_000;
    const phase = (p: string): Record<string, unknown> => ({
      resourceMeta: { kind: 'Namespace', name: CLUSTER, namespace: '' },
      statusFeedback: { values: [{ name: 'phase', fieldValue: { type: 'String', string: p } }] },
    });
    maestro.reportStatus(ns, [available(clock.ms)], [phase('Active')]);
    await poller.pollOnce();
    clock.ms += 30_000;
    maestro.reportStatus(ns, [available(clock.ms)], [phase('Terminating')]);
    await poller.pollOnce();
    assert.deepEqual(decisions, [
      [30, 'ManifestWork', 'namespaceWork', 'skip', 'generation 1 unchanged', null],
      [30, 'ManifestWork', 'configMapWork', 'skip', 'generation 1 unchanged', null],
      [60, 'ManifestWork', 'namespaceWork', 'skip', 'generation 1 unchanged', null],
      [60, 'ManifestWork', 'configMapWork', 'delete', 'lifecycle.delete.when evaluated to true', null],
    ]);
  });
});
