/** Shards by object: the documented hash, `--shard i/n`, and a log source's view of one shard (ShardSink). */
import { strict as assert } from 'node:assert';
import type { AttemptRecord, Rejection, SourceInputSummary } from '../../collector/records.js';
import { ShardSink } from '../../cli/shard-sink.js';
import { lineHash, objectHash, objectHashOfAscii, ownsHash, parseShard } from '../../collector/input/shard.js';

describe('shards by object', () => {
  it('hashes as docs/partial.md documents it (values from an independent implementation)', () => {
    // Computed with the few lines of Python in docs/partial.md; its FNV-1a part gives the published test vectors
    // (FNV-1a-32 of "a" is 0xe40c292c, of "foobar" 0xbf9cf968) and its finalizer murmur3's (fmix32(1) = 0x514e28b7).
    assert.equal(objectHash('hostedcluster', 'clusters/demo-1'), 2122175058);
    assert.equal(objectHash('hostedcluster', 'clusters/demo-2'), 2506769871);
    assert.equal(objectHash('postgrescluster', 'db/orders'), 925884200);
    assert.equal(objectHash('hostedcluster', 'clusters/é-ü'), 2617038083);
    assert.equal(lineHash(1), 0x514e28b7);
    assert.equal(lineHash(17), 3637550824);
  });

  it('hashes an ASCII controller and object in place in the bytes as objectHash does, and declines any other byte', () => {
    const bytes = Buffer.from('{"controller":"hostedcluster","object":"clusters/demo-1"}');
    const at = (s: string): [number, number] => [bytes.indexOf(s), bytes.indexOf(s) + s.length];
    assert.equal(objectHashOfAscii(bytes, ...at('hostedcluster'), ...at('clusters/demo-1')), 2122175058);
    const wide = Buffer.from('hostedcluster clusters/é-ü');
    assert.equal(objectHashOfAscii(wide, 0, 13, 14, wide.length), undefined);
  });

  it('spreads a fleet evenly: 10,000 objects over 8 shards, each within 10 % of its share', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 10_000; i++) counts[objectHash('hostedcluster', `clusters-${i % 37}/hc-${i}`) % 8]!++;
    for (const c of counts) assert.ok(Math.abs(c - 1250) < 125, `${counts.join(' ')}`);
  });

  it('reads --shard i/n, 0-based as a Job completion index, and names what it accepts', () => {
    assert.deepEqual(parseShard('0/4'), { index: 0, count: 4 });
    assert.deepEqual(parseShard('3/4'), { index: 3, count: 4 });
    for (const bad of ['4/4', '1/0', '-1/3', '1', 'a/b', '1/2/3', '0/65537'])
      assert.throws(() => parseShard(bad), /--shard ".*": expected i\/n with 0 <= i < n <= 65536/);
    assert.equal(ownsHash({ index: 2, count: 4 }, 2122175058), true);
  });
});

describe('ShardSink: one shard of a source that reads the whole input', () => {
  const attempt = (object: string): AttemptRecord => ({
    time: '2026-11-29T10:00:00Z',
    timeMs: Date.parse('2026-11-29T10:00:00Z'),
    controller: 'hostedcluster',
    object,
    loop: 'sequential',
    operations: [],
    origin: { source: 'logs' },
  });
  const rejection: Rejection = { source: 'logs', reason: 'late_line', where: 'op.log:9', message: 'late' };

  function run(index: number, count: number) {
    const got = { attempts: [] as string[], rejected: [] as [string, number][], received: 0, summaries: 0 };
    const sink = new ShardSink(
      {
        attempt: (r) => got.attempts.push(r.object),
        reject: (r) => got.rejected.push([r.where, sink.position]),
        received: (_s, n) => (got.received += n),
        inputSummary: () => got.summaries++,
      },
      { index, count },
    );
    sink.inputSummary('logs', () => ({}) as SourceInputSummary);
    for (const object of ['clusters/demo-1', 'clusters/demo-2']) {
      sink.received('logs', 3);
      sink.attempt(attempt(object));
    }
    sink.reject(rejection);
    return got;
  }

  it('passes on its objects’ attempts, and the source’s books (received, rejections, input summary) in shard 0 only', () => {
    // demo-1 hashes to shard 2 of 4 and demo-2 to 3 (see above).
    assert.deepEqual(run(2, 4), { attempts: ['clusters/demo-1'], rejected: [], received: 0, summaries: 0 });
    assert.deepEqual(run(3, 4), { attempts: ['clusters/demo-2'], rejected: [], received: 0, summaries: 0 });
    // The rejection is the source's third output in every shard: its position.
    assert.deepEqual(run(0, 4), { attempts: [], rejected: [['op.log:9', 3]], received: 6, summaries: 1 });
  });
});
