/**
 * The kubelet's container log files (/var/log/pods/<ns>_<pod>_<uid>/<container>/N.log, the CRI format) frame every
 * line as `<RFC3339Nano time> <stdout|stderr> <P|F> <content>`; a line longer than the runtime's buffer (16 KiB in
 * containerd and CRI-O) is split into `P` (partial) fragments closed by an `F` (full) one. A node-level sidecar
 * reading those files gets this framing, so the file and stdin inputs unwrap it: a framed line is handed on as its
 * content, fragments joined. An unframed line (the operator's own JSON, written to a file or piped) passes as it is;
 * a zap line starts with `{`, so it can never be mistaken for a frame.
 */
import type { LineConsumer } from './file-follower.js';

const FRAME = /^\d{4}-\d{2}-\d{2}T[^ ]+ (?:stdout|stderr) ([PF])(?: (.*))?$/s;

/** Wraps a consumer so that CRI-framed lines reach it as their content, with `P` fragments joined. */
export function unwrapCriFrames(consumer: LineConsumer, maxLineBytes: number): LineConsumer {
  let fragments: string[] = [];
  let bytes = 0;
  return {
    line(text, where) {
      const frame = FRAME.exec(text);
      if (!frame) {
        consumer.line(text, where);
        return;
      }
      const content = frame[2] ?? '';
      bytes += Buffer.byteLength(content);
      // Past the limit the fragments are only counted, so a runaway line cannot hold memory.
      if (bytes <= maxLineBytes) fragments.push(content);
      else fragments = [];
      if (frame[1] === 'P') return;
      const joined = fragments.join('');
      const total = bytes;
      fragments = [];
      bytes = 0;
      if (total > maxLineBytes) consumer.tooLong(where, total);
      else consumer.line(joined, where);
    },
    tooLong: (where, n) => consumer.tooLong(where, n),
  };
}
