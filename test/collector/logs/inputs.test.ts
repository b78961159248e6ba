/**
 * The inputs a user holds, found and opened (collector/logs/inputs.ts), and several merged by time
 * (collector/logs/internal/merge.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { decompressed, findOperatorLogs, HYPERSHIFT_OPERATOR_CONTAINER, parseOperatorContainer } from '../../../collector/logs/inputs.js';
import { mergeByTime } from '../../../collector/logs/internal/merge.js';

const text = async (r: Readable): Promise<string> => {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
};

describe('findOperatorLogs: a must-gather folder searched for the operator container’s logs', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'find-logs-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const put = (path: string, content = 'x\n'): string => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
    return join(dir, path);
  };
  const pod = (name: string, container = 'operator'): string => `mg/namespaces/hypershift/pods/${name}/${container}/${container}/logs`;

  it('reads each pod’s previous then current log (plain, gzip or oc’s insecure retry), and skips the rest with why', async () => {
    const bCurrent = put(`${pod('operator-b')}/current.log.gz`);
    const aCurrentFirst = put(`${pod('operator-a')}/current.log`, '');
    const aCurrent = put(`${pod('operator-a')}/current.insecure.log`);
    const aPrevious = put(`${pod('operator-a')}/previous.log`);
    const init = put(`${pod('operator-a', 'init-environment')}/current.log`);
    const rotated = put(`${pod('operator-a')}/rotated/0.log.20261101-000000.gz`);
    const stray = put('mg/operator.log');
    put('mg/namespaces/hypershift/pods/operator-a/operator-a.yaml');
    put('mg/namespaces/hypershift/core/events.yaml');
    const found = await findOperatorLogs(dir, HYPERSHIFT_OPERATOR_CONTAINER);
    assert.deepEqual(
      found.read.map((f) => [f.path, f.pod, f.instance]),
      [
        [aPrevious, 'operator-a', 'previous'],
        [aCurrent, 'operator-a', 'current'],
        [bCurrent, 'operator-b', 'current'],
      ],
    );
    assert.deepEqual(found.skipped, [
      { path: init, why: "another container: hypershift/operator-a/init-environment (the operator's is hypershift/*/operator)" },
      {
        path: rotated,
        why: 'a kubelet-rotated file (oc adm inspect --rotated-pod-logs): older lines of hypershift/operator-a/operator; give it with --logs FILE to read it too',
      },
      {
        path: stray,
        why: 'not where a must-gather keeps a container log (namespaces/<ns>/pods/<pod>/<container>/<container>/logs/); give it with --logs FILE to read it',
      },
      { path: aCurrentFirst, why: `oc adm inspect fetched this log again as ${aCurrent} (the first fetch failed: this one is empty or cut)` },
    ]);
    assert.equal(found.otherFiles, 2);
  });

  it('refuses a pod with two logs of one container instance, naming both; another container is chosen by --container', async () => {
    const plain = put(`${pod('operator-a')}/current.log`);
    const zipped = put(`${pod('operator-a')}/current.log.gz`);
    await assert.rejects(findOperatorLogs(dir, HYPERSHIFT_OPERATOR_CONTAINER), {
      message: `${dir}: hypershift/operator-a has two current logs of operator (${plain}, ${zipped}); give the one to read with --logs FILE`,
    });
    const other = put('mg/namespaces/clusters-x/pods/cpo-1/control-plane-operator/control-plane-operator/logs/current.log');
    const found = await findOperatorLogs(dir, parseOperatorContainer('clusters-x/control-plane-operator')!);
    assert.deepEqual([found.read.map((f) => f.path), found.skipped.length], [[other], 2]);
    assert.deepEqual(
      [parseOperatorContainer('operator'), parseOperatorContainer('a/b/c'), parseOperatorContainer('a/b')],
      [undefined, undefined, { namespace: 'a', container: 'b' }],
    );
  });
});

describe('decompressed: gzip known by its first two bytes', () => {
  it('passes plain bytes through (also fewer than two, and none), gunzips every member of a gzip stream', async () => {
    assert.equal(await text(decompressed(Readable.from([Buffer.from('{"a":1}\n')]))), '{"a":1}\n');
    assert.equal(await text(decompressed(Readable.from([Buffer.from('{')]))), '{');
    assert.equal(await text(decompressed(Readable.from([]))), '');
    const members = Buffer.concat([gzipSync('one\n'), gzipSync('two\n')]);
    assert.equal(await text(decompressed(Readable.from([members.subarray(0, 1), members.subarray(1)]))), 'one\ntwo\n');
  });

  it('fails on a damaged gzip stream rather than reading it as text', async () => {
    const damaged = Buffer.from(gzipSync('a line\n'.repeat(100)));
    damaged.fill(0xff, 10, 20);
    await assert.rejects(text(decompressed(Readable.from([damaged]))), /invalid|incorrect|header|unexpected/i);
  });
});

describe('mergeByTime: several inputs as one, in the order of their lines’ ts', () => {
  const zap = (ts: string, msg: string): string => JSON.stringify({ level: 'info', ts, msg });
  const run = async (inputs: string[][]): Promise<string[]> => {
    const out: string[] = [];
    await mergeByTime(
      inputs.map((lines, i) => ({ stream: Readable.from(lines.length === 0 ? [] : [Buffer.from(lines.join('\n') + '\n')]), name: `in${i}` })),
      {
        line: (t, where, input) => out.push(`${input} ${where} ${t.startsWith('{') ? (JSON.parse(t) as { msg: string }).msg : t}`),
        tooLong: (where, bytes, input) => out.push(`${input} ${where} too long (${bytes})`),
        inputEnded: (input) => out.push(`${input} ended`),
      },
      { timeField: 'ts', maxLineBytes: 200, stopped: () => false },
    );
    return out;
  };

  it('interleaves by time; on a tie the input given first goes first; a line without ts stays after its predecessor; each input keeps its order', async () => {
    const a = [
      zap('2026-11-01T00:00:01Z', 'a1'),
      'I1101 klog line of a',
      zap('2026-11-01T00:00:03Z', 'a3'),
      zap('2026-11-01T00:00:02Z', 'a2 late'),
      `2026-11-01T00:00:05.000000001Z ${zap('2026-11-01T00:00:05Z', 'a5 prefixed')}`,
    ];
    const b = [
      zap('2026-11-01T00:00:01Z', 'b1'),
      zap('2026-11-01T00:00:02Z', 'b2'),
      `2026-11-01T00:00:04.5Z stdout F ${zap('2026-11-01T00:00:04Z', 'b4 cri')}`,
      `{"ts":1793491206.5,"msg":"b6 epoch"}`,
    ];
    assert.deepEqual(await run([a, b]), [
      '0 in0:1 a1',
      '0 in0:2 I1101 klog line of a',
      '1 in1:1 b1',
      '1 in1:2 b2',
      '0 in0:3 a3',
      '0 in0:4 a2 late',
      '1 in1:3 b4 cri',
      '0 in0:5 a5 prefixed',
      '0 ended',
      '1 in1:4 b6 epoch',
      '1 ended',
    ]);
  });

  it('hands on a line too long in its place, and an empty input ends first', async () => {
    const long = JSON.stringify({ ts: '2026-11-01T00:00:02Z', msg: 'x'.repeat(300) });
    assert.deepEqual(await run([[zap('2026-11-01T00:00:01Z', 'a1'), long, zap('2026-11-01T00:00:03Z', 'a3')], [], [zap('2026-11-01T00:00:02Z', 'c2')]]), [
      '1 ended',
      '0 in0:1 a1',
      '0 in0:2 too long (338)',
      '2 in2:1 c2',
      '2 ended',
      '0 in0:3 a3',
      '0 ended',
    ]);
  });
});
