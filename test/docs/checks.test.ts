/** The docs checks fail where a doc has drifted: each kind of check, shown a block that is wrong, says what and where. */
import assert from 'node:assert/strict';
import { checkJsonBlock } from './json-checks.js';
import { codeBlocks, type CodeBlock } from './markdown-blocks.js';
import { Sandbox } from './sandbox.js';
import { checkShellBlock, LiveDemo } from './shell-checks.js';
import { parseLine, shellLines } from './shell.js';
import { checkYamlBlock } from './yaml-checks.js';

const block = (lang: string, text: string, marker?: CodeBlock['marker']): CodeBlock => ({
  file: 'doc.md',
  line: 10,
  lang,
  text,
  ...(marker ? { marker } : {}),
});

describe('docs checks: what they refuse', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  const demo = new LiveDemo();
  const shell = (text: string): Promise<void> => checkShellBlock(block('sh', text), { sandbox, demo, demoRunning: () => false });
  before(() => {
    sandbox = new Sandbox();
  });
  after(async () => {
    await demo.close();
    sandbox.remove();
  });

  it('reads markers, fences and languages from Markdown', () => {
    const blocks = codeBlocks(
      'x.md',
      'text\n\n<!-- not-run: needs a cluster of its own -->\n\n```sh\nkubectl get nodes\n```\n<!-- doc-check: ShadowConfig at sources -->\n```yaml\nlogs: {}\n```\n````\nplain\n````\n',
    );
    assert.deepEqual(
      blocks.map((b) => [b.line, b.lang, b.marker]),
      [
        [5, 'sh', { kind: 'not-run', why: 'needs a cluster of its own' }],
        [9, 'yaml', { kind: 'doc-check', what: 'ShadowConfig at sources' }],
        [12, '', undefined],
      ],
    );
  });

  it('splits shell lines: continuations, comments, quotes, substitutions, pipes, background and subshells', () => {
    assert.deepEqual(shellLines('# only a comment\na \\\n  b # note\n\nc "#not" d\n'), ['a    b', 'c "#not" d']);
    const [forward, curl] = parseLine("kubectl port-forward deployment/operator 9465:9465 & curl -s 'http://127.0.0.1:9465/summary' | jq .x");
    assert.deepEqual(
      [forward?.kind === 'pipeline' && forward.background, curl?.kind === 'pipeline' && curl.commands.map((c) => c.words.map((w) => w.text))],
      [
        true,
        [
          ['curl', '-s', 'http://127.0.0.1:9465/summary'],
          ['jq', '.x'],
        ],
      ],
    );
    const [sub] = parseLine('(cd a && kubectl patch --patch "$(kubectl kustomize b)")');
    assert.deepEqual(sub?.kind === 'subshell' && sub.items.map((i) => (i.kind === 'pipeline' ? i.commands[0]!.words.map((w) => w.substitutions) : [])), [
      [[], []],
      [[], [], [], ['kubectl kustomize b']],
    ]);
  });

  it('a command that fails, a flag that does not exist, an unknown command', async () => {
    await assert.rejects(
      shell('reconcile-shadow analyze --model hypershift-hostedcluster --journal missing.jsonl\n'),
      /exited 1:\ncannot read journal missing\.jsonl: ENOENT/,
    );
    await assert.rejects(shell('node dist/cli/main.js simulate --objets 2\n'), /unknown flag --objets \(did you mean --objects\?\)/);
    await assert.rejects(shell('helm install reconcile-shadow .\n'), /`helm` is a command the docs test does not know/);
    await assert.rejects(shell('make no-such-target\n'), /make -n no-such-target/);
  });

  it('kubectl lines that name what deploy/ does not ship', async () => {
    await assert.rejects(
      shell('kubectl -n hypershift patch deployment hypershift-operator --type strategic --patch "$(kubectl kustomize deploy/overlays/hypershift/patch)"\n'),
      /Deployment hypershift\/hypershift-operator is no overlay's target/,
    );
    await assert.rejects(shell('kubectl apply -k deploy/overlays/openshift\n'), /kubectl kustomize/);
    await assert.rejects(
      shell('kubectl -n hypershift get pods -l app=reconcile-shadow\n'),
      /-l app=reconcile-shadow is not the label the patch puts on the pods/,
    );
    await assert.rejects(
      shell('kubectl -n hypershift port-forward deployment/operator 9466:9466 & curl -s 127.0.0.1:9466/summary\n'),
      /the hypershift sidecar listens on no port 9466/,
    );
    await assert.rejects(
      shell('kubectl -n hypershift port-forward deployment/operator 9464:9464 & curl -s 127.0.0.1:9464/summary\n'),
      /\/summary is not served on the metrics listener/,
    );
    await assert.rejects(shell('curl -s 127.0.0.1:9464/metrics\n'), /curl to 127\.0\.0\.1:9464, which nothing in the docs before it opened/);
  });

  it('an image set in one place is the image the patch runs; a push of what was not built', async () => {
    await assert.rejects(
      shell('docker push registry.example.com/x/reconcile-shadow:1\n'),
      /pushes registry\.example\.com\/x\/reconcile-shadow:1, which no docker build above made/,
    );
    sandbox.vars.set('IMAGE', 'registry.example.com/x/reconcile-shadow:9.9.9');
    await assert.rejects(
      shell('kubectl -n hypershift patch deployment operator --type strategic --patch "$(kubectl kustomize deploy/overlays/hypershift/patch)"\n'),
      /the sidecar runs ghcr\.io\/reconcile-shadow\/reconcile-shadow:[\d.]+, not the \$IMAGE built above/,
    );
    await shell(
      '(cd deploy/overlays/hypershift/sidecar && kustomize edit set image reconcile-shadow="$IMAGE")\nkubectl -n hypershift patch deployment operator --type strategic --patch "$(kubectl kustomize deploy/overlays/hypershift/patch)"\n',
    );
  });

  it('YAML that does not load, names its line in the doc', async () => {
    await assert.rejects(
      checkYamlBlock(block('yaml', 'logs:\n  input: {file: x.log}\n  quietFlush: 3000\n', { kind: 'doc-check', what: 'ShadowConfig at sources' }), sandbox),
      /doc\.md:13 sources\.logs\.quietFlush: must be a duration/,
    );
    // A key of an earlier version is an unknown key like any other.
    await assert.rejects(
      checkYamlBlock(block('yaml', 'logs:\n  input: {file: x.log}\n  quietFlushMs: 3000\n', { kind: 'doc-check', what: 'ShadowConfig at sources' }), sandbox),
      /doc\.md:13 sources\.logs\.quietFlushMs: unknown field/,
    );
    await assert.rejects(checkYamlBlock(block('yaml', 'minObjects: few\n', { kind: 'doc-check', what: 'thresholds' }), sandbox), /minObjects/);
    await assert.rejects(
      checkYamlBlock(
        block('yaml', 'operations:\n  - {name: PayloadArch, onError: {phased: end}}\n', {
          kind: 'doc-check',
          what: 'excerpt of model/builtin/hypershift-hostedcluster.yaml at spec',
        }),
        sandbox,
      ),
      /spec\.operations\[0\]: .* is in no item of the file's list/,
    );
    await assert.rejects(
      checkYamlBlock(
        block(
          'yaml',
          'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reconcile-shadow-hypershift}\nrules:\n  - {apiGroups: [""], resources: [secrets], verbs: [get]}\n',
        ),
        sandbox,
      ),
      /rules of ClusterRole\/reconcile-shadow-hypershift that deploy\/ does not grant/,
    );
    await assert.rejects(checkYamlBlock(block('yaml', 'resources: []\n'), sandbox), /says neither its kind nor what it is part of/);
  });

  it('journal lines the parsers refuse, rows a command does not print', () => {
    assert.throws(
      () =>
        checkJsonBlock(
          block(
            'json',
            '{"time":"2026-11-29T10:00:00Z","controller":"hostedcluster","object":"clusters/a","model":"sequential","operations":[{"name":"NoSuchOp","outcome":"ok"}]}\n',
          ),
        ),
      /doc\.md:11: .*NoSuchOp/,
    );
    assert.throws(
      () => checkJsonBlock(block('json', '{"kind":"Job","finished":true}\n', { kind: 'doc-check', what: 'recreations --format jsonl' })),
      /fields kind,finished are no row's/,
    );
  });
});
