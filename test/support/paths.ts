/** Where test inputs live: the repository's own files (a clone has nothing beside it). */
import { join } from 'node:path';
import { packageRoot } from '../../lib/package-root.js';

export const REPO = packageRoot();
/** The engine's contract cases (test/fixtures/contract/README.md). */
export const CONTRACT_CASES = join(REPO, 'test', 'fixtures', 'contract');
export const BUILTIN_MODEL = 'hypershift-hostedcluster';
