/**
 * `recreations.hyperfleetApi`: cluster (and nodepool) state polled from the HyperFleet API, as a registry component
 * of the recreation pipeline. Its first poll is awaited at start, so the objects listed next are read against the
 * clusters' real state.
 */
import { readFileSync } from 'node:fs';
import type { SourceComponent } from '../component.js';
import type { HyperFleetCollection } from './poller.js';

const COLLECTIONS = ['clusters', 'nodepools'] as const satisfies readonly HyperFleetCollection[];

const schema = {
  kind: 'object',
  doc: 'cluster state from the HyperFleet API; without it the desired generation is learned from hyperfleet.io/generation annotations',
  fields: {
    url: { kind: 'string', required: true, doc: 'base URL, e.g. http://hyperfleet-api:8000' },
    interval: { kind: 'duration', default: '15s', min: '1s', doc: 'poll interval; failures back off from 1 s doubling to 60 s' },
    timeout: { kind: 'duration', default: '5s', min: '100ms', doc: 'one request; past it the poll fails and the last good state is kept, marked stale' },
    kinds: { kind: 'list', of: { kind: 'enum', values: COLLECTIONS }, default: ['clusters'], doc: 'the collections polled' },
    tokenFile: { kind: 'string', doc: 'a bearer token for the API, read from this file' },
    intervalSeconds: { kind: 'renamed', to: 'interval', unit: 's' },
    timeoutSeconds: { kind: 'renamed', to: 'timeout', unit: 's' },
  },
} as const;

export const hyperfleet: SourceComponent<typeof schema> = {
  kind: 'hyperfleet',
  title: 'cluster state polled from the HyperFleet API',
  schema,
  reasons: ['invalid_record'],
  async create(api, sinks, hooks, context) {
    if (!sinks.observations) throw new Error('the HyperFleet source feeds the recreation shadow, and none runs');
    const { HyperFleetPoller } = await import('./poller.js');
    const token = api.tokenFile === undefined ? undefined : readFileSync(api.tokenFile, 'utf8').trim();
    return new HyperFleetPoller(
      {
        baseUrl: api.url,
        collections: api.kinds,
        intervalMs: api.interval,
        timeoutMs: api.timeout,
        ...(token ? { token } : {}),
        ...(context.timers ? { timers: context.timers } : {}),
        hooks,
      },
      sinks.observations,
    );
  },
};
