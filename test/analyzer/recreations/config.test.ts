import { strict as assert } from 'node:assert';
import { RECREATIONS_SECTION, recreationsConfig, trackerOptions, type RecreationsSection } from '../../../analyzer/recreations/config.js';
import { YamlSource } from '../../../model/yaml-source.js';
import { check, type Field } from '../../../sidecar/config-schema.js';

/** The section as the sidecar's config schema validates it. */
const SECTION: Field = RECREATIONS_SECTION;

function validate(yaml: string): { value?: RecreationsSection; problems: readonly string[] } {
  const src = new YamlSource(yaml, 'shadow.yaml');
  const value = check(src, ['recreations'], (src.value as { recreations?: unknown }).recreations, SECTION) as RecreationsSection | undefined;
  return { ...(value ? { value } : {}), problems: src.problems };
}

describe('the recreations config section', () => {
  it('validates with the sidecar schema, applies defaults and yields tracker options', () => {
    const { value, problems } = validate(`recreations:
  taskConfig: adapter-task-config.yaml
  env: {NAMESPACE: hf}
  hyperfleetApi: {url: "http://api:8000"}
  stuckThresholds: {default: 15m, Job: 30m}
  readiness: {Job: Complete, Namespace: exists, ConfigMap: api}
`);
    assert.deepEqual(problems, []);
    assert.deepEqual(value, {
      taskConfig: 'adapter-task-config.yaml',
      env: { NAMESPACE: 'hf' },
      hyperfleetApi: { url: 'http://api:8000', intervalSeconds: 15, timeoutSeconds: 5, kinds: ['clusters'] },
      sentinelIntervalSeconds: 10,
      stuckThresholds: { default: 900_000, Job: 1_800_000 },
      readiness: { Job: 'Complete', Namespace: 'exists', ConfigMap: 'api' },
      maxInFlight: 10_000,
      maxStuckSeries: 50,
    });
    const t = recreationsConfig(value).tracker;
    assert.deepEqual([t.stuckThresholdMs('Job'), t.stuckThresholdMs('Namespace'), t.sentinelIntervalSeconds, t.maxInFlight], [1_800_000, 900_000, 10, 10_000]);
    assert.deepEqual(['Job', 'Namespace', 'ConfigMap', 'Secret'].map((k) => t.readiness(k)), [{ kind: 'condition', type: 'Complete' }, { kind: 'exists' }, { kind: 'api' }, { kind: 'exists' }]);
    const defaults = trackerOptions();
    assert.deepEqual([defaults.stuckThresholdMs('Job'), defaults.readiness('Deployment'), defaults.readiness('Job')], [600_000, { kind: 'condition', type: 'Available' }, { kind: 'condition', type: 'Complete' }]);
  });

  it('reports every problem with file:line and field', () => {
    assert.deepEqual(
      validate(`recreations:
  env: {A: 1}
  hyperfleetApi: {intervalSeconds: 0, kinds: [machines]}
  stuckThresholds: {Job: soon}
  maxStuckSeries: -1
  extra: true
`).problems,
      [
        'shadow.yaml:6 recreations.extra: unknown field (allowed: taskConfig, env, kubernetes, hyperfleetApi, sentinelIntervalSeconds, stuckThresholds, readiness, maxInFlight, maxStuckSeries)',
        'shadow.yaml:2 recreations.taskConfig: required',
        'shadow.yaml:2 recreations.env.A: must be a non-empty string, got 1',
        'shadow.yaml:3 recreations.hyperfleetApi.url: required',
        'shadow.yaml:3 recreations.hyperfleetApi.intervalSeconds: must be at least 1, got 0',
        'shadow.yaml:3 recreations.hyperfleetApi.kinds[0]: must be one of clusters | nodepools, got "machines"',
        'shadow.yaml:4 recreations.stuckThresholds.Job: must be a duration like 10s, 5m or 1h, got "soon"',
        'shadow.yaml:5 recreations.maxStuckSeries: must be at least 0, got -1',
      ],
    );
  });
});
