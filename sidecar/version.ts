import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../lib/package-root.js';

/** The package version, for reconcile_shadow_info and trace resources. */
export const VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
