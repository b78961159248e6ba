/**
 * cli/generate.ts: every generated file in the tree equals what the code generates now (the drift `make verify`
 * reports), the README's metrics table is the catalog's, its command list and exit codes are the commands'
 * declarations, and the OTLP limits table in the README and docs/otlp.md is the receiver's defaults.
 */
import { deepStrictEqual, strictEqual, throws } from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usageLine } from '../../cli/args.js';
import { COMMAND_SPECS } from '../../cli/commands.js';
import {
  COMMANDS_BEGIN,
  COMMANDS_END,
  commandsSection,
  driftedFiles,
  generatedDocs,
  generatedFiles,
  withCommandReferences,
  LIMITS_BEGIN,
  LIMITS_END,
  main,
  metricsTable,
  README_BEGIN,
  README_END,
  RULES_BEGIN,
  RULES_END,
  rulesTable,
  withLimitsTable,
  withMetricsTable,
  withReasonKinds,
  withSourceKinds,
} from '../../cli/generate.js';
import { REASON_KINDS, RULES } from '../../analyzer/decisions/rules.js';
import { DEFAULT_LIMITS } from '../../collector/otlp/internal/limits.js';
import { limitRows, limitsTable } from '../../collector/otlp/limits-table.js';
import { METRICS } from '../../outputs/metrics/catalog.js';
import { packageRoot } from '../../lib/package-root.js';

const root = packageRoot();

describe('cli/generate: generated files', () => {
  it('finds no drift between the checked-in dashboards, alerts and deploy files and the code', () => {
    const files = generatedFiles();
    deepStrictEqual(files.map((f) => f.path).sort(), [
      'alerts/prometheusrule.yaml',
      'alerts/reconcile-shadow.rules.yaml',
      'dashboards/reconcile-shadow-overview.json',
      'dashboards/reconcile-shadow-recreations.json',
      'dashboards/reconcile-shadow-switch-readiness.json',
      'deploy/overlays/hyperfleet-adapter/clusterrole.yaml',
      'deploy/overlays/hyperfleet-adapter/patch/deployment.yaml',
      'deploy/overlays/hyperfleet-adapter/shadow.yaml',
      'deploy/overlays/hyperfleet-adapter/sidecar/patch.yaml',
      'deploy/overlays/hyperfleet-adapter/sidecar/remove-patch.yaml',
      'deploy/overlays/hypershift/patch/deployment.yaml',
      'deploy/overlays/hypershift/shadow.yaml',
      'deploy/overlays/hypershift/sidecar/patch.yaml',
      'deploy/overlays/hypershift/sidecar/remove-patch.yaml',
      'docs/config.md',
    ]);
    deepStrictEqual(driftedFiles(root, files), []);
  });

  it('shows the catalog in the README and the OTLP limits in the README and docs/otlp.md, between their markers', () => {
    const docs = generatedDocs(root);
    for (const d of docs) if (d instanceof Error) throw d;
    deepStrictEqual(
      docs.map((d) => (d as { path: string }).path),
      ['README.md', 'docs/otlp.md', 'docs/decisions.md', 'docs/decisions.schema.json', 'docs/summary.schema.json', 'docs/recreations.md'],
    );
    deepStrictEqual(driftedFiles(root, docs as { path: string; content: string }[]), []);
  });

  it('lists every command with its usage, and each exit code with the commands that use it, from the declarations', () => {
    const section = commandsSection().split('\n');
    for (const spec of COMMAND_SPECS) {
      strictEqual(section.filter((l) => l === usageLine(spec)).length, 1, spec.name);
      strictEqual(section.filter((l) => l.startsWith(`| \`${spec.name}\` | `)).length, 1, spec.name);
    }
    deepStrictEqual(
      section.filter((l) => /^\| `[0-9]` \|/.test(l)).map((l) => l.split(' | ')[2]),
      [
        'every command |',
        'every command |',
        'every command |',
        'every command |',
        'analyze, journal, recreations |',
        'analyze, report, merge, journal, recreations |',
      ],
    );
    const text = withCommandReferences('a\n<!-- command:run:begin -->\nold\n<!-- command:run:end -->\nb\n', 'x.md');
    strictEqual(
      text,
      `a\n<!-- command:run:begin -->\n\`\`\`text\n${usageLine(COMMAND_SPECS[0]!)}\n\`\`\`\n\nExit codes: \`0\` done; \`1\` an input could not be read or an output written (run: a source could not start); \`2\` bad arguments: each problem is named on stderr; \`3\` a model, config, task config or thresholds file is invalid; nothing was analysed.\n<!-- command:run:end -->\nb\n`,
    );
    throws(
      () => withCommandReferences('<!-- command:frobnicate:begin -->\n<!-- command:frobnicate:end -->', 'x.md'),
      /^Error: x\.md: <!-- command:frobnicate:begin --> names no command/,
    );
  });

  it('renders each OTLP limit with the default the receiver uses, and another default as another table', () => {
    const rows = limitRows();
    deepStrictEqual(
      rows
        .filter((r) =>
          [
            'maxBodyBytes',
            'maxDecompressedBytes',
            'maxBufferedBodyBytes',
            'maxSpansPerRequest',
            'headersTimeout',
            'maxPendingBytes',
            'recentSpanMemory',
          ].includes(r.option ?? ''),
        )
        .map((r) => [r.option, r.default]),
      [
        ['maxBodyBytes', '4 MiB'],
        ['maxDecompressedBytes', '4 MiB'],
        ['maxBufferedBodyBytes', '8 MiB'],
        ['headersTimeout', '5 s'],
        ['maxSpansPerRequest', '10,000'],
        ['maxPendingBytes', '8 MiB'],
        ['recentSpanMemory', '100,000'],
      ],
    );
    const other = limitsTable(limitRows({ ...DEFAULT_LIMITS, maxBodyBytes: 3 * 1024 * 1024 + 1 }));
    strictEqual(
      other.split('\n')[2],
      '| request body on the wire, plain or gzip | `maxBodyBytes` | 3,145,729 bytes | 413 `body_too_large`, connection closed (a declared `content-length` is refused before reading) |',
    );
    strictEqual(withLimitsTable(`a\n${LIMITS_BEGIN}\nold\n${LIMITS_END}\nb\n`, 'x.md', 'T'), `a\n${LIMITS_BEGIN}\nT\n${LIMITS_END}\nb\n`);
    throws(
      () => withLimitsTable('none', 'docs/otlp.md'),
      /^Error: docs\/otlp.md: the markers <!-- otlp-limits:begin --> and <!-- otlp-limits:end --> \(in that order\) are missing; add them where the OTLP limits table belongs$/,
    );
  });

  it('renders one table row per catalog metric with type, labels, cardinality and help', () => {
    const rows = metricsTable().split('\n');
    strictEqual(rows.length, METRICS.length + 2);
    strictEqual(
      rows[2],
      `| \`reconcile_shadow_attempts_total\` | counter | \`controller\`, \`observed_loop\`, \`diverged\` | controllers x 2 x 2 | ${METRICS[0].help} |`,
    );
    strictEqual(metricsTable([{ name: 'x', type: 'gauge', help: 'a | b', labels: [], cardinality: '1' }]).split('\n')[2], '| `x` | gauge |  | 1 | a \\| b |');
  });

  it('writes the table of rules and the schema’s reason kinds from the rule list', () => {
    const rows = rulesTable().split('\n');
    strictEqual(rows.length, RULES.length + 2);
    strictEqual(
      rows[4],
      '| 3 | `data-size` (gate) | did the phased loop run enough attempts on enough objects to decide? | `no-phased-attempts`: no attempt ran the phased loop; `too-few-attempts`: fewer than `minAttempts` attempts ran the phased loop; `too-few-objects`: fewer than `minObjects` objects ran the phased loop |',
    );
    deepStrictEqual(JSON.parse(withReasonKinds('{"definitions":{"reasonKind":{"enum":[]}}}')), {
      definitions: { reasonKind: { enum: REASON_KINDS.map((k) => k.kind) } },
    });
  });

  it('writes the summary schema’s source kinds from collector/records.ts, keeping the rest of its layout', () => {
    strictEqual(
      withSourceKinds('{\n  "definitions": {\n    "source": { "enum": ["journal"] },\n    "x": { "enum": ["y"] }\n  }\n}\n'),
      '{\n  "definitions": {\n    "source": { "enum": ["journal", "otlp", "logs", "status", "simulator", "objects", "hyperfleet", "maestro", "peers"] },\n    "x": { "enum": ["y"] }\n  }\n}\n',
    );
    throws(() => withSourceKinds('{}'), /docs\/summary.schema.json: no `"source": \{ "enum": \[...\] \}` definition to fill in/);
  });

  it('replaces only what is between the markers, and refuses a README without them', () => {
    strictEqual(withMetricsTable(`intro\n${README_BEGIN}\nold\n${README_END}\noutro\n`, 'T'), `intro\n${README_BEGIN}\nT\n${README_END}\noutro\n`);
    throws(
      () => withMetricsTable('no markers here'),
      /README.md: the markers <!-- metrics-table:begin --> and <!-- metrics-table:end --> \(in that order\) are missing/,
    );
  });

  it('--check lists every drifted file and exits 1; without it, regenerates them', () => {
    const copy = mkdtempSync(join(tmpdir(), 'rs-generate-'));
    try {
      for (const dir of ['alerts', 'dashboards', 'deploy']) cpSync(join(root, dir), join(copy, dir), { recursive: true });
      writeFileSync(join(copy, 'package.json'), '{}');
      writeFileSync(join(copy, 'README.md'), `# x\n${README_BEGIN}\n${README_END}\n${LIMITS_BEGIN}\n${LIMITS_END}\n${COMMANDS_BEGIN}\n${COMMANDS_END}\n`);
      mkdirSync(join(copy, 'docs'));
      writeFileSync(join(copy, 'docs', 'otlp.md'), `# otlp\n${LIMITS_BEGIN}\n${LIMITS_END}\n`);
      writeFileSync(
        join(copy, 'docs', 'decisions.md'),
        `# decisions\n<!-- command:report:begin -->\n<!-- command:report:end -->\n${RULES_BEGIN}\n${RULES_END}\n`,
      );
      // The schema as written by hand before its reason kinds were generated from the rule list.
      writeFileSync(join(copy, 'docs', 'decisions.schema.json'), JSON.stringify({ definitions: { reasonKind: { enum: [] } } }));
      // The summary schema before maestro and peers were sources.
      writeFileSync(join(copy, 'docs', 'summary.schema.json'), '{ "definitions": { "source": { "enum": ["journal"] } } }\n');
      writeFileSync(join(copy, 'docs', 'recreations.md'), '# recreations, no command shown\n');
      writeFileSync(join(copy, 'docs', 'config.md'), '# a config reference older than the schema\n');
      writeFileSync(join(copy, 'alerts', 'reconcile-shadow.rules.yaml'), 'groups: []\n');
      const run = (...argv: string[]): { status: number; stderr: string } => {
        let stderr = '';
        const status = main(argv, copy, { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } });
        return { status, stderr };
      };
      const check = run('--check');
      strictEqual(check.status, 1, check.stderr);
      strictEqual(
        check.stderr,
        'generate: 7 generated file(s) differ from what the code generates:\n  alerts/reconcile-shadow.rules.yaml\n  docs/config.md\n  README.md\n  docs/otlp.md\n  docs/decisions.md\n  docs/decisions.schema.json\n  docs/summary.schema.json\nRun: node --import tsx cli/generate.ts\n',
      );
      strictEqual(run().status, 0);
      deepStrictEqual(run('--check'), { status: 0, stderr: '' });
      strictEqual(run('--bogus').status, 2);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
