/**
 * A real Prometheus (Debian's /usr/bin/prometheus) for end-to-end tests: loopback only, its own temporary storage,
 * 1 s scrape and evaluation intervals, a free port. stop() kills it and removes its files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { until } from '../support/until.js';

export interface PrometheusAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly state: 'pending' | 'firing';
  readonly value: string;
}

/** One series of an instant query's vector result. */
export interface PrometheusSample {
  readonly metric: Record<string, string>;
  /** [unix seconds, value as text] */
  readonly value: [number, string];
}

/** What `/api/v1/query` or `/api/v1/query_range` answered, error or not. */
export interface Evaluation {
  readonly status: 'success' | 'error';
  readonly error?: string;
  readonly data?: {
    readonly resultType: string;
    readonly result: readonly { readonly metric: Record<string, string>; readonly value?: [number, string]; readonly values?: [number, string][] }[];
  };
}

/** A rule as `/api/v1/rules` reports it. */
export interface PrometheusRule {
  readonly name: string;
  readonly health: string;
  readonly lastError?: string;
  readonly type: string;
}

export interface RunningPrometheus {
  readonly url: string;
  alerts(): Promise<PrometheusAlert[]>;
  /** An instant query (`/api/v1/query`) at the current time; its vector result. */
  query(expr: string): Promise<PrometheusSample[]>;
  /** An instant query at the current time, or a range query over [start, end] (Unix seconds) with `step`. */
  evaluate(expr: string, range?: { start: number; end: number; step: string }): Promise<Evaluation>;
  /** `/api/v1/label/<label>/values` among the series `match` selects. */
  labelValues(label: string, match: string): Promise<string[]>;
  /** Every rule of every group, as loaded and last evaluated. */
  rules(): Promise<PrometheusRule[]>;
  stop(): Promise<void>;
}

export interface PrometheusSetup {
  readonly rules: string;
  readonly job: string;
  readonly target: string;
  /** Labels every series of the target gets, as a ServiceMonitor adds `namespace`, `pod`, `service`. */
  readonly targetLabels?: Record<string, string>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startPrometheus(setup: PrometheusSetup): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-prometheus-'));
  writeFileSync(join(dir, 'rules.yaml'), setup.rules);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: ['rules.yaml'],
      // honor_labels as the shipped ServiceMonitor: the stuck series' own `namespace` label wins.
      scrape_configs: [
        {
          job_name: setup.job,
          honor_labels: true,
          static_configs: [{ targets: [setup.target], ...(setup.targetLabels ? { labels: setup.targetLabels } : {}) }],
        },
      ],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child = spawn(
    '/usr/bin/prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // an error thrown by the check (Prometheus exited) ends the wait at once
    await until(
      `Prometheus to be ready on ${url}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`Prometheus exited with code ${child.exitCode}: ${log}`);
        const response = await fetch(`${url}/-/ready`).catch(() => undefined);
        return response?.ok === true;
      },
      { timeoutMs: 15_000, intervalMs: 100, describe: () => `log: ${log}` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    async alerts() {
      const body = (await (await fetch(`${url}/api/v1/alerts`)).json()) as { data: { alerts: PrometheusAlert[] } };
      return body.data.alerts;
    },
    async query(expr) {
      const body = (await (await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`)).json()) as {
        data: { result: PrometheusSample[] };
      };
      return body.data.result;
    },
    async evaluate(expr, range) {
      const params: Record<string, string> = range ? { query: expr, start: String(range.start), end: String(range.end), step: range.step } : { query: expr };
      const path = range ? 'query_range' : 'query';
      return (await (await fetch(`${url}/api/v1/${path}`, { method: 'POST', body: new URLSearchParams(params) })).json()) as Evaluation;
    },
    async labelValues(label, match) {
      const body = (await (await fetch(`${url}/api/v1/label/${label}/values?${new URLSearchParams({ 'match[]': match }).toString()}`)).json()) as {
        data: string[];
      };
      return body.data;
    },
    async rules() {
      const body = (await (await fetch(`${url}/api/v1/rules`)).json()) as { data: { groups: { rules: PrometheusRule[] }[] } };
      return body.data.groups.flatMap((g) => g.rules);
    },
    stop,
  };
}
