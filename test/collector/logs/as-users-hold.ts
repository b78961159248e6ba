/**
 * The real-logger fixtures' lines rewritten the ways users hold an operator's log, from the same lines: with the
 * kubelet's `--timestamps` prefix (kubernetes pkg/kubelet/kuberuntime/logs/logs.go logWriter.write: RFC3339NanoFixed
 * and a space, once per line), as the kubelet's CRI files (`<time> stdout <P|F> <content>`, long lines in `P`
 * fragments), and split over a must-gather-shaped folder of two replicas, each with a previous and a current log.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Each line's kubelet time: its `ts` (the one before for a line without one) plus a nanosecond count, so times rise. */
function kubeletTimes(lines: readonly string[]): string[] {
  let second = '2026-11-01T00:00:00';
  let n = 0;
  return lines.map((line) => {
    const ts = /"ts":"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})Z"/.exec(line)?.[1];
    if (ts !== undefined && ts !== second) [second, n] = [ts, 0];
    n++;
    return `${second}.${String(n * 1000 + 7).padStart(9, '0')}Z`;
  });
}

/** `kubectl logs --timestamps`, and a must-gather's current.log and previous.log. */
export function withTimestamps(lines: readonly string[]): string[] {
  const times = kubeletTimes(lines);
  return lines.map((line, i) => `${times[i]} ${line}`);
}

/** The kubelet's CRI log file: every line framed, lines longer than `fragmentBytes` cut into `P` fragments. */
export function asCri(lines: readonly string[], fragmentBytes: number): string[] {
  const times = kubeletTimes(lines);
  return lines.flatMap((line, i) => {
    const stream = line.startsWith('{') ? 'stderr' : 'stdout';
    const parts: string[] = [];
    for (let at = 0; at < line.length; at += fragmentBytes) parts.push(line.slice(at, at + fragmentBytes));
    if (parts.length === 0) parts.push('');
    return parts.map((p, k) => `${times[i]} ${stream} ${k === parts.length - 1 ? 'F' : 'P'} ${p}`);
  });
}

export interface MustGatherFolder {
  /** The operator's logs written, relative to the folder, in the order the folder search reads them. */
  readonly operatorLogs: readonly string[];
  /** Attempts (reconcileIDs) each operator log holds. */
  readonly attemptsPer: readonly number[];
  /** Other files written (another container's log, a rotated file, a resource). */
  readonly others: readonly string[];
}

const secondOf = (line: string): number | undefined => {
  const ts = /"ts":"([^"]+)"/.exec(line)?.[1];
  return ts === undefined ? undefined : Date.parse(ts) / 1000;
};

/**
 * Writes the lines of one operator run as a must-gather of two replicas would hold them: replica a's previous
 * container leads first, then b's previous one (a restarted meanwhile and waits), then a's current one, while b's
 * current container (restarted last) waits for the lease to the end. Leadership moves at the two widest gaps between
 * attempts in the middle third of the log (a lease expires before another replica takes over). Each attempt's lines
 * stay with the process that wrote its first; a leader's file starts with the controller's start-up lines, a waiting
 * replica's with klog's leader-election line. Every operator log is written with timestamp prefixes, gzipped when
 * `gzip` is given (oc writes them plain; a user may have compressed the folder's files).
 */
export function writeMustGather(dir: string, lines: readonly string[], gzip?: (text: string) => Buffer): MustGatherFolder {
  const startup = lines.filter((l) => /"msg":"Starting (EventSource|Controller|workers)"/.test(l));
  const body = lines.filter((l) => !startup.includes(l));
  // the seconds of the attempts' first lines, and where leadership moves: the widest gaps within the middle third
  const firstSeen = new Map<string, number>();
  const seconds: number[] = [];
  body.forEach((l, i) => {
    const id = /"reconcileID":"([^"]+)"/.exec(l)?.[1];
    if (id !== undefined && !firstSeen.has(id)) {
      firstSeen.set(id, i);
      seconds.push(secondOf(l)!);
    }
  });
  const lo = Math.floor(seconds.length / 3);
  const hi = Math.floor((2 * seconds.length) / 3);
  const gaps = seconds
    .slice(lo, hi)
    .map((s, k) => ({ at: seconds[lo + k + 1]!, width: seconds[lo + k + 1]! - s }))
    .sort((a, b) => b.width - a.width || a.at - b.at)
    .slice(0, 2)
    .map((g) => g.at)
    .sort((a, b) => a - b);
  const [t1, t2] = gaps as [number, number];
  const segment = new Map<string, number>();
  const owner: number[] = [];
  let current = 0;
  body.forEach((l, i) => {
    const id = /"reconcileID":"([^"]+)"/.exec(l)?.[1];
    const s = secondOf(l);
    if (s !== undefined) current = s < t1 ? 0 : s < t2 ? 1 : 2;
    if (id !== undefined) {
      if (firstSeen.get(id) === i) segment.set(id, current);
      owner.push(segment.get(id)!);
    } else owner.push(current);
  });
  const iso = (s: number): string => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
  const restamp = (l: string, s: number): string => l.replace(/"ts":"[^"]+"/, `"ts":"${iso(s)}"`);
  const leading = (from: number, k: number): string[] => [...startup.map((l) => restamp(l, from)), ...body.filter((_, i) => owner[i] === k)];
  const waiting = (from: number): string =>
    `I${iso(from).slice(5, 7)}${iso(from).slice(8, 10)} ${iso(from).slice(11, 19)}.000000       1 leaderelection.go:257] attempting to acquire leader lease hypershift/hypershift-operator-leader-elect...`;
  const start = secondOf(startup[0]!)!;
  const logs: [string, string[]][] = [
    ['a/previous', leading(start, 0)],
    ['a/current', [waiting(t1 - 1), ...leading(t2, 2)]],
    ['b/previous', [waiting(start), ...leading(t1, 1)]],
    ['b/current', [waiting(t2 - 1)]],
  ];
  const operatorLogs: string[] = [];
  const attemptsPer: number[] = [];
  const base = join(dir, 'must-gather.local.4242', 'quay-io-hypershift-sha256-0000');
  for (const [which, content] of logs) {
    const [replica, instance] = which.split('/') as [string, string];
    const pod = `operator-5f8d9c7b6-${replica}x${replica}q`;
    const logsDir = join(base, 'namespaces', 'hypershift', 'pods', pod, 'operator', 'operator', 'logs');
    mkdirSync(logsDir, { recursive: true });
    const text = withTimestamps(content).join('\n') + '\n';
    const file = join(logsDir, `${instance}.log`);
    writeFileSync(file, gzip ? gzip(text) : text);
    operatorLogs.push(file.slice(dir.length + 1));
    attemptsPer.push(new Set(content.map((l) => /"reconcileID":"([^"]+)"/.exec(l)?.[1]).filter((x) => x !== undefined)).size);
  }
  const others = [
    join(base, 'namespaces', 'hypershift', 'pods', 'operator-5f8d9c7b6-axaq', 'operator-5f8d9c7b6-axaq.yaml'),
    join(base, 'namespaces', 'hypershift', 'pods', 'operator-5f8d9c7b6-axaq', 'operator', 'operator', 'logs', 'rotated', '0.log.20261101-010000.gz'),
    join(base, 'namespaces', 'hypershift', 'pods', 'operator-5f8d9c7b6-axaq', 'init-environment', 'init-environment', 'logs', 'current.log'),
    join(base, 'namespaces', 'hypershift', 'pods', 'external-dns-6c9f-zz', 'external-dns', 'external-dns', 'logs', 'current.log'),
  ];
  for (const f of others) {
    mkdirSync(join(f, '..'), { recursive: true });
    writeFileSync(f, f.endsWith('.yaml') ? 'kind: Pod\n' : withTimestamps(startup).join('\n') + '\n');
  }
  return { operatorLogs, attemptsPer, others: others.map((f) => f.slice(dir.length + 1)) };
}
