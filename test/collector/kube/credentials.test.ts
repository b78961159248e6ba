/**
 * Without any cluster credentials a Kubernetes-backed source says so at start, in words a user can act on, instead of
 * client-node's "HTTP protocol is not allowed when skipTLSVerify is not set or false" from its localhost fallback.
 * The environment is the process's own (that is what client-node reads), set for each test and restored after it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeConfigFromEnvironment, NO_CLUSTER_CREDENTIALS } from '../../../collector/kube/credentials.js';
import { runCli } from '../../support/run-command.js';

const KUBECONFIG_TEXT = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`;

describe('collector/kube/credentials', function () {
  this.timeout(30_000);
  let dir: string;
  const saved = { HOME: process.env.HOME, KUBECONFIG: process.env.KUBECONFIG };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rs-credentials-'));
    process.env.HOME = dir;
    delete process.env.KUBECONFIG;
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a status source with no kubeconfig and no pod: `run` stops at once, naming what to do (exit 1)', async () => {
    assert.equal(existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token'), false, 'this test runs outside a pod (a service account is credentials)');
    const config = join(dir, 'shadow.yaml');
    writeFileSync(
      config,
      'apiVersion: reconcile-shadow/v1\nkind: ShadowConfig\nmodels: [hypershift-hostedcluster]\nlisten: {metrics: 127.0.0.1:0}\nsources:\n  status: {}\n',
    );
    const r = await runCli(['run', '--config', config]);
    assert.deepEqual([r.code, r.stderr], [1, `reconcile-shadow: source status failed to start: ${NO_CLUSTER_CREDENTIALS}\n`]);
  });

  it('the three places, as kubectl looks: KUBECONFIG, else ~/.kube/config', () => {
    assert.throws(() => kubeConfigFromEnvironment(), { message: 'no cluster credentials found: set KUBECONFIG or run in a pod' });
    const file = join(dir, 'elsewhere.yaml');
    writeFileSync(file, KUBECONFIG_TEXT);
    process.env.KUBECONFIG = file;
    assert.equal(kubeConfigFromEnvironment().getCurrentCluster()?.server, 'https://127.0.0.1:6443');
    delete process.env.KUBECONFIG;
    mkdirSync(join(dir, '.kube'));
    writeFileSync(join(dir, '.kube', 'config'), KUBECONFIG_TEXT.replace('6443', '7443'));
    assert.equal(kubeConfigFromEnvironment().getCurrentCluster()?.server, 'https://127.0.0.1:7443');
  });
});
