/**
 * The end-to-end requirement: the same attempts fed through the log source and through the journal produce
 * identical per-attempt `analyze --format jsonl` rows. The attempts are the contract's seeded fleet worlds, cut to
 * what logs can show (test/fixtures/logs/world.ts says exactly what that removes and why); their log lines are the
 * HyperShift operator's, re-enacted from the reference with the built-in model's real error formats.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { compileModel } from '../../../analyzer/compiled-model.js';
import { analyzeAttempt, attemptRow, OutcomeHistory } from '../../../analyzer/engine.js';
import { ErrorMapper } from '../../../collector/error-mapping.js';
import { formatAttemptLine, parseAttemptLine } from '../../../collector/journal.js';
import { OperatorLogSource } from '../../../collector/logs/source.js';
import type { AttemptRecord, Rejection } from '../../../collector/records.js';
import { resolveModel } from '../../../model/load.js';
import { packageRoot } from '../../../model/package-root.js';
import type { LoopKind } from '../../../model/types.js';
import { logVisibleWorld, operatorLog, reconcileIdFor, type LogVisibleWorld } from '../../fixtures/logs/world.js';

const model = resolveModel('hypershift-hostedcluster');
const cm = compileModel(model);
const mapper = new ErrorMapper(model);
const contract = join(packageRoot(), '..', 'shared', 'contract');
const knownOperations = new Set(model.operations.map((o) => o.name));

function readJournal(file: string, lines: readonly string[]): AttemptRecord[] {
  return lines.map((line, i) => {
    const parsed = parseAttemptLine(line, i + 1, { file, knownOperations });
    if (!parsed.ok) throw new Error(`${parsed.rejection.where}: ${parsed.rejection.message}`);
    return parsed.record;
  });
}

function rows(records: readonly AttemptRecord[]): string[] {
  const history = new OutcomeHistory(cm.ops.length);
  return records.map((r) => attemptRow(cm, analyzeAttempt(cm, r, history)));
}

async function throughLogs(lines: readonly string[], loop: LoopKind | 'auto'): Promise<{ records: AttemptRecord[]; rejections: Rejection[]; source: OperatorLogSource }> {
  const records: AttemptRecord[] = [];
  const rejections: Rejection[] = [];
  const source = new OperatorLogSource(
    { input: { stdin: true }, stdin: Readable.from([lines.join('\n') + '\n']), model, loop, scheduler: () => () => undefined },
    { attempt: (r) => records.push(r), reject: (r) => rejections.push(r) },
  );
  await source.start();
  await source.ended;
  return { records, rejections, source };
}

/** Rows whose loops differ (a loop-only operation, ManagedHSMVersionCheck, is structural and in neither list). */
function substantive(rowsOut: readonly string[]): number {
  return rowsOut.filter((row) => {
    const r = JSON.parse(row) as { unblocked: string[]; newlyBlocked: string[] };
    return r.unblocked.length > 0 || r.newlyBlocked.length > 0;
  }).length;
}

function world(name: string): { visible: LogVisibleWorld; journalRows: string[]; logLines: string[] } {
  const file = join(contract, `${name}.journal.jsonl`);
  const journal = readJournal(file, readFileSync(file, 'utf8').trim().split('\n'));
  const visible = logVisibleWorld(model, mapper, journal);
  // The journal side reads the visible world through the journal's own parser, as `analyze --journal` does.
  const journalRecords = readJournal(`${name}.visible`, visible.records.map(formatAttemptLine));
  const logLines = visible.records.flatMap((r, i) => operatorLog(model, r, reconcileIdFor(i)));
  return { visible, journalRows: rows(journalRecords), logLines };
}

describe('log source end to end: the same attempts through logs and through the journal', () => {
  for (const [name, loop, expected] of [
    [
      'world-sequential',
      'sequential',
      {
        attempts: 264,
        silentStops: 322,
        unidentifiable: 485,
        // Unwrapped callee errors, and formats several operations return (this generator draws any of an op's formats).
        unidentifiableOps: ['BubbleUpPreDeletionConds', 'DereferenceAWSRoles', 'GetHCP', 'GetPlatform', 'KMSRoleARNFromSecret', 'KubeconfigSync', 'PersistStatus', 'ProgressingCond', 'SecretEncryptionSync', 'UnmanagedEtcdAvailability', 'UpdateDeprecatedFields'],
        critical: 0,
        rewritten: 0,
        substantive: 159,
      },
    ],
    [
      'world-phased',
      'phased',
      {
        attempts: 619,
        silentStops: 0,
        unidentifiable: 91,
        unidentifiableOps: ['AdditionalTrustBundle', 'AuditWebhookSync', 'DereferenceAWSRoles', 'GetHCP', 'GetPlatform', 'KMSRoleARNFromSecret', 'KubeadminPasswordSync', 'PayloadArch', 'PrivateConnectivityConds', 'ProgressingCond', 'RegistryProviderReconcile', 'SSHKeySync', 'UpdateDeprecatedFields', 'ValidationConds', 'VersionAndCopiedConds'],
        critical: 113,
        rewritten: 3,
        substantive: 501,
      },
    ],
  ] as const) {
    describe(name, () => {
      const { visible, journalRows, logLines } = world(name);

      it('keeps a meaningful world: most attempts, errors, loops that differ, and (phased) critical failures', () => {
        assert.equal(visible.records.length, expected.attempts);
        assert.equal(visible.dropped.silent_stop, expected.silentStops);
        assert.equal(visible.dropped.unidentifiable_error, expected.unidentifiable);
        assert.deepEqual([...visible.unidentifiable].sort(), expected.unidentifiableOps);
        assert.equal(visible.criticalAttempts, expected.critical);
        assert.equal(visible.rewrittenOutcomes, expected.rewritten);
        assert.equal(substantive(journalRows), expected.substantive);
      });

      it(`yields identical rows with the loop configured (${loop})`, async () => {
        const { records, rejections, source } = await throughLogs(logLines, loop);
        assert.deepEqual(rejections, []);
        assert.equal(source.unmappedSample().total, 0);
        assert.equal(records.length, visible.records.length);
        assert.deepEqual(rows(records), journalRows);
      });

      it('yields identical rows with the loop decided from the lines (auto)', async () => {
        const { records, source } = await throughLogs(logLines, 'auto');
        assert.equal(source.stats.loopDecidedBy, 'evidence');
        assert.equal(source.stats.observedLoop, loop);
        assert.deepEqual(rows(records), journalRows);
      });
    });
  }
});
