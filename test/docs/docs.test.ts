/**
 * Docs that run: every `sh`, `yaml` and `json` block of README.md and docs/*.md is executed or validated, in document
 * order, the way test/docs/shell-checks.ts, yaml-checks.ts and json-checks.ts describe. A block that is deliberately
 * not checked says why, in the Markdown: `<!-- not-run: why -->` right before it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../support/paths.js';
import { checkJsonBlock } from './json-checks.js';
import { codeBlocks, type CodeBlock } from './markdown-blocks.js';
import { Sandbox } from './sandbox.js';
import { checkShellBlock, LiveDemo } from './shell-checks.js';
import { checkYamlBlock } from './yaml-checks.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const CHECKED = new Set(['sh', 'yaml', 'json']);
/** Other names of the checked languages: a block written so would escape the test. */
const ALIASES = new Set(['bash', 'shell', 'console', 'zsh', 'yml', 'jsonl']);

const title = (b: CodeBlock): string =>
  `${b.file}:${b.line} ${b.lang}${b.marker ? ` (${b.marker.kind}: ${b.marker.kind === 'not-run' ? b.marker.why : b.marker.what})` : ''}`;

describe('docs that run: every sh, yaml and json block of README.md and docs/', function () {
  this.timeout(180_000);

  it('fences checked languages by their checked names only (sh, yaml, json)', () => {
    const aliased = DOCS.flatMap((file) =>
      codeBlocks(file, readFileSync(join(REPO, file), 'utf8'))
        .filter((b) => ALIASES.has(b.lang))
        .map((b) => `${b.file}:${b.line} ${b.lang}`),
    );
    assert.deepEqual(aliased, []);
  });

  for (const file of DOCS) {
    const blocks = codeBlocks(file, readFileSync(join(REPO, file), 'utf8')).filter((b) => CHECKED.has(b.lang));
    if (blocks.length === 0) continue;
    describe(file, () => {
      let sandbox: Sandbox;
      const demo = new LiveDemo();
      let demoRunning = false;
      before(() => {
        sandbox = new Sandbox();
      });
      after(async () => {
        await demo.close();
        sandbox.remove();
      });

      for (const block of blocks) {
        it(title(block), async () => {
          if (block.marker?.kind === 'not-run') {
            assert.ok(block.marker.why.split(/\s+/).length >= 3, `${block.file}:${block.line}: <!-- not-run: --> needs a reason (a few words)`);
            return;
          }
          if (block.lang === 'yaml') await checkYamlBlock(block, sandbox);
          else if (block.lang === 'json') checkJsonBlock(block);
          else {
            try {
              await checkShellBlock(block, { sandbox, demo, demoRunning: () => demoRunning });
            } finally {
              await demo.close();
            }
            demoRunning ||= /^make run\b/m.test(block.text);
          }
        });
      }
    });
  }
});
