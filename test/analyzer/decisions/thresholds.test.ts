/** The thresholds section validates like every config section and its defaults are the documented ones. */
import { strict as assert } from 'node:assert';
import { DECISIONS_SECTION, DEFAULT_THRESHOLDS, thresholdsFrom } from '../../../analyzer/decisions/thresholds.js';
import { YamlSource } from '../../../model/yaml-source.js';
import { check } from '../../../sidecar/config-schema.js';

function validate(text: string): { value: unknown; problems: string[] } {
  const src = new YamlSource(text, 'thresholds.yaml');
  const value = check(src, [], src.value ?? {}, DECISIONS_SECTION);
  return { value, problems: src.problems };
}

describe('decision thresholds', () => {
  it('an empty section gives exactly the defaults', () => {
    const { value, problems } = validate('');
    assert.deepEqual(problems, []);
    assert.deepEqual(value, DEFAULT_THRESHOLDS);
    assert.equal(DEFAULT_THRESHOLDS.minWindowMs, 72 * 3_600_000);
  });

  it('takes durations and numbers, and names file, line and field of every problem', () => {
    assert.deepEqual(validate('minWindowMs: 7d\nfalseDiscoveryRate: 0.1\n').value, { ...DEFAULT_THRESHOLDS, minWindowMs: 7 * 86_400_000, falseDiscoveryRate: 0.1 });
    assert.deepEqual(validate('minAttempts: 10\nminObjects: -1\nmaxNewlyBlocked: 0\nminWindowMs: soon\n').problems, [
      'thresholds.yaml:3 maxNewlyBlocked: unknown field (allowed: falseDiscoveryRate, minFailedObservations, minBaselineObservations, safeRiskDifference, materialFailures, minAttempts, minObjects, minWindowMs, maxNewlyBlockedRate)',
      'thresholds.yaml:2 minObjects: must be at least 0, got -1',
      'thresholds.yaml:4 minWindowMs: must be a duration like 10s, 5m or 1h, got "soon"',
    ]);
  });

  it('refuses rates outside (0, 1)', () => {
    assert.throws(() => thresholdsFrom({ falseDiscoveryRate: 1 }), /falseDiscoveryRate must be between 0 and 1, got 1/);
    assert.throws(() => thresholdsFrom({ maxNewlyBlockedRate: 2 }), /maxNewlyBlockedRate must be between 0 and 1, got 2/);
    assert.deepEqual(thresholdsFrom({ minAttempts: 5 }), { ...DEFAULT_THRESHOLDS, minAttempts: 5 });
  });
});
