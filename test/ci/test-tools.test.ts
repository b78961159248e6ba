/**
 * .ci/test-tools, which `make test` and `make e2e` run first: silent when every program the tests use is there; where
 * some are missing and it cannot install them (not root, or no apt-get), it stops at once and names the command to
 * run. The machine's PATH is replaced by a folder holding only what the script itself uses, so "missing" is real.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../support/paths.js';

const SCRIPT = join(REPO, '.ci', 'test-tools');

function runWith(path: string): { status: number | null; stderr: string } {
  const r = spawnSync('/bin/bash', [SCRIPT], { encoding: 'utf8', env: { PATH: path } });
  return { status: r.status, stderr: r.stderr };
}

describe('.ci/test-tools: the programs the tests run', () => {
  let bin: string;
  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), 'rs-tools-'));
    for (const tool of ['id', 'sed']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  });
  afterEach(() => rmSync(bin, { recursive: true, force: true }));

  it('says nothing and succeeds on this machine', () => {
    assert.deepEqual(runWith(process.env.PATH ?? ''), { status: 0, stderr: '' });
  });

  it('without them and without apt-get: stops at once, naming what is missing and the apt-get line', () => {
    assert.deepEqual(runWith(bin), {
      status: 1,
      stderr: [
        'make test needs promtool prometheus kubectl chromium curl, which are not installed. Install them, then run make test again:',
        '  sudo apt-get install --no-install-recommends prometheus kubectl chromium curl',
        '(kubectl: Debian 12 has none of its own; see https://kubernetes.io/docs/tasks/tools/ for kubectl 1.27 or newer)',
        '',
      ].join('\n'),
    });
  });

  it('a kubectl whose kustomize is older than v5 (Debian 12’s kubernetes-client has v2): stops and says why', () => {
    for (const tool of ['promtool', 'prometheus', 'chromium', 'curl']) symlinkSync('/bin/true', join(bin, tool));
    // Debian 12's kubernetes-client 1.20, as `kubectl version --client -o json` prints it.
    writeFileSync(join(bin, 'kubectl'), '#!/bin/sh\necho \'{"clientVersion": {"gitVersion": "v1.20.2"}, "kustomizeVersion": "v2.0.3"}\'\n', { mode: 0o755 });
    assert.deepEqual(runWith(bin), {
      status: 1,
      stderr: `make test needs kubectl with kustomize v5 (kubectl 1.27 or newer); ${join(bin, 'kubectl')} has kustomize 2.\n  Install a newer kubectl: https://kubernetes.io/docs/tasks/tools/\n`,
    });
  });
});
