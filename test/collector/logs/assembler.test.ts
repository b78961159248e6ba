import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogLineAssembler, type LogLineAssemblerOptions } from '../../../collector/logs/internal/assembler.js';
import { HYPERSHIFT_LOG_PATTERNS } from '../../../collector/logs/internal/zap-line.js';
import type { AttemptRecord, Rejection, SourceInputSummary } from '../../../collector/records.js';
import { resolveModel } from '../../../sidecar/files.js';
import { packageRoot } from '../../../lib/package-root.js';
import { CPO_ERROR, PRE_MERGE_VERSION, PULL_SECRET_BYTES_ERROR, SSH_KEY_ERROR, SSH_KEY_GET_ERROR, UNWRAPPED_ERROR } from '../../fixtures/logs/generate.js';
import {
  completedWithErrorsLine,
  continuedErrorLine,
  controllerStartLine,
  managerLine,
  reconcilerErrorLine,
  successLine,
  wrappedError,
  type ReconcileContext,
} from '../../fixtures/logs/zap-writer.js';

const model = resolveModel('hypershift-hostedcluster');
const fixture = (name: string): string[] =>
  readFileSync(join(packageRoot(), 'test', 'fixtures', 'logs', `${name}.log`), 'utf8')
    .trimEnd()
    .split('\n');
const at = (second: number): string => new Date(Date.UTC(2026, 10, 1, 10, 0, second)).toISOString().replace('.000Z', 'Z');
const ctx = (second: number, name: string, id?: string): ReconcileContext => ({ ts: at(second), namespace: 'clusters', name, reconcileID: id ?? '' });
/** A line without reconcileID (another operator's logger, or one that does not set it). */
const noId = (line: string): string => JSON.stringify({ ...(JSON.parse(line) as Record<string, unknown>), reconcileID: undefined });
const POST_MERGE_VERSION = 'openshift/hypershift: 3ee9615567acffaf3e3ee25c2ca2942d650565cf. Latest supported OCP: 5.1.0';

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

function assembler(options: Partial<LogLineAssemblerOptions> = {}): { a: LogLineAssembler; out: Collect } {
  const out = new Collect();
  const a = new LogLineAssembler(
    {
      model,
      patterns: HYPERSHIFT_LOG_PATTERNS,
      loop: 'auto',
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

function feed(a: LogLineAssembler, lines: readonly string[], file = 'x.log'): void {
  lines.forEach((line, i) => a.line(line, `${file}:${i + 1}`));
  a.end();
}

/**
 * `time object loop: [what did not succeed]` for each attempt, `(nothing stated)` for an empty record. Which operations
 * an attempt states, and how many, is the attempt builder's (its own tests); this is about assembling attempts.
 */
function brief(records: readonly AttemptRecord[]): string[] {
  return records.map((r) => {
    const others = r.operations.filter((o) => o.outcome !== 'ok').map((o) => `${o.name}${o.outcome === 'error' ? '' : `:${o.outcome}`}`);
    return `${r.time} ${r.object} ${r.loop}${r.origin.sampled ? ' sampled' : ''}: ${r.operations.length === 0 ? '(nothing stated)' : `[${others.join(', ')}]`}`;
  });
}

const nonZero = (counts: Readonly<Record<string, number>>): Record<string, number> => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

/** The books balance: every accepted line was analyzed or dropped. */
function assertBooks(summary: SourceInputSummary, out: Collect): void {
  const dropped = Object.values(summary.dropped).reduce((x, y) => x + y, 0);
  assert.equal(summary.received, summary.analyzed + dropped, 'received = analyzed + dropped');
  assert.equal(out.received, summary.received, 'the sink was told every accepted line');
  assert.equal(out.rejections.length, dropped, 'every dropped line was refused, naming where');
  assert.equal(out.attempts.length, summary.attempts);
}

const sequentialBefore = (op: string): number => model.operations.filter((o) => o.only !== 'phased').findIndex((o) => o.name === op);

describe('LogLineAssembler: attempts from the log, in order', () => {
  it("reads a legacy log: one attempt per reconcileID, the requeue warning in its attempt, the build's version proves the loop", () => {
    const { a, out } = assembler();
    feed(a, fixture('legacy'), 'legacy.log');
    assert.deepEqual(brief(out.attempts), [
      `${at(0)} clusters/alpha sequential: []`,
      `${at(1)} clusters/beta sequential: [SSHKeySync]`,
      `${at(3)} clusters/alpha sequential: [KubeconfigStatus]`,
      `${at(5)} clusters/beta sequential: []`,
    ]);
    assert.deepEqual(out.attempts[1]!.origin, { source: 'logs', reconcileID: 'b0000001', where: 'legacy.log:5' });
    const summary = a.inputSummary();
    assert.deepEqual([summary.received, summary.analyzed, nonZero(summary.ignored)], [5, 5, { not_json: 1, other_controller: 1, other_message: 1, run: 2 }]);
    assert.deepEqual(summary.loop, {
      configured: 'auto',
      current: 'sequential',
      decidedBy: 'input',
      statement: 'the operator Deployment is not read; the lines last proved the sequential loop',
    });
    assertBooks(summary, out);
  });

  it('reads a phased log: critical and non-critical errors, a conflict after a clean run (one attempt), a silent stop', () => {
    const { a, out } = assembler();
    feed(a, fixture('phased'), 'phased.log');
    assert.deepEqual(brief(out.attempts), [
      `${at(0)} clusters/alpha phased: []`,
      `${at(1)} clusters/beta phased: [SSHKeySync, ControlPlaneOperator]`,
      `${at(2)} clusters/gamma phased: [GetPullSecretBytes, PullSecretSync, ManagedHSMVersionCheck:skip]`,
      `${at(3)} clusters/delta phased: [ParseDestroyGracePeriod]`,
      `${at(4)} clusters/epsilon phased: [ReleaseImageVersion, ManagedHSMVersionCheck:skip]`,
      `${at(6)} clusters/zeta phased: [ReleaseImageVersion, ManagedHSMVersionCheck:skip]`,
      `${at(7)} clusters/eta phased: []`,
      `${at(8)} clusters/theta phased: [ValidationGates:stop]`,
      // PayloadArch failed and the phased loop went on (its effect there: continue), as the line says
      `${at(9)} clusters/iota phased: [PayloadArch]`,
    ]);
    const summary = a.inputSummary();
    // the proofs: beta (two operations' errors), gamma and zeta (critical texts), epsilon (its summary), iota (PayloadArch went on)
    assert.deepEqual(nonZero(summary.notes), { loop_inherited: 4, status_update_error: 2 });
    assert.deepEqual([summary.received, summary.analyzed], [14, 14]);
    assertBooks(summary, out);
  });

  it('a silent stop logged with an empty message ends its attempt there, in either loop', () => {
    const ignition = continuedErrorLine(ctx(0, 'alpha', 'i1'), '', 'ignition server service strategy not specified');
    const secretEncryption = continuedErrorLine(ctx(1, 'beta', 'i2'), '', 'kms metadata nil');
    const { a, out } = assembler({ loop: 'sequential' });
    feed(a, [ignition, secretEncryption]);
    assert.deepEqual(brief(out.attempts), [
      '2026-11-01T10:00:00Z clusters/alpha sequential: [IgnitionEndpoint:stop]',
      '2026-11-01T10:00:01Z clusters/beta sequential: [SecretEncryptionSync:stop]',
    ]);
    // The sequential loop ran every operation before the stop, and nothing after it.
    const order = model.operations.map((o) => o.name);
    assert.deepEqual(
      out.attempts[0]!.operations.map((o) => o.name),
      order.slice(0, order.indexOf('IgnitionEndpoint') + 1),
    );
    // In the phased loop the group returns nil and the loop goes on to its end line.
    const phased = assembler({ loop: 'phased' });
    feed(phased.a, [secretEncryption, successLine(ctx(1, 'beta', 'i2'))]);
    assert.deepEqual(brief(phased.out.attempts), ['2026-11-01T10:00:01Z clusters/beta phased: [SecretEncryptionSync:stop]']);
  });

  it('hands an attempt on once the stream is two seconds past its last line, or went quiet', () => {
    const { a, out } = assembler({ loop: 'sequential' });
    a.line(successLine(ctx(0, 'alpha', 'i1')), 'x:1');
    a.line(successLine(ctx(1, 'beta', 'i2')), 'x:2');
    assert.equal(out.attempts.length, 0);
    a.line(successLine(ctx(2, 'gamma', 'i3')), 'x:3');
    assert.deepEqual(
      out.attempts.map((r) => r.object),
      ['clusters/alpha'],
    );
    a.flushQuiet();
    assert.deepEqual(
      out.attempts.map((r) => r.object),
      ['clusters/alpha', 'clusters/beta', 'clusters/gamma'],
    );
  });

  it('without a reconcileID, correlates by object: a summary and its error are one attempt, two end lines are two', () => {
    const { a, out } = assembler({ loop: 'phased' });
    const summary =
      'critical failures: [CPOImageAndNamespace]; blocked operations: [KubeconfigAndPasswordSync, MonitoringAndCLISecrets, OperatorDeployments, PlatformOIDCAndCSI, PublicEndpointExposed, RBACAndPolicies]';
    feed(a, [
      noId(successLine(ctx(0, 'alpha'))),
      noId(successLine(ctx(0, 'alpha'))),
      noId(reconcilerErrorLine(ctx(1, 'beta'), wrappedError(SSH_KEY_GET_ERROR))),
      noId(reconcilerErrorLine(ctx(1, 'beta'), wrappedError(SSH_KEY_GET_ERROR))),
      noId(completedWithErrorsLine(ctx(2, 'gamma'), summary)),
      noId(
        reconcilerErrorLine(
          ctx(2, 'gamma'),
          wrappedError(
            `critical error: ${PULL_SECRET_BYTES_ERROR}; blocked operations: [KubeconfigAndPasswordSync, MonitoringAndCLISecrets, OperatorDeployments, PlatformOIDCAndCSI, PublicEndpointExposed, RBACAndPolicies]`,
          ),
        ),
      ),
    ]);
    assert.deepEqual(
      out.attempts.map((r) => [r.object, r.origin.reconcileID, r.operations.filter((o) => o.outcome === 'error').length]),
      [
        ['clusters/alpha', undefined, 0],
        ['clusters/alpha', undefined, 0],
        ['clusters/beta', undefined, 1],
        ['clusters/beta', undefined, 1],
        ['clusters/gamma', undefined, 1],
      ],
    );
  });

  it('refuses a line of an attempt already handed on (late_line), counted in the books', () => {
    const { a, out } = assembler({ loop: 'sequential' });
    feed(a, [successLine(ctx(0, 'alpha', 'l1')), successLine(ctx(5, 'beta', 'l2')), reconcilerErrorLine(ctx(6, 'alpha', 'l1'), wrappedError(SSH_KEY_ERROR))]);
    assert.deepEqual(
      out.rejections.map((r) => [r.reason, r.where]),
      [['late_line', 'x.log:3']],
    );
    assert.equal(out.attempts.length, 2);
    assertBooks(a.inputSummary(), out);
  });

  describe('which loop: per operator run, proven by its lines, never assumed', () => {
    const critical = (second: number, name: string, id: string): string =>
      reconcilerErrorLine(
        ctx(second, name, id),
        wrappedError(
          `critical error: ${PULL_SECRET_BYTES_ERROR}; blocked operations: [KubeconfigAndPasswordSync, MonitoringAndCLISecrets, OperatorDeployments, PlatformOIDCAndCSI, PublicEndpointExposed, RBACAndPolicies]`,
        ),
      );
    const nonCritical = (second: number, name: string, id: string): string => reconcilerErrorLine(ctx(second, name, id), wrappedError(SSH_KEY_GET_ERROR));
    const bareCritical = (second: number, name: string, id: string): string =>
      reconcilerErrorLine(ctx(second, name, id), wrappedError(PULL_SECRET_BYTES_ERROR));

    it('holds attempts until one loop leads by two proofs, then reads them all under it', () => {
      const { a, out } = assembler();
      a.line(nonCritical(0, 'alpha', 'h1'), 'x:1');
      a.line(critical(1, 'beta', 'h2'), 'x:2');
      a.line(successLine(ctx(10, 'gamma', 'h3')), 'x:3');
      assert.equal(out.attempts.length, 0, 'one proof is not yet a decision');
      a.line(critical(11, 'delta', 'h4'), 'x:4');
      a.line(successLine(ctx(20, 'epsilon', 'h5')), 'x:5');
      assert.deepEqual(
        out.attempts.map((r) => [r.object, r.loop]),
        [
          ['clusters/alpha', 'phased'],
          ['clusters/beta', 'phased'],
          ['clusters/gamma', 'phased'],
          ['clusters/delta', 'phased'],
        ],
      );
      a.end();
      assert.deepEqual(nonZero(a.inputSummary().notes), { loop_inherited: 3 });
    });

    it('a lone error never flips the loop; an attempt whose lines prove the other loop is read under its run’s and states nothing', () => {
      const { a, out } = assembler();
      feed(a, [critical(0, 'a', 'f1'), critical(1, 'b', 'f2'), nonCritical(2, 'c', 'f3'), bareCritical(3, 'd', 'f4'), critical(4, 'e', 'f5')]);
      assert.deepEqual(brief(out.attempts), [
        `${at(0)} clusters/a phased: [GetPullSecretBytes, ManagedHSMVersionCheck:skip]`,
        `${at(1)} clusters/b phased: [GetPullSecretBytes, ManagedHSMVersionCheck:skip]`,
        `${at(2)} clusters/c phased: [SSHKeySync]`,
        `${at(3)} clusters/d phased: (nothing stated)`,
        `${at(4)} clusters/e phased: [GetPullSecretBytes, ManagedHSMVersionCheck:skip]`,
      ]);
      assert.deepEqual(nonZero(a.inputSummary().notes), { loop_inherited: 1, loop_contradicted: 1, inconsistent_lines: 1 });
    });

    it('at the end of the input a run takes the loop that leads by any margin', () => {
      const { a, out } = assembler();
      feed(a, [successLine(ctx(0, 'a', 'e1')), bareCritical(1, 'b', 'e2')]);
      assert.deepEqual(
        out.attempts.map((r) => r.loop),
        ['sequential', 'sequential'],
      );
    });

    it('a run that proves nothing: dropped line by line as loop_unknown, or the previous run’s loop after a restart', () => {
      const alone = assembler();
      feed(alone.a, [successLine(ctx(0, 'a', 'u1')), nonCritical(1, 'b', 'u2')]);
      assert.deepEqual(alone.out.attempts, []);
      assert.deepEqual(
        alone.out.rejections.map((r) => [r.reason, r.where]),
        [
          ['loop_unknown', 'x.log:1'],
          ['loop_unknown', 'x.log:2'],
        ],
      );
      assertBooks(alone.a.inputSummary(), alone.out);

      const restarted = assembler();
      feed(restarted.a, [
        critical(0, 'a', 'r1'),
        critical(1, 'b', 'r2'),
        controllerStartLine(at(50)),
        successLine(ctx(51, 'c', 'r3')),
        nonCritical(52, 'd', 'r4'),
      ]);
      assert.deepEqual(
        restarted.out.attempts.map((r) => r.loop),
        ['phased', 'phased', 'phased', 'phased'],
      );
      assert.deepEqual(nonZero(restarted.a.inputSummary().notes), { loop_from_previous_run: 2 });
      assert.equal(restarted.a.stats.runs, 2);
    });

    it('several inputs (an operator’s processes): a waiting replica’s start-up lines open a run of its own, not cut the leader’s', () => {
      // the leader (input 0) reconciles; the other replica (input 1) starts meanwhile and waits for the lease
      const leader = assembler();
      leader.a.line(successLine(ctx(0, 'a', 'l1')), 'leader.log:1');
      leader.a.line(managerLine(at(1), 'Starting hypershift-operator-manager', { version: POST_MERGE_VERSION }), 'waiting.log:1', 1);
      leader.a.line(controllerStartLine(at(1)), 'waiting.log:2', 1);
      leader.a.line(critical(2, 'b', 'l2'), 'leader.log:2');
      leader.a.line(critical(3, 'c', 'l3'), 'leader.log:3');
      leader.a.endInput(0);
      leader.a.endInput(1);
      leader.a.end();
      assert.deepEqual(
        leader.out.attempts.map((r) => [r.object, r.loop]),
        [
          ['clusters/a', 'phased'],
          ['clusters/b', 'phased'],
          ['clusters/c', 'phased'],
        ],
      );
      assert.deepEqual([nonZero(leader.a.inputSummary().notes), leader.a.stats.runs], [{ loop_inherited: 1 }, 2]);
      // read as one input, the same start-up lines cut the run: its first attempt is left alone and dropped
      const one = assembler();
      feed(one.a, [
        successLine(ctx(0, 'a', 'l1')),
        managerLine(at(1), 'Starting hypershift-operator-manager', { version: POST_MERGE_VERSION }),
        controllerStartLine(at(1)),
        critical(2, 'b', 'l2'),
        critical(3, 'c', 'l3'),
      ]);
      assert.deepEqual([one.out.attempts.length, one.out.rejections.map((r) => [r.reason, r.where])], [2, [['loop_unknown', 'x.log:1']]]);
      // the next leader's run proves nothing: it takes the loop of the run before it, as after a restart
      const handover = assembler();
      handover.a.line(critical(0, 'a', 'h1'), 'a.log:1');
      handover.a.line(critical(1, 'b', 'h2'), 'a.log:2');
      handover.a.endInput(0);
      handover.a.line(controllerStartLine(at(30)), 'b.log:1', 1);
      handover.a.line(successLine(ctx(31, 'c', 'h3')), 'b.log:2', 1);
      handover.a.endInput(1);
      handover.a.end();
      assert.deepEqual(
        handover.out.attempts.map((r) => [r.object, r.loop]),
        [
          ['clusters/a', 'phased'],
          ['clusters/b', 'phased'],
          ['clusters/c', 'phased'],
        ],
      );
      assert.deepEqual(nonZero(handover.a.inputSummary().notes), { loop_from_previous_run: 1 });
    });

    it("the operator's version line: a build from before the merge runs the sequential loop; a later build does not say", () => {
      const old = assembler();
      feed(old.a, [managerLine(at(0), 'Starting hypershift-operator-manager', { version: PRE_MERGE_VERSION }), successLine(ctx(1, 'a', 'v1'))]);
      assert.deepEqual(
        old.out.attempts.map((r) => r.loop),
        ['sequential'],
      );
      const recent = assembler();
      feed(recent.a, [managerLine(at(0), 'Starting hypershift-operator-manager', { version: POST_MERGE_VERSION }), successLine(ctx(1, 'a', 'v2'))]);
      assert.deepEqual([recent.out.attempts.length, recent.out.rejections[0]?.reason], [0, 'loop_unknown']);
    });

    it('what the operator Deployment says stands in while the lines prove nothing', () => {
      const { a, out } = assembler({
        operatorLoop: () => ({
          loop: 'phased',
          statement: 'Deployment hypershift/operator: the build contains the merge of PR #7908 and HYPERSHIFT_RECONCILE_LEGACY is not 1 (the phased loop)',
        }),
      });
      feed(a, [successLine(ctx(0, 'a', 'd1'))]);
      assert.deepEqual([out.attempts[0]?.loop, nonZero(a.inputSummary().notes)], ['phased', { loop_from_deployment: 1 }]);
      assert.equal(a.loopKnowledge().statement.startsWith('Deployment hypershift/operator: the build contains the merge'), true);
    });

    it('past maxUndecided held attempts, the oldest run settles: its leading loop, else loop_unknown', () => {
      const { a, out } = assembler({ maxUndecided: 2 });
      a.line(successLine(ctx(0, 'a', 'm1')), 'x:1');
      a.line(successLine(ctx(10, 'b', 'm2')), 'x:2');
      a.line(successLine(ctx(20, 'c', 'm3')), 'x:3');
      a.line(successLine(ctx(30, 'd', 'm4')), 'x:4');
      assert.deepEqual(
        out.rejections.map((r) => r.where),
        ['x:1', 'x:2', 'x:3'],
      );
      assert.equal(out.attempts.length, 0);
    });

    it('a configured loop is used as it is; lines that prove the other count as contradicting', () => {
      const { a, out } = assembler({ loop: 'sequential' });
      feed(a, [critical(0, 'a', 'c1'), nonCritical(1, 'b', 'c2')]);
      assert.deepEqual(
        out.attempts.map((r) => [r.loop, r.operations.length]),
        [
          ['sequential', 0],
          ['sequential', sequentialBefore('SSHKeySync') + 1],
        ],
      );
      assert.deepEqual(nonZero(a.inputSummary().notes), { loop_contradicted: 1, inconsistent_lines: 1 });
      assert.deepEqual(a.loopKnowledge(), {
        configured: 'sequential',
        current: 'sequential',
        decidedBy: 'config',
        statement: 'configured: the sequential loop',
      });
    });
  });

  it('keeps a bounded sample of messages no reading places, and still hands each attempt on', () => {
    const { a, out } = assembler({ loop: 'sequential', unmappedSampleSize: 1 });
    feed(a, fixture('unmapped'), 'unmapped.log');
    assert.equal(out.attempts.length, 4);
    const sample = a.unmappedSample();
    assert.deepEqual(
      [sample.total, sample.truncated, sample.distinct.map((d) => [d.message, d.why, d.count, d.where])],
      [3, true, [[UNWRAPPED_ERROR, 'no_format', 2, 'unmapped.log:1']]],
    );
    assert.deepEqual(nonZero(a.inputSummary().notes), { unmapped_error: 2, ambiguous_error: 1 });
    assert.deepEqual(out.rejections, [], 'an unmapped message is noted, never a dropped line');
  });

  it('marks the attempts of possibly sampled seconds and reports the periods', () => {
    const { a, out } = assembler({ loop: 'sequential' });
    feed(a, fixture('sampled'), 'sampled.log');
    assert.deepEqual(
      out.attempts.filter((r) => r.origin.sampled).map((r) => r.time.slice(-3)),
      Array<string>(101)
        .fill('00Z')
        .map((s, i) => (i < 100 ? s : '01Z')),
    );
    const summary = a.inputSummary();
    assert.deepEqual(summary.sampledPeriods, [{ from: at(0), until: at(2), messages: ['Reconciler error'], peakLines: 101 }]);
    assert.equal(summary.notes.sampled, 101);
    assert.ok(summary.caveats[0]!.startsWith('Counts from logs are lower bounds in sampled periods'));
  });

  it('refuses malformed lines naming the field, and reads the good line after them', () => {
    const { a, out } = assembler({ loop: 'sequential' });
    feed(a, fixture('malformed'), 'malformed.log');
    assert.deepEqual(
      out.rejections.map((r) => `${r.reason} ${r.where}`),
      [
        'invalid_record malformed.log:1',
        'invalid_record malformed.log:2',
        'invalid_record malformed.log:3',
        'invalid_record malformed.log:4',
        'invalid_json malformed.log:5',
        'invalid_record malformed.log:6',
        'invalid_record malformed.log:7',
        'invalid_record malformed.log:8',
      ],
    );
    assert.equal(out.attempts.length, 1);
    assertBooks(a.inputSummary(), out);
  });

  it('past maxPending, the oldest attempt is handed on early; an over-long line is refused, naming where', () => {
    const { a, out } = assembler({ loop: 'sequential', maxPending: 1 });
    a.line(successLine(ctx(0, 'a', 'p1')), 'x:1');
    a.line(reconcilerErrorLine(ctx(0, 'b', 'p2'), wrappedError(`[${SSH_KEY_ERROR}, ${CPO_ERROR}]`)), 'x:2');
    assert.deepEqual(
      out.attempts.map((r) => r.object),
      ['clusters/a'],
    );
    a.tooLong('x:3', 2_000_000, 1_048_576);
    assert.deepEqual(out.rejections.at(-1), {
      source: 'logs',
      reason: 'line_too_long',
      where: 'x:3',
      message: 'line of 2000000 bytes exceeds the limit of 1048576 bytes',
    });
  });

  it('an attempt whose lines are 900 years apart is judged at once (the log fuzz hung on this case, walking every second between them)', () => {
    const valid = (year: number): string =>
      JSON.stringify({
        level: 'error',
        ts: `${year}-11-29T10:00:05Z`,
        msg: 'Reconciler error',
        controller: 'hostedcluster',
        HostedCluster: { name: 'alpha', namespace: 'clusters' },
        namespace: 'clusters',
        name: 'alpha',
        reconcileID: 'r1',
        error:
          'critical error: [failed to get hostedcluster SSHKey secret clusters/alpha-ssh: not found, failed to get pull secret: x]; blocked operations: [OperatorDeployments]',
      });
    const { a, out } = assembler({ maxUndecided: 100, maxPending: 100, unmappedSampleSize: 5 });
    feed(a, [valid(2026).slice(0, 24), valid(2026), valid(2926)], 'op.log');
    assert.deepEqual(
      out.rejections.map((r) => `${r.where} ${r.reason}`),
      ['op.log:1 invalid_json', 'op.log:2 loop_unknown', 'op.log:3 loop_unknown'],
    );
    assert.deepEqual(out.attempts, []);
    const { a: seq, out: seqOut } = assembler({ loop: 'sequential' });
    feed(seq, [valid(2026), valid(2926)]);
    // one attempt (one reconcileID); a critical-error text is the phased loop's, so under the sequential loop nothing is stated
    assert.deepEqual(brief(seqOut.attempts), ['2026-11-29T10:00:05Z clusters/alpha sequential: (nothing stated)']);
    assert.deepEqual(
      seqOut.rejections.map((r) => `${r.where} ${r.reason}`),
      [],
    );
  });
});
