import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { OperatorLogSource, type OperatorLogSourceOptions } from '../../../collector/logs/source.js';
import type { AttemptRecord, Rejection } from '../../../collector/records.js';
import { resolveModel } from '../../../sidecar/files.js';
import { packageRoot } from '../../../lib/package-root.js';
import { FIXTURES, fixtureText, SSH_KEY_ERROR } from '../../fixtures/logs/generate.js';
import { managerLine, reconcilerErrorLine, successLine, wrappedError } from '../../fixtures/logs/zap-writer.js';

const model = resolveModel('hypershift-hostedcluster');
const fixturesDir = join(packageRoot(), 'test', 'fixtures', 'logs');

/** A scheduler that never fires on its own: the test ticks it. */
class ManualScheduler {
  tick: (() => void) | undefined;
  periodMs = 0;
  cancelled = false;
  readonly schedule = (ms: number, tick: () => void): (() => void) => {
    this.periodMs = ms;
    this.tick = tick;
    return () => void (this.cancelled = true);
  };
}

function collect(): { attempts: AttemptRecord[]; rejections: Rejection[]; sink: { attempt(r: AttemptRecord): void; reject(r: Rejection): void } } {
  const attempts: AttemptRecord[] = [];
  const rejections: Rejection[] = [];
  return { attempts, rejections, sink: { attempt: (r) => attempts.push(r), reject: (r) => rejections.push(r) } };
}

describe('OperatorLogSource: file and stdin inputs', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'log-source-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the checked-in fixtures are what test/fixtures/logs/generate.ts writes', () => {
    for (const name of Object.keys(FIXTURES))
      assert.equal(
        readFileSync(join(fixturesDir, `${name}.log`), 'utf8'),
        fixtureText(name),
        `${name}.log is stale: run npx tsx test/fixtures/logs/generate.ts`,
      );
  });

  it('follows a file: hands attempts on as the stream moves, the rest once it is quiet, and stops cleanly', async () => {
    const path = join(dir, 'operator.log');
    copyFileSync(join(fixturesDir, 'legacy.log'), path);
    let now = 0;
    const scheduler = new ManualScheduler();
    const out = collect();
    const source = new OperatorLogSource({ input: { file: path }, model, file: { watch: false }, clock: () => now, scheduler: scheduler.schedule }, out.sink);
    await source.start();
    assert.equal(scheduler.periodMs, 1000);
    assert.deepEqual(
      out.attempts.map((r) => `${r.time} ${r.object} ${r.loop}`),
      ['2026-11-01T10:00:00Z clusters/alpha sequential', '2026-11-01T10:00:01Z clusters/beta sequential', '2026-11-01T10:00:03Z clusters/alpha sequential'],
    );
    now += 2999;
    await source.poll();
    assert.equal(out.attempts.length, 3);
    appendFileSync(path, managerLine('2026-11-01T10:00:06Z', 'still here') + '\n');
    now += 1;
    scheduler.tick!();
    await source.poll();
    assert.equal(out.attempts.length, 3, 'a new line keeps the input from being quiet');
    now += 3000;
    await source.poll();
    assert.equal(out.attempts.length, 4);
    assert.equal(source.position()?.offset, readFileSync(path).length);
    assert.equal(source.up, true);
    await source.stop();
    assert.equal(scheduler.cancelled, true);
    assert.equal(source.up, false);
    assert.deepEqual(out.rejections, []);
  });

  it('reads stdin to its end and resolves `ended` with every attempt handed on', async () => {
    const out = collect();
    const source = new OperatorLogSource(
      { input: { stdin: true }, stdin: Readable.from([fixtureText('phased')]), model, scheduler: new ManualScheduler().schedule },
      out.sink,
    );
    await source.start();
    await source.ended;
    assert.equal(out.attempts.length, 9);
    assert.deepEqual([source.stats.received, source.stats.analyzed, source.stats.observedLoop], [14, 14, 'phased']);
    assert.deepEqual(out.attempts[3]!.origin, { source: 'logs', reconcileID: 'p0000004', where: '-:5' });
  });

  it('reads a gzipped capture piped to stdin, known by its bytes, as the plain one', async () => {
    const plain = collect();
    const zipped = collect();
    for (const [out, bytes] of [
      [plain, Buffer.from(fixtureText('phased'))],
      [zipped, gzipSync(fixtureText('phased'))],
    ] as const) {
      const source = new OperatorLogSource(
        { input: { stdin: true }, stdin: Readable.from([bytes]), model, scheduler: new ManualScheduler().schedule },
        out.sink,
      );
      await source.start();
      await source.ended;
    }
    assert.equal(zipped.attempts.length, 9);
    assert.deepEqual(zipped.attempts, plain.attempts);
  });

  it("unwraps the kubelet's CRI log file framing, joining partial fragments", async () => {
    const ctx = { ts: '2026-11-01T10:00:00Z', namespace: 'clusters', name: 'alpha', reconcileID: 'a' };
    const error = reconcilerErrorLine({ ...ctx, reconcileID: 'b' }, wrappedError(SSH_KEY_ERROR));
    const text = [
      `2026-11-01T10:00:00.123456789Z stdout F ${successLine(ctx)}`,
      `2026-11-01T10:00:00.200000000Z stderr F I1101 10:00:00.2 klog line`,
      `2026-11-01T10:00:00.300000000Z stdout P ${error.slice(0, 100)}`,
      `2026-11-01T10:00:00.300000001Z stdout P ${error.slice(100, 700)}`,
      `2026-11-01T10:00:00.300000002Z stdout F ${error.slice(700)}`,
      `2026-11-01T10:00:00.400000000Z stdout P ${'x'.repeat(error.length)}`,
      `2026-11-01T10:00:00.400000001Z stdout F ${'x'.repeat(error.length)}`,
    ].join('\n');
    const out = collect();
    // Each framed line fits the limit; the joined fragments of the last one do not.
    const maxLineBytes = error.length + 100;
    const source = new OperatorLogSource(
      { input: { stdin: true }, stdin: Readable.from([text]), model, loop: 'sequential', maxLineBytes, scheduler: new ManualScheduler().schedule },
      out.sink,
    );
    await source.start();
    await source.ended;
    const sequential = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
    assert.deepEqual(
      out.attempts.map((r) => `${r.object} ${r.operations.length}`),
      [`clusters/alpha ${sequential.length}`, `clusters/alpha ${sequential.indexOf('SSHKeySync') + 1}`],
    );
    assert.deepEqual(source.stats.ignored, { not_json: 1, other_message: 0, other_controller: 0, run: 0 });
    assert.deepEqual(out.rejections, [
      { source: 'logs', reason: 'line_too_long', where: '-:7', message: `line of ${2 * error.length} bytes exceeds the limit of ${maxLineBytes} bytes` },
    ]);
  });

  it('refuses over-long lines as line_too_long and reads on', async () => {
    const out = collect();
    const text = `${'{"msg":"x"}'.padEnd(300, ' ')}\n${fixtureText('unmapped')}`;
    const source = new OperatorLogSource(
      { input: { stdin: true }, stdin: Readable.from([text]), model, loop: 'sequential', maxLineBytes: 256, scheduler: new ManualScheduler().schedule },
      out.sink,
    );
    await source.start();
    await source.ended;
    assert.deepEqual(out.rejections[0], { source: 'logs', reason: 'line_too_long', where: '-:1', message: 'line of 300 bytes exceeds the limit of 256 bytes' });
  });

  it('never lets a credential reach records, rejections or the unmapped sample', async () => {
    const out = collect();
    const options: OperatorLogSourceOptions = {
      input: { stdin: true },
      stdin: Readable.from([fixtureText('redaction')]),
      model,
      loop: 'sequential',
      scheduler: new ManualScheduler().schedule,
    };
    const source = new OperatorLogSource(options, out.sink);
    await source.start();
    await source.ended;
    const everything = JSON.stringify([out.attempts, out.rejections, source.unmappedSample()]);
    for (const secret of ['s3cr3t', 'hunter2', 'eyJraWQiOiJ0ZXN0', 'AbCdEf0123']) assert.ok(!everything.includes(secret), secret);
    const credentials = out.attempts[0]!.operations.at(-1)!;
    assert.deepEqual(credentials, {
      name: 'PlatformCredentials',
      outcome: 'error',
      error:
        'failed to reconcile platform credentials: Get "https://sts.amazonaws.com/?Action=AssumeRoleWithWebIdentity&WebIdentityToken=[REDACTED]&RoleArn=arn:aws:iam::1:role/x": dial tcp: i/o timeout',
    });
    assert.equal(
      source.unmappedSample().distinct[0]!.message,
      'Unauthorized: the server rejected "Authorization: Bearer [REDACTED]" for https://admin:[REDACTED]@api.example.com:6443',
    );
  });
});
