/**
 * deploy/indexed-job rendered with the real `kubectl kustomize`, and its pods' scripts run as the Job runs them (each
 * index in turn, then the merge), on the real logger's capture: the report they write is the one `report` writes over
 * the whole input in one process.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseAllDocuments } from 'yaml';
import { REPO } from '../support/paths.js';
import { runCli } from '../support/run-command.js';

interface Container {
  readonly name: string;
  readonly image: string;
  readonly command: readonly string[];
  readonly envFrom: readonly { configMapRef: { name: string } }[];
  readonly env: readonly { name: string; value: string }[];
  readonly volumeMounts: readonly { name: string; mountPath: string }[];
}
interface Rendered {
  readonly kind: string;
  readonly metadata: { name: string; namespace?: string };
  readonly data?: Record<string, string>;
  readonly spec?: {
    completionMode?: string;
    completions?: number;
    parallelism?: number;
    template: { spec: { containers: Container[]; volumes: { name: string; configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }[] } };
  };
}

const REAL = join(REPO, 'test/fixtures/logs/real');

function render(): Rendered[] {
  const r = spawnSync('kubectl', ['kustomize', join(REPO, 'deploy/indexed-job')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Rendered);
}

describe('deploy/indexed-job: offline analysis in N pods', function () {
  this.timeout(300_000);
  const objects = render();
  const job = (name: string): Rendered => objects.find((o) => o.kind === 'Job' && o.metadata.name === name)!;
  const config = objects.find((o) => o.kind === 'ConfigMap')!;
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'indexed-job-'));
    // The image's command, here from the sources (the tsx loader named by path: the scripts run in another directory).
    writeFileSync(
      join(dir, 'reconcile-shadow'),
      `#!/bin/sh\nexec node --import ${import.meta.resolve('tsx')} ${JSON.stringify(join(REPO, 'cli/main.ts'))} "$@"\n`,
    );
    chmodSync(join(dir, 'reconcile-shadow'), 0o755);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('renders an Indexed Job of SHARDS pods and a merge Job, both running the settings’ scripts with the image', () => {
    const analyze = job('reconcile-shadow-analyze');
    const shards = Number(config.data!.SHARDS);
    assert.deepEqual([analyze.spec!.completionMode, analyze.spec!.completions, analyze.spec!.parallelism], ['Indexed', shards, shards]);
    for (const [name, script] of [
      ['reconcile-shadow-analyze', 'analyze.sh'],
      ['reconcile-shadow-merge', 'merge.sh'],
    ] as const) {
      const spec = job(name).spec!.template.spec;
      const container = spec.containers[0]!;
      assert.equal(container.image, 'ghcr.io/reconcile-shadow/reconcile-shadow:0.1.0');
      assert.deepEqual(container.command, ['/bin/sh', `/etc/reconcile-shadow-offline/${script}`]);
      assert.ok(config.data![script]);
      assert.deepEqual(container.envFrom, [{ configMapRef: { name: config.metadata.name } }]);
      assert.deepEqual(container.env, [{ name: 'RECONCILE_SHADOW', value: 'node /app/dist/cli/main.js' }]);
      assert.deepEqual(
        spec.volumes.map((v) => v.configMap?.name ?? v.persistentVolumeClaim?.claimName),
        ['reconcile-shadow-data', config.metadata.name],
      );
      assert.deepEqual(
        container.volumeMounts.map((m) => m.mountPath),
        ['/data', '/etc/reconcile-shadow-offline'],
      );
    }
  });

  /** Runs a script of the ConfigMap as the pod does: its settings as environment, some changed for this machine. */
  function pod(script: string, env: Record<string, string>): void {
    const path = join(dir, script);
    writeFileSync(path, config.data![script]!);
    const r = spawnSync('/bin/sh', [path], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH, ...config.data, RECONCILE_SHADOW: join(dir, 'reconcile-shadow'), ...env },
    });
    assert.equal(r.status, 0, `${script} ${JSON.stringify(env)}: ${r.stderr}`);
  }

  it('SPLIT=objects: the pods’ partials of one journal merge into the report of the whole journal', async () => {
    const journal = join(dir, 'journal.jsonl');
    writeFileSync(journal, gunzipSync(readFileSync(join(REAL, 'sequential.journal.jsonl.gz'))));
    const work = join(dir, 'objects');
    // Two pods here (each a process of the TypeScript sources); the rendered Job runs SHARDS of them alike.
    const settings = { INPUT: journal, WORK: work, SHARDS: '2' };
    for (let i = 0; i < 2; i++) pod('analyze.sh', { ...settings, JOB_COMPLETION_INDEX: String(i) });
    pod('merge.sh', settings);
    const whole = await runCli(['report', '--model', config.data!.MODEL!, '--journal', journal, '--format', 'html']);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(readFileSync(join(work, 'report.html'), 'utf8'), whole.stdout);
  });

  it('SPLIT=files: one operator log per pod, read whole; the merge adds the fleet up', async () => {
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    for (const loop of ['phased', 'sequential']) writeFileSync(join(logs, `${loop}.operator.log.gz`), readFileSync(join(REAL, `${loop}.operator.log.gz`)));
    const work = join(dir, 'files');
    const settings = { INPUT_KIND: 'logs', INPUT: join(logs, '*.log.gz'), SPLIT: 'files', SHARDS: '2', FORMAT: 'json', WORK: work };
    for (let i = 0; i < 2; i++) pod('analyze.sh', { ...settings, JOB_COMPLETION_INDEX: String(i) });
    pod('merge.sh', settings);
    type Decisions = { controllers: { populations: Record<'sequential' | 'phased', { attempts: number }> }[] };
    const attempts = (json: string): number =>
      (JSON.parse(json) as Decisions).controllers.reduce((n, c) => n + c.populations.sequential.attempts + c.populations.phased.attempts, 0);
    const each = await Promise.all(
      ['phased', 'sequential'].map((loop) =>
        runCli(['report', '--model', config.data!.MODEL!, '--logs', join(logs, `${loop}.operator.log.gz`), '--format', 'json']),
      ),
    );
    assert.equal(attempts(readFileSync(join(work, 'report.json'), 'utf8')), attempts(each[0]!.stdout) + attempts(each[1]!.stdout));
    // A pod past the files fails, naming the pattern.
    const r = spawnSync('/bin/sh', [join(dir, 'analyze.sh')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ...config.data, ...settings, JOB_COMPLETION_INDEX: '2' },
    });
    assert.deepEqual([r.status, r.stderr], [1, `pod 2: no file 3 matches ${settings.INPUT}\n`]);
  });
});
