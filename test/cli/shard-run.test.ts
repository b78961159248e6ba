/**
 * A shard's reading of a journal file larger than one read (cli/shard-run.ts `fileChunks`, 1 MiB chunks into one
 * reused buffer): every line as the file holds it, lines cut by a chunk's end included, and the workers' parts of such
 * a file merged equal to one worker's whole, rejections and their echoes included. The journal is the simulator's
 * fleet (simulator/world.ts) with bad lines placed across chunk ends.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { encodePartial } from '../../analyzer/partial/format.js';
import { mergeParts } from '../../analyzer/partial/merge.js';
import { formatAttemptLine } from '../../collector/journal/format.js';
import { LineSplitter } from '../../collector/input/lines.js';
import { WHOLE } from '../../collector/input/shard.js';
import { fileChunks, runShard, type ShardSpec } from '../../cli/shard-run.js';
import { resolveModel } from '../../sidecar/files.js';
import { World } from '../../simulator/world.js';

const MIB = 1 << 20;
const model = resolveModel('hypershift-hostedcluster');
const io = { stdout: new Writable({ write: (_c, _e, done) => done() }), stderr: new Writable({ write: (_c, _e, done) => done() }), stdin: Readable.from([]) };

describe('a shard reading a journal file in chunks', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'shard-run-'));
    const lines = [...new World({ model, objects: 12, durationMs: 6 * 3_600_000, seed: 11, observe: 'mixed' }).attempts()].map(formatAttemptLine);
    // Bad lines wherever the text reaches a chunk's end: a line of 0.6 MiB (read, then rejected), one of 1.5 MiB (longer
    // than a line may be: counted as too long) and one that is no JSON, each cut by the chunk's end.
    const bad = [`{"time":"2026-11-29T10:00:00Z","pad":"${'p'.repeat(0.6 * MIB)}"}`, 'x'.repeat(1.5 * MIB), '{"time":'];
    const out: string[] = [];
    let bytes = 0;
    for (const line of lines) {
      if (bad.length > 0 && bytes > (4 - bad.length) * MIB - 1000) {
        out.push(bad[0]!);
        bytes += bad.shift()!.length + 1;
      }
      out.push(line);
      bytes += Buffer.byteLength(line) + 1;
    }
    assert.ok(bytes > 4.5 * MIB, `${bytes} bytes: several chunks`);
    file = join(dir, 'fleet.jsonl');
    writeFileSync(file, out.join('\n'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every line as the file holds it, a last line without a newline included', () => {
    const got: string[] = [];
    const splitter = new LineSplitter({
      line: (text, lineNo) => got.push(`${lineNo} ${text}`),
      tooLong: (lineNo, bytes) => got.push(`${lineNo} too long: ${bytes}`),
    });
    for (const chunk of fileChunks(file)) splitter.push(chunk);
    splitter.end();
    const want = readFileSync(file, 'utf8')
      .split('\n')
      .map((text, i) => `${i + 1} ${text.length > MIB ? `too long: ${text.length}` : text}`);
    assert.equal(got.length, want.length);
    assert.deepEqual(got, want);
  });

  it('two and three workers, merged, hold what one worker holds, with the same rejections echoed', async () => {
    const input = { kind: 'journal', file } as const;
    const spec: ShardSpec = { model, input, shard: WHOLE, evidence: true };
    const whole = await runShard(spec, io);
    assert.deepEqual(whole.partial.input.rejectedByReason, { invalid_json: 1, invalid_record: 1, line_too_long: 1 });
    for (const count of [2, 3]) {
      const parts = await Promise.all(Array.from({ length: count }, (_, index) => runShard({ ...spec, worker: { index, count } }, io)));
      assert.equal(
        JSON.stringify(
          encodePartial(
            mergeParts(
              parts.map((p) => p.partial),
              whole.partial.inputs,
            ),
          ),
        ),
        JSON.stringify(encodePartial(whole.partial)),
        `${count} workers`,
      );
      assert.deepEqual(
        parts.flatMap((p) => p.echoed).sort((a, b) => a.position - b.position),
        whole.echoed,
      );
    }
  });
});
