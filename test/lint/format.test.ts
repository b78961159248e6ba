/**
 * The code's style: `make lint` runs Prettier's check with the project's config (.prettierrc.json,
 * .prettierignore), over the whole tree. A planted unformatted file fails the check; its formatted form passes.
 */
import { strictEqual } from 'node:assert/strict';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { REPO } from '../support/paths.js';

describe('lint: the code is formatted (Prettier)', function () {
  this.timeout(120_000);
  const file = join(REPO, 'lib', 'planted-unformatted.ts');

  it('refuses a planted unformatted file and accepts its formatted form', async () => {
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    const planted = "export const answer  =  {a:1,b:'two'}\n";
    strictEqual(await prettier.check(planted, options), false);
    const formatted = await prettier.format(planted, options);
    strictEqual(formatted, "export const answer = { a: 1, b: 'two' };\n");
    strictEqual(await prettier.check(formatted, options), true);
  });
});
