/**
 * A ts-prune-style search: every export of the project's modules that no other module imports and its own module
 * does not use is dead code. Each file is parsed with the TypeScript parser (no type check, so it is quick):
 * imports named, default, namespace, re-exported, and dynamic (`import()` counts as using every export of its
 * module). Entry points (the CLI, benchmarks, tests) are roots: their own exports need no importer.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface UnusedExport {
  /** Relative to the project root. */
  readonly file: string;
  readonly name: string;
}

const ENTRY = [/^cli\/main\.ts$/, /^cli\/generate\.ts$/, /^bench\//, /\.test\.ts$/, /^test\/soak\//];

/** Mocha's root hook modules (.mocharc.json `require`): entry points too. */
function rootHookModules(root: string): string[] {
  return (JSON.parse(readFileSync(join(root, '.mocharc.json'), 'utf8')) as { require?: string[] }).require ?? [];
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'fixtures' ? [] : typeScriptFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const hasExport = (node: ts.Node): boolean => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a module exports itself (`export function f`, `export const a, b`, `export { x }`; not re-exports). */
function ownExports(file: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const node of file.statements) {
    if (ts.isVariableStatement(node) && hasExport(node)) {
      for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (
      (ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node)) &&
      hasExport(node) &&
      node.name
    ) {
      names.push(node.name.text);
    } else if (ts.isExportDeclaration(node) && !node.moduleSpecifier && node.exportClause && ts.isNamedExports(node.exportClause)) {
      for (const el of node.exportClause.elements) names.push(el.name.text);
    }
  }
  return names;
}

export function unusedExports(
  root: string,
  folders: readonly string[] = [
    'lib',
    'model',
    'analyzer',
    'collector',
    'simulator',
    'outputs',
    'sidecar',
    'cli',
    'dashboards',
    'alerts',
    'deploy',
    'bench',
    'test',
  ],
): UnusedExport[] {
  const files = folders.flatMap((f) => typeScriptFiles(join(root, f)));
  const parsed = new Map(files.map((f) => [f, ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.ES2022, true)]));
  /** File → the names other files import from it ('*': all of them). */
  const imported = new Map<string, Set<string>>();
  const use = (from: string, spec: string, names: readonly string[]): void => {
    if (!spec.startsWith('.')) return;
    const target = resolve(dirname(from), spec).replace(/\.js$/, '.ts');
    const set = imported.get(target) ?? new Set<string>();
    for (const n of names) set.add(n);
    imported.set(target, set);
  };
  for (const [path, file] of parsed) {
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const bindings = clause?.namedBindings;
        const names = [
          ...(clause?.name ? ['default'] : []),
          ...(bindings && ts.isNamespaceImport(bindings) ? ['*'] : []),
          ...(bindings && ts.isNamedImports(bindings) ? bindings.elements.map((el) => (el.propertyName ?? el.name).text) : []),
        ];
        use(path, node.moduleSpecifier.text, names);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.exportClause;
        use(path, node.moduleSpecifier.text, clause && ts.isNamedExports(clause) ? clause.elements.map((el) => (el.propertyName ?? el.name).text) : ['*']);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const arg = node.arguments[0];
        if (arg && ts.isStringLiteral(arg)) use(path, arg.text, ['*']);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  const out: UnusedExport[] = [];
  const hooks = rootHookModules(root);
  for (const [path, file] of parsed) {
    const rel = relative(root, path);
    if (ENTRY.some((e) => e.test(rel)) || hooks.includes(rel)) continue;
    const used = imported.get(path);
    if (used?.has('*')) continue;
    for (const name of ownExports(file)) {
      if (used?.has(name)) continue;
      // Used in its own module (a helper the module itself calls): exported once too many, not dead.
      if ((file.text.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0) > 1) continue;
      out.push({ file: rel, name });
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}
