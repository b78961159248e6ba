/** model/effects.ts, the one statement of the per-loop rules that the engine and the log source both read. */
import { strict as assert } from 'node:assert';
import { consequencesOf, errorEffect, formatsIn, phasedPlaces, variantOf } from '../../model/effects.js';
import { goFormatPattern } from '../../model/go-format.js';
import { resolveModel } from '../../sidecar/files.js';
import { BUILTIN_MODEL } from '../support/paths.js';

const model = resolveModel(BUILTIN_MODEL);
const op = (name: string) => model.operations.find((o) => o.name === name)!;
const places = phasedPlaces(model);

describe('model/effects.ts on the built-in model', () => {
  it('formatsIn: the formats an error can start with in each loop', () => {
    assert.deepEqual(
      formatsIn(op('CAPIManager'), 'sequential').map((f) => f.format),
      ['failed to reconcile capi manager: %w'],
    );
    assert.deepEqual(
      formatsIn(op('CAPIManager'), 'phased').map((f) => f.format),
      ['failed to reconcile CAPI manager: %w'],
    );
    assert.deepEqual(formatsIn(op('LookupReleaseImage'), 'phased'), [], 'the phased loop writes no error of the lookup');
  });

  it('variantOf: the first variant format the text matches, else none', () => {
    assert.equal(variantOf(op('ValidationGates'), 'pull secret unavailable: secrets "pull-secret" not found')?.format, 'pull secret unavailable: %w');
    assert.equal(
      variantOf(op('ValidationGates'), 'pull secret unavailable: expected .dockerconfigjson key in secret "ps"')?.format,
      'pull secret unavailable: expected %s key in secret %q',
    );
    assert.equal(variantOf(op('ValidationGates'), 'configuration is invalid: bad'), undefined);
    assert.equal(variantOf(op('GetHCP'), 'failed to get hostedcontrolplane: x'), undefined);
  });

  it('errorEffect and consequencesOf with and without the variant', () => {
    const gates = op('ValidationGates');
    const secret = variantOf(gates, 'pull secret unavailable: x');
    assert.deepEqual(
      [errorEffect(gates, 'phased', places.get('ValidationGates')!), errorEffect(gates, 'phased', places.get('ValidationGates')!, secret)],
      ['end', 'continue'],
    );
    const arch = op('PayloadArch');
    assert.deepEqual(consequencesOf(arch), [{ op: 'ValidationGates', outcome: 'stop' }]);
    assert.deepEqual(consequencesOf(arch, variantOf(arch, 'pull secret unavailable: x')), []);
    assert.equal(errorEffect(op('KubeconfigSync'), 'phased', places.get('KubeconfigSync')!), 'continue', 'a collect group’s default');
    assert.equal(errorEffect(op('HostedControlPlane'), 'phased', places.get('HostedControlPlane')!), 'endGroup', 'a chain group’s default');
  });
});

describe('model/go-format.ts', () => {
  it('matches what a format can produce, verbs being any text, %% a percent sign, from the start to the end', () => {
    const p = goFormatPattern('failed to parse %s annotation: %w');
    assert.equal(p.test('failed to parse hypershift.openshift.io/x annotation: time: invalid duration "soon"'), true);
    assert.equal(p.test('wrapped: failed to parse x annotation: y'), false);
    assert.equal(goFormatPattern('100%% of %d').test('100% of 3'), true);
    assert.equal(goFormatPattern('release image is not available').test('release image is not available: x'), false);
  });
});
