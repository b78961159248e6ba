/**
 * /report and /partial name objects and the addresses of clients whose input was refused: they are served on
 * loopback by default, on a non-loopback listener only with a bearer token, and refused elsewhere; /metrics, /healthz
 * and /readyz stay open.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '../../lib/validation-error.js';
import { parseConfig } from '../../sidecar/config.js';
import { isLoopback } from '../../sidecar/server.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import type { OtlpReceiver } from '../../collector/otlp/internal/receiver.js';

function config(listen: string, extra = ''): string {
  return `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: ${listen}
sources:
  otlp: {listen: 127.0.0.1:0}
summary: {enabled: false}
${extra}`;
}

async function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; authenticate: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, body: await res.text(), authenticate: res.headers.get('www-authenticate') };
}

/** A refused OTLP request, so the report's rejection sample names a client address. */
async function refusedRequest(sidecar: Sidecar): Promise<void> {
  const receiver = sidecar.sources.find((s) => s.kind === 'otlp') as OtlpReceiver;
  const res = await fetch(`http://127.0.0.1:${receiver.address().port}/v1/traces`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
  assert.equal(res.status, 415);
}

function tokenFile(token: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'shadow-token-')), 'token');
  writeFileSync(file, token);
  return file;
}

describe('the sidecar: who may read /report', function () {
  // sidecars with real listeners
  this.timeout(30_000);
  let sidecar: Sidecar | undefined;
  afterEach(async () => {
    await sidecar?.stop();
    sidecar = undefined;
  });

  it('serves it on a loopback metrics listener, as by default, naming refused clients', async () => {
    sidecar = await startSidecar(parseConfig(config('{metrics: 127.0.0.1:0}'), 'shadow.yaml'), { env: {} });
    await refusedRequest(sidecar);
    const report = await get(sidecar.metricsAddress.port, '/report');
    assert.equal(report.status, 200);
    assert.match(JSON.stringify((JSON.parse(report.body) as { input: unknown }).input), /POST \/v1\/traces #1 from 127\.0\.0\.1:\d+/);
    assert.deepEqual(sidecar.reportAddress, sidecar.metricsAddress);
  });

  it('refuses it on a metrics listener beyond loopback without a token, and keeps /metrics, /healthz, /readyz open', async () => {
    sidecar = await startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}'), 'shadow.yaml'), { env: {} });
    const port = sidecar.metricsAddress.port;
    assert.deepEqual(await get(port, '/report'), {
      status: 403,
      body: 'forbidden: /report and /partial name objects and client addresses: served on a loopback address only, or with report.bearerTokenFile\n',
      authenticate: null,
    });
    assert.equal((await get(port, '/partial')).status, 403);
    assert.deepEqual([(await get(port, '/metrics')).status, (await get(port, '/healthz')).status, (await get(port, '/readyz')).status], [200, 200, 200]);
    assert.equal(sidecar.reportAddress, undefined);
  });

  it('with report.bearerTokenFile serves it beyond loopback only to requests that carry the token', async () => {
    sidecar = await startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}', `report: {bearerTokenFile: ${tokenFile('s3cret\n')}}`), 'shadow.yaml'), {
      env: {},
    });
    const port = sidecar.metricsAddress.port;
    const unauthorized = { status: 401, body: 'unauthorized: /report needs Authorization: Bearer <token>\n', authenticate: 'Bearer' };
    assert.deepEqual(await get(port, '/report'), unauthorized);
    assert.deepEqual(await get(port, '/report', { authorization: 'Bearer s3cre' }), unauthorized);
    const report = await get(port, '/report', { authorization: 'Bearer s3cret' });
    assert.equal(report.status, 200);
    assert.equal(typeof (JSON.parse(report.body) as { input: unknown }).input, 'object');
    assert.deepEqual(await get(port, '/partial'), {
      status: 401,
      body: 'unauthorized: /partial needs Authorization: Bearer <token>\n',
      authenticate: 'Bearer',
    });
    const partial = await get(port, '/partial', { authorization: 'Bearer s3cret' });
    assert.equal((JSON.parse(partial.body) as { schema: string }).schema, 'reconcile-shadow/partial/v1');
    assert.equal((await get(port, '/metrics')).status, 200);
  });

  it('serves it on a loopback listener of its own while metrics are exposed, and points there from the metrics listener', async () => {
    sidecar = await startSidecar(parseConfig(config('{metrics: 0.0.0.0:0, report: 127.0.0.1:0}'), 'shadow.yaml'), { env: {} });
    const reportPort = sidecar.reportAddress!.port;
    assert.notEqual(reportPort, sidecar.metricsAddress.port);
    assert.equal((await get(reportPort, '/report')).status, 200);
    assert.deepEqual(await get(reportPort, '/metrics'), { status: 404, body: 'not found: this listener serves /report only\n', authenticate: null });
    assert.equal(
      (await get(sidecar.metricsAddress.port, '/report')).body,
      `forbidden: /report and /partial are served on http://127.0.0.1:${reportPort} (listen.report)\n`,
    );
  });

  it('refuses at start a report listener beyond loopback without a token, and a token file it cannot read', async () => {
    assert.throws(
      () => parseConfig(config('{metrics: 127.0.0.1:9464,\n  report: 0.0.0.0:9465}'), 'shadow.yaml'),
      (e: unknown) =>
        e instanceof ValidationError &&
        e.message ===
          'shadow.yaml:5 listen.report: 0.0.0.0:9465 is not a loopback address, and /report names objects and client addresses: set report.bearerTokenFile, or bind 127.0.0.1 and read it through kubectl port-forward',
    );
    assert.throws(() => parseConfig(config('{metrics: 127.0.0.1:9464, report: 127.0.0.1:9464}'), 'shadow.yaml'), /listen\.report: is the metrics listener/);
    parseConfig(config('{metrics: 127.0.0.1:9464, report: 0.0.0.0:9465}', 'report: {bearerTokenFile: /run/secrets/report-token}'), 'shadow.yaml');
    await assert.rejects(
      startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}', 'report: {bearerTokenFile: /nonexistent/token}'), 'shadow.yaml'), { env: {} }),
      (e: Error & { code?: string }) =>
        e.code === 'ENOENT' && e.message === "report.bearerTokenFile: ENOENT: no such file or directory, open '/nonexistent/token'",
    );
    await assert.rejects(
      startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}', `report: {bearerTokenFile: ${tokenFile('\n')}}`), 'shadow.yaml'), { env: {} }),
      /^Error: report\.bearerTokenFile: \/.*\/token is empty$/,
    );
  });

  it('counts as loopback only what the pod alone can reach', () => {
    assert.deepEqual(
      ['127.0.0.1', '127.1.2.3', '::1', 'localhost', '::ffff:127.0.0.1', '0.0.0.0', '::', '10.0.0.7', 'example.com', '127.0.0.1.example.com'].map(isLoopback),
      [true, true, true, true, true, false, false, false, false, false],
    );
  });
});
