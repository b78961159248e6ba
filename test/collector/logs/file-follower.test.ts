import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileFollower, type FileFollowerOptions } from '../../../collector/logs/internal/file-follower.js';
import { until } from '../../support/until.js';

/** Lines as `where text`. */
class Lines {
  readonly got: string[] = [];
  readonly errors: Error[] = [];
  readonly consumer = {
    line: (text: string, where: string): void => void this.got.push(`${where} ${text}`),
    tooLong: (where: string, bytes: number): void => void this.got.push(`${where} <too long: ${bytes} bytes>`),
  };

  take(): string[] {
    return this.got.splice(0);
  }
}

describe('FileFollower: a log file followed across rotation', () => {
  let dir: string;
  let path: string;
  const followers: FileFollower[] = [];

  function follow(lines: Lines, options: Partial<FileFollowerOptions> = {}): FileFollower {
    const f = new FileFollower(
      { path, startAt: 'beginning', maxLineBytes: 1024, watch: false, onError: (e) => lines.errors.push(e), ...options },
      lines.consumer,
    );
    followers.push(f);
    return f;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'log-follower-'));
    path = join(dir, 'operator.log');
  });

  afterEach(async () => {
    for (const f of followers.splice(0)) await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads what is there, and a last line without its newline waits for the rest', async () => {
    writeFileSync(path, 'one\ntw');
    const lines = new Lines();
    const f = follow(lines);
    await f.start();
    assert.deepEqual(lines.take(), [`${path}:1 one`]);
    appendFileSync(path, 'o\nthree\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:2 two`, `${path}:3 three`]);
    await f.poll();
    assert.deepEqual(lines.take(), []);
  });

  it('rename + create: finishes the old file (what the writer added before the switch), then reads the new one from its start', async () => {
    writeFileSync(path, 'a1\n');
    const lines = new Lines();
    const f = follow(lines);
    await f.start();
    appendFileSync(path, 'a2\n');
    renameSync(path, `${path}.1`);
    appendFileSync(`${path}.1`, 'a3\n');
    writeFileSync(path, 'b1\nb2\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:1 a1`, `${path}:2 a2`, `${path}:3 a3`, `${path}:1 b1`, `${path}:2 b2`]);
    assert.deepEqual(f.rotations, { renamed: 1, truncated: 0 });
    assert.deepEqual(lines.errors, []);
  });

  it('rename while a line is unfinished: that line is handed on as it is, never dropped', async () => {
    writeFileSync(path, 'a1\n{"level":"info","ts"');
    const lines = new Lines();
    const f = follow(lines);
    await f.start();
    renameSync(path, `${path}.1`);
    writeFileSync(path, 'b1\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:1 a1`, `${path}:2 {"level":"info","ts"`, `${path}:1 b1`]);
  });

  it('between a rename and the new file: keeps reading the renamed file', async () => {
    writeFileSync(path, 'a1\n');
    const lines = new Lines();
    const f = follow(lines);
    await f.start();
    renameSync(path, `${path}.1`);
    appendFileSync(`${path}.1`, 'a2\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:1 a1`, `${path}:2 a2`]);
    writeFileSync(path, 'b1\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:1 b1`]);
  });

  it('copytruncate: the file shrinks under the same inode, and reading restarts at its first byte', async () => {
    writeFileSync(path, 'a1\na2\na3\n');
    const lines = new Lines();
    const f = follow(lines);
    await f.start();
    truncateSync(path, 0);
    appendFileSync(path, 'b1\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:1 a1`, `${path}:2 a2`, `${path}:3 a3`, `${path}:1 b1`]);
    assert.deepEqual(f.rotations, { renamed: 0, truncated: 1 });
  });

  it('copytruncate refilled past the offset between two polls: changed bytes before the offset reveal it', async () => {
    writeFileSync(path, 'a1\na2\n');
    const lines = new Lines();
    const f = follow(lines);
    await f.start();
    truncateSync(path, 0);
    appendFileSync(path, 'b1 is longer\nb2\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:1 a1`, `${path}:2 a2`, `${path}:1 b1 is longer`, `${path}:2 b2`]);
    assert.equal(f.rotations.truncated, 1);
  });

  it('resumes after a restart at the saved position, with true line numbers; a rotated file starts over', async () => {
    writeFileSync(path, 'a1\na2\npart');
    const first = new Lines();
    const f = follow(first);
    await f.start();
    const position = f.position()!;
    assert.equal(position.offset, 6);
    await f.close();
    appendFileSync(path, 'ial\na4\n');
    const second = new Lines();
    await follow(second, { resumeFrom: position }).start();
    assert.deepEqual(second.take(), [`${path}:3 partial`, `${path}:4 a4`]);
    renameSync(path, `${path}.1`);
    writeFileSync(path, 'b1\n');
    const third = new Lines();
    await follow(third, { resumeFrom: position }).start();
    assert.deepEqual(third.take(), [`${path}:1 b1`]);
  });

  it('startAt end: only lines written after the start, numbered as in the file', async () => {
    writeFileSync(path, 'old1\nold2\n');
    const lines = new Lines();
    const f = follow(lines, { startAt: 'end' });
    await f.start();
    appendFileSync(path, 'new\n');
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:3 new`]);
  });

  it('waits for a file that does not exist yet, and refuses an over-long line naming it', async () => {
    const lines = new Lines();
    const f = follow(lines);
    await f.start();
    assert.equal(f.position(), undefined);
    writeFileSync(path, `${'x'.repeat(2000)}\nshort\n`);
    await f.poll();
    assert.deepEqual(lines.take(), [`${path}:1 <too long: 2000 bytes>`, `${path}:2 short`]);
  });

  it('reads on directory events (inotify) without a poll call', async () => {
    writeFileSync(path, '');
    const lines = new Lines();
    await follow(lines, { watch: true }).start();
    appendFileSync(path, 'written\n');
    // no poll call says when the lines are read: wait for them
    await until('the line written', () => lines.got.length === 1, { describe: () => JSON.stringify(lines.got) });
    renameSync(path, `${path}.1`);
    writeFileSync(path, 'after rotation\n');
    await until('the line after rotation', () => lines.got.length === 2, { describe: () => JSON.stringify(lines.got) });
    assert.deepEqual(lines.take(), [`${path}:1 written`, `${path}:1 after rotation`]);
  });
});
