import { dirname, relative, resolve, sep } from 'node:path';
import eslint from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * The project's boundaries, enforced on every import (static, dynamic, re-export, type-only):
 * - data flows one way: collector/ (sources) never imports analyzer/, outputs/, simulator/, sidecar/ or cli/;
 * - the pure core (lib/, model/, analyzer/) reads no file and talks to nothing: no node I/O module, no client
 *   library, nothing of sidecar/, outputs/, simulator/ or cli/; analyzer/ takes from collector/ only the record
 *   contracts; model/ sits on lib/ alone, and lib/ imports nothing of the project;
 * - nothing imports cli/ (tests and benchmarks drive it);
 * - a folder's `internal/` is its own machinery: only files under that folder import it (tests and benchmarks may).
 */
const ROOT = import.meta.dirname;
const NODE_IO = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'child_process', 'cluster', 'worker_threads', 'readline', 'os'];
const CLIENTS = [/^@kubernetes\/client-node/, /^@opentelemetry\//, /^@prometheus-io\//, /^@grpc\//, /^protobufjs/];
const CONTRACTS = ['collector/records.ts', 'collector/objects/observation.ts', 'collector/objects/manifestwork.ts', 'collector/peers/sink.ts'];
const PURE = { io: false, why: 'the pure core reads no file and talks to nothing' };

/** Per top-level folder: the project folders (or files) it may import, and whether it may do I/O. */
const LAYERS = {
  lib: { ...PURE, project: ['lib'] },
  model: { ...PURE, project: ['lib', 'model'] },
  analyzer: { ...PURE, project: ['lib', 'model', 'analyzer', ...CONTRACTS] },
  collector: { io: true, project: ['lib', 'model', 'collector'], why: 'sources hand records on; they never know what happens downstream' },
  simulator: { io: true, project: ['lib', 'model', 'analyzer', 'collector', 'simulator'], why: 'the simulated worlds are sources' },
  outputs: { io: true, project: ['lib', 'model', 'analyzer', 'collector', 'outputs'], why: 'outputs listen to the pipelines; the sidecar wires them' },
  sidecar: { io: true, project: ['lib', 'model', 'analyzer', 'collector', 'simulator', 'outputs', 'sidecar'], why: 'nothing imports cli/' },
  dashboards: { io: true, project: ['lib', 'model', 'analyzer', 'outputs', 'alerts', 'dashboards'], why: 'nothing imports cli/' },
  alerts: { io: true, project: ['lib', 'model', 'analyzer', 'outputs', 'alerts'], why: 'nothing imports cli/' },
  deploy: { io: true, project: ['lib', 'model', 'deploy'], why: 'nothing imports cli/' },
};

const topOf = (path) => path.split(sep)[0];
/** For `a/b/internal/c.ts`, `a/b`: the folder that owns that machinery. */
const ownerOfInternal = (path) => {
  const parts = path.split(sep);
  const i = parts.indexOf('internal');
  return i < 0 ? undefined : parts.slice(0, i).join(sep);
};
const EXEMPT_FROM_INTERNAL = ['test', 'bench'];
const allowed = (layer, target) => layer.project.some((p) => target === p || topOf(target) === p);

const boundaries = {
  rules: {
    imports: {
      meta: { type: 'problem', docs: { description: 'the layers of reconcile-shadow (eslint.config.js)' }, schema: [] },
      create(context) {
        const file = relative(ROOT, context.filename);
        const layer = LAYERS[topOf(file)];
        const internalChecked = !EXEMPT_FROM_INTERNAL.includes(topOf(file));
        if (!layer && !internalChecked) return {};
        const check = (node) => {
          const spec = node.source?.value;
          if (typeof spec !== 'string') return;
          if (spec.startsWith('.')) {
            const target = relative(ROOT, resolve(dirname(context.filename), spec)).replace(/\.js$/, '.ts');
            const owner = ownerOfInternal(target);
            if (internalChecked && owner !== undefined && !(file === owner || file.startsWith(owner + sep))) {
              context.report({
                node,
                message: `${file} must not import ${target}: ${owner}/internal/ is ${owner}/'s own machinery; use its component or types`,
              });
            }
            if (layer && !allowed(layer, target)) context.report({ node, message: `${topOf(file)}/ must not import ${target}: ${layer.why}` });
          } else if (layer && !layer.io && (NODE_IO.includes(spec.replace(/^node:/, '')) || CLIENTS.some((c) => c.test(spec)))) {
            context.report({ node, message: `${topOf(file)}/ must not import ${spec}: ${layer.why}` });
          }
        };
        return { ImportDeclaration: check, ImportExpression: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
      },
    },
  },
};

export default defineConfig(
  globalIgnores(['dist/**', 'coverage/**', 'node_modules/**', 'test-output/**', '**/*.cjs', 'eslint.config.js']),
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { boundaries },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'boundaries/imports': 'error',
    },
  },
);
