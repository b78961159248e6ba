/**
 * The demo a newcomer runs first (`make run`: `reconcile-shadow run` on its embedded default), through the same
 * command, with the embedded default's config (only its three ports moved to free ones, so the test never collides
 * with a running demo): within 15 s every headline has a non-zero series, the first live summary says how fast the
 * simulated clock runs, each source is printed once, /summary says its times are simulated, and what Prometheus
 * compares with time() is wall-clock time.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Ajv } from 'ajv';
import { runCommand } from '../../cli/run.js';
import { EMBEDDED_DEFAULT } from '../../sidecar/config.js';
import { REPO } from '../support/paths.js';
import { parsePrometheusText, valueOf, type Sample } from '../support/prometheus-text.js';

/** Each headline of the demo, and the series that shows it. */
const HEADLINES: Readonly<Record<string, (s: readonly Sample[]) => number>> = {
  unblocked: (s) => valueOf(s, 'reconcile_shadow_operation_unblocked_total'),
  'newly blocked': (s) => valueOf(s, 'reconcile_shadow_operation_newly_blocked_total'),
  'blocked-by': (s) => valueOf(s, 'reconcile_shadow_blocked_by_total'),
  starvation: (s) => Math.max(0, ...s.filter((x) => x.name === 'reconcile_shadow_operation_starved_seconds').map((x) => x.value)),
  recreations: (s) =>
    valueOf(s, 'reconcile_shadow_recreations_in_flight') + valueOf(s, 'reconcile_shadow_recreation_duration_seconds_count', { phase: 'total' }),
  stuck: (s) => valueOf(s, 'reconcile_shadow_recreation_stuck'),
};
const WITHIN_MS = 15_000;

describe('the demo: reconcile-shadow run on its embedded default', function () {
  // the demo must show every headline within 15 s, plus start and stop
  this.timeout(40_000);
  it('shows every headline within 15 s, says it runs on a simulated clock, prints each source once, and keeps metrics in wall-clock time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shadow-demo-'));
    const config = join(dir, 'embedded-default.yaml');
    writeFileSync(
      config,
      EMBEDDED_DEFAULT.replace('127.0.0.1:9464', '127.0.0.1:0').replace('127.0.0.1:4318', '127.0.0.1:0').replace('127.0.0.1:4317', '127.0.0.1:0'),
    );
    let log = '';
    const stderr = new PassThrough();
    stderr.on('data', (c: Buffer) => (log += c.toString()));
    let stop!: (signal: string) => void;
    const startedAt = Date.now();
    const exited = runCommand(
      ['--config', config],
      { stdout: new PassThrough(), stderr, stdin: new PassThrough() },
      { stopSignal: new Promise((r) => (stop = r)), env: {} },
    );
    try {
      const seen = new Map<string, number>();
      let samples: Sample[] = [];
      let base = '';
      // Until every headline showed and the first live summary was printed (every 5 s).
      while ((seen.size < Object.keys(HEADLINES).length || !log.includes('\nsimulated clock: ')) && Date.now() - startedAt < WITHIN_MS + 5_000) {
        base ||= /metrics (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(log)?.[1] ?? '';
        if (base) {
          samples = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
          for (const [headline, value] of Object.entries(HEADLINES)) if (!seen.has(headline) && value(samples) > 0) seen.set(headline, Date.now() - startedAt);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const late = Object.keys(HEADLINES).filter((h) => (seen.get(h) ?? Infinity) > WITHIN_MS);
      assert.deepEqual(late, [], `first non-zero after start, ms: ${JSON.stringify(Object.fromEntries(seen))}`);

      // Wall-clock time: the last record was handed on between start and now, ages are no older than the demo.
      const wallSeconds = (Date.now() - startedAt) / 1000;
      const lastRecord = valueOf(samples, 'reconcile_shadow_source_last_record_timestamp_seconds', { source: 'simulator' });
      assert.ok(lastRecord >= startedAt / 1000 && lastRecord <= Date.now() / 1000, `last record at ${lastRecord}`);
      assert.ok(valueOf(samples, 'reconcile_shadow_recreation_oldest_seconds') <= wallSeconds, 'the oldest recreation is younger than the demo');
      // The demo's 3 simulated minutes, at 60×.
      assert.equal(valueOf(samples, 'reconcile_shadow_recreation_stuck_threshold_seconds', { kind: 'Job' }), 3);
      assert.deepEqual(
        samples.filter((x) => x.name === 'reconcile_shadow_source_up').map((x) => [x.labels.source, x.value]),
        [
          ['simulator', 1],
          ['otlp', 1],
        ],
      );

      const served = (await (await fetch(`${base}/summary`)).json()) as { clock?: { simulated: boolean; speed: number } };
      assert.deepEqual({ simulated: served.clock?.simulated, speed: served.clock?.speed }, { simulated: true, speed: 60 });
      const schema = new Ajv({ allErrors: true }).compile(JSON.parse(readFileSync(join(REPO, 'docs/summary.schema.json'), 'utf8')) as object);
      assert.ok(schema(served), JSON.stringify(schema.errors));

      const lines = log.split('\n');
      assert.deepEqual(
        lines.filter((l) => l.startsWith('  source: ')),
        ['  source: simulator', '  source: otlp'],
      );
      const summary = lines.findIndex((l) => l.startsWith('simulated clock: '));
      assert.equal(
        lines[summary],
        'simulated clock: 60× wall-clock speed (a simulated minute every 1 s); this summary and /summary are in simulated time, /metrics in wall-clock time',
      );
      // The headline divergence leaves one-loop operations out, and says how often they ran.
      assert.match(lines[summary + 1] ?? '', /^\[hostedcluster\] attempts \d+ .* · diverged \d+\.\d% \(structural, one-loop ops: \d+\.\d%\) · objects 40$/);
    } finally {
      stop('SIGTERM');
      assert.equal(await exited, 0);
    }
  });
});
