import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HYPERSHIFT_LOG_PATTERNS, resolvePatterns, ZapLineClassifier, type ClassifiedLine } from '../../../collector/logs/internal/zap-line.js';
import { packageRoot } from '../../../lib/package-root.js';
import { PAYLOAD_ARCH_ERROR, PRE_MERGE_VERSION } from '../../fixtures/logs/generate.js';
import { continuedErrorLine, reconcilerErrorLine, successLine, wrappedError } from '../../fixtures/logs/zap-writer.js';

const classifier = new ZapLineClassifier(HYPERSHIFT_LOG_PATTERNS, 'hostedcluster');
const fixture = (name: string): string[] =>
  readFileSync(join(packageRoot(), 'test', 'fixtures', 'logs', `${name}.log`), 'utf8')
    .trimEnd()
    .split('\n');
const ctx = { ts: '2026-11-01T10:00:00Z', namespace: 'clusters', name: 'alpha', reconcileID: 'id-1' };
const second = (s: number): number => Date.UTC(2026, 10, 1, 10, 0, s) / 1000;

/** `kind` of each line: the attempt line's kind, `run:<kind>`, `ignored:<why>`, or `<reason>` for a refusal. */
const kinds = (lines: readonly string[], file: string): string[] =>
  lines.map((line, i) => {
    const c = classifier.classify(line, `${file}:${i + 1}`);
    return c.kind === 'attempt' ? c.line.kind : c.kind === 'run' ? `run:${c.line.kind}` : c.kind === 'ignored' ? `ignored:${c.why}` : c.reason;
  });

describe('ZapLineClassifier: one operator log line', () => {
  it('reads the lines of an attempt: object, reconcileID, texts, and the zap causes of an aggregate', () => {
    const lines = fixture('phased');
    const error = classifier.classify(lines[1]!, 'phased.log:2');
    assert.equal(error.kind, 'attempt');
    if (error.kind !== 'attempt') return;
    assert.deepEqual(
      { ...error.line, text: undefined, causes: undefined },
      {
        kind: 'error',
        where: 'phased.log:2',
        time: '2026-11-01T10:00:01Z',
        timeMs: second(1) * 1000,
        controller: 'hostedcluster',
        object: 'clusters/beta',
        correlation: 'p0000002',
        reconcileID: 'p0000002',
        text: undefined,
        causes: undefined,
      },
    );
    assert.deepEqual(error.line.causes, [
      'failed to get hostedcluster SSHKey secret clusters/beta-ssh-key: secrets "beta-ssh-key" not found',
      'failed to reconcile control plane operator: deployments.apps "control-plane-operator" is forbidden',
    ]);
    assert.deepEqual(error.sighting, { level: 'error', message: 'Reconciler error', second: second(1) });
    const summary = classifier.classify(lines[2]!, 'phased.log:3');
    assert.equal(
      summary.kind === 'attempt' && summary.line.text,
      'critical failures: [CPOImageAndNamespace, PullSecretSync]; blocked operations: [KubeconfigAndPasswordSync, MonitoringAndCLISecrets, OperatorDeployments, PlatformOIDCAndCSI, PublicEndpointExposed, RBACAndPolicies]',
    );
    const success = classifier.classify(successLine(ctx), 'x:1');
    assert.deepEqual(success.kind === 'attempt' && success.line, {
      kind: 'success',
      where: 'x:1',
      time: '2026-11-01T10:00:00Z',
      timeMs: Date.UTC(2026, 10, 1, 10),
      controller: 'hostedcluster',
      object: 'clusters/alpha',
      correlation: 'id-1',
      reconcileID: 'id-1',
    });
  });

  it('recognises the progress lines upstream writes (a silent stop, an error the loop goes on after) and the requeue warning', () => {
    assert.deepEqual(kinds(fixture('phased'), 'phased.log'), [
      'success',
      'error',
      'summary',
      'error',
      'error',
      'summary',
      'summary',
      'error',
      'warning',
      'success',
      'error',
      'progress',
      'progress',
      'success',
    ]);
    const lines = fixture('phased');
    const blocked = classifier.classify(lines[11]!, 'phased.log:12');
    assert.deepEqual(blocked.kind === 'attempt' && blocked.line.progress, { message: 'reconciliation is blocked', op: 'ValidationGates', outcome: 'stop' });
    assert.equal(blocked.kind === 'attempt' && blocked.line.text, undefined, 'a stop carries no error');
    const arch = classifier.classify(lines[12]!, 'phased.log:13');
    assert.deepEqual(arch.kind === 'attempt' && [arch.line.progress?.op, arch.line.progress?.outcome, arch.line.text], [
      'PayloadArch',
      'error',
      PAYLOAD_ARCH_ERROR,
    ]);
  });

  it('reads a silent stop logged with an empty message by its error, and the deletion and deprecated-fields returns', () => {
    const progress = (line: string): unknown => {
      const c = classifier.classify(line, 'x:1');
      return c.kind === 'attempt'
        ? [c.line.kind, c.line.progress?.op, c.line.progress?.outcome, c.line.text]
        : `${c.kind}:${c.kind === 'ignored' ? c.why : ''}`;
    };
    const info = (msg: string): string => JSON.stringify({ ...(JSON.parse(successLine(ctx)) as Record<string, unknown>), msg });
    assert.deepEqual(
      [
        continuedErrorLine(ctx, '', 'ignition server service strategy not specified'),
        continuedErrorLine(ctx, '', 'unknown service strategy type for ignition service: Magic'),
        continuedErrorLine(ctx, '', 'aescbc metadata  is nil'),
        continuedErrorLine(ctx, '', 'no key field key specified for aescbc backup key secret'),
        continuedErrorLine(ctx, '', 'unsupported encryption type Rot13'),
        continuedErrorLine(ctx, '', 'some other error nobody configured'),
        info('Updating deprecated fields for hosted cluster'),
        info('hostedcluster is still deleting'),
        info('Waiting for grace period'),
        info('grace period finished'),
        info('Deleted hostedcluster'),
      ].map(progress),
      [
        ['progress', 'IgnitionEndpoint', 'stop', undefined],
        ['progress', 'IgnitionEndpoint', 'stop', undefined],
        ['progress', 'SecretEncryptionSync', 'stop', undefined],
        ['progress', 'SecretEncryptionSync', 'stop', undefined],
        ['progress', 'SecretEncryptionSync', 'stop', undefined],
        'ignored:other_message',
        ['progress', 'UpdateDeprecatedFields', 'stop', undefined],
        ['progress', 'Delete', 'stop', undefined],
        ['progress', 'Delete', 'stop', undefined],
        'ignored:other_message',
        ['progress', 'Delete', 'stop', undefined],
      ],
    );
  });

  it('ignores plain text, other messages and other controllers, counting why; reads the run lines', () => {
    assert.deepEqual(kinds(fixture('legacy'), 'legacy.log'), [
      'ignored:not_json',
      'run:version',
      'run:controllerStart',
      'success',
      'error',
      'warning',
      'ignored:other_controller',
      'error',
      'ignored:other_message',
      'success',
    ]);
    const version = classifier.classify(fixture('legacy')[1]!, 'legacy.log:2');
    assert.deepEqual(version.kind === 'run' && version.line, { kind: 'version', where: 'legacy.log:2', timeMs: second(0) * 1000, version: PRE_MERGE_VERSION });
  });

  it('refuses a recognised line that is malformed, naming the field; a line cut mid-JSON is invalid_json', () => {
    const results = fixture('malformed').map((line, i) => classifier.classify(line, `malformed.log:${i + 1}`));
    const refused = results.map((c) =>
      c.kind === 'rejected' ? `${c.reason}: ${c.message}` : c.kind === 'ignored' ? `ignored:${c.why}` : c.kind === 'attempt' ? c.line.kind : c.kind,
    );
    assert.deepEqual(refused, [
      'invalid_record: "Reconciler error" line: error: required string',
      'invalid_record: "successfully reconciled" line: ts: required RFC 3339 time, got nothing',
      'invalid_record: "successfully reconciled" line: ts: required RFC 3339 time, got "yesterday"',
      'invalid_record: "successfully reconciled" line: HostedCluster: required {"name","namespace"} (or namespace and name fields)',
      'invalid_json: opens like a JSON log line but does not parse (60 characters; cut or damaged)',
      'invalid_record: "successfully reconciled" line: reconcileID: must be a non-empty string',
      'invalid_record: "successfully reconciled" line: controller: required string',
      'invalid_record: "reconciliation completed with errors" line: summary: required string',
      'ignored:not_json',
      'success',
    ]);
  });

  it("reads zap's default epoch time, top-level namespace/name, and correlates by object without a reconcileID", () => {
    const line = JSON.stringify({
      level: 'info',
      ts: 1793527205.123,
      msg: 'successfully reconciled',
      controller: 'hostedcluster',
      namespace: 'clusters',
      name: 'alpha',
    });
    const c = classifier.classify(line, 'x:1');
    assert.equal(c.kind, 'attempt');
    if (c.kind !== 'attempt') return;
    assert.deepEqual(
      [c.line.time, c.line.object, c.line.correlation, c.line.reconcileID],
      ['2026-11-01T10:00:05.123Z', 'clusters/alpha', 'object:clusters/alpha', undefined],
    );
  });

  it('reads an RFC 3339 time as Date.parse does, or refuses it as not a time (the whole-second form has its own reader)', () => {
    // edges of the whole-second reader (days past 28, out-of-range fields, years before 1970) and the other forms
    const days = ['01', '28', '29', '30', '31', '00', '32'];
    const times = ['00:00:00', '23:59:59', '24:00:00', '12:60:00', '12:00:60', '1a:00:00'];
    const texts: string[] = [];
    for (const date of ['2026-02', '2024-02', '2026-12', '2026-13', '2026-00', '1969-12', '1970-01', '0099-01', '9999-12']) {
      for (const day of days) for (const time of times) texts.push(`${date}-${day}T${time}Z`);
    }
    texts.push(
      '2026-11-01t10:00:00z',
      '2026-11-01T10:00:00.5Z',
      '2026-11-01T10:00:00+02:00',
      '2026-11-01T10:00:00',
      '2026-11-01 10:00:00Z',
      '2026-11-01T10:00:00ZZ',
      '+02026-11-01T10:00:00Z',
    );
    const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
    for (const ts of texts) {
      const c = classifier.classify(
        JSON.stringify({
          level: 'info',
          ts,
          msg: 'successfully reconciled',
          controller: 'hostedcluster',
          namespace: 'clusters',
          name: 'alpha',
          reconcileID: 'id-1',
        }),
        'x:1',
      );
      const expected = rfc3339.test(ts) ? Date.parse(ts) : NaN;
      if (Number.isNaN(expected)) assert.equal(c.kind, 'rejected', ts);
      else assert.deepEqual(c.kind === 'attempt' && [c.line.time, c.line.timeMs], [ts, expected], ts);
    }
  });

  it('prefers the logger context object over a repeated call key (the pause line logs "name" again, as a NamespacedName)', () => {
    const line = JSON.stringify({
      level: 'info',
      ts: ctx.ts,
      msg: 'Reconciliation paused',
      controller: 'hostedcluster',
      HostedCluster: { name: 'alpha', namespace: 'clusters' },
      namespace: 'clusters',
      name: 'clusters/alpha',
      reconcileID: 'id-2',
      pausedUntil: 'true',
    });
    const c = classifier.classify(line, 'x:1');
    assert.deepEqual(c.kind === 'attempt' && [c.line.object, c.line.progress?.op, c.line.progress?.outcome], ['clusters/alpha', 'PauseCheck', 'stop']);
  });

  it("describes another operator's log through patterns, with the defaults merged field by field", () => {
    const patterns = resolvePatterns({ successMessage: 'reconcile finished', progress: [], fields: { object: 'Widget', time: 'time' } });
    assert.equal(patterns.reconcilerErrorMessage, 'Reconciler error');
    assert.equal(patterns.fields.reconcileID, 'reconcileID');
    const widgets = new ZapLineClassifier(patterns, 'widget');
    const line = JSON.stringify({
      level: 'info',
      time: '2026-11-01T10:00:00Z',
      msg: 'reconcile finished',
      controller: 'widget',
      Widget: { name: 'w1', namespace: 'apps' },
      reconcileID: 'r',
    });
    const c = widgets.classify(line, 'x:1');
    assert.equal(c.kind === 'attempt' && c.line.object, 'apps/w1');
    assert.equal(widgets.classify(successLine(ctx), 'x:2').kind, 'ignored');
    assert.equal(widgets.classify(fixture('phased')[11]!, 'x:3').kind, 'ignored', 'without progress patterns the gate line is another message');
  });

  it('redacts credentials in the error text and its causes before anything leaves the parser', () => {
    const c: ClassifiedLine = classifier.classify(
      reconcilerErrorLine(ctx, wrappedError('failed to reconcile platform credentials: POST https://sts?token=abc123 failed')),
      'x:1',
    );
    assert.equal(c.kind === 'attempt' && c.line.text, 'failed to reconcile platform credentials: POST https://sts?token=[REDACTED] failed');
    assert.deepEqual(c.kind === 'attempt' && c.line.causes, ['failed to reconcile platform credentials: POST https://sts?token=[REDACTED] failed']);
  });
});
