/**
 * Builders for recreation tests: a task config compiled from YAML text, and observations of Jobs and clusters
 * shaped like the contract journal (and like what the informers and the API poller hand on).
 */
import { CelRuntime } from '../../../analyzer/recreations/cel.js';
import { trackerOptions, type TrackerSettings } from '../../../analyzer/recreations/config.js';
import { parseDocument, isMap, isSeq, stringify } from 'yaml';
import { applyProposals } from '../../../analyzer/recreations/proposals.js';
import { CompiledTaskConfig, type CompileOptions } from '../../../analyzer/recreations/rules.js';
import { RecreationAnalyzer, type RecreationListener } from '../../../analyzer/recreations/recreation-analyzer.js';
import { parseTaskConfig } from '../../../analyzer/recreations/task-config.js';
import { toHyperFleetResource, toManagedObject, type Observation } from '../../../collector/objects/observation.js';

/**
 * The design's Job resource (adapter-recreation-flow-design.md) behind the adapter's pause precondition, with the
 * lifecycle rules given (YAML at the `lifecycle:` key's indentation plus 2).
 */
export const designTaskConfig = (lifecycle: string, recreateOnChange = false): string => `params:
  - {name: clusterId, source: event.id}
  - {name: generation, source: event.generation}
  - name: is_deleting
    source: {expression: "checkClusterState.?deleted_time.hasValue()"}
preconditions:
  - name: checkClusterState
    api_call: {method: GET, url: "/clusters/{{ .clusterId }}"}
    capture:
      - {name: paused, field: spec.paused}
    expression: "!has(checkClusterState.spec) || !has(checkClusterState.spec.paused) || !checkClusterState.spec.paused"
resources:
  - name: job
    manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: "validate-{{ .clusterId }}", namespace: "hf-{{ .clusterId }}", annotations: {hyperfleet.io/generation: "{{ .generation }}"}}}
    discovery: {namespace: "hf-{{ .clusterId }}", by_name: "validate-{{ .clusterId }}"}
    recreate_on_change: ${recreateOnChange}
    lifecycle:
${lifecycle}
`;

export const JOB_TASK_CONFIG = `params:
  - {name: clusterId, source: event.id}
  - {name: generation, source: event.generation}
  - name: checkClusterState
    source: {api_call: {method: GET, url: "/clusters/{{ .clusterId }}"}}
  - name: is_deleting
    source: {expression: "checkClusterState.?deleted_time.hasValue()"}
resources:
  - name: job
    manifest:
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: "validate-{{ .clusterId }}"
        namespace: "hf-{{ .clusterId }}"
        labels: {hyperfleet.io/cluster-id: "{{ .clusterId }}"}
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

/**
 * Splits a test's task config as a team would: `lifecycle.recreate` of each resource moves to a proposals file (the
 * adapter's strict decoding refuses it), the rest stays the adapter's file.
 */
export function splitProposals(yaml: string): { taskConfig: string; proposals: string | undefined } {
  const doc = parseDocument(yaml);
  const resources = doc.get('resources');
  const proposed: { name: unknown; lifecycle: { recreate: unknown } }[] = [];
  if (isSeq(resources)) {
    for (const r of resources.items) {
      if (!isMap(r)) continue;
      const lifecycle = r.get('lifecycle');
      if (!isMap(lifecycle) || !lifecycle.has('recreate')) continue;
      proposed.push({ name: r.get('name'), lifecycle: { recreate: (lifecycle.get('recreate', true) as { toJSON(): unknown }).toJSON() } });
      lifecycle.delete('recreate');
      if (lifecycle.items.length === 0) r.delete('lifecycle');
    }
  }
  if (proposed.length === 0) return { taskConfig: yaml, proposals: undefined };
  return { taskConfig: doc.toString(), proposals: stringify({ apiVersion: 'reconcile-shadow/v1', kind: 'RecreationProposals', resources: proposed }) };
}

export function compile(yaml: string, runtime = new CelRuntime(), options: CompileOptions = {}): CompiledTaskConfig {
  const { taskConfig, proposals } = splitProposals(yaml);
  const config = parseTaskConfig(taskConfig, 'task.yaml');
  return CompiledTaskConfig.compile(proposals === undefined ? config : applyProposals(config, proposals, 'proposals.yaml'), runtime, options);
}

export function shadowOf(yaml: string, listener: RecreationListener = {}, settings: TrackerSettings = {}): RecreationAnalyzer {
  return new RecreationAnalyzer(compile(yaml), trackerOptions(settings), listener);
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

/**
 * The same Job as an informer delivers it from an API server: the labels, annotations and managedFields the server
 * and the controllers add, the pod template and the whole status (the shape `kubectl get job -o json` prints for a
 * batch/v1 Job, with its usual values).
 */
export function listedJobRaw(j: JobState): Record<string, unknown> {
  const raw = jobRaw(j) as { metadata: Record<string, unknown>; status: { conditions?: unknown[] } };
  const name = raw.metadata.name as string;
  const selector = { 'batch.kubernetes.io/controller-uid': j.uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': j.uid, 'job-name': name };
  const fields = (f: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.keys(f).map((k) => [`f:${k}`, {}]));
  return {
    ...raw,
    metadata: {
      ...raw.metadata,
      resourceVersion: '184467',
      generation: 1,
      labels: { ...(raw.metadata.labels as object), ...selector },
      annotations: { ...(raw.metadata.annotations as object), 'batch.kubernetes.io/job-tracking': '' },
      managedFields: [
        {
          manager: 'hyperfleet-adapter',
          operation: 'Update',
          apiVersion: 'batch/v1',
          time: iso(j.created),
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:annotations': fields({ '.': 0, 'hyperfleet.io/generation': 0 }), 'f:labels': fields({ '.': 0, 'hyperfleet.io/cluster-id': 0 }) },
            'f:spec': fields({ backoffLimit: 0, completionMode: 0, completions: 0, parallelism: 0, suspend: 0, template: 0 }),
          },
        },
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'batch/v1',
          time: iso(j.complete ?? j.created),
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:status': fields({ completionTime: 0, conditions: 0, ready: 0, startTime: 0, succeeded: 0, terminating: 0, uncountedTerminatedPods: 0 }),
          },
          subresource: 'status',
        },
      ],
    },
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      manualSelector: false,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': j.uid } },
      template: {
        metadata: { labels: selector },
        spec: {
          containers: [
            {
              name: 'validate',
              image: 'quay.io/openshift-hyperfleet/validator:v0.4.2',
              args: ['--cluster-id', j.cluster, '--timeout', '10m'],
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
            },
          ],
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
    },
    status:
      j.complete === undefined
        ? { active: 1, startTime: iso(j.created), ready: 0, terminating: 0, uncountedTerminatedPods: {} }
        : {
            conditions: [
              {
                type: 'SuccessCriteriaMet',
                status: 'True',
                lastProbeTime: iso(j.complete),
                lastTransitionTime: iso(j.complete),
                reason: 'CompletionsReached',
                message: 'Reached expected number of succeeded pods',
              },
              {
                type: 'Complete',
                status: 'True',
                lastProbeTime: iso(j.complete),
                lastTransitionTime: iso(j.complete),
                reason: 'CompletionsReached',
                message: 'Reached expected number of succeeded pods',
              },
            ],
            startTime: iso(j.created),
            completionTime: iso(j.complete),
            succeeded: 1,
            ready: 0,
            terminating: 0,
            uncountedTerminatedPods: {},
          },
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

/**
 * A cluster as the HyperFleet API returns it (hyperfleet-api docs/api-resources.md): its spec, labels and audit
 * fields, and the aggregated conditions with their reasons and times.
 */
export function apiClusterRaw(c: ClusterState): Record<string, unknown> {
  const since = iso(c.reconciled?.since ?? T0);
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    observed_generation: c.generation,
    created_time: iso(T0),
    last_updated_time: since,
    last_transition_time: since,
  });
  const reconciled = c.reconciled?.status ?? 'True';
  return {
    id: c.id,
    kind: c.kind ?? 'Cluster',
    href: `/api/hyperfleet/v1/clusters/${c.id}`,
    name: `cluster-${c.id}`,
    generation: c.generation,
    labels: { environment: 'production', team: 'platform' },
    spec: {
      platform: { type: 'gcp', gcp: { projectID: 'hf-prod', region: 'us-central1' } },
      release: { version: '4.19.3' },
      networking: { clusterNetwork: [{ cidr: '10.128.0.0/14' }], serviceNetwork: ['172.30.0.0/16'] },
    },
    created_time: iso(T0),
    updated_time: since,
    created_by: 'admin@example.com',
    updated_by: 'admin@example.com',
    deleted_time: c.deleted === undefined ? null : iso(c.deleted),
    status: {
      conditions: [
        condition(
          'Reconciled',
          reconciled,
          reconciled === 'True' ? 'ReconciledAll' : 'ReconciledMissingAdapters',
          reconciled === 'True' ? 'All required adapters reported Available=True at the current generation' : 'Missing adapters: validation',
        ),
        condition('LastKnownReconciled', 'True', 'AllAdaptersReconciled', 'All adapters reconciled'),
        condition('ValidationSuccessful', reconciled, 'JobSucceeded', 'Validation job completed'),
      ],
    },
  };
}

export function cluster(timeMs: number, c: ClusterState): Observation {
  const raw = {
    id: c.id,
    kind: c.kind ?? 'Cluster',
    generation: c.generation,
    deleted_time: c.deleted === undefined ? null : iso(c.deleted),
    status: {
      conditions: c.reconciled
        ? [{ type: 'Reconciled', status: c.reconciled.status, last_transition_time: iso(c.reconciled.since), observed_generation: c.generation }]
        : [],
    },
  };
  return { type: 'cluster', time: iso(timeMs), timeMs, cluster: toHyperFleetResource(raw), source: 'journal' };
}
