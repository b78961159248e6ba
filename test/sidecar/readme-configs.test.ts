/** The configs the README shows are real: each `kind: ShadowConfig` block in it passes the sidecar's validation. */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../sidecar/config.js';
import { REPO } from '../support/paths.js';

describe('README config examples', () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.includes('kind: ShadowConfig'));

  it('shows two sidecar configs', () => assert.equal(blocks.length, 2));
  blocks.forEach((block, i) => {
    it(`config example ${i + 1} is valid`, () => {
      const config = parseConfig(block, `README.md example ${i + 1}`);
      assert.ok(config.models.length > 0 || config.recreations !== undefined);
    });
  });
});
