/**
 * /partial on the sidecar (outputs/partial/component.ts): the partial summary of everything it analysed, as
 * `analyze --format partial` writes one, an input of its own per run; with `partial.path`, kept across a restart, so
 * the second run serves both runs' evidence, merged.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePartial } from '../../analyzer/partial/format.js';
import { summaryOf } from '../../analyzer/partial/results.js';
import { formatAttemptLine } from '../../collector/journal/format.js';
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { until } from '../support/until.js';
import { plantedWorld } from '../analyzer/decisions/planted-world.js';
import { HOSTED_CLUSTER, hostedClusterWorld } from '../analyzer/decisions/planted-models.js';

const NONE = { kind: 'none' } as const;

describe('the sidecar: /partial', function () {
  this.timeout(30_000);
  let sidecar: Sidecar | undefined;
  afterEach(async () => {
    await sidecar?.stop();
    sidecar = undefined;
  });

  const dir = mkdtempSync(join(tmpdir(), 'partial-'));
  const records = [...plantedWorld({ ...hostedClusterWorld(3, NONE), objects: 8, durationMs: 3_600_000 })];
  const journal = (name: string, keep: (i: number) => boolean): string => {
    const file = join(dir, name);
    writeFileSync(
      file,
      records
        .filter((_, i) => keep(i))
        .map((r) => formatAttemptLine(r) + '\n')
        .join(''),
    );
    return file;
  };
  const config = (file: string, partial: string): string => `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
listen: {metrics: 127.0.0.1:0}
sources:
  journal: {path: ${JSON.stringify(file)}}
console: {enabled: false}
partial: ${partial}
`;
  const partialOf = async (s: Sidecar): Promise<ReturnType<typeof decodePartial>> =>
    decodePartial(await (await fetch(`http://127.0.0.1:${s.metricsAddress.port}/partial`)).text(), '/partial');
  /** The journal is replayed after start: wait until the sidecar has analysed its `n` attempts. */
  const analysed = async (s: Sidecar, n: number): Promise<void> => {
    const total = (): number => s.analyzer.summary().controllers[0]?.attempts.total ?? 0;
    await until(`the sidecar to analyse ${n} attempts`, () => total() === n, { intervalMs: 100, describe: () => `${total()} so far` });
  };

  it('serves everything analysed since start, as an input of its own', async () => {
    sidecar = await startSidecar(
      parseConfig(
        config(
          journal('all.jsonl', () => true),
          '{instance: operator-7f}',
        ),
        'shadow.yaml',
      ),
      { env: {} },
    );
    await analysed(sidecar, records.length);
    const partial = await partialOf(sidecar);
    assert.equal(partial.inputs.length, 1);
    assert.equal(partial.inputs[0]!.kind, 'sidecar');
    assert.match(partial.inputs[0]!.name, /^operator-7f \d{4}-\d\d-\d\dT/);
    assert.equal(partial.controllers[0]!.cm.model.name, HOSTED_CLUSTER.name);
    assert.notEqual(partial.controllers[0]!.evidence, null);
    assert.deepEqual(summaryOf(partial).controllers, sidecar.analyzer.summary().controllers);
  });

  it('keeps its partial across a restart in partial.path: the second run serves both runs', async () => {
    const path = join(dir, 'kept.json');
    const firstHalf = journal('first.jsonl', (i) => i % 2 === 0);
    const secondHalf = journal('second.jsonl', (i) => i % 2 === 1);
    sidecar = await startSidecar(parseConfig(config(firstHalf, `{path: ${JSON.stringify(path)}, instance: op}`), 'shadow.yaml'), { env: {} });
    await analysed(sidecar, Math.ceil(records.length / 2));
    const first = summaryOf(await partialOf(sidecar)).controllers[0]!.attempts.total;
    await sidecar.stop();
    sidecar = undefined;
    assert.ok(existsSync(path));
    sidecar = await startSidecar(parseConfig(config(secondHalf, `{path: ${JSON.stringify(path)}, instance: op}`), 'shadow.yaml'), { env: {} });
    await analysed(sidecar, Math.floor(records.length / 2));
    const both = await partialOf(sidecar);
    assert.equal(both.inputs.length, 2);
    assert.equal(summaryOf(both).controllers[0]!.attempts.total, records.length);
    assert.equal(first, Math.ceil(records.length / 2));
  });
});
