/**
 * The modules a module loads before any of its code runs: its static imports (type-only ones excluded, as the
 * compiler erases them), and theirs, transitively. Packages are named as imported (`@opentelemetry/api`); dynamic
 * `import()`s are where the walk stops, which is how a component loads what it needs only when configured.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface StaticGraph {
  /** Project files reached, relative to the root. */
  readonly files: readonly string[];
  /** Packages reached (bare specifiers, `node:` ones left out). */
  readonly packages: readonly string[];
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((el) => el.isTypeOnly)
  );
}

export function staticImports(root: string, entry: string): StaticGraph {
  const files = new Set<string>();
  const packages = new Set<string>();
  const walk = (path: string): void => {
    if (files.has(path)) return;
    files.add(path);
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, false);
    for (const node of source.statements) {
      if (
        !(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) ||
        !node.moduleSpecifier ||
        !ts.isStringLiteral(node.moduleSpecifier) ||
        isTypeOnly(node)
      )
        continue;
      const spec = node.moduleSpecifier.text;
      if (spec.startsWith('.')) {
        const target = resolve(dirname(path), spec).replace(/\.js$/, '.ts');
        if (existsSync(target)) walk(target);
      } else if (!spec.startsWith('node:')) packages.add(spec);
    }
  };
  walk(resolve(root, entry));
  return { files: [...files].map((f) => relative(root, f)).sort(), packages: [...packages].sort() };
}
