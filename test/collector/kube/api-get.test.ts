import assert from 'node:assert/strict';
import { KubeApiError, kubeGetJson } from '../../../collector/kube/api-get.js';
import { FakeKubeApiServer, kubeConfigFor, resourcePath, RESOURCES } from '../../support/fake-kube-apiserver.js';

describe('kubeGetJson', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = new FakeKubeApiServer();
    await server.start();
    server.create(RESOURCES.pods, { metadata: { name: 'p', namespace: 'ns' } });
  });
  afterEach(() => server.close());

  it('returns the raw body: timestamps stay strings, unknown fields stay', async () => {
    server.create(RESOURCES.hostedClusters, { metadata: { name: 'a', namespace: 'ns' }, spec: { custom: { field: 1 } } });
    const list = (await kubeGetJson(kubeConfigFor(server), resourcePath(RESOURCES.hostedClusters, 'ns'))) as {
      items: { metadata: { creationTimestamp: unknown }; spec: unknown }[];
    };
    assert.equal(typeof list.items[0]!.metadata.creationTimestamp, 'string');
    assert.deepEqual(list.items[0]!.spec, { custom: { field: 1 } });
    assert.equal(server.requests[0]!.authorization, 'Bearer fake-token');
  });

  it('fails with the status code and the Status message, on a non-JSON body, and over the size limit', async () => {
    const kc = kubeConfigFor(server);
    await assert.rejects(
      kubeGetJson(kc, '/api/v1/namespaces/ns/pods/nope'),
      (e: unknown) => e instanceof KubeApiError && e.statusCode === 404 && e.message === 'GET /api/v1/namespaces/ns/pods/nope: HTTP 404: pods "nope" not found',
    );
    server.appendPodLog('ns', 'p', 'plain text');
    await assert.rejects(kubeGetJson(kc, '/api/v1/namespaces/ns/pods/p/log'), /GET \/api\/v1\/namespaces\/ns\/pods\/p\/log: body is not JSON/);
    await assert.rejects(kubeGetJson(kc, '/api/v1/namespaces/ns/pods', 10), /response body exceeds 10 bytes/);
  });
});
