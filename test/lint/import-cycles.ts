/**
 * Import cycles among the project's modules: two or more modules that import each other, directly or around a circle.
 * Every import counts, type-only ones too (the compiler erases them, but the two modules still each need the other to
 * be read: a type both use belongs in the folder's types.ts), as do re-exports and `import()`. Each file is parsed
 * with the TypeScript parser, no type check.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : typeScriptFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The project modules `path` imports, in any form. */
function importsOf(path: string): Set<string> {
  const out = new Set<string>();
  const use = (spec: string): void => {
    if (!spec.startsWith('.')) return;
    const target = resolve(dirname(path), spec).replace(/\.js$/, '.ts');
    if (existsSync(target)) out.add(target);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      use(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteral(arg)) use(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      use(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true));
  return out;
}

/**
 * Every circle of imports, one per set of modules that reach each other (a strongly connected component): its
 * shortest circle from the first of them by name, as the modules relative to `root`, the first repeated at the end.
 */
export function importCycles(root: string, folders: readonly string[]): string[][] {
  const files = folders.flatMap((f) => typeScriptFiles(join(root, f)));
  const edges = new Map(files.map((f) => [f, importsOf(f)]));
  // Tarjan's strongly connected components
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)?.has(v)) components.push(component);
  };
  for (const f of files) if (!index.has(f)) connect(f);
  return components.map((component) => shortestCircle(component.sort(), edges).map((f) => relative(root, f))).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest circle from the component's first module back to it, through the component (breadth first). */
function shortestCircle(component: readonly string[], edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const start = component[0]!;
  const inside = new Set(component);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let k = 0; k < queue.length; k++) {
    const v = queue[k]!;
    for (const w of edges.get(v) ?? []) {
      if (w === start) {
        const circle = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) circle.unshift(at);
        circle.unshift(start);
        return circle;
      }
      if (inside.has(w) && !cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}
