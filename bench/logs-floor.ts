/**
 * The least any log source must do per line of the log source row's input, measured beside the row as its floor.
 *
 * The row asks for attempts from controller-runtime's JSON lines. Whatever else a source does, it has to split the
 * lines, parse each one (a byte scanner in JavaScript read these lines slower than `JSON.parse`; bench/README.md),
 * find the attempt a line belongs to by its reconcileID, hold the attempt until the log is two seconds past its last line
 * (its partners are written together), remember the reconcileIDs it handed on (10,000, as the source does) to know a
 * late line from a new attempt, and hand on one record per attempt, its operations looked up by its error text.
 * This does that and nothing more: no field checks, redaction, sampling detection, loop detection or books, and a
 * reading per error text is a constant. It reads only this bench's well-formed log; it is not a log source.
 */
import { LineSplitter } from '../collector/input/lines.js';
import type { AttemptRecord, OperationRecord } from '../collector/records.js';

const END_MESSAGES = new Set(['successfully reconciled', 'Reconciler error', 'reconciliation completed with errors', 'reconciliation is blocked']);
const HOLD_SECONDS = 2;
const RECENT_IDS = 10_000;
const NO_OPERATIONS: readonly OperationRecord[] = Object.freeze([]);

interface Held {
  readonly id: string;
  readonly time: string;
  readonly timeMs: number;
  /** Of its last line. */
  second: number;
  readonly controller: string;
  readonly object: string;
  readonly where: string;
  error: string | undefined;
}

/** Attempts handed to `attempt` from one pass over `text`; returns how many. */
export function floorPass(text: Buffer, attempt: (record: AttemptRecord) => void): number {
  const open = new Map<string, Held>();
  const queue: Held[] = [];
  const recent = new Set<string>();
  const recentOrder: string[] = [];
  let recentOldest = 0;
  const readings = new Map<string, readonly OperationRecord[]>();
  let lastTime = '';
  let lastMs = 0;
  let attempts = 0;

  const handOn = (h: Held): void => {
    open.delete(h.id);
    if (recentOrder.length < RECENT_IDS) recentOrder.push(h.id);
    else {
      recent.delete(recentOrder[recentOldest]!);
      recentOrder[recentOldest] = h.id;
      recentOldest = (recentOldest + 1) % RECENT_IDS;
    }
    recent.add(h.id);
    let operations = h.error === undefined ? NO_OPERATIONS : readings.get(h.error);
    if (operations === undefined) readings.set(h.error!, (operations = NO_OPERATIONS));
    const origin = { source: 'logs' as const, reconcileID: h.id, where: h.where };
    attempt({ time: h.time, timeMs: h.timeMs, controller: h.controller, object: h.object, loop: 'sequential', operations, origin });
    attempts++;
  };

  const splitter = new LineSplitter({
    line(line, lineNo) {
      if (!line.startsWith('{')) return;
      const v = JSON.parse(line) as Record<string, unknown>;
      if (!END_MESSAGES.has(v.msg as string)) return;
      const id = v.reconcileID as string;
      if (recent.has(id)) return;
      const ts = v.ts as string;
      if (ts !== lastTime) lastMs = Date.parse((lastTime = ts));
      const second = Math.floor(lastMs / 1000);
      const held = open.get(id);
      if (held) {
        held.second = second;
        held.error ??= v.error as string | undefined;
        return;
      }
      const ref = v.HostedCluster as { name: string; namespace: string };
      const h: Held = {
        id,
        time: ts,
        timeMs: lastMs,
        second,
        controller: v.controller as string,
        object: `${ref.namespace}/${ref.name}`,
        where: `stdin:${lineNo}`,
        error: v.error as string | undefined,
      };
      open.set(id, h);
      queue.push(h);
      while (queue.length > 0 && queue[0]!.second + HOLD_SECONDS <= second) handOn(queue.shift()!);
    },
    tooLong: () => undefined,
  });
  splitter.push(text);
  splitter.end();
  for (const h of queue) handOn(h);
  return attempts;
}
