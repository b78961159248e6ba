/**
 * What the end-to-end alert test scrapes: the real sidecar (`startSidecar`, the code behind `reconcile-shadow run`)
 * with a `recreations:` section, configured as a user would: the shipped example task config, a kubeconfig file for
 * an in-test Kubernetes API server (where it watches the Jobs) and an in-test HyperFleet API polled every second.
 * The test plays the adapter and the cluster's owner: it changes the cluster's spec (the new generation triggers
 * `recreate_on_change`), deletes the Job while a finalizer holds it, and later lets it go and creates the new Job.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { EXAMPLE_TASK_CONFIG } from '../../simulator/component.js';
import { loadConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { FakeHyperFleetApi } from '../support/fake-hyperfleet-api.js';
import { FakeKubeApiServer, kubeConfigFor, RESOURCES, type FakeObject } from '../support/fake-kube-apiserver.js';
import { valueOf, type Sample } from '../support/prometheus-text.js';
import { scrape, untilScraped } from '../support/sidecar-metrics.js';

export interface RecreatedObject {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export interface RecreationWorld {
  /** `127.0.0.1:<port>`, serving the sidecar's /metrics. */
  readonly target: string;
  /** The Job the example task config manages for the one cluster. */
  readonly object: RecreatedObject;
  /**
   * The cluster's spec changes and the adapter deletes the Job, which its finalizer holds. Returns once the
   * sidecar's /metrics shows the recreation in its deletion phase.
   */
  holdRecreation(): Promise<void>;
  /**
   * The finalizer goes, the adapter creates the new Job and it completes. Returns once the sidecar's /metrics
   * counts the recreation as finished.
   */
  completeRecreation(): Promise<void>;
  /** The sidecar's /metrics, parsed. */
  scrape(): Promise<Sample[]>;
  stop(): Promise<void>;
}

export interface WorldOptions {
  /** `recreations.stuckThresholds.Job` in the sidecar config, e.g. `1s`. */
  readonly jobStuckThreshold: string;
}

const CLUSTER = 'c001';
const JOBS = RESOURCES.jobs;
const HOLD = 'example.com/hold';
const WAIT_MS = 10_000;

function validationJob(generation: number, finalizers: string[]): FakeObject {
  return {
    metadata: {
      name: `validate-${CLUSTER}`,
      namespace: `hf-${CLUSTER}`,
      labels: { 'hyperfleet.io/cluster-id': CLUSTER },
      annotations: { 'hyperfleet.io/generation': String(generation) },
      finalizers,
    },
    spec: { template: {} },
  };
}

/** An RFC 3339 time with whole seconds, as the API server writes condition times. */
const kubeNow = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function startRecreationWorld(options: WorldOptions): Promise<RecreationWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-e2e-world-'));
  const kube = new FakeKubeApiServer();
  const api = new FakeHyperFleetApi();
  const logs: string[] = [];
  let sidecar: Sidecar | undefined;
  const stop = async (): Promise<void> => {
    await sidecar?.stop();
    await kube.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await kube.start();
    await api.start();
    // The cluster at generation 1, reconciled; its validation Job of generation 1 has completed.
    api.createCluster(CLUSTER);
    api.setReconciled(CLUSTER, true);
    kube.create(JOBS, validationJob(1, [HOLD]));
    kube.patchStatus(JOBS, `hf-${CLUSTER}`, `validate-${CLUSTER}`, {
      conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: kubeNow() }],
      succeeded: 1,
    });

    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeConfigFor(kube).exportConfig());
    const configFile = join(dir, 'shadow.yaml');
    writeFileSync(
      configFile,
      stringify({
        apiVersion: 'reconcile-shadow/v1',
        kind: 'ShadowConfig',
        models: [],
        listen: { metrics: '127.0.0.1:0' },
        sources: {},
        recreations: {
          taskConfig: EXAMPLE_TASK_CONFIG,
          objects: { kubeconfig },
          hyperfleet: { url: api.url, interval: '1s', timeout: '1s' },
          stuckThresholds: { Job: options.jobStuckThreshold },
        },
        console: { enabled: false },
      }),
    );
    sidecar = await startSidecar(loadConfig(configFile), { env: {}, log: (line) => logs.push(line) });
  } catch (error) {
    await stop();
    throw error;
  }

  const running = sidecar;
  const target = `127.0.0.1:${running.metricsAddress.port}`;
  const object: RecreatedObject = { kind: 'Job', namespace: `hf-${CLUSTER}`, name: `validate-${CLUSTER}` };
  const inFlight = (s: readonly Sample[], phase: string): number => valueOf(s, 'reconcile_shadow_recreations_in_flight', { kind: 'Job', phase });
  const sidecarShows = (what: string, holds: (s: Sample[]) => boolean): Promise<Sample[]> =>
    untilScraped(`the sidecar's /metrics to show ${what}`, running, holds, {
      timeoutMs: WAIT_MS,
      intervalMs: 100,
      describe: () => `sidecar log: ${JSON.stringify(logs)}`,
    });

  return {
    target,
    object,
    async holdRecreation() {
      // The next poll sees generation 2: the adapter would recreate the Job (recreate_on_change).
      api.patchSpec(CLUSTER, { version: '2' });
      await sidecarShows('the recreation triggered', (s) => inFlight(s, 'triggered') === 1);
      kube.delete(JOBS, object.namespace, object.name);
      await sidecarShows('the recreation in its deletion phase', (s) => inFlight(s, 'deletion') === 1);
    },
    async completeRecreation() {
      kube.removeFinalizers(JOBS, object.namespace, object.name, [HOLD]);
      await sidecarShows('the old Job gone', (s) => inFlight(s, 'creation') === 1);
      kube.create(JOBS, validationJob(2, []));
      kube.patchStatus(JOBS, object.namespace, object.name, {
        conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: kubeNow() }],
        succeeded: 1,
      });
      await sidecarShows(
        'the recreation finished',
        (s) => valueOf(s, 'reconcile_shadow_recreation_duration_seconds_count', { kind: 'Job', phase: 'total' }) === 1,
      );
    },
    scrape: () => scrape(running),
    stop,
  };
}
