/**
 * The sidecar as JavaScript, the way it runs in the image (`node dist/cli/main.js`), for tests that measure its
 * memory and for the docs' command lines (test/docs/sandbox.ts), which then start as fast as a reader's: under `node --import tsx` the TypeScript loader's own thread and caches add some 100 MiB of RSS that the
 * deployed sidecar does not have. The sources are transpiled one by one (no type check: `make typecheck` does that)
 * into test-output/reliability-js/dist/, beside links to the files the sidecar reads from its package root (the
 * built-in models, the .proto, the examples, package.json), so the root is found as from dist/.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { REPO } from '../support/paths.js';

/** The folders tsconfig.build.json compiles, and deploy/ (cli/generate.ts imports it, so tsc compiles it too). */
const SOURCE_DIRS = [...(JSON.parse(readFileSync(join(REPO, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include, 'deploy'];
/** What the sidecar reads at run time from its package root. */
const PACKAGE_FILES = ['package.json', 'model', 'collector', 'examples'];
const ROOT = join(REPO, 'test-output', 'reliability-js');
const OUT = join(ROOT, 'dist');

let compiled: string | undefined;

/** Path of the compiled `cli/main.js`; compiles once per process. */
export function compiledCli(): string {
  if (compiled) return compiled;
  // From scratch: a file moved or deleted since the last run must not linger.
  rmSync(ROOT, { recursive: true, force: true });
  const options: ts.CompilerOptions = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 };
  for (const dir of SOURCE_DIRS) {
    for (const file of typeScriptFiles(join(REPO, dir))) {
      const out = join(OUT, relative(REPO, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file }).outputText);
    }
  }
  for (const name of PACKAGE_FILES) symlinkSync(join(REPO, name), join(ROOT, name));
  compiled = join(OUT, 'cli', 'main.js');
  return compiled;
}

function typeScriptFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return typeScriptFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}
