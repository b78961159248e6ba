/**
 * The real-logger fixtures as users hold them (as-users-hold.ts rewrites the same lines): with `kubectl logs
 * --timestamps` prefixes, as CRI files, with the framings mixed line by line, gzipped, and split over a
 * must-gather-shaped folder of two replicas with a previous and a current log each: every one gives exactly the
 * attempts the plain log gives.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decompressed, findOperatorLogs, HYPERSHIFT_OPERATOR_CONTAINER, openLogFile } from '../../../collector/logs/inputs.js';
import { OperatorLogSource } from '../../../collector/logs/source.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { resolveModel } from '../../../sidecar/files.js';
import { REPO } from '../../support/paths.js';
import { readLog, type SourceRun } from './against-truth.js';
import { asCri, withTimestamps, writeMustGather } from './as-users-hold.js';

const model = resolveModel('hypershift-hostedcluster');
const fixtureLines = (name: string): string[] =>
  gunzipSync(readFileSync(join(REPO, 'test/fixtures/logs/real', `${name}.operator.log.gz`)))
    .toString('utf8')
    .trimEnd()
    .split('\n');
const stream = (lines: readonly string[]): Readable => Readable.from([Buffer.from(lines.join('\n') + '\n')]);
/** A record as the analysis reads it: everything but where its first line is. */
const attempt = (r: AttemptRecord): unknown => ({ ...r, origin: { ...r.origin, where: undefined } });

async function readStreams(streams: { stream: Readable; name: string }[]): Promise<SourceRun> {
  const records: AttemptRecord[] = [];
  const rejections: SourceRun['rejections'][number][] = [];
  let summary: (() => SourceRun['summary']) | undefined;
  const source = new OperatorLogSource(
    { input: { streams }, model, loop: 'auto', scheduler: () => () => undefined },
    { attempt: (r) => records.push(r), reject: (r) => rejections.push(r), inputSummary: (_s, r) => (summary = r) },
  );
  await source.start();
  await source.ended;
  return { records, rejections, summary: summary!() };
}

for (const name of ['sequential', 'phased'] as const) {
  describe(`the real logger's ${name} log as users hold it`, function () {
    this.timeout(60_000);
    const lines = fixtureLines(name);
    let plain: SourceRun;
    before(async () => {
      plain = await readLog(stream(lines), 'operator.log', model);
    });

    it('with kubectl logs --timestamps prefixes: the same attempts, at the same lines', async () => {
      const prefixed = await readLog(stream(withTimestamps(lines)), 'operator.log', model);
      assert.deepEqual(prefixed.records, plain.records);
      assert.deepEqual(prefixed.summary, plain.summary);
    });

    it('as CRI files with long lines in P fragments, and with the framings mixed line by line: the same attempts', async () => {
      const cri = asCri(lines, 1000);
      assert.ok(cri.length > lines.length, 'some lines are fragmented');
      const framed = await readLog(stream(cri), 'operator.log', model);
      assert.deepEqual(framed.records.map(attempt), plain.records.map(attempt));
      const prefixed = withTimestamps(lines);
      const mixed = lines.flatMap((l, i) => (i % 3 === 0 ? [l] : i % 3 === 1 ? [prefixed[i]!] : asCri([l], 700)));
      const read = await readLog(stream(mixed), 'operator.log', model);
      assert.deepEqual(read.records.map(attempt), plain.records.map(attempt));
      assert.deepEqual([read.summary.received, read.summary.ignored, read.summary.notes], [plain.summary.received, plain.summary.ignored, plain.summary.notes]);
    });

    it('gzipped, known by its bytes (in chunks of 3 bytes, so the magic is split), whatever its name', async () => {
      const zipped = gzipSync(Buffer.from(withTimestamps(lines).join('\n') + '\n'));
      const chunks: Buffer[] = [];
      for (let at = 0; at < zipped.length; at += at < 12 ? 3 : 65_536) chunks.push(zipped.subarray(at, at + (at < 12 ? 3 : 65_536)));
      const read = await readLog(decompressed(Readable.from(chunks)), 'operator.log', model);
      assert.deepEqual(read.records, plain.records);
    });

    it('split over a must-gather of two replicas (a previous and a current log each), found in the folder and merged by time', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'must-gather-'));
      try {
        const folder = writeMustGather(dir, lines, (t) => gzipSync(t));
        const found = await findOperatorLogs(dir, HYPERSHIFT_OPERATOR_CONTAINER);
        assert.deepEqual(
          found.read.map((f) => [f.path.slice(dir.length + 1), f.pod, f.instance]),
          folder.operatorLogs.map((p, i) => [p, `operator-5f8d9c7b6-${i < 2 ? 'a' : 'b'}x${i < 2 ? 'a' : 'b'}q`, i % 2 === 0 ? 'previous' : 'current']),
        );
        assert.deepEqual(
          found.skipped.map((s) => s.path.slice(dir.length + 1)),
          folder.others.filter((f) => f.includes('/logs/')).sort(),
        );
        assert.equal(found.otherFiles, 1);
        // three of the four processes led in turn; the last one waited for the lease to the end
        assert.deepEqual(
          folder.attemptsPer.map((n) => n > 0),
          [true, true, true, false],
        );
        const merged = await readStreams(found.read.map((f) => ({ stream: openLogFile(f.path), name: f.path })));
        assert.deepEqual(merged.records.map(attempt), plain.records.map(attempt));
        assert.deepEqual(merged.rejections, plain.rejections);
        assert.deepEqual(
          [merged.summary.received, merged.summary.analyzed, merged.summary.dropped, merged.summary.notes],
          [plain.summary.received, plain.summary.analyzed, plain.summary.dropped, plain.summary.notes],
        );
        // the lines only the folder has: the waiting replicas' three klog lines, and the two later leaders' start-up lines
        // (the controller's start, a run line, and two other messages each)
        const ignored = plain.summary.ignored;
        assert.deepEqual(merged.summary.ignored, {
          ...ignored,
          not_json: ignored.not_json! + 3,
          other_message: ignored.other_message! + 4,
          run: ignored.run! + 2,
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
