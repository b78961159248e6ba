/** Where test inputs live: the repo's own files, and the shared reference cases CI lays beside the repo. */
import { join } from 'node:path';
import { packageRoot } from '../../model/package-root.js';

export const REPO = packageRoot();
export const SHARED = join(REPO, '..', 'shared');
export const CONTRACT = join(SHARED, 'contract');
/** The engine's contract cases, copied into the repository (see test/fixtures/contract/README.md). */
export const CONTRACT_CASES = join(REPO, 'test', 'fixtures', 'contract');
export const BUILTIN_MODEL = 'hypershift-hostedcluster';
