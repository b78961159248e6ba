/**
 * The Dockerfile, read statically (no Docker daemon here): multi-stage, production dependencies only in the final
 * image, a numeric non-root user, the sidecar command the manifests expect, and every source the build compiles
 * actually copied into the build stage.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_FILE } from '../../deploy/sidecar-config.js';
import { packageRoot } from '../../lib/package-root.js';

const root = packageRoot();

interface Stage {
  readonly from: string;
  readonly name?: string;
  readonly instructions: readonly [string, string][];
}

function stages(dockerfile: string): Stage[] {
  const out: { from: string; name?: string; instructions: [string, string][] }[] = [];
  for (const line of dockerfile.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const [, keyword = '', rest = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (keyword === 'FROM') {
      const [, image = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? [];
      out.push({ from: image, ...(name ? { name } : {}), instructions: [] });
    } else {
      out.at(-1)?.instructions.push([keyword, rest]);
    }
  }
  return out;
}

const args = (s: Stage, keyword: string): string[] => s.instructions.filter(([k]) => k === keyword).map(([, rest]) => rest);

describe('deploy: Dockerfile', () => {
  const all = stages(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  const final = all.at(-1)!;

  it('builds in node:24.22.3-bookworm-slim stages (Node 24 LTS, the release .ci/node pins) and ships production dependencies only', () => {
    deepStrictEqual(
      all.map((s) => s.from),
      ['node:24.22.3-bookworm-slim', 'node:24.22.3-bookworm-slim', 'node:24.22.3-bookworm-slim'],
    );
    const deps = all.find((s) => s.name === 'production-deps')!;
    ok(args(deps, 'RUN').some((r) => r.startsWith('npm ci --omit=dev')));
    deepStrictEqual(args(final, 'RUN'), [], 'the final stage runs nothing (no shell needed, nothing written)');
    deepStrictEqual(
      args(final, 'COPY').filter((c) => c.includes('node_modules')),
      ['--from=production-deps /app/node_modules ./node_modules'],
    );
  });

  it('runs as a numeric non-root user the command the sidecar patch expects', () => {
    const [user] = args(final, 'USER');
    ok(user && /^[1-9]\d*:[1-9]\d*$/.test(user), `USER ${user}`);
    const command = [...(JSON.parse(args(final, 'ENTRYPOINT')[0]!) as string[]), ...(JSON.parse(args(final, 'CMD')[0]!) as string[])];
    deepStrictEqual(command, ['node', 'dist/cli/main.js', 'run', '--config', CONFIG_FILE]);
  });

  it('copies every source folder the build compiles, and the built-in models the sidecar reads at run time', () => {
    const build = all.find((s) => s.name === 'build')!;
    const copied = args(build, 'COPY').map((c) => c.split(/\s+/)[0]!);
    const { include } = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    deepStrictEqual(
      include.filter((dir) => !copied.includes(dir)),
      [],
    );
    for (const path of copied) ok(existsSync(join(root, path)), `${path} exists`);
    ok(args(final, 'COPY').includes('model/builtin ./model/builtin'));
    strictEqual(args(final, 'COPY').filter((c) => c.startsWith('package.json')).length, 1, 'package.json marks the package root and "type": "module"');
  });

  it('carries every run-time file the npm package lists (package.json `files`), so the image and the package run alike', () => {
    const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    const copied = args(final, 'COPY').map((c) => c.split(/\s+/)[0]!.replace(/\/$/, ''));
    const runtime = files.filter((f) => !f.startsWith('dist/') && !f.startsWith('!')).map((f) => f.replace(/\/$/, ''));
    deepStrictEqual(
      runtime.filter((f) => !copied.includes(f)),
      [],
    );
    ok(args(final, 'COPY').includes('--from=build /src/dist ./dist'));
  });

  it('keeps what the build needs out of .dockerignore', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    const build = all.find((s) => s.name === 'build')!;
    const needed = [...args(build, 'COPY'), ...args(final, 'COPY')].filter((c) => !c.startsWith('--from')).flatMap((c) => c.split(/\s+/).slice(0, -1));
    deepStrictEqual(
      needed.filter((path) => ignored.some((pattern) => path === pattern || path.startsWith(`${pattern}/`))),
      [],
    );
    ok(ignored.includes('node_modules') && ignored.includes('.git'));
  });
});
