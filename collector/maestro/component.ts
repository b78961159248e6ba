/**
 * `recreations.maestro`: the ManifestWorks of an adapter whose task config applies resources with the Maestro
 * transport (`transport.client: maestro`), read from the Maestro server's REST API, as a registry component of the
 * recreation pipeline. Each work is a managed object of kind ManifestWork; the manifests inside it are part of it
 * (collector/objects/manifestwork.ts finds them as the adapter's nested discoveries do).
 */
import { readFileSync } from 'node:fs';
import type { SourceComponent } from '../component.js';
import { POLL_FAILURES } from '../hyperfleet/http.js';

const schema = {
  kind: 'object',
  doc: 'ManifestWorks from the Maestro server, for resources the task config applies with the Maestro transport',
  fields: {
    url: {
      kind: 'string',
      required: true,
      doc: "the Maestro HTTP API, as the adapter config's clients.maestro.http_server_address, e.g. http://maestro.maestro.svc:8000",
    },
    sourceId: { kind: 'string', required: true, doc: "the adapter's CloudEvents source id (its clients.maestro.source_id): the works read are this source's" },
    consumers: { kind: 'list', of: { kind: 'string' }, doc: 'only the works of these consumers (target clusters); default: every consumer' },
    interval: { kind: 'duration', default: '15s', min: '1s', doc: 'poll interval; failures back off from 1 s doubling to 60 s' },
    timeout: { kind: 'duration', default: '10s', min: '100ms', doc: "one request (the adapter's Maestro HTTP timeout defaults to 10 s)" },
    maxPages: {
      kind: 'integer',
      default: 50,
      min: 1,
      unit: 'pages',
      doc: 'pages of 400 works read per poll at most; a longer list is cut (reconcile_shadow_source_truncated is 1) and no deletion is inferred from it',
    },
    tokenFile: { kind: 'string', doc: 'a bearer token for the Maestro API, read from this file, again at most every 30 s and after a 401' },
  },
} as const;

export const maestro: SourceComponent<typeof schema> = {
  kind: 'maestro',
  title: "an adapter's ManifestWorks, polled from the Maestro server",
  schema,
  reasons: ['invalid_object'],
  failureReasons: POLL_FAILURES,
  check(m, fail) {
    // grpcsource quotes them into the search unescaped, so a quote would end the string early.
    if (m.sourceId === '' || m.sourceId.includes("'")) fail(['sourceId'], "must be non-empty and without '");
    (m.consumers ?? []).forEach((c, i) => {
      if (c === '' || c.includes("'")) fail(['consumers', i], "must be non-empty and without '");
    });
  },
  async create(m, sinks, hooks, context) {
    if (!sinks.observations) throw new Error('the Maestro source feeds the recreation analyzer, and none runs');
    const { MaestroPoller } = await import('./poller.js');
    const { FileToken } = await import('../hyperfleet/token.js');
    const timers = context.timers;
    if (m.tokenFile !== undefined) readFileSync(m.tokenFile, 'utf8');
    const token = m.tokenFile === undefined ? undefined : new FileToken(m.tokenFile, timers ? () => timers.now() : Date.now);
    return new MaestroPoller(
      {
        baseUrl: m.url,
        sourceId: m.sourceId,
        ...(m.consumers ? { consumers: m.consumers } : {}),
        intervalMs: m.interval,
        timeoutMs: m.timeout,
        maxPages: m.maxPages,
        ...(token ? { token } : {}),
        ...(timers ? { timers } : {}),
        hooks,
      },
      sinks.observations,
    );
  },
};
