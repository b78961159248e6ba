/**
 * A small seeded adapter world, for the embedded default and tests: clusters whose generation moves, one validation
 * Job per cluster (`validate-<id>` in `hf-<id>`, as examples/adapter-task-config.yaml discovers it) recreated on every
 * change the way `recreate_on_change` does it, some deletions held by a finalizer long enough to get stuck, and now
 * and then a cluster deleted (its Job deleted, the cluster gone) and a new one created. It yields observations in
 * time order — cluster states as the HyperFleet API would show them, Job events as an informer would — from a seed
 * and a virtual clock, so the same seed always tells the same story.
 */
import { toHyperFleetResource, toManagedObject, type Observation } from '../collector/objects/observation.js';
import { Random } from './random.js';

export interface AdapterWorldOptions {
  readonly clusters: number;
  readonly seed: number;
  readonly startMs: number;
  /** Mean time between a cluster being reconciled and its next spec change. */
  readonly meanChangeMs: number;
  /** Chance a Job deletion is held by a finalizer, for 3 to 40 minutes. */
  readonly holdProbability: number;
  /** Chance a change is the deletion of the cluster. */
  readonly deleteProbability: number;
}

export const DEFAULT_ADAPTER_WORLD: AdapterWorldOptions = {
  clusters: 12,
  seed: 1,
  startMs: Date.parse('2026-11-01T00:00:00Z'),
  meanChangeMs: 20 * 60_000,
  holdProbability: 0.2,
  deleteProbability: 0.05,
};

const FINALIZER = 'example.com/hold';
const SECOND = 1000;
const MINUTE = 60 * SECOND;

interface Job {
  readonly uid: string;
  readonly generation: number;
  readonly createdMs: number;
  completedMs?: number;
  deletionMs?: number;
  held?: boolean;
}

interface Cluster {
  readonly id: string;
  readonly createdMs: number;
  generation: number;
  updatedMs: number;
  deletedMs?: number;
  reconciled: boolean;
  reconciledSinceMs: number;
  job?: Job;
}

interface Step {
  readonly atMs: number;
  readonly seq: number;
  readonly run: () => Observation[];
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class AdapterWorld {
  private readonly random: Random;
  private readonly queue: Step[] = [];
  private seq = 0;
  private nextClusterNo = 0;
  /** The time of the step being run. */
  private nowMs = 0;

  constructor(private readonly options: AdapterWorldOptions = DEFAULT_ADAPTER_WORLD) {
    this.random = new Random(options.seed);
    for (let i = 0; i < options.clusters; i++) {
      this.schedule(options.startMs + Math.floor(this.random.next() * 2 * MINUTE), () => this.createCluster());
    }
  }

  /** Every observation with a time up to `untilMs`, in time order. */
  advance(untilMs: number): Observation[] {
    const out: Observation[] = [];
    while (this.queue.length > 0 && this.queue[0]!.atMs <= untilMs) out.push(...this.take().run());
    return out;
  }

  private createCluster(): Observation[] {
    const now = this.nowMs;
    const c: Cluster = {
      id: `c${String(this.nextClusterNo++).padStart(3, '0')}`,
      createdMs: now,
      generation: 1,
      updatedMs: now,
      reconciled: false,
      reconciledSinceMs: now,
    };
    this.schedule(now + this.adapterDelay(), () => this.createJob(c));
    return [this.clusterObservation(c)];
  }

  private createJob(c: Cluster): Observation[] {
    const now = this.nowMs;
    const job: Job = { uid: this.uid(), generation: c.generation, createdMs: now };
    c.job = job;
    this.schedule(now + 30 * SECOND + Math.floor(this.random.next() * 330 * SECOND), () => this.completeJob(c, job));
    return [this.jobObservation(c, job, 'ADDED')];
  }

  private completeJob(c: Cluster, job: Job): Observation[] {
    if (c.job !== job || job.deletionMs !== undefined) return [];
    job.completedMs = this.nowMs;
    this.schedule(this.nowMs + SECOND, () => this.reconcile(c, job));
    return [this.jobObservation(c, job, 'MODIFIED')];
  }

  private reconcile(c: Cluster, job: Job): Observation[] {
    if (c.job !== job || c.deletedMs !== undefined) return [];
    c.reconciled = true;
    c.reconciledSinceMs = this.nowMs;
    this.schedule(this.nowMs + Math.max(MINUTE, Math.floor(this.random.exponential(this.options.meanChangeMs))), () => this.change(c));
    return [this.clusterObservation(c)];
  }

  /** A spec change (generation +1) or the cluster's deletion; either way the adapter deletes the Job. */
  private change(c: Cluster): Observation[] {
    const now = this.nowMs;
    if (this.random.chance(this.options.deleteProbability)) c.deletedMs = now;
    c.generation++;
    c.updatedMs = now;
    c.reconciled = false;
    c.reconciledSinceMs = now;
    const job = c.job;
    if (job) this.schedule(now + this.adapterDelay(), () => this.deleteJob(c, job));
    return [this.clusterObservation(c)];
  }

  private deleteJob(c: Cluster, job: Job): Observation[] {
    const now = this.nowMs;
    job.deletionMs = now;
    job.held = this.random.chance(this.options.holdProbability);
    const goneAt = job.held ? now + 3 * MINUTE + Math.floor(this.random.next() * 37 * MINUTE) : now + Math.floor(this.random.next() * 3 * SECOND);
    this.schedule(goneAt, () => this.jobGone(c, job));
    return [this.jobObservation(c, job, 'MODIFIED')];
  }

  private jobGone(c: Cluster, job: Job): Observation[] {
    const out = [this.jobObservation(c, job, 'DELETED')];
    delete c.job;
    const next = this.nowMs + SECOND;
    if (c.deletedMs === undefined) this.schedule(next, () => this.createJob(c));
    else this.schedule(next, () => this.clusterGone(c));
    return out;
  }

  private clusterGone(c: Cluster): Observation[] {
    this.schedule(this.nowMs + Math.floor(this.random.exponential(this.options.meanChangeMs)), () => this.createCluster());
    const cluster = { id: c.id, kind: 'Cluster', generation: c.generation, conditions: [], raw: { id: c.id, kind: 'Cluster', generation: c.generation } };
    return [{ type: 'cluster', time: iso(this.nowMs), timeMs: this.nowMs, cluster, gone: true, source: 'simulator' }];
  }

  private clusterObservation(c: Cluster): Observation {
    const now = this.nowMs;
    const reconciled = {
      type: 'Reconciled',
      status: c.reconciled ? 'True' : 'False',
      reason: c.reconciled ? 'ReconciledAll' : 'ReconciledMissingAdapters',
      observed_generation: c.generation,
      last_updated_time: iso(now),
      last_transition_time: iso(c.reconciledSinceMs),
    };
    const raw = {
      kind: 'Cluster',
      id: c.id,
      href: `/api/hyperfleet/v1/clusters/${c.id}`,
      name: c.id,
      generation: c.generation,
      created_time: iso(c.createdMs),
      updated_time: iso(c.updatedMs),
      ...(c.deletedMs === undefined ? {} : { deleted_time: iso(c.deletedMs) }),
      status: { conditions: [reconciled] },
    };
    return { type: 'cluster', time: iso(now), timeMs: now, cluster: toHyperFleetResource(raw), source: 'simulator' };
  }

  private jobObservation(c: Cluster, job: Job, event: 'ADDED' | 'MODIFIED' | 'DELETED'): Observation {
    const now = this.nowMs;
    const raw = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: `validate-${c.id}`,
        namespace: `hf-${c.id}`,
        uid: job.uid,
        creationTimestamp: iso(job.createdMs),
        labels: { 'hyperfleet.io/cluster-id': c.id },
        annotations: { 'hyperfleet.io/generation': String(job.generation) },
        ...(job.held ? { finalizers: [FINALIZER] } : {}),
        ...(job.deletionMs === undefined ? {} : { deletionTimestamp: iso(job.deletionMs) }),
      },
      status:
        job.completedMs === undefined ? {} : { conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: iso(job.completedMs) }], succeeded: 1 },
    };
    return { type: 'object', time: iso(now), timeMs: now, event, object: toManagedObject(raw), source: 'simulator' };
  }

  private adapterDelay(): number {
    return 2 * SECOND + Math.floor(this.random.next() * 3 * SECOND);
  }

  private uid(): string {
    const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(this.random.next() * 16).toString(16)).join('');
    return `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
  }

  private schedule(atMs: number, run: () => Observation[]): void {
    const step = { atMs, seq: this.seq++, run };
    // A binary heap would do for thousands of clusters; a dozen pending steps are cheaper to keep sorted.
    let i = this.queue.length;
    while (i > 0 && (this.queue[i - 1]!.atMs > atMs || (this.queue[i - 1]!.atMs === atMs && this.queue[i - 1]!.seq > step.seq))) i--;
    this.queue.splice(i, 0, step);
  }

  private take(): Step {
    const step = this.queue.shift()!;
    this.nowMs = step.atMs;
    return step;
  }
}
