import { basename, dirname } from 'node:path';

/**
 * The package's root folder, from where this file is: `<root>/lib` when it runs from source (tsx), `<root>/dist/lib`
 * when built. Pure path arithmetic, so lib/ reads no file.
 */
export function packageRoot(): string {
  const lib = import.meta.dirname;
  const above = dirname(lib);
  return basename(above) === 'dist' ? dirname(above) : above;
}
