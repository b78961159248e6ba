/**
 * Clients that connect to the OTLP receiver and then say little or nothing, the ways a slowloris does: nothing at all,
 * half the headers, headers announcing a body that never comes, or a body one byte every 200 ms. A pool keeps a
 * number of them open, opening a new one whenever the receiver cuts one, and keeps its own books: every connection it
 * opened, and how each ended (the status the receiver answered before closing it, or closed without an answer).
 * Each answered cut is one record the receiver counted (`idle_connection`, `request_timeout`, or `shutdown` when it
 * stopped), so the books say what the receiver's counters must hold.
 */
import { createConnection, type Socket } from 'node:net';

/** The ways a client can hold a connection while sending little or nothing. */
export const SLOW_KINDS = {
  /** connects and sends nothing */
  idle: [],
  /** sends part of the request line and headers, then nothing */
  partialHeaders: ['POST /v1/traces HTTP/1.1\r\nHost: x\r\n'],
  /** sends complete headers announcing a body that never comes */
  noBody: ['POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'],
  /** sends complete headers, then the body one byte every 200 ms */
  trickle: ['POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{'],
} as const;
export type SlowKind = keyof typeof SLOW_KINDS;
export const ALL_SLOW_KINDS = Object.keys(SLOW_KINDS) as SlowKind[];

export interface SlowClient {
  readonly kind: SlowKind;
  readonly socket: Socket;
  /** What the receiver sent back, and when (ms after connecting) the connection closed. */
  readonly closed: Promise<{ answer: string; afterMs: number }>;
}

export function slowClient(port: number, kind: SlowKind, localAddress = '127.0.0.1'): SlowClient {
  const started = performance.now();
  const socket = createConnection({ port, host: '127.0.0.1', localAddress });
  let trickle: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    for (const text of SLOW_KINDS[kind]) socket.write(text);
    if (kind === 'trickle') trickle = setInterval(() => socket.write(' '), 200);
  });
  socket.on('error', () => {}); // a reset ends it too; `closed` reports how
  const closed = new Promise<{ answer: string; afterMs: number }>((resolve) => {
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.on('close', () => {
      clearInterval(trickle);
      resolve({ answer, afterMs: performance.now() - started });
    });
  });
  return { kind, socket, closed };
}

/** The status line's code of a raw HTTP answer, or undefined when there was none. */
export function answerStatus(answer: string): string | undefined {
  return /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1];
}

export interface SlowBooks {
  readonly opened: number;
  readonly byKind: Readonly<Record<string, number>>;
  /** Connections the receiver closed, by the status it answered first (`none`: closed without an answer). */
  readonly endings: Readonly<Record<string, number>>;
  /** Records the receiver must have counted for them: one per answered connection. */
  readonly answered: number;
  /** How long after connecting the receiver cut them, by kind: the shortest and the longest. */
  readonly cutAfterMs: Readonly<Record<string, { min: number; max: number }>>;
  readonly stillOpen: number;
}

/** Keeps `size` slow connections open, of the kinds in turn, replacing each one the receiver cuts. */
export class SlowClientPool {
  private readonly open = new Set<SlowClient>();
  private readonly byKind: Record<string, number> = {};
  private readonly endings: Record<string, number> = {};
  private readonly cutAfterMs: Record<string, { min: number; max: number }> = {};
  private opened = 0;
  private replacing = true;
  private readonly drained: Promise<void>;
  private onDrained!: () => void;

  constructor(
    private readonly port: number,
    size: number,
    private readonly kinds: readonly SlowKind[] = ALL_SLOW_KINDS,
  ) {
    this.drained = new Promise((resolve) => (this.onDrained = resolve));
    for (let i = 0; i < size; i++) this.openOne();
  }

  /** Opens no more; resolves with the final books once every connection has closed. */
  async finish(): Promise<SlowBooks> {
    this.replacing = false;
    if (this.open.size > 0) await this.drained;
    return this.books();
  }

  /** For after-hooks: closes whatever is still open. */
  destroy(): void {
    this.replacing = false;
    for (const c of this.open) c.socket.destroy();
  }

  books(): SlowBooks {
    const answered = Object.entries(this.endings).reduce((n, [status, count]) => (status === 'none' ? n : n + count), 0);
    return {
      opened: this.opened,
      byKind: { ...this.byKind },
      endings: { ...this.endings },
      answered,
      cutAfterMs: structuredClone(this.cutAfterMs),
      stillOpen: this.open.size,
    };
  }

  private openOne(): void {
    const kind = this.kinds[this.opened % this.kinds.length]!;
    const client = slowClient(this.port, kind);
    this.opened++;
    this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
    this.open.add(client);
    void client.closed.then(({ answer, afterMs }) => {
      this.open.delete(client);
      const status = answerStatus(answer) ?? 'none';
      this.endings[status] = (this.endings[status] ?? 0) + 1;
      const cut = (this.cutAfterMs[kind] ??= { min: afterMs, max: afterMs });
      cut.min = Math.min(cut.min, afterMs);
      cut.max = Math.max(cut.max, afterMs);
      if (this.replacing) this.openOne();
      else if (this.open.size === 0) this.onDrained();
    });
  }
}
