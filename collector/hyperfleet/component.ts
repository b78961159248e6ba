/**
 * `recreations.hyperfleet`: resource state polled from the HyperFleet API, as a registry component of the
 * recreation pipeline. Its first poll is awaited at start, so the objects listed next are read against the
 * clusters' real state.
 */
import { readFileSync } from 'node:fs';
import type { SourceComponent } from '../component.js';
import { POLL_FAILURES } from './http.js';

/** An entity kind's plural as the API's registry names it (pkg/registry EntityDescriptor.Plural, a URL path segment). */
const PLURAL = /^[a-z][a-z0-9_-]*$/;

const schema = {
  kind: 'object',
  doc: 'resource state from the HyperFleet API; without it the desired generation is learned from hyperfleet.io/generation annotations',
  fields: {
    url: { kind: 'string', required: true, doc: 'base URL, e.g. http://hyperfleet-api:8000' },
    interval: { kind: 'duration', default: '15s', min: '1s', doc: 'poll interval; failures back off from 1 s doubling to 60 s' },
    timeout: { kind: 'duration', default: '5s', min: '100ms', doc: 'one request; past it the poll fails and the last good state is kept, marked stale' },
    kinds: {
      kind: 'list',
      of: { kind: 'string' },
      default: ['clusters'],
      nonEmpty: true,
      doc: "the collections polled: entity kinds' plurals as the API's registry (its config's `entities`) names them, e.g. clusters, nodepools, channels",
    },
    pageSize: { kind: 'integer', default: 100, min: 1, max: 100, unit: 'resources', doc: 'the `size` of each list request (the API allows 1..100)' },
    maxPagesPerPoll: {
      kind: 'integer',
      default: 10,
      min: 1,
      unit: 'pages',
      doc: 'pages of one collection read per poll; a longer list is read over several polls (reconcile_shadow_source_truncated is 1 meanwhile)',
    },
    tokenFile: {
      kind: 'string',
      doc: "a bearer token for the API, read from this file, again at most every 30 s and after a 401 (a projected service-account token, as the adapter's chart mounts)",
    },
  },
} as const;

export const hyperfleet: SourceComponent<typeof schema> = {
  kind: 'hyperfleet',
  title: 'resource state polled from the HyperFleet API',
  schema,
  reasons: ['invalid_record'],
  failureReasons: POLL_FAILURES,
  check(api, fail) {
    api.kinds.forEach((k, i) => {
      if (!PLURAL.test(k)) fail(['kinds', i], `"${k}" is not an entity kind's plural (lower-case letters, digits, _ and -, e.g. clusters)`);
    });
    if (new Set(api.kinds).size !== api.kinds.length) fail(['kinds'], 'lists a collection twice');
  },
  async create(api, sinks, hooks, context) {
    if (!sinks.observations) throw new Error('the HyperFleet source feeds the recreation analyzer, and none runs');
    const { HyperFleetPoller } = await import('./poller.js');
    const { FileToken } = await import('./token.js');
    const timers = context.timers;
    // Read once now, so a missing token file stops the start naming it; then again as it rotates.
    if (api.tokenFile !== undefined) readFileSync(api.tokenFile, 'utf8');
    const token = api.tokenFile === undefined ? undefined : new FileToken(api.tokenFile, timers ? () => timers.now() : Date.now);
    return new HyperFleetPoller(
      {
        baseUrl: api.url,
        collections: api.kinds,
        intervalMs: api.interval,
        timeoutMs: api.timeout,
        pageSize: api.pageSize,
        maxPagesPerPoll: api.maxPagesPerPoll,
        ...(token ? { token } : {}),
        ...(timers ? { timers } : {}),
        hooks,
      },
      sinks.observations,
    );
  },
};
