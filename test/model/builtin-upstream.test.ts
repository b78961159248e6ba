/**
 * The built-in HyperShift model against the upstream code, as extracted once from openshift/hypershift at the merge of
 * PR #7908 and at HEAD into test/fixtures/upstream/hostedcluster.json (see the README there). What the extraction
 * cannot know, which caller wraps which error, is stated below, and each statement is itself checked against the
 * table: a wrapper must be an error format of the caller's loop.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorEffect, formatsIn, phasedPlaces } from '../../model/effects.js';
import { modelForBuild } from '../../model/builds.js';
import { resolveModel } from '../../sidecar/files.js';
import { parseDocument, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { OPERATION_WRITES, type LoopKind, type ReconcileModel } from '../../model/types.js';
import { BUILTIN_MODEL, REPO } from '../support/paths.js';

interface FormatRow {
  readonly commit: string;
  readonly function: string;
  readonly line: number;
  readonly format: string;
  readonly use: 'return' | 'append' | 'log' | 'other';
  readonly closure: string | null;
}
interface WriteRow {
  readonly commit: string;
  readonly function: string;
  readonly call: string;
}
interface UnwrappedRow {
  readonly commit: string;
  readonly function: string;
  readonly line: number;
  readonly callee: string;
  readonly closure: string | null;
}
interface Upstream {
  readonly functions: readonly { readonly name: string; readonly loops: readonly LoopKind[] }[];
  readonly writes: readonly WriteRow[];
  readonly unwrapped: readonly UnwrappedRow[];
  readonly absent: readonly { readonly commit: string; readonly function: string }[];
  readonly sentinels: readonly { readonly commit: string; readonly name: string; readonly text: string }[];
  readonly source: { readonly commits: Readonly<Record<string, string>> };
  readonly steps: Readonly<Record<string, readonly { name: string; call: 'execute' | 'executeOrBlock'; category: string; checksShouldBlock: boolean }[]>>;
  readonly formats: readonly FormatRow[];
}

const upstream = JSON.parse(readFileSync(join(REPO, 'test/fixtures/upstream/hostedcluster.json'), 'utf8')) as Upstream;
const model = resolveModel(BUILTIN_MODEL);
const places = phasedPlaces(model);
const LOOPS: readonly LoopKind[] = ['sequential', 'phased'];
const loopsOf = new Map(upstream.functions.map((f) => [f.name, f.loops]));

/** Functions a loop calls only through a format of its own: none of their texts starts an operation's error there. */
const WRAPPED_FUNCTIONS: readonly { function: string; loop: LoopKind; by: string }[] = [
  { function: 'reconcileControlPlaneOperator', loop: 'sequential', by: 'failed to reconcile control plane operator: %w' },
  { function: 'reconcileControlPlaneOperator', loop: 'phased', by: 'failed to reconcile control plane operator: %w' },
  { function: 'reconcileKubeconfigSync', loop: 'phased', by: 'failed to reconcile kubeconfig: %w' },
  { function: 'reconcileCustomKubeconfigSync', loop: 'phased', by: 'failed to reconcile custom kubeconfig: %w' },
  { function: 'reconcileCustomExternalKubeconfig', loop: 'phased', by: 'failed to reconcile custom kubeconfig: %w' },
  { function: 'reconcileKubeadminPasswordSync', loop: 'phased', by: 'failed to reconcile kubeadmin password: %w' },
  { function: 'serviceAccountSigningKeyBytes', loop: 'sequential', by: 'failed to reconcile service account signing key: %w' },
];

/** Single errors wrapped where they are made: a createOrUpdate mutate function's error, which its caller wraps. */
const WRAPPED_ROWS: readonly { function: string; format: string; by: string }[] = [
  { function: 'reconcileLegacy', format: 'failed to get next available SecurityContext UID: %w', by: 'failed to reconcile namespace: %w' },
  { function: 'reconcileControlPlaneNamespace', format: 'failed to get next available SecurityContext UID: %w', by: 'failed to reconcile namespace: %w' },
  { function: 'reconcileLegacy', format: 'hostedcluster pull secret %q must have a .dockerconfigjson key', by: 'failed to reconcile pull secret: %w' },
  {
    function: 'reconcileLegacy',
    format: 'hostedcluster SSHKey secret %q must have a id_rsa.pub key',
    by: 'failed to reconcile controlplane SSHKey secret: %w',
  },
  {
    function: 'reconcileLegacy',
    format: 'controlplane kubeconfig secret %q must have a %q key',
    by: 'failed to reconcile hostedcluster kubeconfig secret: %w',
  },
  {
    function: 'reconcileAdditionalTrustBundle',
    format: 'hostedcluster AdditionalTrustBundle configmap %q must have a ca-bundle.crt key',
    by: 'failed to reconcile controlplane AdditionalTrustBundle configmap: %w',
  },
  {
    function: 'reconcileCustomExternalKubeconfig',
    format: 'controlplane custom external kubeconfig secret %q must have a %q key',
    by: 'failed to reconcile hostedcluster custom external kubeconfig secret: %w',
  },
  {
    function: 'reconcileKubevirtPlatformDefaultSettings',
    format: 'failed to generate the etcd encryption key; %w',
    by: 'failed to create ETCD SecretEncryption key for KubeVirt platform HostedCluster: %w',
  },
];

/** Errors that wrap a package-level sentinel as their first `%w`: their text starts with the sentinel's. */
const SENTINEL_WRAPS: ReadonlyMap<string, string> = new Map([['GetPullSecretBytes', 'ErrPullSecretUnavailable']]);

/**
 * The legacy gate returns fmt.Errorf("%s", message) of the ValidReleaseImage=False/SecretNotFound condition, whose
 * message is validateReleaseImage's error: a NotFound from GetPullSecretBytes (the only NotFound it can return).
 */
const GATE = { function: 'reconcileLegacy', format: '%s', op: 'ValidationGates', text: 'pull secret unavailable: %w' };

/** A text made of two upstream formats: the phased control plane operator's error when the ingress domain failed. */
const COMPOSED = {
  op: 'DefaultIngressDomain',
  format: 'failed to reconcile control plane operator: failed to determine default ingress domain: %w',
  outer: { function: 'reconcileOperatorDeployments', format: 'failed to reconcile control plane operator: %w' },
  inner: { function: 'reconcileControlPlaneOperator', format: 'failed to determine default ingress domain: %w' },
};

const sentinel = (name: string): string => upstream.sentinels.find((s) => s.name === name && s.commit === 'head')!.text;

/** A row's text as an error can start with it: a sentinel's `%w` replaced by the sentinel's text. */
function rowText(row: FormatRow): string {
  const wrapped = SENTINEL_WRAPS.get(row.function);
  return wrapped ? row.format.replace(/^%w/, sentinel(wrapped)) : row.format;
}

function isWrapped(row: FormatRow, loop: LoopKind): boolean {
  return (
    WRAPPED_FUNCTIONS.some((w) => w.function === row.function && w.loop === loop) ||
    WRAPPED_ROWS.some((w) => w.function === row.function && w.format === row.format)
  );
}

/** The merge and HEAD: the commits of the model as written (the tests below the builds' read one commit each). */
const MODEL_COMMITS: readonly string[] = ['merge', 'head'];

/** Rows whose text can start an operation's error in `loop` at these commits: returned or collected, not wrapped there. */
function outermost(loop: LoopKind, commits: readonly string[] = MODEL_COMMITS): FormatRow[] {
  return upstream.formats.filter(
    (r) =>
      commits.includes(r.commit) &&
      (r.use === 'return' || r.use === 'append') &&
      loopsOf.get(r.function)!.includes(loop) &&
      !isWrapped(r, loop) &&
      !(r.function === GATE.function && r.format === GATE.format),
  );
}

/** Every (loop, format) the model lists, with the ops listing it. */
function modelFormats(m: ReconcileModel = model): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const op of m.operations)
    for (const loop of LOOPS) {
      if (op.only !== undefined && op.only !== loop) continue;
      for (const f of formatsIn(op, loop)) out.set(`${loop}\u0000${f.format}`, [...(out.get(`${loop}\u0000${f.format}`) ?? []), op.name]);
    }
  return out;
}

/** The loop functions: an operation inline in them has no function of its own, so their writes cannot be told apart. */
const LOOP_FUNCTIONS = new Set(['reconcileLegacy', 'reconcile']);

/**
 * Callees a loop function returns unwrapped that the table does not read, and why no format of theirs can start an
 * operation's error: API errors, or functions whose own texts are wrapped one level further down.
 */
const UNREAD_CALLEES: ReadonlyMap<string, string> = new Map([
  ['report.aggregate', "the phased loop's own result"],
  [
    'r.reconcileAWSOIDCDocuments',
    'returned inside the function reconcileOIDCDocumentsWithStatus runs, which wraps it (failed to reconcile OIDC documents: %w)',
  ],
  [
    'r.reconcileGCPOIDCDocuments',
    'returned inside the function reconcileOIDCDocumentsWithStatus runs, which wraps it (failed to reconcile OIDC documents: %w)',
  ],
  ['r.detectAndTriggerEtcdRecovery', 'inside reconcileETCDMemberRecovery, which the loops wrap (failed to perform etcd member recovery: %w)'],
  ['r.KubevirtInfraClients.DiscoverKubevirtClusterClient', 'a KubeVirt infra client lookup (a client-go error)'],
  ['manifests.ReconcileKubevirtInfraTempRoute', 'a mutate function (createOrUpdate returns its error)'],
  // Mutate functions: createOrUpdate hands their error back, and the caller wraps it or they have no format.
  ['reconcileCAPICluster', 'both loops wrap its createOrUpdate (failed to reconcile capi cluster: %w)'],
  ['reconcileControlPlaneOperatorIngressRole', 'inside reconcileControlPlaneOperator, which both loops wrap'],
  ['reconcilecontrolPlaneOperatorIngressOperatorRole', 'inside reconcileControlPlaneOperator, which both loops wrap'],
  ['reconcileAgentCluster', 'no format of its own'],
  ['reconcileAWSCluster', 'no format of its own'],
  ['reconcileAzureClusterIdentity', 'wrapped: failed to reconcile Azure cluster identity: %w'],
  ['reconcileAzureCluster', 'wrapped: failed to reconcile Azure CAPI cluster: %w'],
  ['p.reconcileGCPCluster', 'wrapped: failed to reconcile GCPCluster: %w'],
  ['reconcileKMSConfigSecret', 'wrapped: failed to reconcile Azure KMS config secret: %w'],
]);

/** An API call: its error is the API server's (or client-go's), never a format of the model. */
const isApiCall = (callee: string): boolean =>
  /^(?:createOrUpdate|k8sutil\.\w+|os\.\w+|[\w.]+(?:\(\))?\.(?:Get|List|Create|Update|Patch|Delete|DeleteAllOf))$/.test(callee);

/**
 * The table's function a callee names: `p.X` is any platform's `X`, `r.` and `hyperutil.` are dropped, and a bare name
 * called in a package (`openstack.ReconcileCAPIInfraCR`) is that package's.
 */
function readFunctions(callee: string, caller: string): string[] {
  const names = upstream.functions.map((f) => f.name);
  const pkg = /^(\w+)\.[A-Z]/.exec(caller)?.[1];
  if (pkg !== undefined && names.includes(`${pkg}.${callee}`)) return [`${pkg}.${callee}`];
  if (callee === 'r.RegistryProvider.Reconcile') return names.filter((n) => n === 'globalconfig.CommonRegistryProvider.Reconcile');
  if (callee.startsWith('p.')) return names.filter((n) => n.endsWith(`.${callee.slice(2)}`));
  const bare = callee.replace(/^(?:r|hyperutil)\./, '');
  return names.filter((n) => n === bare || n === callee);
}

/** The functions an op's `writes:` comment in the YAML cites (`name(), name(): what they write`), and the comment. */
function writesCitations(): Map<string, { writes: string | undefined; cited: string[]; comment: string }> {
  const doc = parseDocument(readFileSync(join(REPO, 'model/builtin', `${BUILTIN_MODEL}.yaml`), 'utf8'));
  const ops = doc.getIn(['spec', 'operations']) as YAMLSeq<YAMLMap>;
  const out = new Map<string, { writes: string | undefined; cited: string[]; comment: string }>();
  for (const item of ops.items) {
    const node = item.get('writes', true) as Scalar<string> | undefined;
    const comment = node?.comment ?? '';
    out.set(String(item.get('name')), {
      writes: node?.value,
      cited: [...(comment.split(': ')[0] ?? '').matchAll(/([A-Za-z][\w.]*)\(\)/g)].map((m) => m[1]!),
      comment,
    });
  }
  return out;
}

describe('built-in HyperShift model against the upstream code', () => {
  it("the table holds every build's commit, every function found at the merge and HEAD but the HEAD-only check and the older builds' ones", () => {
    const absentAt = (commit: string): string[] => upstream.absent.filter((a) => a.commit === commit).map((a) => a.function);
    const older = ['reconcileAWSSubnets', 'backwardcompat.GetBackwardCompatibleCAPIImage'];
    assert.deepEqual(absentAt('merge'), ['validateManagedHSMVersion', ...older]);
    assert.deepEqual(absentAt('head'), older);
    assert.deepEqual(absentAt('release-5.0'), ['validateManagedHSMVersion', ...older]);
    // Before the merge: no phased loop (reconcile() is read as reconcileLegacy()), so none of its step functions.
    assert.deepEqual([absentAt('release-4.22').length, absentAt('release-4.21').length], [23, 24]);
    assert.ok(absentAt('release-4.22').includes('reconcile') && !absentAt('release-4.22').includes('reconcileLegacy'));
    assert.deepEqual(
      Object.keys(upstream.source.commits).map((c) => [c, upstream.formats.filter((r) => r.commit === c).length, upstream.steps[c]!.length]),
      [
        ['merge', 353, 20],
        ['head', 357, 21],
        ['release-5.0', 355, 20],
        ['release-4.22', 256, 0],
        ['release-4.21', 242, 0],
      ],
    );
  });

  it('every operation says what it writes, citing upstream functions the table read, whose writes agree', () => {
    const citations = writesCitations();
    const wrong: string[] = [];
    for (const op of model.operations) {
      const c = citations.get(op.name)!;
      assert.equal(c.writes, op.writes, op.name);
      assert.ok(op.writes !== undefined && c.cited.length > 0, `${op.name}: writes and a citation of its function`);
      for (const fn of c.cited) assert.ok(loopsOf.has(fn), `${op.name}: ${fn}() is not a function of the table`);
      // Inline in a loop function, the code's writes cannot be told apart from the other operations' there.
      const own = c.cited.filter((fn) => !LOOP_FUNCTIONS.has(fn));
      if (own.length === 0) continue;
      const calls = upstream.writes.filter((w) => w.commit === 'head' && own.includes(w.function)).map((w) => w.call);
      const shows = calls.length === 0 ? 'none' : calls.every((call) => call.startsWith('Status().')) ? 'status' : 'objects';
      // An operation that writes objects through a callee the table does not read (the platform's credentials) shows
      // only its status write: `objects` is then at least what the table shows.
      if (shows !== op.writes && !(op.writes === 'objects' && shows === 'status'))
        wrong.push(`${op.name}: writes ${op.writes}, ${own.join(', ')} show ${shows}`);
    }
    assert.deepEqual(wrong, []);
    assert.deepEqual(
      OPERATION_WRITES.map((w) => model.operations.filter((o) => o.writes === w).length),
      [28, 3, 39],
    );
  });

  it('every callee a loop returns unwrapped is read, or an API call, or stated here with why its texts cannot start an error', () => {
    const loopFunctions = new Set(upstream.functions.filter((f) => f.loops.length > 0).map((f) => f.name));
    // A mutate function's error comes back from createOrUpdate as it is: read even there, except where a format wraps
    // createOrUpdate's error (the stated mutate helpers below have no format of their own).
    const unread = upstream.unwrapped.filter(
      (u) => loopFunctions.has(u.function) && !isApiCall(u.callee) && readFunctions(u.callee, u.function).length === 0 && !UNREAD_CALLEES.has(u.callee),
    );
    assert.deepEqual(
      unread.map((u) => `${u.commit} ${u.function}:${u.line} ${u.callee}`),
      [],
    );
    for (const callee of UNREAD_CALLEES.keys())
      assert.ok(
        upstream.unwrapped.some((u) => u.callee === callee),
        `${callee} is no longer returned unwrapped`,
      );
    assert.deepEqual(readFunctions('p.ReconcileCAPIInfraCR', 'reconcileLegacy').length, 9);
  });

  it('the phased groups are the reconcile report steps at HEAD, in order, with their category and blocking', () => {
    const groups = model.phased.flatMap((s) => (s.kind === 'group' ? [s] : []));
    assert.deepEqual(
      groups.map((g) => ({ name: g.group, category: g.category, blockable: g.blockable, skipWhenBlocked: g.skipWhenBlocked })),
      upstream.steps.head!.map((s) => ({
        name: s.name,
        category: s.call === 'executeOrBlock' ? 'nonCritical' : s.category,
        blockable: s.call === 'executeOrBlock',
        skipWhenBlocked: s.checksShouldBlock,
      })),
    );
  });

  it('the merge differs from HEAD by the ManagedHSMVersionCheck step and the SSH key delete: the parts marked HEAD only', () => {
    assert.deepEqual(
      upstream.steps.head!.map((s) => s.name).filter((n) => !upstream.steps.merge!.some((m) => m.name === n)),
      ['ManagedHSMVersionCheck'],
    );
    const key = (r: FormatRow): string => `${r.function}: ${r.format}`;
    const merge = new Set(upstream.formats.filter((r) => r.commit === 'merge').map(key));
    assert.deepEqual(
      [...new Set(upstream.formats.filter((r) => r.commit === 'head' && !merge.has(key(r))).map(key))],
      [
        'reconcileSSHKeySync: failed to delete unused SSHKey secret: %w',
        'validateManagedHSMVersion: release image version %s does not support Azure Managed HSM, which requires version %s or newer',
      ],
    );
    assert.equal(model.operations.find((o) => o.name === 'ManagedHSMVersionCheck')?.only, 'phased');
  });

  it('every format an operation error can start with upstream is on an operation, in that loop', () => {
    const listed = modelFormats();
    for (const loop of LOOPS) {
      const missing = [...new Set(outermost(loop).map(rowText))].filter((text) => !listed.has(`${loop}\u0000${text}`));
      assert.deepEqual(missing, [], `${loop}: upstream formats no operation lists`);
    }
  });

  it('every format of the model is upstream’s, in the loop the model puts it', () => {
    const produced = new Set(LOOPS.flatMap((loop) => outermost(loop).map((r) => `${loop}\u0000${rowText(r)}`)));
    produced.add(`sequential\u0000${GATE.text}`);
    produced.add(`phased\u0000${COMPOSED.format}`);
    const invented = [...modelFormats()].filter(([key]) => !produced.has(key)).map(([key, ops]) => `${key.replace('\u0000', ': ')} (${ops.join(', ')})`);
    assert.deepEqual(invented, []);
  });

  it('each stated wrapper is an error format of the wrapping loop, and each composed text is made of real parts', () => {
    for (const w of [...WRAPPED_FUNCTIONS, ...WRAPPED_ROWS.map((r) => ({ ...r, loop: loopsOf.get(r.function)![0]! }))]) {
      assert.ok(
        outermost(w.loop).some((r) => r.format === w.by),
        `${w.function}: "${w.by}" is not an outermost ${w.loop} format`,
      );
    }
    for (const part of [COMPOSED.outer, COMPOSED.inner])
      assert.ok(
        upstream.formats.some((r) => r.function === part.function && r.format === part.format),
        part.format,
      );
    assert.ok(upstream.formats.some((r) => r.function === GATE.function && r.format === GATE.format && r.use === 'return'));
    assert.deepEqual(
      upstream.sentinels.map((s) => [s.commit, s.text]),
      ['merge', 'head', 'release-5.0'].map((c) => [c, 'pull secret unavailable']),
    );
  });

  it('in a collect group an error that the group function returns ends the group, one it collects does not', () => {
    const collectors = new Set(upstream.formats.filter((r) => r.use === 'append').map((r) => r.function));
    const checked: string[] = [];
    for (const row of upstream.formats.filter((r) => r.commit === 'head' && collectors.has(r.function))) {
      const op = model.operations.find((o) => formatsIn(o, 'phased').some((f) => f.format === row.format))!;
      const place = places.get(op.name)!;
      assert.equal(place.kind === 'group' && place.group.mode, 'collect', op.name);
      const format = op.errors.find((f) => f.format === row.format);
      assert.equal(errorEffect(op, 'phased', place, format), row.use === 'append' ? 'continue' : 'endGroup', `${op.name}: ${row.format}`);
      checked.push(op.name);
    }
    assert.deepEqual(checked.sort(), [
      'CAPIManager',
      'CAPIProvider',
      'CLISecrets',
      'ClusterPrometheusRBAC',
      'ControlPlaneOperator',
      'CustomKubeconfigSync',
      'KarpenterOperator',
      'KubeadminPasswordSync',
      'KubeconfigSync',
      'MonitoringDashboard',
      'NetworkPolicies',
      'OpenShiftTrustedCAs',
      'PKIOperatorRBAC',
      'SREMetricsConfig',
      'SecurityContextUID',
    ]);
  });

  it('the per-loop rules the code shows: fatal in legacy, going on in phased', () => {
    const effect = (name: string, loop: LoopKind, format?: string): string => {
      const op = model.operations.find((o) => o.name === name)!;
      return errorEffect(op, loop, places.get(name)!, format === undefined ? undefined : op.errors.find((f) => f.format === format));
    };
    assert.deepEqual(
      ['PayloadArch', 'LookupReleaseImage'].map((op) => [effect(op, 'sequential'), effect(op, 'phased')]),
      [
        ['end', 'continue'],
        ['end', 'continue'],
      ],
    );
    assert.deepEqual([effect('ValidationGates', 'sequential', GATE.text), effect('ValidationGates', 'phased', GATE.text)], ['end', 'continue']);
    assert.deepEqual(
      [effect('ValidationGates', 'sequential', 'configuration is invalid: %s'), effect('ValidationGates', 'phased', 'configuration is invalid: %s')],
      ['end', 'end'],
    );
    assert.equal(effect('SecurityContextUID', 'phased'), 'endGroup');
  });
});

/**
 * The legacy gate's `%s` is validateReleaseImage's error for a SecretNotFound reason: GetPullSecretBytes's NotFound,
 * `pull secret unavailable: %w` since the sentinel, `failed to get pull secret: %w` before it (release-4.22, 4.21).
 */
const GATE_TEXT: Readonly<Record<string, string>> = { 'release-4.22': 'failed to get pull secret: %w', 'release-4.21': 'failed to get pull secret: %w' };

describe('the built-in HyperShift model of each operator build against the upstream code at its commit', () => {
  const builds = model.builds ?? [];

  it('covers the merge, HEAD and the release branches, each at the commit its table was extracted at', () => {
    assert.deepEqual(
      builds.map((b) => [b.name, b.loops.join('+'), b.versions.join(',')]),
      [
        ['head', 'sequential+phased', '5.1,5.2'],
        ['merge', 'sequential+phased', ''],
        ['release-5.0', 'sequential+phased', '5.0,4.23'],
        ['release-4.22', 'sequential', '4.22'],
        ['release-4.21', 'sequential', '4.21'],
      ],
    );
    for (const b of builds)
      assert.ok(upstream.source.commits[b.name]?.startsWith(b.commit), `${b.name}: table commit ${upstream.source.commits[b.name]} is not ${b.commit}`);
  });

  for (const build of builds) {
    describe(`build ${build.name}`, () => {
      const derived = modelForBuild(model, build.name);
      const produced = (loop: LoopKind): Set<string> => {
        const out = new Set(outermost(loop, [build.name]).map(rowText));
        if (loop === 'sequential') out.add(GATE_TEXT[build.name] ?? GATE.text);
        if (loop === 'phased') out.add(COMPOSED.format);
        return out;
      };

      it('lists every format an operation error can start with at its commit, and none other, in the loops it runs', () => {
        const listed = modelFormats(derived);
        for (const loop of build.loops) {
          const made = produced(loop);
          assert.deepEqual(
            [...made].filter((text) => !listed.has(`${loop}\u0000${text}`)),
            [],
            `${build.name} ${loop}: upstream formats no operation lists`,
          );
          assert.deepEqual(
            [...listed]
              .filter(([key]) => key.startsWith(`${loop}\u0000`) && !made.has(key.slice(loop.length + 1)))
              .map(([key, ops]) => `${key.slice(loop.length + 1)} (${ops.join(', ')})`),
            [],
            `${build.name} ${loop}: formats the code at ${build.commit} does not have`,
          );
        }
      });

      it('has the reconcile report steps at its commit as its phased groups, or no report when it has no phased loop', () => {
        const steps = upstream.steps[build.name]!;
        if (!build.loops.includes('phased')) return assert.deepEqual(steps, []);
        const groups = derived.phased.flatMap((s) => (s.kind === 'group' ? [s] : []));
        assert.deepEqual(
          groups.map((g) => ({ name: g.group, category: g.category, blockable: g.blockable, skipWhenBlocked: g.skipWhenBlocked })),
          steps.map((s) => ({
            name: s.name,
            category: s.call === 'executeOrBlock' ? 'nonCritical' : s.category,
            blockable: s.call === 'executeOrBlock',
            skipWhenBlocked: s.checksShouldBlock,
          })),
        );
      });
    });
  }
});
