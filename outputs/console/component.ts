/**
 * `console`: the live summary `run` prints every `interval` (live-summary.ts): attempts and divergence per
 * controller, the recreation line, and in the demo, first, the speed of the simulated clock.
 */
import type { OutputComponent } from '../component.js';
import { clockLine, liveSummary, recreationsLine, type ApiState } from './live-summary.js';

const schema = {
  kind: 'object',
  present: true,
  doc: 'the live summary on standard error',
  fields: {
    enabled: { kind: 'boolean', default: true },
    interval: { kind: 'duration', default: '5s', min: '100ms', doc: 'how often it is printed' },
  },
} as const;

export const consoleOutput: OutputComponent<typeof schema> = {
  title: 'a live summary on standard error every few seconds',
  schema,
  enabled: (config) => config.enabled,
  create(config, ctx) {
    const previous = new Map<string, number>();
    const { clock, recreations } = ctx;
    const pollsApi = ctx.sources.some((s) => s.kind === 'hyperfleet');
    // The poller's failures read `<reason>: <message>`.
    const api = (): ApiState =>
      ctx.sourceHealth.isUp('hyperfleet') ? { up: true } : { up: false, reason: ctx.sourceHealth.lastError('hyperfleet')?.split(':')[0] ?? 'down' };
    let first = true;
    const timer = setInterval(() => {
      const lines = recreations ? [recreationsLine(recreations.analyzer, clock.now(), pollsApi ? api() : undefined)] : [];
      ctx.log(
        liveSummary(ctx.analyzer.summary(), previous, config.interval / 1000, {
          lines,
          ...(first && clock.simulated ? { header: clockLine(clock.speed) } : {}),
        }),
      );
      first = false;
    }, config.interval);
    timer.unref();
    return Promise.resolve({ stop: () => Promise.resolve(clearInterval(timer)) });
  },
};
