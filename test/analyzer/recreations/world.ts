/**
 * Builders for recreation tests: a task config compiled from YAML text, and observations of Jobs and clusters
 * shaped like the contract journal (and like what the informers and the API poller hand on).
 */
import { CelRuntime } from '../../../analyzer/recreations/cel.js';
import { trackerOptions, type TrackerSettings } from '../../../analyzer/recreations/config.js';
import { CompiledTaskConfig } from '../../../analyzer/recreations/rules.js';
import { RecreationShadow, type ShadowListener } from '../../../analyzer/recreations/shadow.js';
import { parseTaskConfig } from '../../../analyzer/recreations/task-config.js';
import { toHyperFleetResource, toManagedObject, type Observation } from '../../../collector/objects/observation.js';

export const JOB_TASK_CONFIG = `params:
  - {name: clusterId, source: event.id}
  - {name: generation, source: event.generation}
  - name: is_deleting
    source: {expression: "checkClusterState.?deleted_time.hasValue()"}
resources:
  - name: job
    manifest:
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: "validate-{{ .clusterId }}"
        annotations: {hyperfleet.io/generation: "{{ .generation }}"}
    discovery:
      namespace: "hf-{{ .clusterId }}"
      by_selectors:
        label_selector: {hyperfleet.io/cluster-id: "{{ .clusterId }}"}
    recreate_on_change: true
    lifecycle:
      delete:
        when: {expression: "is_deleting"}
`;

export const T0 = Date.parse('2026-11-02T00:00:00Z');
export const at = (seconds: number): number => T0 + seconds * 1000;
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

export function compile(yaml: string, runtime = new CelRuntime()): CompiledTaskConfig {
  return CompiledTaskConfig.compile(parseTaskConfig(yaml, 'task.yaml'), runtime);
}

export function shadowOf(yaml: string, listener: ShadowListener = {}, settings: TrackerSettings = {}): RecreationShadow {
  return new RecreationShadow(compile(yaml), trackerOptions(settings), listener);
}

export interface JobState {
  readonly cluster: string;
  readonly uid: string;
  readonly generation: number;
  readonly created: number;
  readonly deletion?: number;
  readonly complete?: number;
  readonly finalizers?: string[];
}

export function jobRaw(j: JobState): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `validate-${j.cluster}`,
      namespace: `hf-${j.cluster}`,
      uid: j.uid,
      creationTimestamp: iso(j.created),
      labels: { 'hyperfleet.io/cluster-id': j.cluster },
      annotations: { 'hyperfleet.io/generation': String(j.generation) },
      ...(j.finalizers ? { finalizers: j.finalizers } : {}),
      ...(j.deletion === undefined ? {} : { deletionTimestamp: iso(j.deletion) }),
    },
    status: j.complete === undefined ? {} : { conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: iso(j.complete) }], succeeded: 1 },
  };
}

export function job(event: 'ADDED' | 'MODIFIED' | 'DELETED', timeMs: number, j: JobState): Observation {
  return { type: 'object', time: iso(timeMs), timeMs, event, object: toManagedObject(jobRaw(j)), source: 'journal' };
}

export interface ClusterState {
  readonly id: string;
  readonly generation: number;
  readonly deleted?: number;
  /** Reconciled status and its last transition time. */
  readonly reconciled?: { readonly status: 'True' | 'False'; readonly since: number };
  readonly kind?: string;
}

export function cluster(timeMs: number, c: ClusterState): Observation {
  const raw = {
    id: c.id,
    kind: c.kind ?? 'Cluster',
    generation: c.generation,
    deleted_time: c.deleted === undefined ? null : iso(c.deleted),
    status: { conditions: c.reconciled ? [{ type: 'Reconciled', status: c.reconciled.status, last_transition_time: iso(c.reconciled.since), observed_generation: c.generation }] : [] },
  };
  return { type: 'cluster', time: iso(timeMs), timeMs, cluster: toHyperFleetResource(raw), source: 'journal' };
}
