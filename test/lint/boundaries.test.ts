/**
 * The layers eslint.config.js enforces, shown with the project's own config on files placed (virtually) in each
 * folder: an import against the direction of flow fails `make lint` with a message naming the folders, and the
 * imports the layers allow pass.
 */
import { deepStrictEqual } from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { REPO } from '../support/paths.js';
import { importCycles } from './import-cycles.js';
import { unusedExports } from './unused-exports.js';

const FIXTURE = 'boundary-fixture.ts';
// The project's config; the fixture is not on disk, so without the type information the boundary rule does not need.
const eslint = new ESLint({
  cwd: REPO,
  overrideConfig: [tseslint.configs.disableTypeChecked, { languageOptions: { parserOptions: { projectService: false } } }],
});

/** The boundary errors `code` gets in `folder/`. */
async function boundaryErrors(folder: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(REPO, folder, FIXTURE) });
  return result!.messages.filter((m) => m.ruleId === 'boundaries/imports').map((m) => m.message);
}

describe('lint: the project’s boundaries', function () {
  this.timeout(60_000);

  it('collector/ never imports analyzer/, outputs/, simulator/, sidecar/ or cli/', async () => {
    deepStrictEqual(await boundaryErrors('collector', "import { Analyzer } from '../analyzer/analyzer.js';\nexport const a = Analyzer;\n"), [
      'collector/ must not import analyzer/analyzer.ts: sources hand records on; they never know what happens downstream',
    ]);
    deepStrictEqual(await boundaryErrors('collector', "export const s = async () => (await import('../sidecar/sidecar.js')).startSidecar;\n"), [
      'collector/ must not import sidecar/sidecar.ts: sources hand records on; they never know what happens downstream',
    ]);
    deepStrictEqual(await boundaryErrors('collector', "export { simulator } from '../simulator/component.js';\n"), [
      'collector/ must not import simulator/component.ts: sources hand records on; they never know what happens downstream',
    ]);
  });

  it('the pure core does no I/O and builds no client', async () => {
    deepStrictEqual(await boundaryErrors('analyzer', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n"), [
      'analyzer/ must not import node:fs: the pure core reads no file and talks to nothing',
    ]);
    deepStrictEqual(await boundaryErrors('model', "export const k = async () => (await import('@kubernetes/client-node')).KubeConfig;\n"), [
      'model/ must not import @kubernetes/client-node: the pure core reads no file and talks to nothing',
    ]);
    deepStrictEqual(await boundaryErrors('lib', "import type { ReconcileModel } from '../model/types.js';\nexport type M = ReconcileModel;\n"), [
      'lib/ must not import model/types.ts: the pure core reads no file and talks to nothing',
    ]);
    deepStrictEqual(
      await boundaryErrors('analyzer', "import { OtlpReceiver } from '../collector/otlp/internal/receiver.js';\nexport const o = OtlpReceiver;\n"),
      [
        "analyzer/boundary-fixture.ts must not import collector/otlp/internal/receiver.ts: collector/otlp/internal/ is collector/otlp/'s own machinery; use its component or types",
        'analyzer/ must not import collector/otlp/internal/receiver.ts: the pure core reads no file and talks to nothing',
      ],
    );
  });

  it('nothing imports cli/', async () => {
    deepStrictEqual(await boundaryErrors('sidecar', "import { EXIT } from '../cli/io.js';\nexport const e = EXIT;\n"), [
      'sidecar/ must not import cli/io.ts: nothing imports cli/',
    ]);
  });

  it("a folder's internal/ is imported only from inside that folder (tests and benchmarks may)", async () => {
    deepStrictEqual(await boundaryErrors('sidecar', "import { x } from '../collector/otlp/internal/scan-json.js';\nexport const y = x;\n"), [
      "sidecar/boundary-fixture.ts must not import collector/otlp/internal/scan-json.ts: collector/otlp/internal/ is collector/otlp/'s own machinery; use its component or types",
    ]);
    deepStrictEqual(await boundaryErrors('collector/logs', "import { x } from '../otlp/internal/scan-json.js';\nexport const y = x;\n"), [
      "collector/logs/boundary-fixture.ts must not import collector/otlp/internal/scan-json.ts: collector/otlp/internal/ is collector/otlp/'s own machinery; use its component or types",
    ]);
    deepStrictEqual(await boundaryErrors('cli', "export const s = async () => (await import('../outputs/fleet/internal/fleet-output.js')).fleetOutput;\n"), [
      "cli/boundary-fixture.ts must not import outputs/fleet/internal/fleet-output.ts: outputs/fleet/internal/ is outputs/fleet/'s own machinery; use its component or types",
    ]);
    deepStrictEqual(await boundaryErrors('outputs/fleet', "export const s = async () => (await import('./internal/fleet-output.js')).fleetOutput;\n"), []);
    deepStrictEqual(
      await boundaryErrors('outputs/fleet/internal', "import { publishFleet } from './verdict-series.js';\nexport const p = publishFleet;\n"),
      [],
    );
    deepStrictEqual(await boundaryErrors('test/collector', "import { x } from '../../collector/otlp/internal/scan-json.js';\nexport const y = x;\n"), []);
  });

  it('what the layers allow passes', async () => {
    deepStrictEqual(
      await boundaryErrors(
        'analyzer',
        "import type { AttemptRecord } from '../collector/records.js';\nimport { isRecord } from '../lib/is-record.js';\nexport type A = AttemptRecord;\nexport const i = isRecord;\n",
      ),
      [],
    );
    deepStrictEqual(
      await boundaryErrors(
        'collector',
        "import { readFileSync } from 'node:fs';\nimport type { ReconcileModel } from '../model/types.js';\nexport type M = ReconcileModel;\nexport const r = readFileSync;\n",
      ),
      [],
    );
    deepStrictEqual(
      await boundaryErrors(
        'sidecar',
        "import { Analyzer } from '../analyzer/analyzer.js';\nimport { otlp } from '../collector/otlp/component.js';\nexport const x = [Analyzer, otlp];\n",
      ),
      [],
    );
  });
});

describe('lint: no dead exports', function () {
  this.timeout(120_000);

  it('every export is imported somewhere or used by its own module', () => {
    deepStrictEqual(
      unusedExports(REPO).map((u) => `${u.file}: ${u.name}`),
      [],
    );
  });
});

describe('lint: no import cycles', function () {
  this.timeout(120_000);

  it('no module imports one that imports it back, directly or around a circle (type-only imports too)', () => {
    deepStrictEqual(
      importCycles(REPO, ['lib', 'model', 'analyzer', 'collector', 'simulator', 'outputs', 'sidecar', 'cli', 'dashboards', 'alerts', 'deploy']),
      [],
    );
  });
});
