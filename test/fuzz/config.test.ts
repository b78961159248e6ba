/** Property: no model or sidecar config, however broken, escapes as anything but a ValidationError naming file:line. */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { ValidationError } from '../../lib/validation-error.js';
import { parseModel } from '../../model/load.js';
import { EMBEDDED_DEFAULT, parseConfig } from '../../sidecar/config.js';
import { REPO } from '../support/paths.js';
import { FUZZ_RUNS } from './runs.js';

const exampleModel = readFileSync(join(REPO, 'examples/database-operator/model.yaml'), 'utf8');
const WHERE = /^[^\n]+:\d+ [^\n]+: [^\n]+$/;

function expectModelOutcome(text: string): void {
  try {
    parseModel(text, 'm.yaml');
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    for (const p of e.problems) assert.match(p, WHERE);
  }
}

function expectConfigOutcome(text: string): void {
  try {
    parseConfig(text, 'c.yaml');
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    for (const p of e.problems) assert.match(p, WHERE);
  }
}

/** YAML documents made of arbitrary nested values, sometimes in the model's or config's own shape. */
const yamlValue = fc.anything({
  maxDepth: 4,
  withNullPrototype: false,
  withBigInt: false,
  withDate: false,
  withMap: false,
  withSet: false,
  withTypedArray: false,
  withSparseArray: false,
  withBoxedValues: false,
});

describe('fuzz: model and config files', function () {
  // each property runs FUZZ_RUNS generated cases
  this.timeout(60_000);
  it('arbitrary text as a model', () => fc.assert(fc.property(fc.string(), expectModelOutcome), { numRuns: FUZZ_RUNS }));
  it('arbitrary YAML values in a model’s fields', () =>
    fc.assert(
      fc.property(yamlValue, yamlValue, yamlValue, (controller, operations, phased) => {
        expectModelOutcome(
          stringify({ apiVersion: 'reconcile-shadow/v1', kind: 'ReconcileModel', metadata: { name: 'x' }, spec: { controller, operations, phased } }),
        );
      }),
      { numRuns: FUZZ_RUNS },
    ));
  it('the example model with a line removed or a character replaced', () => {
    const lines = exampleModel.split('\n');
    fc.assert(
      fc.property(fc.nat(lines.length - 1), fc.nat(exampleModel.length - 1), fc.string({ minLength: 1, maxLength: 1 }), (drop, at, ch) => {
        expectModelOutcome(lines.filter((_, i) => i !== drop).join('\n'));
        expectModelOutcome(exampleModel.slice(0, at) + ch + exampleModel.slice(at + 1));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
  it('arbitrary values in the sidecar config', () =>
    fc.assert(
      fc.property(yamlValue, yamlValue, (sources, listen) => {
        expectConfigOutcome(stringify({ apiVersion: 'reconcile-shadow/v1', kind: 'ShadowConfig', models: ['hypershift-hostedcluster'], sources, listen }));
      }),
      { numRuns: FUZZ_RUNS },
    ));
  it('the embedded default with a character replaced', () =>
    fc.assert(
      fc.property(fc.nat(EMBEDDED_DEFAULT.length - 1), fc.string({ minLength: 1, maxLength: 1 }), (at, ch) =>
        expectConfigOutcome(EMBEDDED_DEFAULT.slice(0, at) + ch + EMBEDDED_DEFAULT.slice(at + 1)),
      ),
      { numRuns: FUZZ_RUNS },
    ));
});
