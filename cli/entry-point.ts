/** Whether a module is the script node was started with, however it was reached. */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * True when `moduleUrl` (the caller's `import.meta.url`) is the file `node` was asked to run. `process.argv[1]` is the
 * path as typed, which for an installed command is a symlink (`npm install -g`, `node_modules/.bin`, `npx`) while the
 * module's own URL is the file it points to; both are resolved before they are compared.
 */
export function isEntryPoint(moduleUrl: string, script: string | undefined = process.argv[1]): boolean {
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
