import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HYPERSHIFT_LOG_PATTERNS, resolvePatterns, ZapLineClassifier, type ClassifiedLine } from '../../../collector/logs/zap-line.js';
import { packageRoot } from '../../../model/package-root.js';
import { reconcilerErrorLine, successLine, wrappedError } from '../../fixtures/logs/zap-writer.js';

const classifier = new ZapLineClassifier(HYPERSHIFT_LOG_PATTERNS, 'hostedcluster');
const fixture = (name: string): string[] => readFileSync(join(packageRoot(), 'test', 'fixtures', 'logs', `${name}.log`), 'utf8').trimEnd().split('\n');
const ctx = { ts: '2026-11-01T10:00:00Z', namespace: 'clusters', name: 'alpha', reconcileID: 'id-1' };

describe('ZapLineClassifier: one operator log line', () => {
  it('parses the three end lines with object, correlation id, texts and the zap causes of an aggregate', () => {
    const [, two, three] = fixture('phased');
    const summary = classifier.classify(two!, 'phased.log:2');
    assert.deepEqual(summary, {
      kind: 'end',
      second: Date.UTC(2026, 10, 1, 10, 0, 1) / 1000,
      line: { kind: 'completedWithErrors', where: 'phased.log:2', time: '2026-11-01T10:00:01Z', timeMs: Date.UTC(2026, 10, 1, 10, 0, 1), controller: 'hostedcluster', object: 'clusters/beta', correlation: 'p0000002', text: '' },
      sighting: { level: 'info', message: 'reconciliation completed with errors', second: Date.UTC(2026, 10, 1, 10, 0, 1) / 1000 },
    });
    const error = classifier.classify(three!, 'phased.log:3');
    assert.equal(error.kind, 'end');
    if (error.kind !== 'end') return;
    assert.equal(error.line.kind, 'reconcilerError');
    assert.equal(error.line.text?.startsWith('[failed to reconcile controlplane SSHKey secret'), true);
    assert.deepEqual(error.line.causes, [
      'failed to reconcile controlplane SSHKey secret: secrets "beta-ssh-key" not found',
      'failed to reconcile control plane operator: deployments.apps "control-plane-operator" is forbidden',
    ]);
    const success = classifier.classify(successLine(ctx), 'x:1');
    assert.deepEqual(success.kind === 'end' && success.line, { kind: 'success', where: 'x:1', time: '2026-11-01T10:00:00Z', timeMs: Date.UTC(2026, 10, 1, 10), controller: 'hostedcluster', object: 'clusters/alpha', correlation: 'id-1' });
  });

  it('ignores plain text, other messages and other controllers, counting why', () => {
    const kinds = fixture('legacy').map((line, i) => {
      const c = classifier.classify(line, `legacy.log:${i + 1}`);
      return c.kind === 'ignored' ? `ignored:${c.why}` : c.kind === 'end' ? c.line.kind : c.kind;
    });
    assert.deepEqual(kinds, ['ignored:not_json', 'ignored:other_message', 'success', 'reconcilerError', 'ignored:other_message', 'ignored:other_controller', 'reconcilerError', 'ignored:other_message', 'success']);
  });

  it('refuses a recognised line that is malformed, naming the field; a line cut mid-JSON is invalid_json', () => {
    const results = fixture('malformed').map((line, i) => classifier.classify(line, `malformed.log:${i + 1}`));
    const refused = results.map((c) => (c.kind === 'rejected' ? `${c.reason}: ${c.message}` : c.kind === 'ignored' ? `ignored:${c.why}` : c.line.kind));
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
    const line = JSON.stringify({ level: 'info', ts: 1793527205.123, msg: 'successfully reconciled', controller: 'hostedcluster', namespace: 'clusters', name: 'alpha' });
    const c = classifier.classify(line, 'x:1');
    assert.equal(c.kind, 'end');
    if (c.kind !== 'end') return;
    assert.equal(c.line.time, '2026-11-01T10:00:05.123Z');
    assert.equal(c.line.object, 'clusters/alpha');
    assert.equal(c.line.correlation, 'object:clusters/alpha');
  });

  it("describes another operator's log through patterns, with the defaults merged field by field", () => {
    const patterns = resolvePatterns({ successMessage: 'reconcile finished', fields: { object: 'Widget', time: 'time' } });
    assert.equal(patterns.reconcilerErrorMessage, 'Reconciler error');
    assert.equal(patterns.fields.reconcileID, 'reconcileID');
    const widgets = new ZapLineClassifier(patterns, 'widget');
    const line = JSON.stringify({ level: 'info', time: '2026-11-01T10:00:00Z', msg: 'reconcile finished', controller: 'widget', Widget: { name: 'w1', namespace: 'apps' }, reconcileID: 'r' });
    const c = widgets.classify(line, 'x:1');
    assert.equal(c.kind === 'end' && c.line.object, 'apps/w1');
    assert.equal(widgets.classify(successLine(ctx), 'x:2').kind, 'ignored');
  });

  it('redacts credentials in the error text and its causes before anything leaves the parser', () => {
    const c: ClassifiedLine = classifier.classify(reconcilerErrorLine(ctx, wrappedError('failed to reconcile platform credentials: POST https://sts?token=abc123 failed')), 'x:1');
    assert.equal(c.kind === 'end' && c.line.text, 'failed to reconcile platform credentials: POST https://sts?token=[REDACTED] failed');
    assert.deepEqual(c.kind === 'end' && c.line.causes, ['failed to reconcile platform credentials: POST https://sts?token=[REDACTED] failed']);
  });
});
