/** The thresholds section validates like every config section and its defaults are the documented ones. */
import { strict as assert } from 'node:assert';
import { DECISIONS_SECTION, DEFAULT_THRESHOLDS, THRESHOLD_DOCS, thresholdsFrom } from '../../../analyzer/decisions/thresholds.js';
import { validate as validateSection } from '../../../lib/schema.js';
import { YamlSource } from '../../../lib/yaml-source.js';

function validate(text: string): { value: unknown; problems: string[] } {
  const src = new YamlSource(text, 'thresholds.yaml');
  const value = validateSection(src, DECISIONS_SECTION, src.value ?? {});
  return { value, problems: src.problems };
}

describe('decision thresholds', () => {
  it('an empty section gives exactly the defaults, and every threshold is documented', () => {
    const { value, problems } = validate('');
    assert.deepEqual(problems, []);
    assert.deepEqual(value, DEFAULT_THRESHOLDS);
    assert.equal(DEFAULT_THRESHOLDS.minWindow, 0);
    assert.equal(DEFAULT_THRESHOLDS.minHoursOfDay, 24);
    assert.equal(DEFAULT_THRESHOLDS.falseDiscoveryRate, 0.001);
    assert.deepEqual(Object.keys(THRESHOLD_DOCS).sort(), Object.keys(DEFAULT_THRESHOLDS).sort());
  });

  it('takes durations and numbers, and names file, line and field of every problem', () => {
    assert.deepEqual(validate('minWindow: 7d\nfalseDiscoveryRate: 0.1\n').value, { ...DEFAULT_THRESHOLDS, minWindow: 7 * 86_400_000, falseDiscoveryRate: 0.1 });
    assert.deepEqual(validate('minAttempts: 10\nminObjects: -1\nmaxNewlyBlockedRate: 0\nminWindow: soon\n').problems, [
      'thresholds.yaml:3 maxNewlyBlockedRate: unknown field (allowed: falseDiscoveryRate, minFailedObservations, minBaselineObservations, relativeMargin, absoluteMargin, materialFailures, minAttempts, minObjects, minHoursOfDay, minWindow, maxStarvationShare)',
      'thresholds.yaml:2 minObjects: must be at least 0, got -1',
      'thresholds.yaml:4 minWindow: must be a duration with its unit, like 500ms, 10s, 5m or 1h, got "soon"',
    ]);
    // A key of an earlier version is an unknown key like any other.
    assert.deepEqual(validate('minWindowMs: 3600000\n').problems, [
      `thresholds.yaml:1 minWindowMs: unknown field (allowed: falseDiscoveryRate, minFailedObservations, minBaselineObservations, relativeMargin, absoluteMargin, materialFailures, minAttempts, minObjects, minHoursOfDay, minWindow, maxStarvationShare)`,
    ]);
  });

  it('refuses rates outside their range', () => {
    assert.throws(() => thresholdsFrom({ falseDiscoveryRate: 1 }), /falseDiscoveryRate must be between 0 and 1, got 1/);
    assert.throws(() => thresholdsFrom({ maxStarvationShare: 2 }), /maxStarvationShare must be between 0 and 1, got 2/);
    assert.throws(() => thresholdsFrom({ absoluteMargin: 1.5 }), /absoluteMargin must be at most 1, got 1.5/);
    assert.deepEqual(thresholdsFrom({ minAttempts: 5 }), { ...DEFAULT_THRESHOLDS, minAttempts: 5 });
  });
});
