import { strict as assert } from 'node:assert';
import { trackerOptions, trackerOptionsOf } from '../../../analyzer/recreations/config.js';
import { validate as validateSection } from '../../../lib/schema.js';
import { YamlSource } from '../../../lib/yaml-source.js';
import { CONFIG_SCHEMA } from '../../../sidecar/config.js';

/** The section as the sidecar's config validates it: the shadow's settings and its inputs' sections. */
const SECTION = CONFIG_SCHEMA.fields.recreations;

function validate(yaml: string): {
  value?: NonNullable<ReturnType<typeof validateSection<typeof SECTION>>>;
  problems: readonly string[];
} {
  const src = new YamlSource(yaml, 'shadow.yaml');
  const value = validateSection(src, SECTION, (src.value as { recreations?: unknown }).recreations, ['recreations']);
  return { ...(value ? { value } : {}), problems: src.problems };
}

describe('the recreations config section', () => {
  it('validates with the sidecar schema, applies defaults and yields tracker options', () => {
    const { value, problems } = validate(`recreations:
  taskConfig: adapter-task-config.yaml
  env: {NAMESPACE: hf}
  hyperfleet: {url: "http://api:8000"}
  stuckThresholds: {default: 15m, Job: 30m}
  readiness: {Job: Complete, Namespace: exists, ConfigMap: api}
`);
    assert.deepEqual(problems, []);
    assert.deepEqual(value, {
      taskConfig: 'adapter-task-config.yaml',
      env: { NAMESPACE: 'hf' },
      hyperfleet: { url: 'http://api:8000', interval: 15_000, timeout: 5_000, kinds: ['clusters'], pageSize: 100, maxPagesPerPoll: 10 },
      sentinelInterval: 10_000,
      stuckThresholds: { default: 900_000, Job: 1_800_000 },
      readiness: { Job: 'Complete', Namespace: 'exists', ConfigMap: 'api' },
      maxInFlight: 10_000,
      maxStuckSeries: 50,
    });
    const t = trackerOptionsOf(value);
    assert.deepEqual([t.stuckThresholdMs('Job'), t.stuckThresholdMs('Namespace'), t.sentinelIntervalSeconds, t.maxInFlight], [1_800_000, 900_000, 10, 10_000]);
    assert.deepEqual(
      ['Job', 'Namespace', 'ConfigMap', 'Secret'].map((k) => t.readiness(k)),
      [{ kind: 'condition', type: 'Complete' }, { kind: 'exists' }, { kind: 'api' }, { kind: 'exists' }],
    );
    const defaults = trackerOptions();
    assert.deepEqual(
      [defaults.stuckThresholdMs('Job'), defaults.readiness('Deployment'), defaults.readiness('Job')],
      [600_000, { kind: 'condition', type: 'Available' }, { kind: 'condition', type: 'Complete' }],
    );
  });

  it('reports every problem with file:line and field', () => {
    assert.deepEqual(
      validate(`recreations:
  env: {A: 1}
  hyperfleet: {interval: 0s, pageSize: 101}
  stuckThresholds: {Job: soon}
  maxStuckSeries: -1
  extra: true
`).problems,
      [
        'shadow.yaml:6 recreations.extra: unknown field (allowed: taskConfig, adapterConfig, proposals, env, sentinelInterval, stuckThresholds, readiness, maxInFlight, maxStuckSeries, hyperfleet, maestro, objects)',
        'shadow.yaml:2 recreations.taskConfig: required',
        'shadow.yaml:2 recreations.env.A: must be a non-empty string, got 1',
        'shadow.yaml:4 recreations.stuckThresholds.Job: must be a duration with its unit, like 500ms, 10s, 5m or 1h, got "soon"',
        'shadow.yaml:5 recreations.maxStuckSeries: must be at least 0, got -1',
        'shadow.yaml:3 recreations.hyperfleet.url: required',
        'shadow.yaml:3 recreations.hyperfleet.interval: must be at least 1s, got "0s"',
        'shadow.yaml:3 recreations.hyperfleet.pageSize: must be at most 100, got 101',
      ],
    );
  });
});
