import { strict as assert } from 'node:assert';
import { decideLifecycle, type LifecycleDecision } from '../../../analyzer/recreations/lifecycle-decision.js';
import { CelRuntime, toCelValue } from '../../../analyzer/recreations/cel.js';
import { CompiledTaskConfig } from '../../../analyzer/recreations/rules.js';
import { parseTaskConfig } from '../../../analyzer/recreations/task-config.js';
import { toHyperFleetResource, toManagedObject, type ManagedObject } from '../../../collector/objects/observation.js';
import { compile, designTaskConfig, jobRaw, T0 } from './world.js';

/** A Job resource with every rule the design discusses; `extra` adds or replaces lifecycle gates. */
function config(lifecycle: string, recreateOnChange = false): CompiledTaskConfig {
  return compile(designTaskConfig(lifecycle, recreateOnChange));
}

const DELETE = `      delete:
        propagationPolicy: Background
        when: {expression: "is_deleting"}`;
const RECREATE = `      recreate:
        when:
          expression: |
            resources.?job.hasValue()
            && has(resources.job.metadata)
            && has(resources.job.metadata.annotations)
            && string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]`;

function decision(cfg: CompiledTaskConfig, c: { generation: number; deleted?: boolean; spec?: Record<string, unknown> }, jobGeneration?: number): LifecycleDecision {
  const cluster = toHyperFleetResource({ id: 'c1', kind: 'Cluster', generation: c.generation, deleted_time: c.deleted ? '2026-11-02T00:00:00Z' : null, spec: c.spec ?? {} });
  const ctx = cfg.clusterContext(cluster);
  const object: ManagedObject | undefined = jobGeneration === undefined ? undefined : toManagedObject(jobRaw({ cluster: 'c1', uid: 'u1', generation: jobGeneration, created: T0 }));
  const resource = cfg.resources[0]!;
  return decideLifecycle({
    resource,
    ctx,
    resources: object ? { job: toCelValue(object.raw, 256) } : {},
    ...(object ? { object } : {}),
    desiredGeneration: cfg.desiredGeneration(resource, ctx),
  });
}

const summary = (d: LifecycleDecision) => [d.decision, d.conflict, d.trigger, d.error?.reason];

describe('shadow decisions, in the design order', () => {
  it('the designed recreate rule: recreate on a generation change, skip when equal, create when absent', () => {
    const cfg = config(`${DELETE}\n${RECREATE}`);
    assert.deepEqual(summary(decision(cfg, { generation: 2 }, 1)), ['recreate', false, 'rule', undefined]);
    assert.deepEqual(summary(decision(cfg, { generation: 2 }, 2)), ['skip', false, undefined, undefined]);
    assert.deepEqual(summary(decision(cfg, { generation: 2 })), ['create', false, undefined, undefined]);
  });

  it('delete wins: both rules true is a delete and a conflict; recreate.when alone is a recreate', () => {
    const cfg = config(`${DELETE}\n${RECREATE}`);
    // The API bumps the generation when it soft-deletes, so the old annotation makes the recreate rule true too.
    assert.deepEqual(summary(decision(cfg, { generation: 3, deleted: true }, 2)), ['delete', true, undefined, undefined]);
    // Deleting with the object already at the generation (or gone): a delete, no conflict.
    assert.deepEqual(summary(decision(cfg, { generation: 3, deleted: true }, 3)), ['delete', false, undefined, undefined]);
    assert.deepEqual(summary(decision(cfg, { generation: 3, deleted: true })), ['delete', false, undefined, undefined]);
  });

  it("today's recreate_on_change: a different generation is a recreate instead of an update", () => {
    assert.deepEqual(summary(decision(config(DELETE, true), { generation: 5 }, 4)), ['recreate', false, 'recreate_on_change', undefined]);
    assert.deepEqual(summary(decision(config(DELETE, false), { generation: 5 }, 4)), ['update', false, undefined, undefined]);
    assert.deepEqual(summary(decision(config(DELETE, false), { generation: 5 }, 5)), ['skip', false, undefined, undefined]);
  });

  it('create.when gates only the first creation', () => {
    const cfg = config(`      create:\n        when: {expression: "generation > 1"}`);
    assert.deepEqual(summary(decision(cfg, { generation: 1 })), ['skip', false, undefined, undefined]);
    assert.deepEqual(summary(decision(cfg, { generation: 2 })), ['create', false, undefined, undefined]);
    // Present: the gate is not evaluated; the generation-aware apply decides.
    assert.deepEqual(summary(decision(cfg, { generation: 1 }, 0)), ['update', false, undefined, undefined]);
  });

  it('unmet preconditions skip the resources phase; a rule that fails or is not a bool is an error, never false', () => {
    const cfg = config(`${DELETE}\n${RECREATE}`);
    assert.deepEqual(summary(decision(cfg, { generation: 2, spec: { paused: true } }, 1)), ['skip', false, undefined, undefined]);
    const broken = config(`      delete:\n        when: {expression: "resources.job.metadata.labels.team == 'a'"}\n${RECREATE}`);
    assert.deepEqual(summary(decision(broken, { generation: 2 }, 1)), ['error', false, undefined, 'no_such_key']);
    assert.equal(decision(broken, { generation: 2 }, 1).error?.rule, 'lifecycle.delete.when');
    const notBool = config(`      recreate:\n        when: {expression: "generation"}`);
    const d = decision(notBool, { generation: 2 }, 1);
    assert.deepEqual(summary(d), ['error', false, undefined, 'not_bool']);
    assert.equal(d.error?.message, 'returned int, not a bool');
    const paramFails = compile(`params:
  - {name: clusterId, source: event.id}
  - name: broken
    source: {expression: "checkClusterState.nope"}
resources:
  - name: job
    manifest: {apiVersion: batch/v1, kind: Job}
    discovery: {by_name: "validate-{{ .clusterId }}"}
`);
    const ctx = paramFails.clusterContext(toHyperFleetResource({ id: 'c1', generation: 1 }));
    assert.deepEqual(ctx.error, { rule: 'param broken', reason: 'no_such_key', message: 'No such key: nope' });
    const r = decideLifecycle({ resource: paramFails.resources[0]!, ctx, resources: {}, desiredGeneration: '1' });
    assert.deepEqual(summary(r), ['error', false, undefined, 'no_such_key']);
  });

  it('params follow the adapter: event fields, env with defaults and types, captures, and the manifest generation template', () => {
    const yaml = `params:
  - {name: clusterId, source: event.id}
  - {name: region, source: env.REGION, default: eu}
  - {name: replicas, source: env.REPLICAS, type: int}
  - {name: name, source: checkClusterState.name}
preconditions:
  - name: clusterStatus
    api_call: {method: GET, url: "/clusters/{{ .clusterId }}"}
    capture:
      - {name: generationId, field: generation}
      - name: reconciled
        expression: 'status.conditions.exists(c, c.type == "Reconciled" && c.status == "True")'
resources:
  - name: job
    manifest: {apiVersion: batch/v1, kind: Job, metadata: {annotations: {hyperfleet.io/generation: "{{ .generationId }}"}}}
    discovery: {by_name: "validate-{{ .clusterId }}"}
`;
    const cfg = compile(yaml);
    const ctx = cfg.clusterContext(toHyperFleetResource({ id: 'c9', name: 'prod', generation: 7, status: { conditions: [{ type: 'Reconciled', status: 'True' }] } }));
    assert.equal(ctx.error, undefined);
    assert.deepEqual(
      Object.fromEntries(['clusterId', 'region', 'replicas', 'name', 'generationId', 'reconciled'].map((k) => [k, ctx.values[k]])),
      { clusterId: 'c9', region: 'eu', replicas: undefined, name: 'prod', generationId: 7n, reconciled: true },
    );
    assert.equal(cfg.desiredGeneration(cfg.resources[0]!, ctx), '7');
    const withEnv = CompiledTaskConfig.compile(parseTaskConfig(yaml, 'task.yaml'), new CelRuntime(), { env: { REGION: 'us', REPLICAS: '3.7' } });
    const envCtx = withEnv.clusterContext(toHyperFleetResource({ id: 'c9', generation: 1 }));
    assert.deepEqual([envCtx.values.region, envCtx.values.replicas], ['us', 3n]);
  });
});
