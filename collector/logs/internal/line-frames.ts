/**
 * The framings a container's log line reaches us in, detected per line (an input may mix them):
 *   - none: the operator's own zap JSON, as written to a file or piped (`{…}`);
 *   - CRI: the kubelet's container log files (/var/log/pods/<ns>_<pod>_<uid>/<container>/N.log, and a must-gather's
 *     `logs/rotated/` copies of them) frame every line as `<RFC3339Nano time> <stdout|stderr> <P|F> <content>`; a line
 *     longer than the runtime's buffer (16 KiB in containerd and CRI-O) is split into `P` (partial) fragments closed by
 *     an `F` (full) one;
 *   - a timestamp prefix: `kubectl logs --timestamps`, and a must-gather's `current.log`/`previous.log` (openshift/oc
 *     pkg/cli/admin/inspect/pod.go gatherContainerLogs asks for `Timestamps: true`), are `<time> <content>`: the
 *     kubelet writes the time as RFC3339NanoFixed (kubernetes pkg/kubelet/kuberuntime/logs/logs.go logWriter.write,
 *     `timeFormatOut`), once per line, fragments already joined.
 * A framed line is handed on as its content, fragments joined; the line's own `ts` stays the time the source reads,
 * so a log gives the same attempts however it was framed. Only a line whose first character is a digit can be
 * framed (zap's starts with `{`, klog's with its severity letter), so an unframed line costs one character test.
 */
import type { LineConsumer } from './file-follower.js';

const CRI_FRAME = /^\d{4}-\d{2}-\d{2}T[^ ]+ (?:stdout|stderr) ([PF])(?: (.*))?$/s;
/** RFC 3339 with any fraction, `Z` or an offset, then one space. */
const TIME_PREFIX = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) /;

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;

/** Wraps a consumer so that CRI-framed and timestamp-prefixed lines reach it as their content, `P` fragments joined. */
export function unwrapLineFrames(consumer: LineConsumer, maxLineBytes: number): LineConsumer {
  let fragments: string[] = [];
  let bytes = 0;
  return {
    line(text, where) {
      if (!isDigit(text.charCodeAt(0))) {
        consumer.line(text, where);
        return;
      }
      const frame = CRI_FRAME.exec(text);
      if (!frame) {
        const prefix = TIME_PREFIX.exec(text);
        consumer.line(prefix ? text.slice(prefix[0].length) : text, where);
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
