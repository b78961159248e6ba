/**
 * A LoadClient in its own process, steered over IPC: the test sets rates phase by phase and reads the books at
 * each change. Run directly (`node --import tsx load-client-process.ts '<LoadClientOptions json>'`) it is the child.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LoadClient, type LoadBooks, type LoadClientOptions } from './load-client.js';

type Command = { readonly op: 'rate'; readonly spansPerSecond: number } | { readonly op: 'finish' };
type Reply = { readonly op: 'ready' } | { readonly op: 'books'; readonly books: LoadBooks };

const SELF = fileURLToPath(import.meta.url);
/** A client allocates spans at hundreds of thousands per second: a larger young generation halves its GC work. */
const CLIENT_NODE_OPTIONS = ['--max-semi-space-size=64'];

export class LoadClientProcess {
  private readonly replies: ((reply: Reply) => void)[] = [];
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: Reply) => this.replies.shift()?.(reply));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(options: LoadClientOptions): Promise<LoadClientProcess> {
    const child = fork(SELF, [JSON.stringify(options)], {
      execArgv: ['--import', 'tsx', ...CLIENT_NODE_OPTIONS],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const client = new LoadClientProcess(child);
    await client.reply();
    return client;
  }

  /** Sets the rate (Infinity: as fast as it can); resolves with the books at the moment of the change. */
  async setRate(spansPerSecond: number): Promise<LoadBooks> {
    const reply = this.reply();
    this.send({ op: 'rate', spansPerSecond });
    return ((await reply) as { books: LoadBooks }).books;
  }

  /** Stops producing, waits until what the client holds is exported or given up, and returns the final books. */
  async finish(): Promise<LoadBooks> {
    const reply = this.reply();
    this.send({ op: 'finish' });
    const { books } = (await reply) as { books: LoadBooks };
    await this.exited;
    return books;
  }

  /** For after-hooks. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  private send(command: Command): void {
    this.child.send(command);
  }

  private reply(): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the load client exited (${code}) before it answered`));
      this.child.once('exit', onExit);
      this.replies.push((reply) => {
        this.child.off('exit', onExit);
        resolve(reply);
      });
    });
  }
}

if (process.argv[1] === SELF && process.send) {
  const client = new LoadClient(JSON.parse(process.argv[2]!) as LoadClientOptions);
  const reply = (r: Reply): boolean => process.send!(r);
  process.on('message', (command: Command) => {
    if (command.op === 'rate') reply({ op: 'books', books: client.setRate(command.spansPerSecond) });
    else void client.finish().then((books) => process.send!({ op: 'books', books } satisfies Reply, () => process.exit(0)));
  });
  reply({ op: 'ready' });
}
