import { strict as assert } from 'node:assert';
import { parseTaskConfig } from '../../../analyzer/recreations/task-config.js';
import { ValidationError } from '../../../lib/validation-error.js';

const FILE = 'task.yaml';

function problems(text: string): string[] {
  try {
    parseTaskConfig(text, FILE);
  } catch (e) {
    if (e instanceof ValidationError) return [...e.problems];
    throw e;
  }
  assert.fail('expected the task config to be refused');
}

describe('adapter task config', () => {
  it('reads params, preconditions and resources as the adapter does, with expression positions', () => {
    const cfg = parseTaskConfig(
      `params:
  - name: clusterId
    source: event.id
    type: string
  - name: generation
    source: event.generation
    type: int
  - name: region
    source: env.REGION
    default: us-east-1
  - name: is_deleting
    source: {expression: "checkClusterState.?deleted_time.hasValue()"}
preconditions:
  - name: clusterStatus
    api_call: {method: GET, url: "/clusters/{{ .clusterId }}"}
    capture:
      - {name: clusterName, field: name}
      - name: ready
        expression: 'status.conditions.exists(c, c.type == "Reconciled")'
    conditions:
      - {field: clusterName, operator: exists}
resources:
  - name: namespace
    transport: {client: kubernetes}
    manifest:
      apiVersion: v1
      kind: Namespace
      metadata:
        name: "{{ .clusterId }}-k8s"
        annotations: {hyperfleet.io/generation: "{{ .generation }}"}
    discovery: {by_name: '{{ .clusterId }}-k8s'}
    lifecycle:
      delete:
        propagationPolicy: Background
        when: {expression: "is_deleting"}
  - name: job
    manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: "v-{{ .clusterId | lower }}"}}
    discovery:
      namespace: "{{ .clusterId }}-k8s"
      by_selectors:
        label_selector: {hyperfleet.io/cluster-id: "{{ .clusterId }}", app: validator}
    recreate_on_change: true
    lifecycle:
      recreate:
        when:
          expression: |
            resources.?job.hasValue()
            && string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]
`,
      FILE,
    );
    assert.deepEqual(cfg.notices, []);
    assert.deepEqual(
      cfg.params.map((p) => [p.name, p.source.kind, p.type, p.default]),
      [
        ['clusterId', 'event', 'string', undefined],
        ['generation', 'event', 'int', undefined],
        ['region', 'env', undefined, 'us-east-1'],
        ['is_deleting', 'expression', undefined, undefined],
      ],
    );
    const isDeleting = cfg.params[3]!.source;
    assert.ok(isDeleting.kind === 'expression');
    assert.deepEqual([isDeleting.expression.line, isDeleting.expression.column, isDeleting.expression.block], [12, 27, false]);
    const pre = cfg.preconditions[0]!;
    assert.deepEqual([pre.name, pre.apiCallUrl, pre.captures.map((c) => c.name), pre.conditions], ['clusterStatus', '/clusters/{{ .clusterId }}', ['clusterName', 'ready'], [{ field: 'clusterName', operator: 'exists' }]]);
    const [ns, job] = cfg.resources;
    assert.deepEqual([ns!.name, ns!.kind, ns!.apiVersion, ns!.recreateOnChange, ns!.discovery.byName?.text, ns!.generationAnnotation?.text], ['namespace', 'Namespace', 'v1', false, '{{ .clusterId }}-k8s', '{{ .generation }}']);
    assert.equal(ns!.deleteWhen?.source, 'is_deleting');
    assert.equal(ns!.where, 'task.yaml:23');
    assert.deepEqual([job!.transport, job!.recreateOnChange, job!.discovery.namespace?.text, Object.keys(job!.discovery.labelSelector ?? {})], ['kubernetes', true, '{{ .clusterId }}-k8s', ['hyperfleet.io/cluster-id', 'app']]);
    const rec = job!.recreateWhen!;
    assert.deepEqual([rec.line, rec.column, rec.block, rec.owner], [47, 13, true, 'resource "job" lifecycle.recreate.when.expression']);
  });

  it('ignores what it does not use with a notice naming file:line, never refusing it', () => {
    const cfg = parseTaskConfig(
      `params:
  - name: clusterId
    source: event.id
  - name: token
    source: {file: /var/run/token}
  - name: region
    source: config.region
resources:
  - name: mw
    transport: {client: maestro}
    manifest: {apiVersion: work.open-cluster-management.io/v1, kind: ManifestWork}
    discovery: {by_name: "mw-{{ .clusterId }}"}
    nested_discoveries: [{name: ns, discovery: {by_name: x}}]
    lifecycle:
      orphan: {when: {expression: "false"}}
  - name: job
    manifest: {ref: /etc/adapter/job.yaml}
    discovery: {by_name: "job-{{ .clusterId }}"}
    retention: {historyLimit: 3}
post:
  payloads: []
extra: 1
`,
      FILE,
    );
    assert.deepEqual(cfg.notices, [
      'task.yaml:22 extra: not used by the shadow; ignored',
      'task.yaml:5 params[1].source: param source file is not available to the shadow; "token" stays unset unless it has a default',
      'task.yaml:7 params[2].source: param source "config.region" is not available to the shadow; "region" stays unset unless it has a default',
      'task.yaml:13 resources[0].nested_discoveries: sub-resources inside a ManifestWork are not watched',
      'task.yaml:10 resources[0].transport: transport "maestro": the shadow watches Kubernetes objects only, so "mw" is not shadowed',
      'task.yaml:15 resources[0].lifecycle.orphan: not used by the shadow; ignored',
      'task.yaml:19 resources[1].retention: not used by the shadow; ignored',
      "task.yaml:17 resources[1].manifest.ref: manifest /etc/adapter/job.yaml could not be read; the resource's kind and generation annotation are unknown",
    ]);
  });

  it('reads a manifest ref through the given reader, and the older spec-wrapped layout', () => {
    const cfg = parseTaskConfig(
      `apiVersion: hyperfleet.redhat.com/v1alpha1
kind: AdapterTaskConfig
metadata: {name: example}
spec:
  params: [{name: clusterId, source: event.id}]
  resources:
    - name: job
      manifest: {ref: /etc/adapter/job.yaml}
      discovery: {by_name: "job-{{ .clusterId }}"}
`,
      FILE,
      (ref) => (ref === '/etc/adapter/job.yaml' ? 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  annotations: {hyperfleet.io/generation: "{{ .generationId }}"}\n' : undefined),
    );
    assert.deepEqual(cfg.notices, ['task.yaml:5 spec: older AdapterTaskConfig layout: reading params, preconditions and resources under spec']);
    assert.deepEqual([cfg.resources[0]!.kind, cfg.resources[0]!.apiVersion, cfg.resources[0]!.generationAnnotation?.params], ['Job', 'batch/v1', ['generationId']]);
  });

  it('refuses what the adapter itself would refuse, every problem with file:line and field', () => {
    assert.deepEqual(
      problems(`resources:
  - name: a
    manifest: {apiVersion: v1, kind: ConfigMap}
  - name: a
    discovery: {by_name: x}
  - name: b
    manifest: {apiVersion: v1, kind: ConfigMap}
    discovery: {by_name: "{{ now | date }}"}
    recreate_on_change: "yes"
    lifecycle:
      delete: {propagationPolicy: Orphan}
      recreate: {when: {expression: ""}}
`),
      [
        'task.yaml:2 resources[0].discovery: resource "a" needs a discovery (by_name or by_selectors), as the adapter requires',
        'task.yaml:4 resources[1].name: duplicate resource "a"',
        'task.yaml:8 resources[2].discovery.by_name: unsupported template action {{ now | date }} in "{{ now | date }}" (only {{ .name }} with lower/upper)',
        'task.yaml:9 resources[2].recreate_on_change: must be true or false, got "yes"',
        'task.yaml:11 resources[2].lifecycle.delete: lifecycle.delete needs when.expression',
        'task.yaml:12 resources[2].lifecycle.recreate.when.expression: required non-empty CEL expression',
      ],
    );
    assert.deepEqual(problems('resources: [\n'), ['task.yaml:2 (document): Flow sequence in block collection must be sufficiently indented and end with a ]']);
    assert.deepEqual(problems('- a\n- b\n'), ['task.yaml:1 (document): a task config is a YAML mapping']);
  });
});
