/** docs/config.md, generated from the config schema: every key once, with its type and default. */
import { deepStrictEqual, ok } from 'node:assert/strict';
import { describe as keysOf } from '../../lib/schema.js';
import { CONFIG_SCHEMA } from '../../sidecar/config.js';
import { configReference } from '../../sidecar/config-reference.js';

describe('sidecar: the config reference', () => {
  const reference = configReference();
  const rows = reference.split('\n').filter((l) => l.startsWith('| `'));

  it('lists every key of the schema once', () => {
    const listed = rows.map((l) => /^\| `([^`]+)`/.exec(l)![1]);
    deepStrictEqual(
      listed.toSorted(),
      keysOf(CONFIG_SCHEMA)
        .map((r) => r.key)
        .toSorted(),
    );
    deepStrictEqual(new Set(listed).size, listed.length);
  });

  it('says type, default and unit as a config writes them', () => {
    ok(rows.includes("| `sources.otlp.headersTimeout` | duration | `5s` | a request's headers, from the connection's opening |"), reference);
    ok(rows.includes('| `sources.otlp.maxBodyBytes` | integer (bytes) | `4194304 (4 MiB)` | request body on the wire, plain or gzip |'), reference);
    ok(rows.includes('| `recreations.hyperfleet.url` | string |  | **required**; base URL, e.g. http://hyperfleet-api:8000 |'), reference);
  });
});
