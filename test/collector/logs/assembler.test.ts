import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorMapper } from '../../../collector/error-mapping.js';
import { AttemptAssembler, type AssemblerOptions } from '../../../collector/logs/assembler.js';
import { HYPERSHIFT_LOG_PATTERNS } from '../../../collector/logs/zap-line.js';
import type { AttemptRecord, Rejection } from '../../../collector/records.js';
import { resolveModel } from '../../../model/load.js';
import { packageRoot } from '../../../model/package-root.js';
import { completedWithErrorsLine, managerLine, reconcilerErrorLine, successLine, wrappedError } from '../../fixtures/logs/zap-writer.js';
import { SSH_KEY_ERROR, UNWRAPPED_ERROR } from '../../fixtures/logs/generate.js';

const model = resolveModel('hypershift-hostedcluster');
/** Operations each loop runs, from the model file. */
const SEQUENTIAL_OPS = model.operations.filter((o) => o.only !== 'phased').length;
const PHASED_OPS = model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : s.ops)).length;
const fixture = (name: string): string[] => readFileSync(join(packageRoot(), 'test', 'fixtures', 'logs', `${name}.log`), 'utf8').trimEnd().split('\n');
const at = (second: number): string => new Date(Date.UTC(2026, 10, 1, 10, 0, second)).toISOString().replace('.000Z', 'Z');

class Collect {
  readonly attempts: AttemptRecord[] = [];
  readonly rejections: Rejection[] = [];
  received = 0;
  readonly sink = {
    attempt: (r: AttemptRecord): void => void this.attempts.push(r),
    reject: (r: Rejection): void => void this.rejections.push(r),
    received: (_source: string, n: number): void => void (this.received += n),
  };
}

function assembler(options: Partial<AssemblerOptions> = {}): { a: AttemptAssembler; out: Collect } {
  const out = new Collect();
  const a = new AttemptAssembler(
    {
      model,
      mapper: new ErrorMapper(model),
      patterns: HYPERSHIFT_LOG_PATTERNS,
      loop: 'auto',
      autoFallback: 'phased',
      maxUndecided: 10_000,
      samplingThreshold: 100,
      maxPending: 10_000,
      unmappedSampleSize: 50,
      ...options,
    },
    out.sink,
  );
  return { a, out };
}

function feed(a: AttemptAssembler, name: string): void {
  fixture(name).forEach((line, i) => a.line(line, `${name}.log:${i + 1}`));
  a.end();
}

/** `time object loop: N ops, errors [..]` for each attempt. */
function brief(records: readonly AttemptRecord[]): string[] {
  return records.map((r) => {
    const errors = r.operations.filter((o) => o.outcome === 'error').map((o) => o.name);
    return `${r.time} ${r.object} ${r.model}${r.origin.sampled ? ' sampled' : ''}: ${r.operations.length} ops, errors [${errors.join(', ')}]`;
  });
}

describe('AttemptAssembler: attempts from the log, in order', () => {
  it('reads a legacy log: one attempt per end line, other lines and controllers ignored', () => {
    const { a, out } = assembler({ loop: 'sequential' });
    feed(a, 'legacy');
    // 42 = the 41 before SSHKeySync and SSHKeySync; 9 = up to KubeconfigStatus.
    assert.deepEqual(brief(out.attempts), [
      `2026-11-01T10:00:00Z clusters/alpha sequential: ${SEQUENTIAL_OPS} ops, errors []`,
      '2026-11-01T10:00:01Z clusters/beta sequential: 42 ops, errors [SSHKeySync]',
      '2026-11-01T10:00:03Z clusters/alpha sequential: 9 ops, errors [KubeconfigStatus]',
      `2026-11-01T10:00:05Z clusters/beta sequential: ${SEQUENTIAL_OPS} ops, errors []`,
    ]);
    assert.deepEqual(out.attempts[0]!.origin, { source: 'logs' });
    assert.deepEqual(out.rejections, []);
    assert.equal(out.received, 4);
    assert.deepEqual(a.stats.ignored, { not_json: 1, other_message: 3, other_controller: 1 });
    assert.deepEqual(a.stats.endLines, { success: 2, completedWithErrors: 0, reconcilerError: 2 });
  });

  it("merges a phased attempt's summary and Reconciler error into one attempt; a summary without its partner still counts", () => {
    const { a, out } = assembler({ loop: 'phased' });
    feed(a, 'phased');
    // 44 = the 32 fail-fast steps and the 12 ops of critical groups (non-critical groups unknown, blocked ones absent);
    // gamma's failed CPOImageAndNamespace chain stops at its first op, so 42.
    assert.deepEqual(brief(out.attempts), [
      `2026-11-01T10:00:00Z clusters/alpha phased: ${PHASED_OPS} ops, errors []`,
      `2026-11-01T10:00:01Z clusters/beta phased: ${PHASED_OPS} ops, errors [SSHKeySync, ControlPlaneOperator]`,
      '2026-11-01T10:00:02Z clusters/gamma phased: 42 ops, errors [GetPullSecretBytes, PullSecretSync]',
      '2026-11-01T10:00:03Z clusters/delta phased: 3 ops, errors [ParseDestroyGracePeriod]',
      '2026-11-01T10:00:04Z clusters/epsilon phased: 44 ops, errors [ReleaseImageVersion]',
      '2026-11-01T10:00:06Z clusters/zeta phased: 44 ops, errors [ReleaseImageVersion]',
    ]);
    assert.equal(out.attempts[4]!.operations.find((o) => o.name === 'ReleaseImageVersion')!.error, undefined);
    assert.equal(out.attempts[5]!.operations.find((o) => o.name === 'ReleaseImageVersion')!.error, 'failed to parse release image version: Invalid character(s) found in major number "4x"');
    assert.deepEqual(out.rejections, []);
    assert.equal(a.stats.attempts, 6);
  });

  it('hands an attempt on once the stream is two seconds past it, or went quiet', () => {
    const { a, out } = assembler({ loop: 'phased' });
    const ctx = (s: number, id: string) => ({ ts: at(s), namespace: 'clusters', name: 'alpha', reconcileID: id });
    a.line(successLine(ctx(0, 'a')), 'x:1');
    a.line(managerLine(at(1), 'tick'), 'x:2');
    assert.equal(out.attempts.length, 0);
    a.line(managerLine(at(2), 'tick'), 'x:3');
    assert.equal(out.attempts.length, 1);
    a.line(completedWithErrorsLine(ctx(3, 'b'), ''), 'x:4');
    a.flushQuiet();
    assert.deepEqual(brief(out.attempts).slice(1), ['2026-11-01T10:00:03Z clusters/alpha phased: 44 ops, errors []']);
    assert.equal(a.pendingAttempts, 0);
  });

  it('correlates the two lines by object when the log has no reconcileID', () => {
    const { a, out } = assembler({ loop: 'phased' });
    const strip = (line: string): string => JSON.stringify({ ...(JSON.parse(line) as object), reconcileID: undefined });
    const ctx = { ts: at(0), namespace: 'clusters', name: 'beta', reconcileID: 'unused' };
    a.line(strip(completedWithErrorsLine(ctx, '')), 'x:1');
    a.line(strip(reconcilerErrorLine(ctx, wrappedError(SSH_KEY_ERROR, [SSH_KEY_ERROR]))), 'x:2');
    a.end();
    assert.deepEqual(brief(out.attempts), [`2026-11-01T10:00:00Z clusters/beta phased: ${PHASED_OPS} ops, errors [SSHKeySync]`]);
  });

  describe('auto loop', () => {
    it('holds attempts until a line tells the loop, then reads them all under it', () => {
      const legacy = assembler();
      feed(legacy.a, 'legacy');
      assert.deepEqual(legacy.out.attempts.map((r) => r.model), ['sequential', 'sequential', 'sequential', 'sequential']);
      assert.equal(legacy.a.stats.loopDecidedBy, 'evidence');
      const phased = assembler();
      feed(phased.a, 'phased');
      assert.deepEqual(phased.out.attempts.map((r) => r.model), ['phased', 'phased', 'phased', 'phased', 'phased', 'phased']);
    });

    it('takes the fallback when nothing tells (at the end, or past maxUndecided), and switches on later evidence', () => {
      const quiet = assembler({ autoFallback: 'sequential' });
      quiet.a.line(successLine({ ts: at(0), namespace: 'clusters', name: 'alpha', reconcileID: 'a' }), 'x:1');
      quiet.a.flushQuiet();
      assert.equal(quiet.out.attempts.length, 0);
      quiet.a.end();
      assert.deepEqual([quiet.out.attempts[0]!.model, quiet.a.stats.loopDecidedBy], ['sequential', 'fallback']);

      const { a, out } = assembler({ maxUndecided: 1 });
      const ctx = (s: number, id: string) => ({ ts: at(s), namespace: 'clusters', name: 'alpha', reconcileID: id });
      a.line(successLine(ctx(0, 'a')), 'x:1');
      a.line(successLine(ctx(0, 'b')), 'x:2');
      a.line(reconcilerErrorLine(ctx(0, 'c'), wrappedError(SSH_KEY_ERROR)), 'x:3');
      a.end();
      assert.deepEqual(out.attempts.map((r) => r.model), ['phased', 'phased', 'sequential']);
      assert.deepEqual([a.stats.loopDecidedBy, a.stats.loopSwitches], ['evidence', 1]);
    });

    it('with a configured loop, counts attempts whose lines say the other loop wrote them', () => {
      const { a } = assembler({ loop: 'sequential' });
      feed(a, 'phased');
      assert.equal(a.stats.contradictingEvidence, 4);
    });
  });

  it('emits an attempt whose error maps to nothing without operations, refuses the message, and keeps a bounded sample', () => {
    const { a, out } = assembler({ loop: 'sequential', unmappedSampleSize: 1 });
    feed(a, 'unmapped');
    assert.deepEqual(brief(out.attempts), [
      '2026-11-01T10:00:00Z clusters/alpha sequential: 0 ops, errors []',
      '2026-11-01T10:00:01Z clusters/beta sequential: 0 ops, errors []',
      '2026-11-01T10:00:02Z clusters/alpha sequential: 0 ops, errors []',
      `2026-11-01T10:00:03Z clusters/gamma sequential: ${SEQUENTIAL_OPS} ops, errors []`,
    ]);
    assert.deepEqual(
      out.rejections.map((r) => `${r.reason} ${r.where}`),
      ['unmapped_error unmapped.log:1', 'unmapped_error unmapped.log:2', 'unmapped_error unmapped.log:3'],
    );
    assert.equal(out.rejections[0]!.message, `no error format of model hypershift-hostedcluster matches: ${JSON.stringify(UNWRAPPED_ERROR)}`);
    assert.deepEqual(a.unmappedSample(), {
      total: 3,
      distinct: [{ message: UNWRAPPED_ERROR, why: 'no_format', detail: 'no error format of model hypershift-hostedcluster matches', where: 'unmapped.log:1', time: at(0), object: 'clusters/alpha', count: 2 }],
      truncated: true,
    });
  });

  it('marks the attempts of possibly sampled seconds and exposes the periods', () => {
    const { a, out } = assembler({ loop: 'sequential' });
    feed(a, 'sampled');
    assert.equal(out.attempts.length, 202);
    assert.equal(out.attempts.filter((r) => r.origin.sampled).length, 101);
    assert.deepEqual(out.attempts.slice(100, 102).map((r) => [r.time, r.origin.sampled]), [
      [at(1), true],
      [at(5), undefined],
    ]);
    assert.equal(a.stats.sampledAttempts, 101);
    assert.deepEqual(a.sampledPeriods(), [{ from: at(0), until: at(2), messages: ['Reconciler error'], peakLines: 101 }]);
  });

  it('refuses malformed recognised lines and still reads the good one after them', () => {
    const { a, out } = assembler({ loop: 'phased' });
    feed(a, 'malformed');
    assert.deepEqual(
      out.rejections.map((r) => `${r.where} ${r.reason}`),
      ['malformed.log:1 invalid_record', 'malformed.log:2 invalid_record', 'malformed.log:3 invalid_record', 'malformed.log:4 invalid_record', 'malformed.log:5 invalid_json', 'malformed.log:6 invalid_record', 'malformed.log:7 invalid_record', 'malformed.log:8 invalid_record'],
    );
    assert.deepEqual(brief(out.attempts), [`2026-11-01T10:00:01Z clusters/alpha phased: ${PHASED_OPS} ops, errors []`]);
    assert.equal(out.received, 9);
  });

  it('refuses unknown names in a summary, and hands the oldest attempt on early past maxPending', () => {
    const { a, out } = assembler({ loop: 'phased', maxPending: 1 });
    const ctx = (id: string) => ({ ts: at(0), namespace: 'clusters', name: 'alpha', reconcileID: id });
    a.line(completedWithErrorsLine(ctx('a'), 'critical failures: [Nope]'), 'x:1');
    assert.equal(out.attempts.length, 0);
    a.line(successLine(ctx('b')), 'x:2');
    assert.equal(out.attempts.length, 1);
    assert.deepEqual(out.rejections, [{ source: 'logs', reason: 'unknown_operation', where: 'x:1', message: 'critical failures: "Nope" is neither a group nor an operation of model hypershift-hostedcluster' }]);
  });

  it('refuses an over-long line, naming where', () => {
    const { a, out } = assembler();
    a.tooLong('big.log:7', 2_000_000, 1_048_576);
    assert.deepEqual(out.rejections, [{ source: 'logs', reason: 'line_too_long', where: 'big.log:7', message: 'line of 2000000 bytes exceeds the limit of 1048576 bytes' }]);
  });
});
