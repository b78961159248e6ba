/**
 * Samples the sidecar's /healthz and /metrics every `intervalMs` while a load runs, as the kubelet and Prometheus
 * would, and keeps the slowest answer of each: the event loop must stay responsive under load.
 */
export interface ProbeFigures {
  readonly samples: number;
  readonly maxMs: Readonly<Record<string, number>>;
  /** Answers other than 200, or none within the timeout. */
  readonly failures: readonly string[];
}

export class Probe {
  private readonly maxMs: Record<string, number> = {};
  private readonly failures: string[] = [];
  private samples = 0;
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly urls: readonly string[],
    private readonly intervalMs = 200,
    private readonly timeoutMs = 5_000,
  ) {
    for (const url of urls) this.maxMs[new URL(url).pathname] = 0;
    this.done = this.loop();
  }

  async stop(): Promise<ProbeFigures> {
    this.running = false;
    await this.done;
    return { samples: this.samples, maxMs: { ...this.maxMs }, failures: [...this.failures] };
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const started = performance.now();
      await Promise.all(this.urls.map((url) => this.sample(url)));
      this.samples++;
      const wait = this.intervalMs - (performance.now() - started);
      if (this.running && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async sample(url: string): Promise<void> {
    const path = new URL(url).pathname;
    const started = performance.now();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
      await res.arrayBuffer();
      if (res.status !== 200) this.failures.push(`${path}: ${res.status}`);
    } catch (e) {
      this.failures.push(`${path}: ${(e as Error).message}`);
    }
    this.maxMs[path] = Math.max(this.maxMs[path]!, performance.now() - started);
  }
}
