import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package's root folder, found from this file whether it runs from source (tsx) or from dist/. */
export function packageRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('reconcile-shadow: package.json not found above ' + import.meta.dirname);
    dir = parent;
  }
  return dir;
}
