/**
 * /summary and /partial name objects and the addresses of clients whose input was refused: they are served on
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
console: {enabled: false}
${extra}`;
}

async function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; authenticate: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, body: await res.text(), authenticate: res.headers.get('www-authenticate') };
}

/** A refused OTLP request, so the summary's rejection sample names a client address. */
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

describe('the sidecar: who may read /summary', function () {
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
    const summary = await get(sidecar.metricsAddress.port, '/summary');
    assert.equal(summary.status, 200);
    assert.match(JSON.stringify((JSON.parse(summary.body) as { input: unknown }).input), /POST \/v1\/traces #1 from 127\.0\.0\.1:\d+/);
    assert.deepEqual(sidecar.guardedAddress, sidecar.metricsAddress);
  });

  it('refuses it on a metrics listener beyond loopback without a token, and keeps /metrics, /healthz, /readyz open', async () => {
    sidecar = await startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}'), 'shadow.yaml'), { env: {} });
    const port = sidecar.metricsAddress.port;
    assert.deepEqual(await get(port, '/summary'), {
      status: 403,
      body: 'forbidden: /summary and /partial name objects and client addresses: served on a loopback address only, or with summary.bearerTokenFile\n',
      authenticate: null,
    });
    assert.equal((await get(port, '/partial')).status, 403);
    assert.deepEqual([(await get(port, '/metrics')).status, (await get(port, '/healthz')).status, (await get(port, '/readyz')).status], [200, 200, 200]);
    assert.equal(sidecar.guardedAddress, undefined);
  });

  it('with summary.bearerTokenFile serves it beyond loopback only to requests that carry the token', async () => {
    sidecar = await startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}', `summary: {bearerTokenFile: ${tokenFile('s3cret\n')}}`), 'shadow.yaml'), {
      env: {},
    });
    const port = sidecar.metricsAddress.port;
    const unauthorized = { status: 401, body: 'unauthorized: /summary needs Authorization: Bearer <token>\n', authenticate: 'Bearer' };
    assert.deepEqual(await get(port, '/summary'), unauthorized);
    assert.deepEqual(await get(port, '/summary', { authorization: 'Bearer s3cre' }), unauthorized);
    const summary = await get(port, '/summary', { authorization: 'Bearer s3cret' });
    assert.equal(summary.status, 200);
    assert.equal(typeof (JSON.parse(summary.body) as { input: unknown }).input, 'object');
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
    sidecar = await startSidecar(parseConfig(config('{metrics: 0.0.0.0:0, summary: 127.0.0.1:0}'), 'shadow.yaml'), { env: {} });
    const summaryPort = sidecar.guardedAddress!.port;
    assert.notEqual(summaryPort, sidecar.metricsAddress.port);
    assert.equal((await get(summaryPort, '/summary')).status, 200);
    assert.deepEqual(await get(summaryPort, '/metrics'), {
      status: 404,
      body: 'not found: this listener serves /summary, /partial only\n',
      authenticate: null,
    });
    assert.equal(
      (await get(sidecar.metricsAddress.port, '/summary')).body,
      `forbidden: /summary and /partial are served on http://127.0.0.1:${summaryPort} (listen.summary)\n`,
    );
  });

  it('refuses at start a summary listener beyond loopback without a token, and a token file it cannot read', async () => {
    assert.throws(
      () => parseConfig(config('{metrics: 127.0.0.1:9464,\n  summary: 0.0.0.0:9465}'), 'shadow.yaml'),
      (e: unknown) =>
        e instanceof ValidationError &&
        e.message ===
          'shadow.yaml:5 listen.summary: 0.0.0.0:9465 is not a loopback address, and /summary names objects and client addresses: set summary.bearerTokenFile, or bind 127.0.0.1 and read it through kubectl port-forward',
    );
    assert.throws(() => parseConfig(config('{metrics: 127.0.0.1:9464, summary: 127.0.0.1:9464}'), 'shadow.yaml'), /listen\.summary: is the metrics listener/);
    parseConfig(config('{metrics: 127.0.0.1:9464, summary: 0.0.0.0:9465}', 'summary: {bearerTokenFile: /run/secrets/summary-token}'), 'shadow.yaml');
    await assert.rejects(
      startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}', 'summary: {bearerTokenFile: /nonexistent/token}'), 'shadow.yaml'), { env: {} }),
      (e: Error & { code?: string }) =>
        e.code === 'ENOENT' && e.message === "summary.bearerTokenFile: ENOENT: no such file or directory, open '/nonexistent/token'",
    );
    await assert.rejects(
      startSidecar(parseConfig(config('{metrics: 0.0.0.0:0}', `summary: {bearerTokenFile: ${tokenFile('\n')}}`), 'shadow.yaml'), { env: {} }),
      /^Error: summary\.bearerTokenFile: \/.*\/token is empty$/,
    );
  });

  it("answers /report, which serves a fleet's decisions, with a 404 naming /summary when it has no peers", async () => {
    sidecar = await startSidecar(parseConfig(config('{metrics: 0.0.0.0:0, summary: 127.0.0.1:0}'), 'shadow.yaml'), { env: {} });
    const moved = { status: 404, body: "not found: /report serves a fleet's decisions (sources.peers); the summary is on /summary\n", authenticate: null };
    assert.deepEqual(await get(sidecar.guardedAddress!.port, '/report'), moved);
    assert.deepEqual(await get(sidecar.metricsAddress.port, '/report'), moved);
  });

  it('counts as loopback only what the pod alone can reach', () => {
    assert.deepEqual(
      ['127.0.0.1', '127.1.2.3', '::1', 'localhost', '::ffff:127.0.0.1', '0.0.0.0', '::', '10.0.0.7', 'example.com', '127.0.0.1.example.com'].map(isLoopback),
      [true, true, true, true, true, false, false, false, false, false],
    );
  });
});
