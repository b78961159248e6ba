/**
 * A worker thread of `--workers`: runs one worker's part of a shard (shard-run.ts) and posts back its partial summary
 * as JSON text, its echoed rejections and anything it wrote to stderr, or the error that stopped it.
 */
import { Readable, Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { encodePartial } from '../analyzer/partial/format.js';
import { runShard, type EchoedRejection, type ShardSpec } from './shard-run.js';

export type WorkerReply =
  | { readonly ok: true; readonly partial: string; readonly echoed: readonly EchoedRejection[]; readonly stderr: string }
  | { readonly ok: false; readonly error: string; readonly stderr: string };

let stderr = '';
const io = {
  stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
  stderr: new Writable({
    write(chunk: Buffer, _encoding, done) {
      stderr += chunk.toString();
      done();
    },
  }),
  stdin: Readable.from([]),
};

let reply: WorkerReply;
try {
  const outcome = await runShard(workerData as ShardSpec, io);
  reply = { ok: true, partial: JSON.stringify(encodePartial(outcome.partial)), echoed: outcome.echoed, stderr };
} catch (e) {
  reply = { ok: false, error: (e as Error).message, stderr };
}
parentPort!.postMessage(reply);
