import assert from 'node:assert/strict';
import { buildEra, HYPERSHIFT_OPERATOR, imageVersions, loopFromDeployment } from '../../collector/hypershift/operator-loop.js';
import { buildForVersion } from '../../model/builds.js';
import { resolveModel } from '../../sidecar/files.js';

const LEGACY = HYPERSHIFT_OPERATOR.legacyEnv;
const version = (latest: string): string => `openshift/hypershift: 3ee9615567acffaf3e3ee25c2ca2942d650565cf. Latest supported OCP: ${latest}`;

/** A Deployment as `hypershift install` writes it: the version annotation (unless `latest` is undefined) and the containers' env. */
function deployment(latest: string | undefined, ...containers: { name: string; value?: string; valueFrom?: unknown }[][]): Record<string, unknown> {
  return {
    metadata: { namespace: 'hypershift', name: 'operator', ...(latest ? { annotations: { [HYPERSHIFT_OPERATOR.versionAnnotation]: version(latest) } } : {}) },
    spec: { template: { spec: { containers: containers.map((env) => ({ env })) } } },
  };
}

describe('which loop the HyperShift operator runs, from its Deployment', () => {
  it('places a build against the merge by its latest supported OCP version (5.0.0 at the merge, which does not say)', () => {
    assert.deepEqual(
      ['4.23.0', '4.22.5', '5.0.0', '5.0.1', '5.1.0'].map((v) => buildEra(version(v))),
      ['before-merge', 'before-merge', undefined, 'with-merge', 'with-merge'],
    );
    assert.equal(buildEra('v0.1.50'), undefined);
  });

  it('HYPERSHIFT_RECONCILE_LEGACY=1 is the sequential loop, whatever the build', () => {
    assert.deepEqual(loopFromDeployment(deployment(undefined, [{ name: LEGACY, value: '1' }])), {
      loop: 'sequential',
      statement: 'Deployment hypershift/operator: HYPERSHIFT_RECONCILE_LEGACY=1 (the legacy sequential loop)',
    });
    assert.equal(loopFromDeployment(deployment('5.1.0', [], [{ name: LEGACY, value: '1' }])).loop, 'sequential');
  });

  it('without it (or another value: the code compares with "1"), the build decides: before the merge sequential, with it phased', () => {
    assert.deepEqual(loopFromDeployment(deployment('4.23.0', [{ name: 'OTHER', value: '1' }])), {
      loop: 'sequential',
      statement: 'Deployment hypershift/operator: the build predates the merge of PR #7908 and has only the sequential loop',
      version: version('4.23.0'),
    });
    for (const value of ['', '0', 'false', 'true']) assert.equal(loopFromDeployment(deployment('5.1.0', [{ name: LEGACY, value }])).loop, 'phased', value);
  });

  it('says it cannot know: no version, a version at the merge, a value from elsewhere, containers that disagree', () => {
    assert.deepEqual(loopFromDeployment(deployment(undefined, [])), {
      loop: undefined,
      statement:
        "Deployment hypershift/operator: HYPERSHIFT_RECONCILE_LEGACY is not set, and the build's version is not known (a build from before the merge runs the sequential loop without the variable)",
    });
    assert.equal(loopFromDeployment(deployment('5.0.0', [{ name: LEGACY, value: '0' }])).loop, undefined);
    assert.equal(
      loopFromDeployment(deployment('5.1.0', [{ name: LEGACY, valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }])).statement,
      'Deployment hypershift/operator: HYPERSHIFT_RECONCILE_LEGACY is set from a ConfigMap or Secret, which is not read',
    );
    assert.equal(loopFromDeployment(deployment('5.1.0', [{ name: LEGACY, value: '1' }], [{ name: LEGACY, value: '0' }])).loop, undefined);
  });

  it('reads the build version from an image tag that is one, else from the annotation, and picks the model build by it', () => {
    const withImages = (latest: string | undefined, ...images: string[]): Record<string, unknown> => {
      const d = deployment(latest, ...images.map(() => []));
      const spec = d.spec as { template: { spec: { containers: Record<string, unknown>[] } } };
      spec.template.spec.containers.forEach((c, i) => (c.image = images[i]));
      return d;
    };
    assert.deepEqual(
      imageVersions(
        withImages(
          undefined,
          'quay.io/hypershift/hypershift-operator:4.22.3',
          'registry:5000/sidecar:v5.0.1-multi',
          'quay.io/x/y:latest',
          'quay.io/x/y@sha256:0123',
          'y',
        ),
      ),
      ['4.22.3', 'v5.0.1-multi'],
    );
    assert.equal(loopFromDeployment(withImages('5.1.0', 'quay.io/hypershift/hypershift-operator:4.22.3')).version, '4.22.3');
    assert.equal(loopFromDeployment(withImages('5.1.0', 'quay.io/hypershift/hypershift-operator:latest')).version, version('5.1.0'));
    assert.equal(loopFromDeployment(withImages(undefined, 'quay.io/hypershift/hypershift-operator:latest')).version, undefined);
    const model = resolveModel('hypershift-hostedcluster');
    assert.deepEqual(buildForVersion(model, '4.22.3', 'Deployment hypershift/operator image'), {
      build: 'release-4.22',
      statement: 'Deployment hypershift/operator image: version 4.22, build release-4.22 (upstream 2f5225b64a5e)',
    });
    // release-5.0 and HEAD both report 5.1.0: the annotation alone does not say which.
    assert.equal(buildForVersion(model, version('5.1.0'), 'Deployment hypershift/operator').build, undefined);
    assert.equal(buildForVersion(model, version('4.21.0'), 'Deployment hypershift/operator').build, 'release-4.21');
  });
});
