/** The thresholds section validates like every config section and its defaults are the documented ones. */
import { strict as assert } from 'node:assert';
import { DECISIONS_SECTION, DEFAULT_THRESHOLDS, THRESHOLD_DOCS, thresholdsFrom } from '../../../analyzer/decisions/thresholds.js';
import { YamlSource } from '../../../model/yaml-source.js';
import { check } from '../../../sidecar/config-schema.js';

function validate(text: string): { value: unknown; problems: string[] } {
  const src = new YamlSource(text, 'thresholds.yaml');
  const value = check(src, [], src.value ?? {}, DECISIONS_SECTION);
  return { value, problems: src.problems };
}

describe('decision thresholds', () => {
  it('an empty section gives exactly the defaults, and every threshold is documented', () => {
    const { value, problems } = validate('');
    assert.deepEqual(problems, []);
    assert.deepEqual(value, DEFAULT_THRESHOLDS);
    assert.equal(DEFAULT_THRESHOLDS.minWindowMs, 24 * 3_600_000);
    assert.equal(DEFAULT_THRESHOLDS.falseDiscoveryRate, 0.001);
    assert.deepEqual(Object.keys(THRESHOLD_DOCS).sort(), Object.keys(DEFAULT_THRESHOLDS).sort());
  });

  it('takes durations and numbers, and names file, line and field of every problem', () => {
    assert.deepEqual(validate('minWindowMs: 7d\nfalseDiscoveryRate: 0.1\n').value, { ...DEFAULT_THRESHOLDS, minWindowMs: 7 * 86_400_000, falseDiscoveryRate: 0.1 });
    assert.deepEqual(validate('minAttempts: 10\nminObjects: -1\nmaxNewlyBlockedRate: 0\nminWindowMs: soon\n').problems, [
      'thresholds.yaml:3 maxNewlyBlockedRate: unknown field (allowed: falseDiscoveryRate, minFailedObservations, minBaselineObservations, safeRiskDifference, materialFailures, minAttempts, minObjects, minWindowMs, maxStarvationShare)',
      'thresholds.yaml:2 minObjects: must be at least 0, got -1',
      'thresholds.yaml:4 minWindowMs: must be a duration like 10s, 5m or 1h, got "soon"',
    ]);
  });

  it('refuses rates outside their range', () => {
    assert.throws(() => thresholdsFrom({ falseDiscoveryRate: 1 }), /falseDiscoveryRate must be between 0 and 1, got 1/);
    assert.throws(() => thresholdsFrom({ maxStarvationShare: 2 }), /maxStarvationShare must be between 0 and 1, got 2/);
    assert.throws(() => thresholdsFrom({ safeRiskDifference: 1.5 }), /safeRiskDifference must be at most 1, got 1.5/);
    assert.deepEqual(thresholdsFrom({ minAttempts: 5 }), { ...DEFAULT_THRESHOLDS, minAttempts: 5 });
  });
});
