/**
 * The summary output: `/summary`, the same JSON summary `analyze --format json` prints (one summary builder), read
 * from the attempt pipeline when asked. It names objects and client addresses, so the sidecar serves it only where
 * that is not public (sidecar/server.ts); `summary.bearerTokenFile` guards it wherever it is served. In the demo it
 * says its times are the simulated clock's.
 */
import { readFileSync } from 'node:fs';
import type { Summary } from '../../analyzer/summary/types.js';
import { servedJson, type OutputComponent } from '../component.js';

const schema = {
  kind: 'object',
  present: true,
  doc: '/summary: the JSON summary of everything analyzed (docs/summary.schema.json)',
  fields: {
    bearerTokenFile: {
      kind: 'string',
      doc: "require `Authorization: Bearer <token>` for /summary, /partial and the fleet's /report, with the token in this file",
    },
  },
} as const;

/** What GET /summary serves: the summary, and in the demo a word that its times are simulated. */
export type ServedSummary = Summary & { readonly clock?: { readonly simulated: true; readonly speed: number; readonly note: string } };

export const summary: OutputComponent<typeof schema> = {
  title: 'the JSON summary on /summary',
  schema,
  enabled: () => true,
  create(config, ctx) {
    const token = config.bearerTokenFile === undefined ? undefined : readToken(config.bearerTokenFile);
    const { clock } = ctx;
    const serve = (): ServedSummary => {
      const s = ctx.analyzer.summary();
      if (!clock.simulated) return s;
      const note = `times and windows are simulated fleet time, running ${clock.speed}× wall-clock speed; /metrics is in wall-clock time`;
      return { ...s, clock: { simulated: true, speed: clock.speed, note } };
    };
    return Promise.resolve({ endpoints: [{ path: '/summary', serve: () => servedJson(serve()), ...(token === undefined ? {} : { token }) }] });
  },
};

/**
 * The bearer token from its file, without the trailing newline editors leave. A problem names the key and the file,
 * and carries a code so `run` reports it as a start failure.
 */
function readToken(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (e) {
    throw Object.assign(new Error(`summary.bearerTokenFile: ${(e as Error).message}`), { code: (e as NodeJS.ErrnoException).code });
  }
  if (token === '') throw Object.assign(new Error(`summary.bearerTokenFile: ${path} is empty`), { code: 'EINVAL' });
  return token;
}
