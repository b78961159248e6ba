import { strict as assert } from 'node:assert';
import { CelRuntime } from '../../../analyzer/recreations/cel.js';
import { CompiledTaskConfig } from '../../../analyzer/recreations/rules.js';
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
`,
      FILE,
    );
    assert.deepEqual(cfg.notices, []);
    assert.deepEqual(
      cfg.params.map((p) => [p.name, p.source.kind, p.type, p.default, p.required]),
      [
        ['clusterId', 'string', 'string', undefined, false],
        ['generation', 'string', 'int', undefined, false],
        ['region', 'string', undefined, 'us-east-1', false],
        ['is_deleting', 'expression', undefined, undefined, false],
      ],
    );
    const isDeleting = cfg.params[3]!.source;
    assert.ok(isDeleting.kind === 'expression');
    assert.deepEqual([isDeleting.expression.line, isDeleting.expression.column, isDeleting.expression.block], [12, 27, false]);
    const pre = cfg.preconditions[0]!;
    assert.deepEqual(
      [pre.name, pre.apiCall?.method, pre.apiCall?.url.text, pre.captures.map((c) => c.name), pre.conditions],
      ['clusterStatus', 'GET', '/clusters/{{ .clusterId }}', ['clusterName', 'ready'], [{ field: 'clusterName', operator: 'exists' }]],
    );
    const [ns, job] = cfg.resources;
    assert.deepEqual(
      [ns!.name, ns!.kind, ns!.apiVersion, ns!.recreateOnChange, ns!.discovery.byName?.text, ns!.generationAnnotation?.text],
      ['namespace', 'Namespace', 'v1', false, '{{ .clusterId }}-k8s', '{{ .generation }}'],
    );
    assert.equal(ns!.deleteWhen?.source, 'is_deleting');
    assert.equal(ns!.where, 'task.yaml:23');
    assert.deepEqual(
      [job!.transport, job!.recreateOnChange, job!.discovery.namespace?.text, (job!.discovery.labelSelector ?? []).map(([k]) => k.text)],
      ['kubernetes', true, '{{ .clusterId }}-k8s', ['hyperfleet.io/cluster-id', 'app']],
    );
    assert.equal(job!.recreateWhen, undefined);
  });

  it('refuses a key the adapter does not know, with its reason (configloader/viper_loader.go loadTaskConfig: KnownFields(true))', () => {
    assert.deepEqual(
      problems(`params:
  - {name: clusterId, source: event.id, unknown: 1}
  - name: token
    source: {file: {path: /var/run/token}, extra: ignored}
preconditions:
  - {name: p, expression: "true", description: x}
resources:
  - name: job
    manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: j}}
    discovery: {by_name: "job-{{ .clusterId }}"}
    retention: {historyLimit: 3}
    lifecycle:
      delete: {when: {expression: "false"}}
      recreate: {when: {expression: "true"}}
extra: 1
`),
      [
        'task.yaml:15 extra: field extra not found in type configloader.AdapterTaskConfig',
        'task.yaml:2 params[0].unknown: field unknown not found in type configloader.Parameter',
        'task.yaml:6 preconditions[0].description: field description not found in type configloader.Precondition',
        'task.yaml:11 resources[0].retention: field retention not found in type configloader.Resource',
        'task.yaml:14 resources[0].lifecycle.recreate: field recreate not found in type configloader.ResourceLifecycle',
      ],
    );
  });

  it('reads Maestro resources with nested discoveries, and a manifest ref as raw text through the given reader (loader.go loadTaskConfigFileReferences)', () => {
    const cfg = parseTaskConfig(
      `params: [{name: clusterId, source: event.id}]
resources:
  - name: mw
    transport: {client: maestro, maestro: {target_cluster: "{{ .clusterId }}"}}
    manifest: {ref: templates/mw.yaml}
    discovery: {by_name: "mw-{{ .clusterId }}"}
    nested_discoveries: [{name: ns0, discovery: {by_name: x}}]
post:
  payloads: []
`,
      FILE,
      (ref) =>
        ref === 'templates/mw.yaml'
          ? {
              text: 'apiVersion: work.open-cluster-management.io/v1\nkind: ManifestWork\nmetadata:\n  annotations:\n    hyperfleet.io/generation: "{{ .generationId }}"\n',
            }
          : { error: 'nope' },
    );
    const mw = cfg.resources[0]!;
    assert.deepEqual(
      [
        mw.transport,
        mw.targetCluster?.text,
        mw.kind,
        mw.apiVersion,
        mw.manifest?.kind,
        mw.generationAnnotation?.params,
        mw.nestedDiscoveries.map((n) => n.name),
      ],
      ['maestro', '{{ .clusterId }}', 'ManifestWork', 'work.open-cluster-management.io/v1', 'text', ['generationId'], ['ns0']],
    );
    assert.deepEqual(cfg.notices, []);
  });

  it("refuses what the adapter's validator refuses, every problem with file:line and field (configloader/validator.go)", () => {
    assert.deepEqual(
      problems(`resources:
  - name: a
    manifest: {apiVersion: v1, kind: ConfigMap}
  - name: a
    manifest: {apiVersion: v1, kind: ConfigMap}
    discovery: {by_name: x}
  - name: b-c
    manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: "{{ .nope }}"}}
    discovery: {by_name: "{{ if }}", by_selectors: {label_selector: {a: b}}}
    recreate_on_change: "yes"
    lifecycle:
      delete: {propagationPolicy: Never}
`),
      [
        'task.yaml:2 resources[0].discovery: resource "a": discovery is required',
        'task.yaml:4 resources[1].name: duplicate resource "a"',
        'task.yaml:7 resources[2].name: "b-c": must start with lowercase letter and contain only letters, numbers, underscores (no hyphens)',
        'task.yaml:9 resources[2].discovery: resource "b-c": by_name and by_selectors are mutually exclusive',
        'task.yaml:9 resources[2].discovery.by_name: failed to parse template: missing command in "{{ if }}"',
        'task.yaml:10 resources[2].recreate_on_change: cannot unmarshal "yes" into bool',
        'task.yaml:12 resources[2].lifecycle.delete.when.expression: lifecycle.delete.when.expression is required: without it the resource will never be deleted',
        'task.yaml:12 resources[2].lifecycle.delete.propagationPolicy: invalid propagationPolicy "Never": must be one of Background, Foreground, Orphan',
        'task.yaml:8 resources[2].manifest.metadata.name: undefined template variable "nope"',
      ],
    );
    assert.deepEqual(problems('spec: {resources: []}\n'), ['task.yaml:1 spec: field spec not found in type configloader.AdapterTaskConfig']);
    assert.deepEqual(problems('resources: [\n'), ['task.yaml:2 (document): Flow sequence in block collection must be sufficiently indented and end with a ]']);
    assert.deepEqual(problems('- a\n- b\n'), ['task.yaml:1 (document): a task config is a YAML mapping']);
  });
});

describe('adapter task config expressions', () => {
  it('names every expression that does not compile at once, each at its file:line:column (rules.ts CompiledTaskConfig.compile)', () => {
    const config = parseTaskConfig(
      `params:
  - {name: clusterId, source: event.id}
preconditions:
  - {name: ready, expression: "status =="}
resources:
  - name: job
    manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: j}}
    discovery: {by_name: "job-{{ .clusterId }}"}
    lifecycle:
      delete: {when: {expression: "resources.job.("}}
`,
      FILE,
    );
    let heads: string[] = [];
    try {
      CompiledTaskConfig.compile(config, new CelRuntime());
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      heads = e.problems.map((p) => p.split('\n')[0]!);
    }
    assert.deepEqual(heads, [
      'task.yaml:4:41 precondition "ready" expression: Unexpected token: EOF',
      'task.yaml:10:50 resource "job" lifecycle.delete.when.expression: Expected IDENTIFIER, got LPAREN',
    ]);
  });
});
