/**
 * Property: no log line, however broken, escapes as an exception from the log pipeline; every line ends as ignored,
 * part of an attempt, or a rejection under a bounded reason (the books balance: received = analyzed + dropped), and
 * every emitted attempt names only model operations.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { LogLineAssembler } from '../../collector/logs/internal/assembler.js';
import { HYPERSHIFT_LOG_PATTERNS } from '../../collector/logs/internal/zap-line.js';
import { REJECT_REASONS, type AttemptRecord, type Rejection } from '../../collector/records.js';
import { resolveModel } from '../../sidecar/files.js';
import { FUZZ_RUNS } from './runs.js';

const model = resolveModel('hypershift-hostedcluster');
const ops = new Set(model.operations.map((o) => o.name));
const SSH = 'failed to get hostedcluster SSHKey secret clusters/alpha-ssh: not found';
const line = (msg: string, extra: Record<string, unknown>): string =>
  JSON.stringify({
    level: 'error',
    ts: '2026-11-29T10:00:05Z',
    msg,
    controller: 'hostedcluster',
    HostedCluster: { name: 'alpha', namespace: 'clusters' },
    namespace: 'clusters',
    name: 'alpha',
    reconcileID: 'r1',
    ...extra,
  });
const VALID = [
  line('Reconciler error', { error: SSH }),
  line('successfully reconciled', {}),
  line('reconciliation completed with errors', { summary: 'critical failures: [PullSecretSync]; blocked operations: [OperatorDeployments]' }),
  line('Reconciler error', { error: `critical error: [${SSH}, failed to get pull secret: x]; blocked operations: [OperatorDeployments]` }),
  line('reconciliation is blocked', { message: 'not supported', error: 'not supported by operator configuration' }),
  line('failed to determine payload arch', { error: 'context deadline exceeded' }),
  JSON.stringify({ level: 'info', ts: '2026-11-29T10:00:06Z', msg: 'Starting Controller', controller: 'hostedcluster' }),
];

/** Log-shaped JSON with every field sometimes wrong. */
const zapish = fc.record(
  {
    level: fc.oneof(fc.constantFrom('info', 'error'), fc.anything()),
    ts: fc.oneof(fc.constant('2026-11-29T10:00:05Z'), fc.double(), fc.string()),
    msg: fc.oneof(
      fc.constantFrom(
        'Reconciler error',
        'successfully reconciled',
        'reconciliation completed with errors',
        'reconciliation is blocked',
        'Starting Controller',
        'Starting hypershift-operator-manager',
      ),
      fc.string(),
    ),
    controller: fc.oneof(fc.constant('hostedcluster'), fc.anything()),
    HostedCluster: fc.oneof(fc.constant({ name: 'alpha', namespace: 'clusters' }), fc.anything()),
    namespace: fc.oneof(fc.constant('clusters'), fc.anything()),
    name: fc.oneof(fc.constant('alpha'), fc.anything()),
    reconcileID: fc.oneof(fc.string(), fc.anything()),
    error: fc.oneof(fc.constant(SSH), fc.string(), fc.anything()),
    summary: fc.oneof(fc.string(), fc.anything()),
    version: fc.oneof(fc.constant('openshift/hypershift: x. Latest supported OCP: 4.23.0'), fc.anything()),
  },
  { requiredKeys: [] },
);

function feed(lines: readonly string[]): void {
  const attempts: AttemptRecord[] = [];
  const rejections: Rejection[] = [];
  const assembler = new LogLineAssembler(
    { model, patterns: HYPERSHIFT_LOG_PATTERNS, loop: 'auto', maxUndecided: 100, samplingThreshold: 100, maxPending: 100, unmappedSampleSize: 5 },
    { attempt: (a) => attempts.push(a), reject: (r) => rejections.push(r) },
  );
  lines.forEach((text, i) => assembler.line(text, `op.log:${i + 1}`));
  assembler.end();
  for (const r of rejections) {
    assert.ok((REJECT_REASONS as readonly string[]).includes(r.reason), r.reason);
    assert.match(r.where, /\S/);
  }
  for (const a of attempts) for (const op of a.operations) assert.ok(ops.has(op.name), op.name);
  assert.ok(attempts.length <= lines.length);
  const s = assembler.stats;
  assert.equal(s.received, s.analyzed + Object.values(s.dropped).reduce((x, y) => x + y, 0));
  assert.equal(s.lines, s.received + Object.values(s.ignored).reduce((x, y) => x + y, 0));
}

describe('fuzz: operator log lines', function () {
  // each property runs FUZZ_RUNS generated cases
  this.timeout(60_000);
  it('arbitrary text and binary', () => fc.assert(fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 8 }), feed), { numRuns: FUZZ_RUNS }));
  it('log-shaped JSON with wrong types', () =>
    fc.assert(
      fc.property(fc.array(zapish, { maxLength: 8 }), (values) => feed(values.map((v) => JSON.stringify(v)))),
      { numRuns: FUZZ_RUNS },
    ));
  it('valid end lines cut short or with a byte replaced, mixed with whole ones', () =>
    fc.assert(
      fc.property(fc.constantFrom(...VALID), fc.nat(400), fc.integer({ min: 0, max: 255 }), (valid, at, byte) => {
        feed([valid.slice(0, at), valid, valid.slice(0, at) + String.fromCharCode(byte) + valid.slice(at + 1)]);
      }),
      { numRuns: FUZZ_RUNS },
    ));
  it('a 1 MiB line and deep nesting', () => {
    feed([line('Reconciler error', { error: 'x'.repeat(1 << 20) }), '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), '['.repeat(100_000)]);
  });
});
