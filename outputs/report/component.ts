/**
 * The report output: `/report`, the same JSON report `analyze --format json` prints (one report builder), read from
 * the attempt pipeline when asked. It names objects and client addresses, so the sidecar serves it only where that is
 * not public (sidecar/server.ts); `report.bearerTokenFile` guards it wherever it is served. In the demo it says its
 * times are the simulated clock's.
 */
import { readFileSync } from 'node:fs';
import type { Summary } from '../../analyzer/summary/summary.js';
import { servedJson, type OutputComponent } from '../component.js';

const schema = {
  kind: 'object',
  present: true,
  doc: '/report: the JSON report of everything analyzed (docs/summary.schema.json)',
  fields: {
    bearerTokenFile: { kind: 'string', doc: 'require `Authorization: Bearer <token>` for /report, with the token in this file' },
  },
} as const;

/** What GET /report serves: the report, and in the demo a word that its times are simulated. */
export type ServedReport = Summary & { readonly clock?: { readonly simulated: true; readonly speed: number; readonly note: string } };

export const report: OutputComponent<typeof schema> = {
  title: 'the JSON report on /report',
  schema,
  enabled: () => true,
  create(config, ctx) {
    const token = config.bearerTokenFile === undefined ? undefined : readToken(config.bearerTokenFile);
    const { clock } = ctx;
    const serve = (): ServedReport => {
      const r = ctx.analyzer.summary();
      if (!clock.simulated) return r;
      const note = `times and windows are simulated fleet time, running ${clock.speed}× wall-clock speed; /metrics is in wall-clock time`;
      return { ...r, clock: { simulated: true, speed: clock.speed, note } };
    };
    return Promise.resolve({ endpoints: [{ path: '/report', serve: () => servedJson(serve()), ...(token === undefined ? {} : { token }) }] });
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
    throw Object.assign(new Error(`report.bearerTokenFile: ${(e as Error).message}`), { code: (e as NodeJS.ErrnoException).code });
  }
  if (token === '') throw Object.assign(new Error(`report.bearerTokenFile: ${path} is empty`), { code: 'EINVAL' });
  return token;
}
