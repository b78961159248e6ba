/**
 * What the recreation analyzer keeps of its inputs: the projection of objects and cluster states onto what the task config reads.
 * Exact projections for the design's rules, and the property that every context and every decision is the same on
 * the projections as on the whole inputs, for rules and inputs generated independently of the analysis (reads.ts).
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { CelCompileError, CelRuntime, DEFAULT_CEL_LIMITS, InputTooLarge, toCelValue, type EvalResult } from '../../../analyzer/recreations/cel.js';
import { executeEvent, type KubeObject } from '../../../analyzer/recreations/adapter-event.js';
import { NO_ADAPTER_CONFIG } from '../../../analyzer/recreations/adapter-config.js';
import { objectWorld } from '../../../analyzer/recreations/dry-run-inputs.js';
import type { CompiledTaskConfig } from '../../../analyzer/recreations/rules.js';
import { ValidationError } from '../../../lib/validation-error.js';
import { toManagedObject } from '../../../collector/objects/observation.js';
import { FUZZ_RUNS } from '../../fuzz/runs.js';
import { apiClusterRaw, compile, designTaskConfig, jobRaw, JOB_TASK_CONFIG, listedJobRaw, T0 } from './world.js';

/** The design's Job resource (the recreate rule of adapter-recreation-flow-design.md) behind the adapter's precondition. */
const DESIGN = designTaskConfig(`      delete: {when: {expression: "is_deleting"}}
      recreate:
        when:
          expression: |
            resources.?job.hasValue()
            && has(resources.job.metadata)
            && has(resources.job.metadata.annotations)
            && string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]`);

/** A Job resource whose only rule is `rule`. */
const withRule = (rule: string): CompiledTaskConfig =>
  compile(`params:
  - {name: clusterId, source: event.id}
resources:
  - name: job
    manifest: {apiVersion: batch/v1, kind: Job}
    discovery: {by_name: "validate-{{ .clusterId }}"}
    lifecycle:
      recreate: {when: {expression: ${JSON.stringify(rule)}}}
`);

const JOB = jobRaw({ cluster: 'c1', uid: 'u1', generation: 1, created: T0, complete: T0 + 60_000, finalizers: ['example.com/hold'] });
const objectInput = (cfg: CompiledTaskConfig, raw: unknown): EvalResult => cfg.objectInput(cfg.resources[0]!, raw);

describe('what the shadow keeps of its inputs', function () {
  // a property over generated task configs, each compiled
  this.timeout(60_000);
  it("the design's rules: the Job's generation annotation, and the cluster's deleted_time and spec.paused", () => {
    const cfg = compile(DESIGN);
    assert.deepEqual(objectInput(cfg, JOB), { ok: true, value: { metadata: { annotations: { 'hyperfleet.io/generation': '1' } } } });
    const cluster = {
      id: 'c1',
      kind: 'Cluster',
      generation: 3,
      deleted_time: '2026-11-02T00:00:00Z',
      spec: { paused: false, region: 'eu', nodes: [1, 2] },
      status: { conditions: [{ type: 'Reconciled', status: 'False' }] },
    };
    assert.deepEqual(cfg.clusterInput(cluster), { ok: true, value: { deleted_time: '2026-11-02T00:00:00Z', spec: { paused: false } } });
    // The same from objects as the API servers list them: the rest of them (managedFields, pod template, conditions) is left.
    const listed = listedJobRaw({ cluster: 'c1', uid: 'u1', generation: 4, created: T0, complete: T0 + 60_000 });
    assert.deepEqual(objectInput(cfg, listed), { ok: true, value: { metadata: { annotations: { 'hyperfleet.io/generation': '4' } } } });
    assert.deepEqual(cfg.clusterInput(apiClusterRaw({ id: 'c1', generation: 4, deleted: T0 })), {
      ok: true,
      value: { deleted_time: '2026-11-02T00:00:00Z', spec: {} },
    });
    // The contract's config reads nothing of the Job and only whether the cluster is deleted.
    const contract = compile(JOB_TASK_CONFIG);
    assert.deepEqual(objectInput(contract, JOB), { ok: true, value: {} });
    assert.deepEqual(contract.clusterInput({ ...cluster, deleted_time: null }), { ok: true, value: {} });
  });

  it('a value a rule uses is kept whole; one it only tests for presence becomes an empty map', () => {
    const cfg = withRule('resources.?job.?status.hasValue() && has(resources.job.metadata.uid) && size(resources.job.metadata.labels) > 0');
    assert.deepEqual(objectInput(cfg, JOB), { ok: true, value: { status: {}, metadata: { uid: 'u1', labels: { 'hyperfleet.io/cluster-id': 'c1' } } } });
  });

  it('a macro, a computed index or a function over a value keeps all of it; so does reading resources as a whole', () => {
    const whole = toCelValue(JOB, 256);
    const status = (whole as { status: unknown }).status;
    assert.deepEqual(objectInput(withRule('resources.job.status.conditions.exists(c, c.type == "Complete")'), JOB), {
      ok: true,
      value: { status: { conditions: (status as { conditions: unknown }).conditions } },
    });
    assert.deepEqual(objectInput(withRule('resources.job.status[clusterId] == 1'), JOB), { ok: true, value: { status } });
    assert.deepEqual(objectInput(withRule('dyn(resources.job.status).succeeded == 1'), JOB), { ok: true, value: { status } });
    assert.deepEqual(objectInput(withRule('resources.exists(name, name == "job")'), JOB), { ok: true, value: whole });
  });

  it('a list over the input cap in a part no rule reads still refuses the input, with the message of the whole input', () => {
    const big = { ...JOB, spec: { items: new Array(300).fill(1) } };
    let message = '';
    try {
      toCelValue(big, DEFAULT_CEL_LIMITS.maxInputListElements);
    } catch (e) {
      assert.ok(e instanceof InputTooLarge);
      message = e.message;
    }
    assert.equal(message, 'a list of 300 items exceeds the input cap of 256');
    assert.deepEqual(objectInput(compile(JOB_TASK_CONFIG), big), { ok: false, reason: 'input_too_large', message });
  });

  it('property: contexts, rule results and decisions are the same on the projections as on the whole inputs', () => {
    const outcomes = { compared: 0, ruleValues: 0, contexts: 0 };
    fc.assert(
      fc.property(taskConfigs, clusters, jobs, (yaml, cluster, job) => compareOnWholeAndProjected(yaml, cluster, job, outcomes)),
      { numRuns: RUNS },
    );
    // Not vacuous: generated expressions are valid CEL, and most rules and contexts evaluate to values, not errors.
    assert.ok(outcomes.compared >= RUNS * 0.9, `${outcomes.compared} of ${RUNS} configs compiled`);
    assert.ok(outcomes.ruleValues >= RUNS * 0.1, `${outcomes.ruleValues} of ${RUNS} recreate rules evaluated to a value`);
    assert.ok(outcomes.contexts >= RUNS * 0.2, `${outcomes.contexts} of ${RUNS} contexts evaluated without an error`);
  });
});

/** Each case compiles a task config, so a quarter of the parsers' count. */
const RUNS = Math.ceil(FUZZ_RUNS / 4);
/** Small input lists, so that generated inputs go over the cap too. */
const LIMITS = { ...DEFAULT_CEL_LIMITS, maxInputListElements: 4 };

/** The input as the shadow converted it before projections: all of it. */
function wholeInput(raw: unknown): EvalResult {
  try {
    return { ok: true, value: toCelValue(raw, LIMITS.maxInputListElements) };
  } catch (e) {
    if (e instanceof InputTooLarge) return { ok: false, reason: 'input_too_large', message: e.message };
    throw e;
  }
}

function compareOnWholeAndProjected(
  yaml: string,
  clusterRaw: Record<string, unknown>,
  jobRawValue: Record<string, unknown>,
  outcomes: { compared: number; ruleValues: number; contexts: number },
): void {
  let cfg: CompiledTaskConfig;
  try {
    cfg = compile(yaml, new CelRuntime(LIMITS));
  } catch (e) {
    if (e instanceof ValidationError || e instanceof CelCompileError) return;
    throw e;
  }
  outcomes.compared++;
  const resource = cfg.resources[0]!;
  const wholeState = wholeInput(clusterRaw);
  const projectedState = cfg.clusterInput(clusterRaw);
  assert.deepEqual(projectedState.ok ? 'ok' : [projectedState.reason, projectedState.message], wholeState.ok ? 'ok' : [wholeState.reason, wholeState.message]);
  const wholeJob = wholeInput(jobRawValue);
  const projectedJob = cfg.objectInput(resource, jobRawValue);
  assert.deepEqual(projectedJob.ok ? 'ok' : [projectedJob.reason, projectedJob.message], wholeJob.ok ? 'ok' : [wholeJob.reason, wholeJob.message]);
  if (!wholeState.ok || !wholeJob.ok || !projectedState.ok || !projectedJob.ok) return;
  // The object as the shadow hands it to the event: its identity and generation annotation over what its rules read.
  const object = toManagedObject(jobRawValue);
  const asListed = (input: unknown): KubeObject => {
    const i = input as Record<string, unknown>;
    const meta = (typeof i.metadata === 'object' && i.metadata !== null ? i.metadata : {}) as Record<string, unknown>;
    const annotations = (typeof meta.annotations === 'object' && meta.annotations !== null ? meta.annotations : {}) as Record<string, unknown>;
    const generation = object.annotations['hyperfleet.io/generation'];
    return {
      ...i,
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        ...meta,
        name: object.name,
        namespace: object.namespace,
        labels: object.labels,
        annotations: { ...annotations, ...(generation === undefined ? {} : { 'hyperfleet.io/generation': generation }) },
      },
    };
  };
  const event = (state: unknown, job: unknown) => {
    const o = executeEvent(cfg, {
      event: { id: 'c1', kind: 'Cluster', generation: 2 },
      env: {},
      adapterConfig: NO_ADAPTER_CONFIG,
      api: (method, url) => (method === 'GET' && url === '/clusters/c1' ? { status: 200, body: state } : { status: 404, body: {} }),
      objects: objectWorld([asListed(job)]),
      nowMs: T0,
    });
    // Every param but the state itself (which the projection is of).
    const params = Object.fromEntries(Object.entries(o.params).filter(([k]) => !STATE_NAMES.includes(k)));
    return {
      status: o.status,
      skipped: o.skipped,
      failure: o.failure,
      preconditions: o.preconditions,
      params,
      resources: o.resources.map((r) => [r.decision, r.reason, r.conflict, r.trigger, r.errors]),
    };
  };
  const full = event(wholeState.value, wholeJob.value);
  assert.deepEqual(event(projectedState.value, projectedJob.value), full);
  if (full.status === 'success' && full.preconditions.every((p) => p.errors.length === 0)) outcomes.contexts++;
  const ruleErrors = full.resources[0]?.[4] as { rule: string }[] | undefined;
  if (full.skipped === undefined && !ruleErrors?.some((e) => e.rule.startsWith('lifecycle.recreate.when'))) outcomes.ruleValues++;
}

const STATE_NAMES = ['checkClusterState', 'clusterStatus'];
/** Field names of the generated inputs; `x-y` can only be read with an index. */
const KEYS = ['a', 'b', 'status', 'metadata', 'deleted_time', 'x-y'];
const IDENTIFIER_KEYS = KEYS.filter((k) => /^[a-z_]+$/.test(k));

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; map: Record<string, unknown>; list: unknown[] }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    { arbitrary: fc.integer({ min: 0, max: 2 }), weight: 1 },
    { arbitrary: fc.constantFrom('a', '', 1.5, true, null), weight: 1 },
    { arbitrary: tie('map'), weight: 3 },
    { arbitrary: tie('list'), weight: 1 },
  ),
  map: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
  list: fc.array(tie('value'), { maxLength: LIMITS.maxInputListElements }),
})).value;
/**
 * Inputs: every identifier key at the top (capture expressions name them as variables), other levels free; now and
 * then a list over the cap where no rule can read it.
 */
const fields: fc.Arbitrary<Record<string, unknown>> = fc.record({
  ...Object.fromEntries(IDENTIFIER_KEYS.map((k) => [k, jsonValue])),
  'x-y': fc.option(jsonValue, { nil: undefined }),
  items: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: fc.constant([1, 2, 3, 4, 5]), weight: 1 }),
});
const clusters = fields.map((f) => ({ ...f, id: 'c1', kind: 'Cluster', generation: 2 }));
const jobs = fields.map((f) => ({ ...f, apiVersion: 'batch/v1', kind: 'Job', metadata: { ...(f.metadata as object), name: 'validate-c1', uid: 'u1' } }));

const key = fc.constantFrom(...KEYS);
const select = key.map((k) => (IDENTIFIER_KEYS.includes(k) ? `.${k}` : `["${k}"]`));
const optionalSelect = key.map((k) => (IDENTIFIER_KEYS.includes(k) ? `.?${k}` : `[?"${k}"]`));
const literal = fc.constantFrom('1', '"a"', 'true', 'null', '[1]', '{"a": 1}');

/** `tests` combined with logic (which absorbs the errors of one side, as CEL does). */
function logic(tests: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small' },
      tests,
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `(${a}) && (${b})`),
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `(${a}) || (${b})`),
      tie('expr').map((a) => `!(${a})`),
      fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([a, b, c]) => `(${a}) ? (${b}) : (${c})`),
    ),
  })).expr;
}

/** Optional chains from `roots`, tested for presence or defaulted: they never fail on maps of any shape. */
function safeExpressions(roots: readonly string[]): fc.Arbitrary<string> {
  const optional = fc.tuple(fc.constantFrom(...roots), fc.array(optionalSelect, { minLength: 1, maxLength: 3 })).map(([r, a]) => r + a.join(''));
  return logic(
    fc.oneof(
      optional.map((c) => `${c}.hasValue()`),
      fc.tuple(optional, literal).map(([c, l]) => `${c}.orValue(${l}) == ${l}`),
    ),
  );
}

/** Boolean expressions over `roots`: field chains tested and used in the ways rules use them, some of which fail. */
function expressions(roots: readonly string[]): fc.Arbitrary<string> {
  const root = fc.constantFrom(...roots);
  const chain = fc
    .tuple(root, fc.array(fc.oneof({ arbitrary: select, weight: 4 }, { arbitrary: fc.constant('[0]'), weight: 1 }), { maxLength: 3 }))
    .map(([r, a]) => r + a.join(''));
  const selects = fc.tuple(root, fc.array(fc.constantFrom(...IDENTIFIER_KEYS), { minLength: 1, maxLength: 3 })).map(([r, ks]) => `${r}.${ks.join('.')}`);
  return fc.oneof(
    safeExpressions(roots),
    logic(
      fc.oneof(
        selects.map((s) => `has(${s})`),
        fc.tuple(chain, literal).map(([c, l]) => `${c} == ${l}`),
        chain.map((c) => `type(${c}) == map`),
        chain.map((c) => `size(${c}) > 1`),
        chain.map((c) => `string(${c}) == "a"`),
        chain.map((c) => `${c}.exists(v, v == "a")`),
        chain.map((c) => `[${c}, 1][0] == 1`),
        chain.map((c) => `${c} in ["a", 1]`),
      ),
    ),
  );
}

const path = fc.array(fc.constantFrom(...IDENTIFIER_KEYS), { minLength: 1, maxLength: 3 }).map((ks) => ks.join('.'));
/** Each part is there half the time, so that a part whose reads no other part shares is generated often. */
const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { freq: 2 });
const taskConfigs = fc
  .record({
    param: maybe(safeExpressions(['checkClusterState'])),
    pathParam: maybe(fc.tuple(path, fc.constantFrom(undefined, 'string', 'int', 'bool'))),
    eventParam: maybe(path),
    captureField: maybe(path),
    capture: maybe(safeExpressions(IDENTIFIER_KEYS)),
    condition: maybe(fc.tuple(path, fc.constantFrom('exists', 'equals', 'notEquals', 'contains'))),
    gate: maybe(expressions(['checkClusterState', 'clusterStatus', 'p', 'fromPath', 'fromEvent', 'captured', 'computed'])),
    template: maybe(path),
    deleteWhen: maybe(expressions(['resources.job', 'resources', 'checkClusterState', 'p', 'computed'])),
    recreateWhen: expressions(['resources.job', 'resources["job"]', 'resources', 'checkClusterState', 'clusterStatus', 'captured']),
  })
  .map((g) =>
    stringify({
      params: [
        { name: 'clusterId', source: 'event.id' },
        { name: 'checkClusterState', source: { api_call: { method: 'GET', url: '/clusters/{{ .clusterId }}' } } },
        ...(g.param === null ? [] : [{ name: 'p', source: { expression: g.param } }]),
        ...(g.pathParam === null
          ? []
          : [{ name: 'fromPath', source: `checkClusterState.${g.pathParam[0]}`, ...(g.pathParam[1] ? { type: g.pathParam[1] } : {}) }]),
        ...(g.eventParam === null ? [] : [{ name: 'fromEvent', source: `event.${g.eventParam}`, default: 'none' }]),
      ],
      preconditions: [
        {
          name: 'clusterStatus',
          api_call: { method: 'GET', url: '/clusters/{{ .clusterId }}' },
          capture: [
            ...(g.captureField === null ? [] : [{ name: 'captured', field: g.captureField }]),
            ...(g.capture === null ? [] : [{ name: 'computed', expression: g.capture }]),
          ],
          conditions:
            g.condition === null
              ? []
              : [{ field: `clusterStatus.${g.condition[0]}`, operator: g.condition[1], ...(g.condition[1] === 'exists' ? {} : { value: 'a' }) }],
          ...(g.gate === null ? {} : { expression: g.gate }),
        },
      ],
      resources: [
        {
          name: 'job',
          manifest: {
            apiVersion: 'batch/v1',
            kind: 'Job',
            metadata: {
              name: 'validate-{{ .clusterId }}',
              ...(g.template === null ? {} : { annotations: { 'hyperfleet.io/generation': `{{ .checkClusterState.${g.template} }}` } }),
            },
          },
          discovery: { by_name: 'validate-{{ .clusterId }}' },
          lifecycle: {
            ...(g.deleteWhen === null ? {} : { delete: { when: { expression: g.deleteWhen } } }),
            recreate: { when: { expression: g.recreateWhen } },
          },
        },
      ],
    }),
  );
