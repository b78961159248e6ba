/**
 * The operator pod's log through the Kubernetes log API: the real @kubernetes/client-node Log client against the
 * in-test API server (test/support/fake-kube-apiserver.ts), with dropped streams, 500s and refused connections.
 */
import assert from 'node:assert/strict';
import { OperatorLogSource } from '../../../collector/logs/source.js';
import type { AttemptRecord, Rejection } from '../../../collector/records.js';
import { resolveModel } from '../../../sidecar/files.js';
import { FakeKubeApiServer, kubeConfigFor, RESOURCES, type RecordedRequest } from '../../support/fake-kube-apiserver.js';
import { SSH_KEY_GET_ERROR } from '../../fixtures/logs/generate.js';
import { reconcilerErrorLine, requeueWarningLine, successLine, wrappedError } from '../../fixtures/logs/zap-writer.js';
import { until } from '../../support/until.js';

const model = resolveModel('hypershift-hostedcluster');
const NS = 'hypershift';
const POD = 'operator-7d9f8c6b5-x2x7q';
const LOG_PATH = `/api/v1/namespaces/${NS}/pods/${POD}/log`;
const at = (second: number): string => new Date(Date.UTC(2026, 10, 1, 10, 0, second)).toISOString().replace('.000Z', 'Z');
const ctx = (second: number, name: string, id: string) => ({ ts: at(second), namespace: 'clusters', name, reconcileID: id });

describe('OperatorLogSource: the operator pod log through the Kubernetes log API', () => {
  let server: FakeKubeApiServer;
  let kubeTime: number;
  let source: OperatorLogSource | undefined;
  let attempts: AttemptRecord[];
  let rejections: Rejection[];

  beforeEach(async () => {
    kubeTime = Date.UTC(2026, 10, 1, 10);
    server = new FakeKubeApiServer({ now: () => new Date(kubeTime) });
    await server.start();
    server.create(RESOURCES.pods, { metadata: { name: POD, namespace: NS }, spec: { containers: [{ name: 'operator' }] } });
    attempts = [];
    rejections = [];
  });

  afterEach(async () => {
    await source?.stop();
    source = undefined;
    await server.close();
  });

  async function startSource(): Promise<OperatorLogSource> {
    source = new OperatorLogSource(
      {
        input: { pod: { namespace: NS, name: POD, container: 'operator' } },
        model,
        loop: 'phased',
        pod: { kubeConfig: kubeConfigFor(server), backoffInitialMs: 5, backoffMaxMs: 20 },
        scheduler: () => () => undefined,
      },
      { attempt: (r) => attempts.push(r), reject: (r) => rejections.push(r) },
    );
    await source.start();
    return source;
  }

  const logRequests = (): RecordedRequest[] => server.requests.filter((r) => r.path === LOG_PATH);

  it('follows the log, and after a dropped stream resumes at sinceTime with nothing lost or doubled', async () => {
    server.appendPodLog(NS, POD, successLine(ctx(0, 'alpha', 'a')));
    server.appendPodLog(NS, POD, reconcilerErrorLine(ctx(1, 'beta', 'b'), wrappedError(SSH_KEY_GET_ERROR)));
    server.appendPodLog(NS, POD, requeueWarningLine(ctx(1, 'beta', 'b')));
    const s = await startSource();
    await until('the first three lines', () => s.stats.lines === 3);
    assert.equal(s.up, true);

    kubeTime += 1500;
    server.appendPodLog(NS, POD, successLine(ctx(2, 'gamma', 'c')));
    server.appendPodLog(NS, POD, successLine(ctx(2, 'delta', 'd')));
    await until('the lines written while connected', () => s.stats.lines === 5);

    assert.equal(server.dropStreams(), 1);
    // Same kubelet timestamp as the last two lines handed on: only the count tells it apart on the replay.
    server.appendPodLog(NS, POD, successLine(ctx(2, 'epsilon', 'e')));
    await until('the line written while disconnected', () => s.stats.lines === 6);

    const requests = logRequests();
    assert.equal(requests.length, 2);
    assert.deepEqual(requests[0]!.query, { container: 'operator', follow: 'true', pretty: 'true', previous: 'false', timestamps: 'true' });
    assert.equal(requests[1]!.query.sinceTime, '2026-11-01T10:00:01.500000000Z');
    assert.deepEqual(s.inputStats.pod, { connections: 2, failures: 0, duplicatesSkipped: 2 });

    await s.stop();
    assert.deepEqual(
      attempts.map(
        (r) =>
          `${r.time} ${r.object} ${r.operations
            .filter((o) => o.outcome === 'error')
            .map((o) => o.name)
            .join(',')}`,
      ),
      [`${at(0)} clusters/alpha `, `${at(1)} clusters/beta SSHKeySync`, `${at(2)} clusters/gamma `, `${at(2)} clusters/delta `, `${at(2)} clusters/epsilon `],
    );
    assert.deepEqual(rejections, []);
    assert.equal(s.up, false);
  });

  it('retries with backoff through 500s and refused connections, then reads on', async () => {
    server.failNext(2, 500, (r) => r.path === LOG_PATH);
    server.appendPodLog(NS, POD, successLine(ctx(0, 'alpha', 'a')));
    const s = await startSource();
    await until('the first line after two 500s', () => s.stats.lines === 1);
    assert.equal(s.inputStats.pod!.failures, 2);
    assert.equal(s.inputStats.errors, 2);

    await server.refuseConnections();
    await until('a refused reconnect', () => s.inputStats.pod!.failures > 2);
    assert.equal(s.up, false);
    await server.acceptConnections();
    kubeTime += 1000;
    server.appendPodLog(NS, POD, successLine(ctx(1, 'beta', 'b')));
    await until('the line after the server came back', () => s.stats.lines === 2);
    assert.equal(s.inputStats.pod!.duplicatesSkipped, 1);
    await s.stop();
    assert.deepEqual(
      attempts.map((r) => r.object),
      ['clusters/alpha', 'clusters/beta'],
    );
  });
});
