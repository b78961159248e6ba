/**
 * cli/generate.ts: every generated file in the tree equals what the code generates now (the drift `make verify`
 * reports), and the README's metrics table is the catalog's.
 */
import { deepStrictEqual, strictEqual, throws } from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driftedFiles, generatedFiles, generatedReadme, main, metricsTable, README_BEGIN, README_END, withMetricsTable } from '../../cli/generate.js';
import { METRICS } from '../../analyzer/metrics/catalog.js';
import { packageRoot } from '../../model/package-root.js';

const root = packageRoot();

describe('cli/generate: generated files', () => {
  it('finds no drift between the checked-in dashboards, alerts and deploy files and the code', () => {
    const files = generatedFiles();
    deepStrictEqual(files.map((f) => f.path).sort(), [
      'alerts/prometheusrule.yaml',
      'alerts/reconcile-shadow.rules.yaml',
      'dashboards/reconcile-shadow-overview.json',
      'dashboards/reconcile-shadow-recreations.json',
      'deploy/overlays/hyperfleet-adapter/shadow.yaml',
      'deploy/overlays/hyperfleet-adapter/sidecar/patch.yaml',
      'deploy/overlays/hyperfleet-adapter/sidecar/remove-patch.yaml',
      'deploy/overlays/hypershift/shadow.yaml',
      'deploy/overlays/hypershift/sidecar/patch.yaml',
      'deploy/overlays/hypershift/sidecar/remove-patch.yaml',
    ]);
    deepStrictEqual(driftedFiles(root, files), []);
  });

  it('shows the catalog in the README between the metrics-table markers', () => {
    const readme = generatedReadme(root);
    if (readme instanceof Error) throw readme;
    deepStrictEqual(driftedFiles(root, [readme]), []);
  });

  it('renders one table row per catalog metric with type, labels, cardinality and help', () => {
    const rows = metricsTable().split('\n');
    strictEqual(rows.length, METRICS.length + 2);
    strictEqual(rows[2], `| \`reconcile_shadow_attempts_total\` | counter | \`controller\`, \`observed_model\`, \`diverged\` | controllers x 2 x 2 | ${METRICS[0].help} |`);
    strictEqual(metricsTable([{ name: 'x', type: 'gauge', help: 'a | b', labels: [], cardinality: '1' }]).split('\n')[2], '| `x` | gauge |  | 1 | a \\| b |');
  });

  it('replaces only what is between the markers, and refuses a README without them', () => {
    strictEqual(withMetricsTable(`intro\n${README_BEGIN}\nold\n${README_END}\noutro\n`, 'T'), `intro\n${README_BEGIN}\nT\n${README_END}\noutro\n`);
    throws(() => withMetricsTable('no markers here'), /README.md: the markers <!-- metrics-table:begin --> and <!-- metrics-table:end --> \(in that order\) are missing/);
  });

  it('--check lists every drifted file and exits 1; without it, regenerates them', () => {
    const copy = mkdtempSync(join(tmpdir(), 'rs-generate-'));
    try {
      for (const dir of ['alerts', 'dashboards', 'deploy']) cpSync(join(root, dir), join(copy, dir), { recursive: true });
      writeFileSync(join(copy, 'package.json'), '{}');
      writeFileSync(join(copy, 'README.md'), `# x\n${README_BEGIN}\n${README_END}\n`);
      writeFileSync(join(copy, 'alerts', 'reconcile-shadow.rules.yaml'), 'groups: []\n');
      const run = (...argv: string[]): { status: number; stderr: string } => {
        let stderr = '';
        const status = main(argv, copy, { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } });
        return { status, stderr };
      };
      const check = run('--check');
      strictEqual(check.status, 1, check.stderr);
      strictEqual(check.stderr, 'generate: 2 generated file(s) differ from what the code generates:\n  alerts/reconcile-shadow.rules.yaml\n  README.md\nRun: node --import tsx cli/generate.ts\n');
      strictEqual(run().status, 0);
      deepStrictEqual(run('--check'), { status: 0, stderr: '' });
      strictEqual(run('--bogus').status, 2);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
