import { strict as assert } from 'node:assert';
import { parseConfig } from '../../../sidecar/config.js';
import { ValidationError } from '../../../lib/validation-error.js';

const config = (maestro: string, hyperfleet = '') => `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
listen: {metrics: 127.0.0.1:0}
sources: {}
recreations:
  taskConfig: task-config.yaml
  maestro: ${maestro}
${hyperfleet}`;

const problems = (text: string): readonly string[] => {
  try {
    parseConfig(text, 'shadow.yaml');
  } catch (e) {
    if (e instanceof ValidationError) return e.problems;
    throw e;
  }
  return [];
};

describe('recreations.maestro and recreations.hyperfleet in the config', () => {
  it('reads a Maestro section with its defaults', () => {
    const c = parseConfig(config('{url: "http://maestro:8000", sourceId: hyperfleet-adapter}'), 'shadow.yaml');
    assert.deepEqual(c.recreations?.maestro, { url: 'http://maestro:8000', sourceId: 'hyperfleet-adapter', interval: 15_000, timeout: 10_000, maxPages: 50 });
  });

  it("refuses a source id or consumer that would end grpcsource's quoted search early, naming the field", () => {
    assert.deepEqual(problems(config(`{url: "http://maestro:8000", sourceId: "it's", consumers: [ok, "b'"]}`)), [
      "shadow.yaml:7 recreations.maestro.sourceId: must be non-empty and without '",
      "shadow.yaml:7 recreations.maestro.consumers[1]: must be non-empty and without '",
    ]);
  });

  it("refuses a HyperFleet kind that is not an entity kind's plural, and one listed twice", () => {
    const hf = '  hyperfleet: {url: "http://api:8000", kinds: [clusters, NodePools, clusters]}';
    assert.deepEqual(problems(config('{url: "http://maestro:8000", sourceId: a}', hf)), [
      `shadow.yaml:8 recreations.hyperfleet.kinds[1]: "NodePools" is not an entity kind's plural (lower-case letters, digits, _ and -, e.g. clusters)`,
      'shadow.yaml:8 recreations.hyperfleet.kinds: lists a collection twice',
    ]);
  });
});
