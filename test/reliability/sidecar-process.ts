/**
 * `reconcile-shadow run --config <file>` as a child process, the way it runs in a pod (compiled JavaScript, the
 * deployment's NODE_OPTIONS): the load tests read its memory from /proc, its counters from its own /metrics, and stop
 * it with a real SIGTERM. Both listeners bind port 0; the metrics port is read from the startup log, the OTLP port
 * from the process's listening sockets in /proc (the log does not name it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sidecarPatch } from '../../deploy/sidecar-patch.js';
import { REPO } from '../support/paths.js';
import { compiledCli } from './compiled-sidecar.js';

export interface SidecarExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class SidecarProcess {
  private stderrText = '';
  readonly exited: Promise<SidecarExit>;

  private constructor(
    private readonly child: ChildProcess,
    readonly metricsPort: number,
    readonly otlpPort: number,
    stderrSoFar: string,
  ) {
    this.stderrText = stderrSoFar;
    child.stderr!.on('data', (c: Buffer) => (this.stderrText += c.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts the sidecar on `configYaml` with `nodeOptions` and resolves once it logged every source as started. */
  static async start(configYaml: string, nodeOptions: readonly string[], timeoutMs = 20_000): Promise<SidecarProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'shadow-load-'));
    const config = join(dir, 'shadow.yaml');
    writeFileSync(config, configYaml);
    // no OTEL_* from the environment: the sidecar's own trace output stays off and the figures are its own
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    const child = spawn(process.execPath, [...nodeOptions, compiledCli(), 'run', '--config', config], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    const metricsPort = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`the sidecar did not start within ${timeoutMs} ms:\n${log}`)), timeoutMs);
      const onData = (c: Buffer): void => {
        log += c.toString();
        const port = /metrics http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(log);
        if (port && log.includes('source: otlp')) {
          cleanup();
          resolve(Number(port[1]));
        }
      };
      const onExit = (code: number | null): void => fail(new Error(`the sidecar exited (${code}) before it started:\n${log}`));
      const cleanup = (): void => {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.off('exit', onExit);
      };
      const fail = (e: Error): void => {
        cleanup();
        child.kill('SIGKILL');
        reject(e);
      };
      child.stderr.on('data', onData);
      child.once('exit', onExit);
    });
    const otlpPort = listeningPorts(child.pid!).find((p) => p !== metricsPort);
    if (otlpPort === undefined) {
      child.kill('SIGKILL');
      throw new Error(`the sidecar (pid ${child.pid}) listens on no port besides metrics ${metricsPort}`);
    }
    return new SidecarProcess(child, metricsPort, otlpPort, log);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get stderr(): string {
    return this.stderrText;
  }

  get otlpUrl(): string {
    return `http://127.0.0.1:${this.otlpPort}/v1/traces`;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.metricsPort}${path}`;
  }

  /** Resident memory now (VmRSS) and its peak so far (VmHWM), in bytes; undefined once the process is gone. */
  memory(): { rss: number; peak: number } | undefined {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kB = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN) * 1024;
      const memory = { rss: kB('VmRSS'), peak: kB('VmHWM') };
      // a process that has exited but not been reaped yet has a status without memory lines
      return Number.isNaN(memory.rss) || Number.isNaN(memory.peak) ? undefined : memory;
    } catch {
      return undefined;
    }
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** For after-hooks: gone for sure, whatever state it was left in. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** TCP ports a process listens on: its socket inodes (/proc/<pid>/fd) matched against LISTEN rows of /proc/net/tcp{,6}. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed between listing and reading
    }
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const row of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode; st 0A is LISTEN
      if (cols.length > 9 && cols[3] === '0A' && inodes.has(cols[9]!)) ports.push(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** How the deployment runs the sidecar container (deploy/sidecar-patch.ts): its NODE_OPTIONS and resource limits. */
export interface DeployedContainer {
  readonly nodeOptions: readonly string[];
  readonly cpuLimitCores: number;
  readonly memoryLimitBytes: number;
}

export function deployedContainer(): DeployedContainer {
  const patch = sidecarPatch({ deployment: 'operator', namespace: 'ns', operatorVolumeMounts: [] }) as {
    spec: { template: { spec: { containers: { env: { name: string; value?: string }[]; resources: { limits: { cpu: string; memory: string } } }[] } } };
  };
  const container = patch.spec.template.spec.containers[0]!;
  const nodeOptions = container.env.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
  const { cpu, memory } = container.resources.limits;
  return {
    nodeOptions: nodeOptions.split(/\s+/).filter((o) => o !== ''),
    cpuLimitCores: cpu.endsWith('m') ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu),
    memoryLimitBytes: Number(/^(\d+)Mi$/.exec(memory)?.[1] ?? NaN) * 1024 * 1024,
  };
}
