/**
 * One adapter event decided as hyperfleet-adapter's executor runs it (commit 3f746a5). Each case names the upstream
 * file and test or function it mirrors.
 */
import { strict as assert } from 'node:assert';
import { executeEvent, latestGeneration, type ApiAnswer, type EventOutcome, type KubeObject } from '../../../analyzer/recreations/adapter-event.js';
import { compileAdapterConfig, NO_ADAPTER_CONFIG } from '../../../analyzer/recreations/adapter-config.js';
import { objectWorld } from '../../../analyzer/recreations/dry-run-inputs.js';
import { compile, T0 } from './world.js';

const CLUSTER = {
  id: 'c1',
  kind: 'Cluster',
  generation: 3,
  name: 'prod',
  spec: { region: 'eu' },
  status: { conditions: [{ type: 'Reconciled', status: 'False' }] },
};

function run(
  yaml: string,
  opts: { objects?: KubeObject[]; api?: (method: string, url: string) => ApiAnswer; env?: Record<string, string>; event?: Record<string, unknown> } = {},
): EventOutcome {
  const cfg = compile(yaml);
  return executeEvent(cfg, {
    event: opts.event ?? { id: 'c1', kind: 'Cluster', generation: 3 },
    env: opts.env ?? {},
    adapterConfig: NO_ADAPTER_CONFIG,
    api: opts.api ?? ((method, url) => (method === 'GET' && url === '/clusters/c1' ? { status: 200, body: CLUSTER } : { status: 404, body: {} })),
    objects: objectWorld(opts.objects ?? []),
    nowMs: T0,
  });
}

const summary = (o: EventOutcome): string[] =>
  o.resources.map((r) => `${r.resource.name}:${r.decision}${r.trigger ? `/${r.trigger}` : ''}${r.conflict ? '/conflict' : ''}`);

const cm = (name: string, generation: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns-c1', labels: { app: 'a' }, annotations: { 'hyperfleet.io/generation': generation }, ...extra },
});

const PARAMS = `params:
  - {name: clusterId, source: event.id, type: string, required: true}
  - {name: generation, source: event.generation, type: int}
  - name: cluster
    source: {api_call: {method: GET, url: "/clusters/{{ .clusterId }}"}}
  - {name: is_deleting, source: {expression: "cluster.?deleted_time.hasValue()"}}
`;

const resource = (name: string, lifecycle = '', extra = ''): string => `  - name: ${name}
    manifest:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "${name}-{{ .clusterId }}", namespace: "ns-{{ .clusterId }}", annotations: {hyperfleet.io/generation: "{{ .generation }}"}}
    discovery: {namespace: "ns-{{ .clusterId }}", by_name: "${name}-{{ .clusterId }}"}
${extra}${lifecycle ? `    lifecycle:\n${lifecycle}` : ''}`;

describe('one adapter event, as the adapter decides it', () => {
  describe('CEL as EvaluateSafe takes it (internal/criteria/cel_evaluator.go EvaluateSafe)', () => {
    it('a run-time error is not matched: lifecycle.delete.when falls through to the apply (resource_executor_test.go TestResourceExecutor_LifecycleDelete_CELUndeclaredVariable)', () => {
      const o = run(`${PARAMS}resources:\n${resource('a', '      delete: {when: {expression: "not_captured_var != null"}}\n')}`);
      assert.deepEqual(summary(o), ['a:create']);
      assert.equal(o.status, 'success');
      assert.deepEqual(
        o.resources[0]!.errors.map((e) => [e.rule, e.reason]),
        [['lifecycle.delete.when', 'unknown_variable']],
      );
    });

    it('a non-bool result is matched unless null or empty (cel_evaluator_test.go TestCELEvaluatorEvaluateSafe)', () => {
      const delWhen = (expr: string): string =>
        summary(
          run(`${PARAMS}resources:\n${resource('a', `      delete: {when: {expression: ${JSON.stringify(expr)}}}\n`)}`, { objects: [cm('a-c1', '3')] }),
        )[0]!;
      assert.equal(delWhen('"yes"'), 'a:delete');
      assert.equal(delWhen('[1]'), 'a:delete');
      assert.equal(delWhen('cluster.spec'), 'a:delete');
      assert.equal(delWhen('""'), 'a:skip');
      assert.equal(delWhen('[]'), 'a:skip');
      assert.equal(delWhen('dig(cluster, "nope")'), 'a:skip');
    });

    it('the adapter functions: dig, toJson, conditionStatus, now() as an RFC 3339 string (cel_evaluator.go customCELFunctions)', () => {
      const o = run(`${PARAMS}  - {name: region, source: {expression: 'dig(cluster, "spec.region")'}}
  - {name: json, source: {expression: 'toJson(cluster.spec)'}}
  - {name: reconciled, source: {expression: 'conditionStatus(cluster.status.conditions, "Reconciled")'}}
  - {name: stamp, source: {expression: 'now()'}}
  - {name: tri, source: {expression: 'triState(false, false)'}}
resources:\n${resource('a')}`);
      assert.deepEqual(
        [o.params.region, o.params.json, o.params.reconciled, o.params.stamp, o.params.tri],
        ['eu', '{"region":"eu"}', 'False', '2026-11-02T00:00:00Z', 'Unknown'],
      );
    });
  });

  describe('params (internal/executor/param_extractor.go extractConfigParams)', () => {
    it('a failing param that is not required stays unset or takes its default; the event goes on', () => {
      const o = run(`${PARAMS}  - {name: missing, source: cluster.nope}
  - {name: withDefault, source: env.NOT_SET, default: fallback}
  - {name: badExpr, source: {expression: "cluster.nope.deeper"}, default: d}
resources:\n${resource('a')}`);
      assert.equal(o.status, 'success');
      assert.equal('missing' in o.params, false);
      assert.equal(o.params.withDefault, 'fallback');
      assert.equal(o.params.badExpr, 'd');
      assert.deepEqual(summary(o), ['a:create']);
    });

    it('a failing required param fails the event: every resource is an error (executor.go Execute, PhaseParamExtraction)', () => {
      const o = run(`${PARAMS}  - {name: region, source: env.REGION, required: true}\nresources:\n${resource('a')}`);
      assert.equal(o.status, 'failed');
      assert.equal(o.failure?.phase, 'param_extraction');
      assert.match(o.failure.error.message, /failed to extract required parameter 'region': environment variable REGION not set/);
      assert.deepEqual(summary(o), ['a:error']);
    });

    it('types convert string sources only, as ConvertToType does (param_extractor_test.go TestConvertToInt64, TestConvertToBool)', () => {
      const o = run(
        `${PARAMS}  - {name: n, source: env.N, type: int}
  - {name: b, source: env.B, type: bool}
  - {name: f, source: env.F, type: int}
resources:\n${resource('a')}`,
        { env: { N: '3.7', B: 'yes', F: 'x' } },
      );
      assert.deepEqual([o.params.n, o.params.b, 'f' in o.params], [3n, true, false]);
    });
  });

  describe('preconditions (internal/executor/precondition_executor.go ExecuteAll, executePrecondition)', () => {
    it('stop at the first not met; structured conditions win over the expression; `values` is `value`', () => {
      const o = run(`${PARAMS}preconditions:
  - name: first
    conditions: [{field: clusterId, operator: in, values: [c0, c2]}]
    expression: "true"
  - name: second
    expression: "false"
resources:\n${resource('a')}`);
      assert.deepEqual(
        o.preconditions.map((p) => [p.name, p.matched]),
        [['first', false]],
      );
      assert.equal(o.skipped, "precondition 'first' not met");
      assert.deepEqual(summary(o), ['a:skip']);
    });

    it('a precondition expression error is not met (EvaluateSafe); a condition that cannot be evaluated fails the event', () => {
      const notMet = run(`${PARAMS}preconditions:\n  - {name: p, expression: "cluster.nope == 1"}\nresources:\n${resource('a')}`);
      assert.deepEqual([notMet.status, notMet.preconditions[0]!.matched, notMet.preconditions[0]!.errors[0]!.reason], ['success', false, 'no_such_key']);
      const failed = run(
        `${PARAMS}preconditions:\n  - name: p\n    conditions: [{field: cluster.nope, operator: contains, value: x}]\nresources:\n${resource('a')}`,
      );
      assert.deepEqual([failed.status, failed.failure?.phase, failed.failure?.error.message], ['failed', 'preconditions', 'fieldValue cannot be nil']);
    });

    it('`exists` is false for "" and empty collections (criteria/evaluator.go evaluateExists)', () => {
      const exists = (field: string): boolean =>
        run(`${PARAMS}  - {name: empty, source: {expression: '""'}}
  - {name: none, source: {expression: '[]'}}
  - {name: some, source: {expression: '["x"]'}}
preconditions:\n  - name: p\n    conditions: [{field: ${field}, operator: exists}]\nresources:\n${resource('a')}`).preconditions[0]!.matched;
      assert.deepEqual(['empty', 'none', 'some', 'cluster.name'].map(exists), [false, false, true, true]);
    });

    it("captures see the response and the precondition's own name; a failed capture is nil with a warning, or its default (TestPreconditionCapture_NamedMapVariable, TestPreconditionCapture_FieldDefault)", () => {
      const o = run(`${PARAMS}preconditions:
  - name: checkCluster
    api_call: {method: GET, url: "/clusters/{{ .clusterId }}"}
    capture:
      - {name: byField, field: spec.region}
      - {name: byName, expression: 'dig(checkCluster, "name")'}
      - {name: missing, field: spec.nope}
      - {name: defaulted, field: spec.nope, default: d}
      - {name: broken, expression: "spec.nope.deeper"}
resources:\n${resource('a')}`);
      assert.deepEqual([o.params.byField, o.params.byName, o.params.missing, o.params.defaulted, o.params.broken], ['eu', 'prod', null, 'd', null]);
      assert.equal(o.preconditions[0]!.matched, true);
      assert.deepEqual(
        o.preconditions[0]!.errors.map((e) => e.rule),
        ['precondition checkCluster capture missing', 'precondition checkCluster capture broken'],
      );
    });

    it('a precondition API call answered 404 skips the resources gracefully (executor_test.go TestPrecondition404_GracefulStop)', () => {
      const o = run(
        `${PARAMS.replace(/ {2}- name: cluster\n.*\n/, '').replace(/ {2}- \{name: is_deleting.*\n/, '')}preconditions:\n  - name: c\n    api_call: {method: GET, url: "/clusters/gone"}\nresources:\n${resource('a')}`,
      );
      assert.deepEqual([o.status, o.skipped], ['success', 'ResourceNotFound']);
    });
  });

  describe('resources in order (internal/executor/resource_executor.go ExecuteAll, executeResource)', () => {
    it('create.when only while absent, before delete.when (TestResourceExecutor_LifecycleCreate_WhenFalse_ResourceNotFound_Skipped, _ResourceAlreadyExists_IgnoresWhen)', () => {
      const lc = '      create: {when: {expression: "false"}}\n      delete: {when: {expression: "true"}}\n';
      assert.deepEqual(summary(run(`${PARAMS}resources:\n${resource('a', lc)}`)), ['a:skip']);
      assert.deepEqual(summary(run(`${PARAMS}resources:\n${resource('a', lc)}`, { objects: [cm('a-c1', '3')] })), ['a:delete']);
    });

    it('a deleted resource is gone for the next one in the same event; with finalizers it is still there (TestResourceExecutor_LifecycleDelete_OrderingViaResources_InstantDelete, _WithFinalizers)', () => {
      const yaml = `${PARAMS}resources:\n${resource('a', '      delete: {when: {expression: "true"}}\n')}${resource('b', '      delete: {when: {expression: "!resources.?a.hasValue()"}}\n')}`;
      assert.deepEqual(summary(run(yaml, { objects: [cm('a-c1', '3'), cm('b-c1', '3')] })), ['a:delete', 'b:delete']);
      assert.deepEqual(summary(run(yaml, { objects: [cm('a-c1', '3', { finalizers: ['hold'] }), cm('b-c1', '3')] })), ['a:delete', 'b:skip']);
    });

    it('an applied resource is there for the next one (rediscovered after the apply)', () => {
      const yaml = `${PARAMS}resources:\n${resource('a')}${resource('b', '      create: {when: {expression: "resources.?a.hasValue()"}}\n')}`;
      assert.deepEqual(summary(run(yaml)), ['a:create', 'b:create']);
    });

    it('the apply compares generations as numbers (manifest/generation.go CompareGenerations, GetGenerationFromUnstructured)', () => {
      const yaml = `${PARAMS}resources:\n${resource('a')}`;
      assert.deepEqual(summary(run(yaml, { objects: [cm('a-c1', '03')] })), ['a:skip']);
      assert.deepEqual(summary(run(yaml, { objects: [cm('a-c1', '2')] })), ['a:update']);
      assert.deepEqual(summary(run(yaml, { objects: [cm('a-c1', 'x')] })), ['a:update']);
      assert.deepEqual(summary(run(`${PARAMS}resources:\n${resource('a', '', '    recreate_on_change: true\n')}`, { objects: [cm('a-c1', '2')] })), [
        'a:recreate/recreate_on_change',
      ]);
    });

    it('a manifest that does not render fails the resource and stops the event (missingkey=error, pkg/utils/template.go RenderTemplate)', () => {
      // `unset` is a param (the validator accepts the template) that stays unset at run time.
      const yaml = `${PARAMS}  - {name: unset, source: cluster.nope}\nresources:\n${resource('a').replace('"{{ .generation }}"', '"{{ .unset }}"')}${resource('b')}`;
      const o = run(yaml);
      assert.deepEqual(summary(o), ['a:error', 'b:error']);
      assert.match(o.resources[0]!.reason, /map has no entry for key "unset"/);
      assert.match(o.resources[1]!.reason, /^not processed/);
    });

    it('the proposed recreate.when: after delete.when is false; both matched is a conflict and delete wins', () => {
      const yaml = (del: string): string =>
        `${PARAMS}resources:\n${resource('a', `      delete: {when: {expression: "${del}"}}\n      recreate: {when: {expression: "true"}}\n`)}`;
      assert.deepEqual(summary(run(yaml('false'), { objects: [cm('a-c1', '3')] })), ['a:recreate/rule']);
      assert.deepEqual(summary(run(yaml('true'), { objects: [cm('a-c1', '3')] })), ['a:delete/conflict']);
    });
  });

  describe('discovery', () => {
    it('several by_selectors matches: the highest hyperfleet.io/generation, ties by name (manifest/generation.go GetLatestGenerationFromList)', () => {
      assert.deepEqual(latestGeneration([cm('b', '2'), cm('a', '2'), cm('c', '1')])!.metadata, cm('a', '2').metadata);
      assert.equal((latestGeneration([cm('a', 'x'), cm('b', '10'), cm('c', '9')])!.metadata as { name: string }).name, 'b');
    });

    it('an API call answers only its own URL; relative URLs get the base path (executor/utils.go buildHyperfleetAPICallURL)', () => {
      const seen: string[] = [];
      const cfg = compile(
        `${PARAMS}  - name: statuses\n    source: {api_call: {method: GET, url: "/clusters/{{ .clusterId }}/statuses"}}\nresources:\n${resource('a')}`,
      );
      const o = executeEvent(cfg, {
        event: { id: 'c1', kind: 'Cluster', generation: 3 },
        env: {},
        adapterConfig: compileAdapterConfig({ adapter: { name: 'x' }, clients: { hyperfleet_api: { base_url: 'http://api:8000', version: 'v1' } } }),
        api: (method, url) => {
          seen.push(`${method} ${url}`);
          return url === '/api/hyperfleet/v1/clusters/c1' ? { status: 200, body: CLUSTER } : { status: 404, body: {} };
        },
        objects: objectWorld([]),
        nowMs: T0,
      });
      assert.deepEqual(seen, ['GET /api/hyperfleet/v1/clusters/c1', 'GET /api/hyperfleet/v1/clusters/c1/statuses']);
      assert.equal((o.params.cluster as { name: string }).name, 'prod');
      assert.equal('statuses' in o.params, false);
    });
  });
});
